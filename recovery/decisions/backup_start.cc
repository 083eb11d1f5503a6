#include "recovery/decisions/backup_start.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "binlog/error.h"
#include "recovery/reading/local_time.h"
#include "recovery/sql/event_info.h"

namespace binrecover::recovery {
namespace {

constexpr std::size_t kEdge = 64 << 10;  // the head and tail read for the dump's times
// Without a known start, the binlog a flush opened is looked for this long before completion.
constexpr std::time_t kUnknownStartWindow = 3600;

std::string read_at(int fd, off_t offset, std::size_t n) {
  std::string buf(n, '\0');
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd, buf.data() + got, n - got, offset + static_cast<off_t>(got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  buf.resize(got);
  return buf;
}

// The datetime after `label` on a line of `text` (the last such line), read in the local zone.
std::optional<std::time_t> time_after(std::string_view text, std::string_view label) {
  std::optional<std::time_t> found;
  std::size_t at = 0;
  while ((at = text.find(label, at)) != std::string_view::npos) {
    at += label.size();
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view v = text.substr(at, end - at);
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\r')) v.remove_suffix(1);
    try {
      found = parse_datetime(v, label).seconds;
    } catch (const Error&) {
      // not a time we can read exactly: not evidence
    }
  }
  return found;
}

// When the server opened the binlog: its first event's time (a format description written at
// the rotation), or the next event's where that is zero.
std::optional<std::time_t> opened_at(const InputFile& in, const binlog::ReaderOptions& options) {
  try {
    std::unique_ptr<binlog::Source> source = open_input(in);
    binlog::EventReader reader(*source, options, {});
    for (int i = 0; i < 3; ++i) {
      std::optional<binlog::Event> ev = reader.next();
      if (!ev) return std::nullopt;
      if (ev->header.timestamp != 0) return static_cast<std::time_t>(ev->header.timestamp);
    }
  } catch (const Error&) {
  }
  return std::nullopt;
}

std::string when(std::time_t t) { return local_time_text(t, true); }

std::int64_t nanoseconds(std::int64_t sec, std::uint32_t nsec) {
  return sec * 1'000'000'000 + static_cast<std::int64_t>(nsec);
}

// When the server made the binlog file, to the nanosecond: its birth time, for the server's
// own file (a copy is born later than its first event says).
std::optional<std::int64_t> born_ns(const InputFile& in, std::time_t opened) {
  if (in.memory || in.open || in.path.empty() || in.path == "-") return std::nullopt;
  struct statx sx {};
  if (::statx(AT_FDCWD, in.path.c_str(), 0, STATX_BTIME, &sx) != 0 || !(sx.stx_mask & STATX_BTIME))
    return std::nullopt;
  if (sx.stx_btime.tv_sec < opened - 1 || sx.stx_btime.tv_sec > opened + 1) return std::nullopt;
  return nanoseconds(sx.stx_btime.tv_sec, sx.stx_btime.tv_nsec);
}

}  // namespace

DumpTimes read_dump_times(const std::string& path) {
  DumpTimes out;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(ErrorCode::kIo, "cannot open " + path + ": " + std::strerror(errno));
  struct stat st {};
  ::fstat(fd, &st);
  const std::string head = read_at(fd, 0, kEdge);
  const off_t size = st.st_size;
  const std::string tail = size > static_cast<off_t>(kEdge)
                               ? read_at(fd, size - static_cast<off_t>(kEdge), kEdge)
                               : head;
  out.completed = time_after(tail, "-- Dump completed on");
  for (std::string_view label : {"-- Dump started on", "Started dump at:"})
    if (auto t = time_after(head, label)) {
      out.started = t;
      out.started_from = "its header";
    }
  // `mysqldump ... > dump.sql`: the shell made the file as the dump started, and the dump's
  // last write was its completion line. A copy made later has later times: not used.
  struct statx sx {};
  if (out.completed && ::statx(fd, "", AT_EMPTY_PATH, STATX_BTIME | STATX_MTIME, &sx) == 0) {
    const std::int64_t end = *out.completed;
    if ((sx.stx_mask & STATX_BTIME) && sx.stx_btime.tv_sec <= end + 1 &&
        sx.stx_btime.tv_sec + 7 * 86400 >= end) {
      if (!out.started) {
        out.started = static_cast<std::time_t>(sx.stx_btime.tv_sec);
        out.started_from = "its file's creation";
      }
      if ((sx.stx_mask & STATX_MTIME) && sx.stx_mtime.tv_sec >= end - 1 &&
          sx.stx_mtime.tv_sec <= end + 1) {
        out.started_ns = nanoseconds(sx.stx_btime.tv_sec, sx.stx_btime.tv_nsec);
        out.completed_ns = nanoseconds(sx.stx_mtime.tv_sec, sx.stx_mtime.tv_nsec);
      }
    }
  }
  ::close(fd);
  return out;
}

StartChoice flush_start(const std::string& dump_path, const DumpTimes& times,
                        const std::vector<InputFile>& inputs, const binlog::ReaderOptions& reader) {
  const std::string next =
      "give --start-file=BINLOG (the binlog its --flush-logs opened), or a dump made with "
      "--master-data=2 / --source-data=2 (its coordinates)";
  if (!times.completed)
    throw Error(ErrorCode::kUsage,
                dump_path +
                    ": no binlog coordinates and no '-- Dump completed on' line to tell when it "
                    "was made: " +
                    next);
  const std::time_t end = *times.completed;
  // Seconds are rounded by both clocks: a second of slack each side.
  const std::time_t from = times.started ? *times.started - 1 : end - kUnknownStartWindow;
  std::vector<std::pair<std::size_t, std::time_t>> opened;  // in the window
  std::optional<std::pair<std::size_t, std::time_t>> last_before;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto t = opened_at(inputs[i], reader);
    if (!t || *t > end + 1) continue;
    // To the nanosecond where both the dump's file and the binlog's are the originals.
    const auto born = times.started_ns ? born_ns(inputs[i], *t) : std::nullopt;
    if (born && (*born > *times.completed_ns)) continue;
    if (born ? *born >= *times.started_ns : *t >= from) opened.emplace_back(i, *t);
    last_before = {i, *t};
  }
  const std::string ran = times.started
                              ? "while the dump ran (" + when(*times.started) + " to " + when(end) +
                                    "; its start from " + times.started_from + ")"
                              : "in the hour before the dump completed (" + when(end) +
                                    "; its start is not known: a copy of the dump file?)";
  if (opened.empty()) {
    std::string last = last_before ? "; the last one opened before it is " +
                                         inputs[last_before->first].display_name + " (" +
                                         when(last_before->second) + ")"
                                   : "";
    throw Error(ErrorCode::kUsage, dump_path + ": no binlog coordinates, and no binlog of those " +
                                       "given was opened " + ran +
                                       ", so the dump was not made with --flush-logs (or its "
                                       "binlogs are not among those given)" +
                                       last + ": " + next);
  }
  if (opened.size() > 1 && times.started) {
    std::string list;
    for (const auto& [i, t] : opened)
      list += (list.empty() ? "" : ", ") + inputs[i].display_name + " (" + when(t) + ")";
    throw Error(ErrorCode::kUsage,
                dump_path + ": no binlog coordinates, and " + std::to_string(opened.size()) +
                    " binlogs were opened " + ran + ": " + list +
                    "; a dump of several databases without --single-transaction flushes once "
                    "per database, a busy server also rotates by size: give --start-file=BINLOG "
                    "(one of these)");
  }
  StartChoice c;
  c.input = opened.back().first;
  c.opened = opened.back().second;
  c.why = "the dump has no coordinates; its --flush-logs opened this binlog at " + when(c.opened) +
          ", " + ran;
  return c;
}

namespace {

// The GTIDs before a binlog, as its Previous_gtids (MySQL) or Gtid_list (MariaDB) say; nullopt
// when it has neither.
std::optional<std::string> gtids_before(const InputFile& in, const binlog::ReaderOptions& options) {
  std::unique_ptr<binlog::Source> source = open_input(in);
  binlog::EventReader reader(*source, options, {});
  for (int k = 0; k < 4; ++k) {  // the format description, then Previous_gtids or Gtid_list
    const std::optional<binlog::Event> ev = reader.next();
    if (!ev) break;
    fmt::memory_buffer text;
    if (const auto* p = std::get_if<binlog::PreviousGtids>(&ev->body)) {
      if (p->data.size() >= 8 && binlog::ByteCursor(p->data, 0).u64le() != 0)
        append_gtid_set(text, p->data);
      return std::string(text.data(), text.size());
    }
    if (const auto* l = std::get_if<binlog::MariaGtidList>(&ev->body)) {
      append_maria_gtid_list(text, *l);
      return std::string(text.data(), text.size());
    }
  }
  return std::nullopt;
}

}  // namespace

StartChoice gtid_start(const std::string& mysql_set, const std::string& maria_pos,
                       const std::vector<InputFile>& inputs, const binlog::ReaderOptions& reader) {
  AppliedGtids backup;
  if (!mysql_set.empty()) backup.add_mysql_set(mysql_set);
  if (!maria_pos.empty()) backup.add_maria_position(maria_pos);
  const auto covered = [&](const std::string& text) {
    if (!maria_pos.empty()) {
      for (std::size_t at = 0; at < text.size();) {
        std::size_t end = text.find(',', at);
        if (end == std::string::npos) end = text.size();
        if (!backup.contains(text.substr(at, end - at))) return false;
        at = end + 1;
      }
      return true;
    }
    AppliedGtids before;
    if (!text.empty()) before.add_mysql_set(text);
    return before.subset_of(backup);
  };
  for (std::size_t k = inputs.size(); k-- > 0;) {
    const std::optional<std::string> before = gtids_before(inputs[k], reader);
    if (!before) continue;
    if (!covered(*before)) continue;
    StartChoice c;
    c.input = k;
    c.why = "the newest binlog whose earlier GTIDs (" +
            (before->empty() ? std::string("none") : *before) +
            ") the backup has all, its own transactions left out by GTID";
    return c;
  }
  throw Error(ErrorCode::kUsage,
              "the backup's GTIDs (" + (mysql_set.empty() ? maria_pos : mysql_set) +
                  ") do not reach the first binlog given (" + inputs.front().display_name +
                  "): the transactions between them are not in these binlogs (an earlier binlog "
                  "is missing, or these are another server's)");
}

}  // namespace binrecover::recovery
