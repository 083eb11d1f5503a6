// libFuzzer target for the S3 archive's manifest (issue 29, item 6): a store that is not ours,
// or a manifest someone edited, is read by recovery::s3::Manifest::from_json, which refuses
// (binrecover::Error) anything that is not a manifest, and every name that is not a binlog's
// (binlog::bad_log_name). What it takes must be written back by to_json as a manifest it takes
// again, unchanged from then on. Seeds: tests/fuzz/seeds/manifest/.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "binlog/error.h"
#include "binlog/log_name.h"
#include "recovery/storage/s3_archive.h"

namespace {

[[noreturn]] void bad(const char* what, const std::string& detail) {
  std::fprintf(stderr, "manifest_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using binrecover::recovery::s3::Manifest;
  const std::string text(reinterpret_cast<const char*>(data), size);
  Manifest m;
  try {
    m = Manifest::from_json(text, "fuzz");
  } catch (const binrecover::Error&) {
    return 0;  // refused: the point
  }
  for (const auto& f : m.files) {
    if (!binrecover::binlog::bad_log_name(f.name).empty()) bad("a name taken", f.name);
    if (!f.next.empty() && f.next != "?" && !binrecover::binlog::bad_log_name(f.next).empty())
      bad("a next name taken", f.next);
  }
  std::string once, twice;
  try {
    once = m.to_json();
    twice = Manifest::from_json(once, "fuzz (written again)").to_json();
  } catch (const std::exception& e) {
    bad("a manifest taken is not written as one taken again", e.what());
  }
  if (once != twice) bad("the manifest changes when written again", once + "\n---\n" + twice);
  return 0;
}
