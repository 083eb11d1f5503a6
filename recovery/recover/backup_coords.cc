#include "recovery/recover/backup_coords.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstddef>
#include <cstring>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "binlog/error.h"
#include "recovery/recover/backup_text.h"

namespace binrecover::recovery {
namespace {

using namespace coords;

// Coordinates sit in a dump's first few kilobytes; 1 MiB leaves room for a very long GTID set.
constexpr std::size_t kHeadLimit = std::size_t{1} << 20;
// mariadb-dump 10.11+ writes gtid_slave_pos after all the data, followed by ~1 KiB of SET lines.
constexpr std::size_t kTailLimit = std::size_t{64} << 10;

// ---------------------------------------------------------------------------------------------
// Reading

// Formats we can name but not read: a compressed dump, or a binlog given by mistake.
std::optional<std::string_view> binary_kind(std::string_view head) {
  const auto starts = [&](std::string_view magic) { return head.substr(0, magic.size()) == magic; };
  if (starts("\x1f\x8b")) return "gzip-compressed";
  if (starts("\x28\xb5\x2f\xfd")) return "zstd-compressed";
  if (starts("\xfd"
             "7zXZ"))
    return "xz-compressed";
  if (starts("\x04\x22\x4d\x18")) return "lz4-compressed";
  if (starts("BZh") && head.size() > 3 && is_digit(head[3])) return "bzip2-compressed";
  if (starts("XBSTCK01")) return "an xbstream archive";
  if (starts("\xfe"
             "bin"))
    return "a binary log, not a backup";
  return std::nullopt;
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { ::close(fd_); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

[[noreturn]] void fail_io(const std::string& what, const std::string& path) {
  const int err = errno;
  throw Error(ErrorCode::kIo, "cannot " + what + " " + path + ": " + std::strerror(err));
}

// Reads up to `n` bytes at `offset` (or from the current position when offset is negative).
std::string read_some(int fd, std::size_t n, off_t offset, const std::string& path) {
  std::string buf(n, '\0');
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r =
        offset < 0 ? ::read(fd, buf.data() + got, n - got)
                   : ::pread(fd, buf.data() + got, n - got, offset + static_cast<off_t>(got));
    if (r < 0) {
      if (errno == EINTR) continue;
      fail_io("read", path);
    }
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  buf.resize(got);
  return buf;
}

// The text after the first line break: a tail read from the middle of a line starts at the next.
std::string_view from_next_line(std::string_view s) {
  const std::size_t nl = s.find('\n');
  return nl == std::string_view::npos ? std::string_view{} : s.substr(nl + 1);
}

BackupCoordinates read_file(const std::string& path) {
  const int raw_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (raw_fd < 0) fail_io("open", path);
  const Fd fd(raw_fd);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) fail_io("stat", path);
  const bool regular = S_ISREG(st.st_mode);

  std::string head = read_some(fd.get(), kHeadLimit, -1, path);
  const bool whole =
      regular ? static_cast<std::uint64_t>(st.st_size) <= head.size() : head.size() < kHeadLimit;
  if (const auto kind = binary_kind(head))
    throw Error(ErrorCode::kUsage, path + " is " + std::string(*kind) +
                                       "; binrecover reads backup coordinates from plain text "
                                       "(decompress the dump or metadata first)");

  std::string tail;
  if (whole) {
    tail = head.size() <= kTailLimit
               ? head
               : std::string(
                     from_next_line(std::string_view(head).substr(head.size() - kTailLimit - 1)));
  } else {
    // Only whole lines: a GTID set cut at the limit would be wrong, not just short.
    const std::size_t nl = head.rfind('\n');
    head.resize(nl == std::string::npos ? 0 : nl + 1);
    if (regular) {
      const std::uint64_t size = static_cast<std::uint64_t>(st.st_size);
      const std::uint64_t from =
          std::max<std::uint64_t>(head.size(), size > kTailLimit ? size - kTailLimit : 0) - 1;
      tail = std::string(
          from_next_line(read_some(fd.get(), size - from, static_cast<off_t>(from), path)));
    }
  }

  if (auto c = parse_xtrabackup(head, path)) return std::move(*c);
  if (auto c = parse_mydumper_ini(head, path)) return std::move(*c);
  if (auto c = parse_mydumper_text(head, path)) return std::move(*c);
  return parse_dump(head, tail, path);
}

bool has_coordinates(const BackupCoordinates& c) {
  return !c.file.empty() || !c.mysql_gtid_set.empty() || !c.mariadb_gtid_pos.empty();
}

}  // namespace

BackupCoordinates read_backup_coordinates(const std::string& path, bool allow_none) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) fail_io("open", path);
  std::string file = path;
  if (S_ISDIR(st.st_mode)) {
    // A mydumper or xtrabackup/mariabackup backup is a directory; its coordinates have a name.
    file.clear();
    for (const char* name : {"metadata", "mariadb_backup_binlog_info", "xtrabackup_binlog_info"}) {
      std::string candidate = path;
      if (candidate.back() != '/') candidate += '/';
      candidate += name;
      struct stat inner {};
      if (::stat(candidate.c_str(), &inner) == 0 && S_ISREG(inner.st_mode)) {
        file = std::move(candidate);
        break;
      }
    }
    if (file.empty())
      throw Error(ErrorCode::kUsage, path +
                                         " is a directory without a metadata, "
                                         "mariadb_backup_binlog_info or xtrabackup_binlog_info "
                                         "file; name the backup file itself");
  }

  BackupCoordinates c = read_file(file);
  if (has_coordinates(c)) return c;
  if (allow_none && c.source == "mysqldump") return c;
  if (c.source == "mydumper")
    throw Error(ErrorCode::kUsage, file +
                                       ": mydumper metadata without binlog coordinates (no "
                                       "[source] or SHOW MASTER STATUS section: was the binary "
                                       "log enabled on the dumped server?)");
  throw Error(ErrorCode::kUsage,
              file +
                  ": no binlog coordinates found: expected a mysqldump/mariadb-dump made with "
                  "--master-data, --source-data or --dump-slave (coordinates before the first "
                  "CREATE/INSERT), a mydumper metadata file, or an xtrabackup_binlog_info / "
                  "mariadb_backup_binlog_info file");
}

}  // namespace binrecover::recovery
