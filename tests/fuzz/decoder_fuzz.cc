// libFuzzer target over the whole decoder: framing, checksums, every event body, transaction
// assembly, filters, SQL output (default, -vv rows, --rows-as-sql: every column type, JSON,
// partial JSON diffs) and the event listing. Built by tests/fuzz/run.sh with clang,
// ASan and UBSan. The input is a binlog; a missing magic is supplied so that mutations spend
// their time past it.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "binlog/error.h"
#include "recovery/emit/event_list.h"
#include "recovery/emit/run_sql.h"
#include "recovery/sql/output.h"
#include "recovery/sql/sql_sink.h"

namespace {

int null_fd() {
  static const int fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  return fd;
}

// LOAD DATA blocks are written as files: one folder for the run, emptied now and then.
const std::string& load_dir() {
  // Never destroyed: the exit handler that removes the folder runs after static destructors.
  static const std::string* const dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    auto* t = new std::string(std::string(tmp != nullptr && *tmp ? tmp : "/tmp") +
                              "/binrecover-fuzz-XXXXXX");
    if (::mkdtemp(t->data()) == nullptr) std::abort();
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(load_dir(), ec);
    });
    return t;
  }();
  static unsigned runs = 0;
  if (++runs % 1000 == 0) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(*dir, ec))
      std::filesystem::remove(e.path(), ec);
  }
  return *dir;
}

void run(const std::vector<std::byte>& bytes, bool verify, bool filtered, int rows_mode) {
  using namespace binrecover;
  recovery::InputFile in{"fuzz", "fuzz", binlog::Bytes(bytes.data(), bytes.size()),
                         {},     {},     std::nullopt};
  recovery::DecodeOptions decode;
  decode.reader.verify_checksum = verify;
  decode.reader.force_read = !verify;
  // Every other run reads each transaction twice instead of holding it (the large-transaction
  // path of the reading loop).
  if (rows_mode != 1) decode.max_unit_memory = 0;
  recovery::FilterOptions filter;
  if (filtered) {
    filter.databases = {"zyyshop", "crm"};
    filter.tables = {{"zyyshop", "tt"}};
  }
  auto quiet = [](const std::string&) {};
  try {
    recovery::Output out(null_fd(), "null");
    recovery::SqlOptions sql;
    sql.local_load_dir = load_dir();
    if (rows_mode == 1) sql.verbose = 2;
    if (rows_mode == 2) sql.rows_as_sql = true;
    recovery::SqlSink sink(out, sql);
    recovery::run_sql({in}, decode, filter, sink, quiet);
  } catch (const Error&) {
  }
  try {
    recovery::Output out(null_fd(), "null");
    recovery::EventListOptions list;
    list.format = filtered ? recovery::TableFormat::kJson : recovery::TableFormat::kTable;
    recovery::run_event_list({in}, decode, filter, list, out, quiet);
  } catch (const Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::uint8_t kMagic[4] = {0xfe, 0x62, 0x69, 0x6e};
  std::vector<std::byte> bytes;
  bytes.reserve(size + 4);
  if (size < 4 || std::memcmp(data, kMagic, 4) != 0)
    for (std::uint8_t m : kMagic) bytes.push_back(std::byte{m});
  for (std::size_t i = 0; i < size; ++i) bytes.push_back(std::byte{data[i]});
  // Without checksums most mutations reach the body decoders; with them, the reader's checks.
  const int rows_mode = static_cast<int>(size % 3);  // plain, -vv, --rows-as-sql
  run(bytes, false, (size & 1) != 0, rows_mode);
  run(bytes, true, false, rows_mode);
  return 0;
}
