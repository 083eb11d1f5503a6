#include "recovery/workflows/archive.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include "binlog/byte_cursor.h"
#include "binlog/checksum.h"
#include "binlog/error.h"
#include "binlog/event_type.h"
#include "binlog/index_file.h"
#include "binlog/source.h"
#include "recovery/reading/gtid_history.h"
#include "recovery/reading/gtid_set.h"
#include "recovery/reading/transaction.h"
#include "recovery/sql/event_info.h"
#include "recovery/storage/private_file.h"
#include "recovery/text/escape.h"
#include "recovery/workflows/archive_sink.h"

namespace binrecover::recovery {

using binrecover::Error;
using binrecover::ErrorCode;

binlog::FormatContext format_of(binlog::Bytes fde, const std::string& name) {
  binlog::MemorySource src(fde, name, false, 4);
  binlog::EventReader reader(src, binlog::ReaderOptions{});
  reader.next();
  return reader.format();
}

bool event_crc_ok(binlog::Bytes raw) {
  if (raw.size() < 23) return false;
  std::uint32_t crc = 0;
  if (static_cast<binlog::EventType>(raw[4]) == binlog::EventType::kFormatDescription &&
      (raw[kFlagsAt] & kInUse) != std::byte{0}) {
    std::vector<std::byte> copy(raw.begin(), raw.end() - 4);
    copy[kFlagsAt] &= ~kInUse;
    crc = binlog::crc32(0, copy.data(), copy.size());
  } else {
    crc = binlog::crc32(0, raw.data(), raw.size() - 4);
  }
  return crc == binlog::ByteCursor(raw.subspan(raw.size() - 4), 0).u32le();
}

bool accept_event(const binlog::Frame& f, std::uint64_t end, const std::string& file,
                  const std::string& where, bool& crc) {
  const auto type = static_cast<binlog::EventType>(f.raw[4]);
  if (f.pos < end) return false;  // the format description sent again when the read resumes
  if (f.pos != end)
    throw Error(ErrorCode::kServer, "the server sent an event at " + std::to_string(f.pos) +
                                        " of " + file + ", but the archive's copy ends at " +
                                        std::to_string(end) + ": a gap")
        .with_file(where)
        .with_offset(end);
  if (type == binlog::EventType::kFormatDescription)
    crc = format_of(f.raw, file).checksum == binlog::ChecksumAlg::kCrc32;
  if (crc && !event_crc_ok(f.raw))
    throw Error(ErrorCode::kChecksumMismatch, "checksum mismatch in an event the server sent")
        .with_file(file)
        .with_offset(f.pos)
        .with_event(std::string(binlog::event_type_name(static_cast<std::uint8_t>(type))));
  return true;
}

namespace {

std::string errno_text() { return std::strerror(errno); }

// "mysql-bin" of "mysql-bin.000042".
std::string log_base(const std::string& name) {
  const auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

void fsync_path(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

void write_all(int fd, const void* data, std::size_t n, const std::string& path) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw Error(ErrorCode::kIo, "cannot write " + path + ": " + errno_text());
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

// The checksum algorithm a format description announces: decoded by the reader from the
// event alone (its first event, at position 4).
// The archive's index: PREFIX + the server's binlog name + ".index"; after a failover to a
// server whose binlogs have another name, the one index the folder holds.
std::string find_index(const ArchiveOptions& o, const std::string& base) {
  const std::string mine = o.dir + "/" + o.prefix + base + ".index";
  std::error_code ec;
  if (std::filesystem::exists(mine, ec)) return mine;
  std::vector<std::string> found;
  for (const auto& entry : std::filesystem::directory_iterator(o.dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file(ec) && name.size() > 6 && name.rfind(o.prefix, 0) == 0 &&
        name.compare(name.size() - 6, 6, ".index") == 0)
      found.push_back(entry.path().string());
  }
  return found.size() == 1 ? found.front() : mine;
}

// The server id in the header of a binlog file's format description (the server that wrote
// the file); 0 when it has none.
std::uint32_t writer_id(const std::string& path) {
  try {
    binlog::FdSource src(path, std::filesystem::path(path).filename().string());
    if (auto f = src.next_frame(); f && f->raw.size() >= 19) {
      binlog::ByteCursor c(f->raw, f->pos);
      c.skip(5);  // timestamp, type
      return c.u32le();
    }
  } catch (const Error&) {
  }
  return 0;
}

// What one archived file holds of the history: the GTIDs before it (Previous_gtids or
// Gtid_list), then each complete transaction's GTID and where it ends.
struct FileHistory {
  struct Txn {
    std::string gtid;
    std::uint64_t begin = 0, end = 0;
  };
  explicit FileHistory(bool mariadb) : before(mariadb) {}
  History before;
  std::vector<Txn> txns;
  bool anonymous = false;  // a transaction without a GTID
};

FileHistory read_history(const std::string& path, bool mariadb) {
  FileHistory h(mariadb);
  binlog::FdSource src(path, std::filesystem::path(path).filename().string());
  binlog::EventReader reader(src, binlog::ReaderOptions{});
  UnitTracker tracker;
  std::string gtid;
  std::uint64_t outer_end = 4, begin = 4;
  try {
    while (auto ev = reader.next()) {
      if (!ev->in_payload) outer_end = ev->end_pos();
      if (const auto* p = std::get_if<binlog::PreviousGtids>(&ev->body)) {
        fmt::memory_buffer text;
        append_gtid_set(text, p->data);
        h.before.add(std::string(text.data(), text.size()));
      } else if (const auto* l = std::get_if<binlog::MariaGtidList>(&ev->body)) {
        fmt::memory_buffer text;
        append_maria_gtid_list(text, *l);
        h.before.add(std::string(text.data(), text.size()));
      }
      if (std::holds_alternative<binlog::TransactionPayload>(ev->body)) {
        // A MySQL compressed transaction: whole in this one event, after its GTID.
        if (gtid.empty()) h.anonymous = true;
        h.txns.push_back({gtid, begin, ev->end_pos()});
        gtid.clear();
        tracker.reset();
        continue;
      }
      const UnitTracker::Step step = tracker.push(*ev);
      if (step.interrupts || step.starts) gtid.clear();
      if (step.starts) begin = ev->pos;
      if (is_gtid_event(ev->type())) gtid = event_gtid(*ev);
      if (step.closes) {
        if (gtid.empty()) h.anonymous = true;
        h.txns.push_back({gtid, begin, outer_end});
        gtid.clear();
      }
    }
  } catch (const Error&) {  // a torn end: the complete transactions before it count
  }
  return h;
}

// Where an archive goes on after a failover: the new server's `next_file`, copied whole; the
// archive's transactions the new server does not have at its end (lost with the old primary)
// are set aside: its file `file_index` is cut at `cut` (0: not cut), later files moved.
// Everything the new server has stays where it is (a dump's coordinates on the old primary
// stay valid): where the two servers' files overlap, readers take each transaction once
// (recovery/reading/one_history.h).
struct FailoverPlan {
  std::size_t file_index = 0;
  std::uint64_t cut = 0;
  std::vector<std::string> tail_gtids;  // the transactions set aside
  std::vector<std::string> lost;        // archived transactions the new server lacks
  bool shared = false;                  // the new server has some of the archive's history
  std::string next_file;
};

// The new server's newest binlog that begins after nothing the archive lacks (its
// Previous_gtids / Gtid_list within the archive's GTIDs), and the archive's tail of
// transactions the server does not have (`has`: its gtid_executed / gtid_binlog_state).
// Throws when no binlog qualifies: the server does not have the archive's history.
FailoverPlan plan_failover(const ArchiveOptions& o, const std::vector<std::string>& files,
                           const std::vector<RemoteLog>& logs, bool mariadb, const History& has) {
  FailoverPlan plan;
  // From the newest file back, until one that begins after nothing the server lacks (what it
  // begins after covers every file before it): a failover reads what it must, not the archive.
  std::vector<FileHistory> hist(files.size(), FileHistory(mariadb));
  History through(mariadb);  // the archive's GTIDs: the last file's before, its transactions
  std::size_t first = 0;
  bool shared = false;  // the server has some of the archive's history
  for (std::size_t k = files.size(); k-- > 0;) {
    hist[k] = read_history(files[k], mariadb);
    const FileHistory& h = hist[k];
    if (h.anonymous)
      throw Error(ErrorCode::kServer, files[k] +
                                          " holds transactions without a GTID: a failover "
                                          "can be followed only by GTIDs");
    if (k + 1 == files.size()) through = h.before;
    std::vector<std::string> lost_here;
    for (const auto& t : h.txns) {
      if (k + 1 == files.size()) through.add(t.gtid);
      if (has.contains(t.gtid))
        shared = true;
      else
        lost_here.push_back(t.gtid);
    }
    plan.lost.insert(plan.lost.begin(), lost_here.begin(), lost_here.end());
    if (!h.before.empty() && h.before.subset_of(has)) {
      shared = true;
      first = k;
      break;
    }
  }
  plan.shared = shared;
  bool found = false;
  for (std::size_t j = logs.size(); j-- > 0 && !found;) {
    History b(mariadb);
    b.add(remote_gtids_before(o.remote, logs[j].name));
    if (!b.subset_of(through)) continue;  // begins after transactions the archive lacks
    plan.next_file = logs[j].name;
    found = true;
  }
  if (!found)
    throw Error(ErrorCode::kServer,
                "none of this server's binlogs begins within the archive's history: it does "
                "not have the archive's history (archive it into another --dir)");
  // The tail the server lacks: from the last archived transaction back while it is lost (a
  // file of lost transactions only goes aside whole).
  for (std::size_t k = files.size(); k-- > 0;) {
    const auto& txns = hist[k].txns;
    std::size_t i = txns.size();
    while (i > 0 && !has.contains(txns[i - 1].gtid)) --i;
    std::vector<std::string> here;
    for (std::size_t m = i; m < txns.size(); ++m) here.push_back(txns[m].gtid);
    plan.tail_gtids.insert(plan.tail_gtids.begin(), here.begin(), here.end());
    if (i > 0 || k == first) {
      plan.file_index = k;
      plan.cut = i < txns.size() ? txns[i].begin : 0;
      break;
    }
  }
  return plan;
}

void write_index(const ArchiveOptions& o, const std::string& index_path,
                 const std::vector<std::string>& files, std::size_t count);

// Carries a failover plan out: the cut file's tail and the later files go into a folder
// DIR/PREFIXdiverged-TIME (nothing is thrown away), the index keeps the rest.
std::string apply_failover(const ArchiveOptions& o, const std::string& index_path,
                           const std::vector<std::string>& files, const FailoverPlan& plan) {
  // (nothing past the boundary: no folder, the index as it is)
  std::error_code size_ec;
  const std::string& cut_file = files[plan.file_index];
  const auto cut_size = std::filesystem::file_size(cut_file, size_ec);
  if (plan.file_index + 1 >= files.size() && (plan.cut == 0 || size_ec || cut_size <= plan.cut))
    return {};
  const std::string base = o.dir + "/" + o.prefix + "diverged-" +
                           std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                              std::chrono::system_clock::now().time_since_epoch())
                                              .count());
  std::string aside = base;
  for (int n = 2; ::mkdir(aside.c_str(), 0700) != 0; ++n) {
    if (errno != EEXIST || n > 100)
      throw Error(ErrorCode::kIo, "cannot create " + aside + ": " + errno_text());
    aside = base + "." + std::to_string(n);
  }
  const std::string& cut_path = files[plan.file_index];
  if (plan.cut > 0) {
    const int fd = ::open(cut_path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) throw Error(ErrorCode::kIo, "cannot open " + cut_path + ": " + errno_text());
    const auto size = static_cast<std::uint64_t>(::lseek(fd, 0, SEEK_END));
    if (size > plan.cut) {
      const std::string tail = aside + "/" + std::filesystem::path(cut_path).filename().string() +
                               ".from-" + std::to_string(plan.cut);
      const int out =
          ::open(tail.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (out < 0) {
        ::close(fd);
        throw Error(ErrorCode::kIo, "cannot create " + tail + ": " + errno_text());
      }
      std::vector<char> chunk(1 << 20);
      for (std::uint64_t at = plan.cut; at < size;) {
        const ssize_t r =
            ::pread(fd, chunk.data(), std::min<std::uint64_t>(chunk.size(), size - at),
                    static_cast<off_t>(at));
        if (r <= 0) {
          ::close(out);
          ::close(fd);
          throw Error(ErrorCode::kIo, "cannot read " + cut_path + ": " + errno_text());
        }
        write_all(out, chunk.data(), static_cast<std::size_t>(r), tail);
        at += static_cast<std::uint64_t>(r);
      }
      ::fsync(out);
      ::close(out);
      if (::ftruncate(fd, static_cast<off_t>(plan.cut)) != 0) {
        ::close(fd);
        throw Error(ErrorCode::kIo, "cannot truncate " + cut_path + ": " + errno_text());
      }
      ::fsync(fd);
    }
    ::close(fd);
  }
  for (std::size_t m = plan.file_index + 1; m < files.size(); ++m) {
    const std::string to = aside + "/" + std::filesystem::path(files[m]).filename().string();
    if (::rename(files[m].c_str(), to.c_str()) != 0)
      throw Error(ErrorCode::kIo, "cannot move " + files[m] + " to " + aside + ": " + errno_text());
  }
  fsync_path(aside);
  write_index(o, index_path, files, plan.file_index + 1);
  return aside;
}

// The archive's index rewritten to list files[0, count): written beside it, then renamed over it.
void write_index(const ArchiveOptions& o, const std::string& index_path,
                 const std::vector<std::string>& files, std::size_t count) {
  const std::string tmp = index_path + ".failover";
  ::unlink(tmp.c_str());
  const int ix = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (ix < 0) throw Error(ErrorCode::kIo, "cannot write " + tmp + ": " + errno_text());
  std::string lines;
  for (std::size_t m = 0; m < count; ++m)
    lines += "./" + std::filesystem::path(files[m]).filename().string() + "\n";
  try {
    write_all(ix, lines.data(), lines.size(), tmp);
  } catch (...) {
    ::close(ix);
    throw;
  }
  ::fsync(ix);
  ::close(ix);
  if (::rename(tmp.c_str(), index_path.c_str()) != 0)
    throw Error(ErrorCode::kIo, "cannot replace " + index_path + ": " + errno_text());
  fsync_path(o.dir);
}

// The archive folder: its index, the file being written. Events are gathered in a buffer and
// written in large pieces (one write per event costs a system call and, for a write that ends
// inside a file block, the zeroing of the block's rest: most of the time of a copy done that
// way). A flusher thread writes the buffer out as soon as the server pauses (nothing appended
// for kIdleFlush) and fsyncs every fsync_seconds while the server is quiet, so what the server
// sent never waits in memory for the next event; the mutex orders it with the copying thread.
class Archive : public ArchiveSink {
 public:
  Archive(const ArchiveOptions& opts, const binlog::WarningSink& warn) : o_(opts), warn_(warn) {
    buf_.reserve(kBufferBytes);
    flusher_ = std::thread([this] { flush_when_idle(); });
  }
  ~Archive() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    flusher_.join();
    try {
      flush();
    } catch (const Error&) {  // (an error already on its way out, or the disk: the next run
    }                         // cuts what did not reach the file)
    close_file();
  }
  Archive(const Archive&) = delete;
  Archive& operator=(const Archive&) = delete;

  // Finds where the folder's archive ends (cutting a torn event), or that there is none.
  void open_existing(const std::string& index_path) {
    std::lock_guard<std::mutex> lock(mu_);
    index_path_ = index_path;
    std::error_code ec;
    if (!std::filesystem::exists(index_path_, ec)) return;
    const std::vector<std::string> files = binlog::read_index_file(index_path_);
    if (files.empty()) return;
    const std::string path = files.back();
    std::string name = std::filesystem::path(path).filename().string();
    if (name.rfind(o_.prefix, 0) == 0) name = name.substr(o_.prefix.size());
    file_ = name;
    path_ = path;
    // The last complete event (a torn one after it is where a kill cut the write).
    std::uint64_t end = 0;
    std::string next;
    bool crc = false;
    if (std::filesystem::file_size(path, ec) >= 4 && !ec) {
      end = 4;
      try {
        binlog::FdSource src(path, name);
        while (auto f = src.next_frame()) {
          const auto type = static_cast<binlog::EventType>(f->raw[4]);
          if (type == binlog::EventType::kFormatDescription)
            crc = format_of(f->raw, name).checksum == binlog::ChecksumAlg::kCrc32;
          if (crc && !event_crc_ok(f->raw)) break;  // damaged or torn: cut here, fetch it again
          end = f->pos + f->raw.size();
          next.clear();
          if (type == binlog::EventType::kRotate && f->raw.size() > 27 + (crc ? 4 : 0))
            next.assign(reinterpret_cast<const char*>(f->raw.data()) + 27,
                        f->raw.size() - 27 - (crc ? 4 : 0));
          else if (type == binlog::EventType::kStop)
            next = "?";  // ended by a server stop: the next file is the server's next
        }
      } catch (const Error&) {
        // a torn last event: `end` is where the complete ones end
      }
    }
    crc_ = crc;
    open_file(false);
    const auto size = static_cast<std::uint64_t>(::lseek(fd_, 0, SEEK_END));
    if (end < 4) {  // not even the magic: start the file again
      if (::ftruncate(fd_, 0) != 0) throw Error(ErrorCode::kIo, "cannot truncate " + path_);
      ::lseek(fd_, 0, SEEK_SET);
      write_all(fd_,
                "\xfe"
                "bin",
                4, path_);
      end = 4;
    } else if (size > end) {
      warn_("cut " + std::to_string(size - end) + " bytes of a torn event off the end of " + path_ +
            " (at " + std::to_string(end) + "): fetching it again");
      if (::ftruncate(fd_, static_cast<off_t>(end)) != 0)
        throw Error(ErrorCode::kIo, "cannot truncate " + path_ + ": " + errno_text());
      ::lseek(fd_, 0, SEEK_END);
    }
    pos_ = end;
    written_back_ = end;
    ended_next_ = next;
  }

  void start_new(const std::string& name) override {
    std::lock_guard<std::mutex> lock(mu_);
    flush();
    close_file();
    file_ = name;
    path_ = o_.dir + "/" + o_.prefix + name;
    if (index_path_.empty()) index_path_ = o_.dir + "/" + o_.prefix + log_base(name) + ".index";
    open_file(true);
    write_all(fd_,
              "\xfe"
              "bin",
              4, path_);
    pos_ = 4;
    written_back_ = 0;
    synced_ = 4;
    // The index names it once the file exists; both reach the disk before events go in.
    const int ix =
        ::open(index_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (ix < 0) throw Error(ErrorCode::kIo, "cannot write " + index_path_ + ": " + errno_text());
    const std::string line = "./" + o_.prefix + name + "\n";
    try {
      write_all(ix, line.data(), line.size(), index_path_);
    } catch (...) {
      ::close(ix);
      throw;
    }
    ::fsync(ix);
    ::close(ix);
    ::fsync(fd_);
    fsync_path(o_.dir);
    ++result_.files;
  }

  // Appends one event the server sent for the current file.
  void append(const binlog::Frame& f) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (flusher_error_) std::rethrow_exception(flusher_error_);
    const auto type = static_cast<binlog::EventType>(f.raw[4]);
    if (!accept_event(f, pos_, file_, path_, crc_)) return;
    if (type == binlog::EventType::kFormatDescription && f.pos == 4) {
      // The server clears the in-use flag when it sends the format description; in its file
      // the flag stays set until the file is closed (finish_file clears it here then).
      put(f.raw, true);
    } else {
      put(f.raw, false);
    }
    pos_ += f.raw.size();
    last_append_ = std::chrono::steady_clock::now();
    ++result_.events;
    result_.bytes += f.raw.size();
    result_.last_file = file_;
    result_.last_pos = pos_;
    maybe_sync(false);
  }

  // The current file is complete (its Rotate, or the server went on without one): as the
  // server has it once closed, without the in-use flag.
  void finish_file() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (fd_ < 0) return;
    flush();
    std::byte flags{};
    if (::pread(fd_, &flags, 1, 4 + kFlagsAt) == 1 && (flags & kInUse) != std::byte{0}) {
      flags &= ~kInUse;
      if (::pwrite(fd_, &flags, 1, 4 + kFlagsAt) != 1)
        throw Error(ErrorCode::kIo, "cannot write " + path_ + ": " + errno_text());
    }
    maybe_sync(true);
    close_file();
  }

  // The file reaches the disk (now, or when fsync_seconds have passed since it last did).
  void sync(bool now) override {
    std::lock_guard<std::mutex> lock(mu_);
    maybe_sync(now);
  }

  void write_status() {
    if (o_.progress) o_.progress(file_ + " " + std::to_string(pos_));
    if (!o_.status_file) return;
    // A private file renamed over the last one (never written through a planted link); the
    // server's file name as a JSON string.
    fmt::memory_buffer s;
    constexpr std::string_view kOpen = "{\"file\":";
    s.append(kOpen.data(), kOpen.data() + kOpen.size());
    append_json_string(s, file_);
    fmt::format_to(std::back_inserter(s),
                   ",\"position\":{},\"events\":{},\"bytes\":{},\"time\":{}}}\n", pos_,
                   result_.events, result_.bytes,
                   std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count());
    write_private_file(*o_.status_file, std::string_view(s.data(), s.size()));
  }

  // (under mu_)
  void maybe_sync(bool now) {
    const auto t = std::chrono::steady_clock::now();
    if (!now && t - last_sync_ < std::chrono::seconds(o_.fsync_seconds)) return;
    last_sync_ = t;
    flush();
    if (fd_ >= 0 && synced_ != pos_) ::fdatasync(fd_);
    synced_ = pos_;
    write_status();
  }

  const std::string& file() const override { return file_; }
  std::uint64_t pos() const override { return pos_; }
  bool has_file() const override { return !file_.empty(); }
  const std::string& ended_next() const override { return ended_next_; }
  ArchiveResult& result() override { return result_; }

 private:
  void open_file(bool create) {
    const int flags = O_RDWR | O_NOFOLLOW | O_CLOEXEC | (create ? O_CREAT | O_EXCL : 0);
    fd_ = ::open(path_.c_str(), flags, 0600);
    if (fd_ < 0)
      throw Error(ErrorCode::kIo, std::string(create ? "cannot create " : "cannot open ") + path_ +
                                      ": " + errno_text());
  }
  void close_file() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  // (under mu_) One event into the buffer (which is written out first when the event would
  // not fit, and once it is full); `in_use`: with the in-use flag set.
  void put(binlog::Bytes raw, bool in_use) {
    if (buf_.size() + raw.size() > kBufferBytes) flush();
    buf_.insert(buf_.end(), raw.begin(), raw.end());
    if (in_use) buf_[buf_.size() - raw.size() + kFlagsAt] |= kInUse;
    if (buf_.size() >= kBufferBytes) flush();
  }

  // (under mu_) The buffer into the file; then, every few MiB, their writeback started without
  // waiting for it: the fsyncs find little left to do, and the copy is not held up at each one.
  void flush() {
    if (buf_.empty() || fd_ < 0) return;
    write_all(fd_, buf_.data(), buf_.size(), path_);
    buf_.clear();
    if (pos_ - written_back_ >= kWritebackBytes) {
      ::sync_file_range(fd_, static_cast<off_t>(written_back_),
                        static_cast<off_t>(pos_ - written_back_), SYNC_FILE_RANGE_WRITE);
      written_back_ = pos_;
    }
  }

  // The flusher thread: the buffer written out once the server pauses, fsynced on the interval
  // while it stays quiet.
  void flush_when_idle() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopping_) {
      cv_.wait_for(lock, kIdleFlush);
      if (stopping_ || flusher_error_) continue;
      try {
        const auto now = std::chrono::steady_clock::now();
        if (!buf_.empty() && now - last_append_ >= kIdleFlush) flush();
        if (buf_.empty() && synced_ != pos_ && now - last_append_ >= kIdleFlush) maybe_sync(false);
      } catch (...) {
        flusher_error_ = std::current_exception();
      }
    }
  }

  const ArchiveOptions& o_;
  const binlog::WarningSink& warn_;
  std::string index_path_, file_, path_, ended_next_;
  int fd_ = -1;
  std::uint64_t pos_ = 0;
  std::uint64_t written_back_ = 0;  // sync_file_range has been asked up to here
  std::uint64_t synced_ = 0;        // fdatasync has been done up to here
  static constexpr std::uint64_t kWritebackBytes = std::uint64_t{4} << 20;
  static constexpr std::size_t kBufferBytes = std::size_t{1} << 20;
  static constexpr std::chrono::milliseconds kIdleFlush{50};
  std::vector<std::byte> buf_;  // events not yet written, ending at pos_
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::exception_ptr flusher_error_;
  std::chrono::steady_clock::time_point last_append_ = std::chrono::steady_clock::now();
  std::thread flusher_;  // (last: started when the rest is ready)
  bool crc_ = false;
  std::chrono::steady_clock::time_point last_sync_ = std::chrono::steady_clock::now();
  ArchiveResult result_;
};

}  // namespace

namespace {

// Copies from the server into `archive`, from `file` at `pos`, until the end of the server's
// logs (or forever with stop_never).
ArchiveResult copy_from_server(ArchiveSink& archive, const ArchiveOptions& opts, std::string file,
                               std::uint64_t pos, const binlog::WarningSink& warn);

// Where the copy goes on: after the sink's last file (or from the first one).
std::pair<std::string, std::uint64_t> resume_point(ArchiveSink& archive, const ArchiveOptions& opts,
                                                   const std::vector<RemoteLog>& logs, bool* done) {
  *done = false;
  std::string file;
  std::uint64_t pos = 4;
  if (archive.has_file()) {
    if (archive.ended_next() == "?") {
      // The copy ends with a server's Stop: the server went on with the file after it.
      const auto it = std::find_if(logs.begin(), logs.end(),
                                   [&](const RemoteLog& l) { return l.name == archive.file(); });
      if (it == logs.end() || it + 1 == logs.end()) {
        *done = true;
        return {archive.file(), archive.pos()};
      }
      archive.finish_file();
      file = (it + 1)->name;
    } else if (!archive.ended_next().empty()) {
      archive.finish_file();
      file = archive.ended_next();
    } else {
      file = archive.file();
      pos = archive.pos();
    }
  } else {
    file = opts.first_file.value_or(logs.front().name);
    if (std::none_of(logs.begin(), logs.end(), [&](const RemoteLog& l) { return l.name == file; }))
      throw Error(ErrorCode::kUsage, "the server has no binlog " + file + " (it has " +
                                         logs.front().name + " to " + logs.back().name + ")");
  }
  if (pos == 4 && (!archive.has_file() || archive.file() != file)) archive.start_new(file);
  return {file, pos};
}

}  // namespace

ArchiveResult run_archive(const ArchiveOptions& opts, const binlog::WarningSink& warn) {
  std::error_code ec;
  std::vector<RemoteLog> logs;
  std::uint32_t server_id = 0;
  bool mariadb = false;
  std::string where, executed;
  ArchivedServer server;
  {
    Session s(opts.remote.connection);
    logs = remote_logs(s);
    server_id = static_cast<std::uint32_t>(std::stoul(s.value("SELECT @@server_id").value_or("0")));
    mariadb = s.mariadb();
    where = s.where();
    executed =
        s.value(mariadb ? "SELECT @@gtid_binlog_state" : "SELECT @@gtid_executed").value_or("");
    server.server_id = server_id;
    server.mariadb = mariadb;
    server.where = where;
    server.version = s.value("SELECT @@version").value_or("");
    if (!mariadb) server.uuid = s.value("SELECT @@server_uuid").value_or("");
  }
  if (opts.to) {
    const std::unique_ptr<ArchiveSink> sink = open_s3_archive(opts, server, warn);
    bool done = false;
    auto [file, pos] = resume_point(*sink, opts, logs, &done);
    if (done) return sink->result();
    return copy_from_server(*sink, opts, file, pos, warn);
  }
  std::filesystem::create_directories(opts.dir, ec);
  if (ec) throw Error(ErrorCode::kIo, "cannot create the folder " + opts.dir + ": " + ec.message());
  Archive archive(opts, warn);
  const std::string index = find_index(opts, log_base(logs.front().name));
  // A failover: the archive's last file was written by another server (the old primary). The
  // archive goes on with this server's binlogs from the newest one that begins at a
  // transaction boundary of the archive; what the archive holds past that boundary is set aside.
  std::optional<std::string> failover_to;
  if (std::filesystem::exists(index, ec)) {
    std::vector<std::string> files = binlog::read_index_file(index);
    // (the old server may have died between opening a new file and writing its first event:
    // such files at the end hold nothing; the last file with an event tells who wrote)
    std::size_t written = files.size();
    const auto eventless = [&](const std::string& f) {
      std::error_code size_ec;
      const auto size = std::filesystem::file_size(f, size_ec);
      return (size_ec || size < 512) && writer_id(f) == 0;
    };
    while (written > 0 && eventless(files[written - 1])) --written;
    const std::uint32_t was = written == 0 ? 0 : writer_id(files[written - 1]);
    if (was != 0 && was != server_id) {
      if (written < files.size()) {  // dropped: out of the index first, then off the disk
        write_index(opts, index, files, written);
        for (std::size_t m = written; m < files.size(); ++m) ::unlink(files[m].c_str());
        warn("failover: " + std::to_string(files.size() - written) +
             " file(s) the old server began without writing an event into are dropped (" +
             std::filesystem::path(files[written]).filename().string() + ")");
        files.resize(written);
      }
      // What the server has logged: MySQL's gtid_executed; MariaDB's gtid_binlog_state (each
      // domain and server's last seq_no).
      History has(mariadb);
      has.add(executed);
      const FailoverPlan plan = plan_failover(opts, files, logs, mariadb, has);
      const std::vector<std::string>& lost = plan.lost;
      // A server with none of the archive's transactions is another history, not a failover.
      if (!plan.shared && !lost.empty())
        throw Error(ErrorCode::kServer,
                    "the server at " + where + " (server id " + std::to_string(server_id) +
                        ") has none of the archive's transactions: it does not have the "
                        "archive's history (archive it into another --dir)");
      const std::string clash = opts.dir + "/" + opts.prefix + plan.next_file;
      for (std::size_t m = 0; m <= plan.file_index; ++m)
        if (std::filesystem::equivalent(files[m], clash, ec))
          throw Error(ErrorCode::kServer,
                      "the server at " + where + " goes on from its binlog " + plan.next_file +
                          ", but the archive holds a file of that name from server id " +
                          std::to_string(was) + ": archive this server into another --dir");
      const std::string aside = apply_failover(opts, index, files, plan);
      const auto list_of = [](const std::vector<std::string>& g) {
        std::string list;
        for (std::size_t m = 0; m < g.size() && m < 5; ++m) list += (m ? ", " : "") + g[m];
        return g.size() > 5 ? list + ", ..." : list;
      };
      warn("failover: the archive's last file came from server id " + std::to_string(was) +
           "; the server at " + where + " (server id " + std::to_string(server_id) +
           ") goes on from its binlog " + plan.next_file +
           " (the archive keeps every transaction this server has; where the two servers' files "
           "overlap, readers take each transaction once)" +
           (aside.empty()
                ? std::string("; nothing set aside")
                : "; " + std::filesystem::path(files[plan.file_index]).filename().string() +
                      (plan.cut > 0 ? " cut at " + std::to_string(plan.cut) : "") +
                      ", the archive's last " + std::to_string(plan.tail_gtids.size()) +
                      " transaction(s) set aside in " + aside));
      if (!plan.tail_gtids.empty())
        warn(std::to_string(plan.tail_gtids.size()) + " of them the server at " + where +
             " does not have (lost in the failover; kept in " + aside +
             "): " + list_of(plan.tail_gtids));
      if (lost.size() > plan.tail_gtids.size())
        warn(std::to_string(lost.size() - plan.tail_gtids.size()) +
             " more archived transaction(s) the server at " + where +
             " does not have stay in the archive among ones it has: readers leave them out and "
             "name them (" +
             list_of(lost) + ")");
      failover_to = plan.next_file;
    }
  }
  archive.open_existing(index);
  if (failover_to) {
    archive.start_new(*failover_to);
    return copy_from_server(archive, opts, *failover_to, 4, warn);
  }
  bool done = false;
  auto [file, pos] = resume_point(archive, opts, logs, &done);
  if (done) return archive.result();
  return copy_from_server(archive, opts, file, pos, warn);
}

namespace {

ArchiveResult copy_from_server(ArchiveSink& archive, const ArchiveOptions& opts, std::string file,
                               std::uint64_t pos, const binlog::WarningSink& warn) {
  unsigned backoff = 1;
  for (;;) {
    try {
      RemoteSource src(opts.remote, RemoteLog{file, 0, false});
      if (pos > 4) src.seek(pos);
      const std::uint64_t from = pos;
      while (auto f = src.next_frame()) {
        archive.append(*f);
        // (only progress resets the wait: the format description a new stream begins with
        // does not, so a server that greets and then sends nothing is asked less and less)
        if (archive.pos() > from) backoff = 1;
      }
      if (src.next_file().empty()) {  // the end of the server's logs (non-blocking)
        archive.sync(true);
        return archive.result();
      }
      archive.finish_file();
      file = src.next_file();
      pos = 4;
      archive.start_new(file);
    } catch (const Error& e) {
      if (e.code() == ErrorCode::kServer && is_server_error(e, 1236)) {
        // The server no longer has what the archive needs next (purged): no retry helps.
        std::string have;
        try {
          Session s(opts.remote.connection);
          const auto now = remote_logs(s);
          have = " (it has " + now.front().name + " to " + now.back().name + ")";
        } catch (const Error&) {
        }
        throw Error(ErrorCode::kServer, std::string(e.what()) + ": the server cannot send " + file +
                                            " from " + std::to_string(archive.pos()) + have +
                                            "; the archive ends there");
      }
      if (e.code() == ErrorCode::kServer &&
          (is_server_error(e, 4052) ||
           std::string(e.what()).find("same server_uuid/server_id") != std::string::npos))
        throw Error(ErrorCode::kServer, std::string(e.what()) +
                                            ": another replica or reader is connected with " +
                                            "server id " + std::to_string(opts.remote.server_id) +
                                            "; give this one its own --connection-server-id");
      if (!opts.stop_never || e.code() != ErrorCode::kServer || is_server_error(e, 1045) ||
          is_server_error(e, 1227) || is_server_error(e, 1044) || is_server_error(e, 1698))
        throw;
      archive.sync(true);
      warn(std::string(e.what()) + ": reconnecting in " + std::to_string(backoff) + " s (" + file +
           " at " + std::to_string(archive.pos()) + ")");
      std::this_thread::sleep_for(std::chrono::seconds(backoff));
      backoff = std::min(backoff * 2, 30U);
      pos = archive.pos();
    }
  }
}

}  // namespace

std::vector<VerifyProblem> verify_archive(const std::string& index_path,
                                          std::uint64_t* events_checked) {
  std::vector<std::string> files;
  try {
    files = binlog::read_index_file(index_path);
  } catch (const Error& e) {
    return {{index_path, 0, e.what()}};
  }
  if (files.empty()) return {{index_path, 0, "the index lists no file"}};
  return verify_files(
      files,
      [&](std::size_t i) -> std::unique_ptr<binlog::Source> {
        return std::make_unique<binlog::FdSource>(
            files[i], std::filesystem::path(files[i]).filename().string());
      },
      events_checked);
}

// The server id in the header of each file's format description (0: none, or unreadable).
std::vector<std::uint32_t> file_writers(
    const std::vector<std::string>& files,
    const std::function<std::unique_ptr<binlog::Source>(std::size_t)>& open) {
  std::vector<std::uint32_t> writers(files.size(), 0);
  for (std::size_t i = 0; i < files.size(); ++i) {
    try {
      const auto src = open(i);
      if (auto f = src->next_frame(); f && f->raw.size() >= 19) {
        binlog::ByteCursor c(f->raw, f->pos);
        c.skip(5);  // timestamp, type
        writers[i] = c.u32le();
      }
    } catch (const Error&) {
    }
  }
  return writers;
}

// The GTIDs logged so far, to check each file's own account of the ones before it (MySQL's
// Previous_gtids, MariaDB's Gtid_list): a file missing, or copied twice, shows there. At a
// failover (`failover`: the file is another server's) the new server's files may begin before
// the old one's end (readers take each transaction once), never past what the archive holds.
class GtidChain {
 public:
  void event(const binlog::Event& e, bool failover, const std::string& path,
             std::vector<VerifyProblem>& problems) {
    const binlog::Event* ev = &e;
    if (const auto* p = std::get_if<binlog::PreviousGtids>(&ev->body)) {
      fmt::memory_buffer text;
      append_gtid_set(text, p->data);
      AppliedGtids before;
      if (p->data.size() >= 8 && binlog::ByteCursor(p->data, 0).u64le() != 0)
        before.add_mysql_set(std::string_view(text.data(), text.size()));
      // (at a failover the new server's files may begin before the old one's end: readers
      // take each transaction once; they must not begin after what the archive holds)
      if (mysql_gtids && failover && !before.subset_of(*mysql_gtids))
        problems.push_back({path, ev->pos,
                            "a gap at the failover: this server's file begins after " +
                                before.canonical() + " but the files before hold " +
                                mysql_gtids->canonical() + ": transactions missing"});
      else if (mysql_gtids && !failover && mysql_gtids->canonical() != before.canonical())
        problems.push_back({path, ev->pos,
                            "Previous_gtids says the files before hold " + before.canonical() +
                                " but they hold " + mysql_gtids->canonical() +
                                ": transactions missing or twice"});
      mysql_gtids = before;
    } else if (mysql_gtids && is_gtid_event(ev->type())) {
      const std::string g = event_gtid(*ev);
      if (!g.empty() && g.find(':') != std::string::npos) mysql_gtids->add_mysql_set(g);
    }
    if (const auto* l = std::get_if<binlog::MariaGtidList>(&ev->body)) {
      std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> state;
      binlog::ByteCursor c(l->entries, 0);
      for (std::uint32_t k = 0; k < l->count; ++k) {
        const std::uint32_t d = c.u32le();
        const std::uint32_t sv = c.u32le();
        state[{d, sv}] = c.u64le();
      }
      const auto within = [&] {  // (every domain and server of `state` no further)
        return std::all_of(state.begin(), state.end(), [&](const auto& e) {
          const auto it = maria_state->find(e.first);
          return it != maria_state->end() ? e.second <= it->second
                                          : e.second <= by_domain(*maria_state)[e.first.first];
        });
      };
      if (maria_state && failover && !within())
        problems.push_back({path, ev->pos,
                            "a gap at the failover: this server's Gtid_list goes past the "
                            "GTIDs of the files before it: transactions missing"});
      else if (maria_state && !failover && *maria_state != state)
        problems.push_back({path, ev->pos,
                            "Gtid_list does not match the GTIDs of the files before it: "
                            "transactions missing or twice"});
      maria_state = state;
    } else if (const auto* g = std::get_if<binlog::MariaGtid>(&ev->body); g && maria_state) {
      (*maria_state)[{g->domain_id, ev->header.server_id}] = g->seq_no;
    }
  }

 private:
  using State = std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t>;
  // Per domain, the last seq_no (MariaDB numbers a domain's transactions whatever server wrote
  // them).
  static std::map<std::uint32_t, std::uint64_t> by_domain(const State& m) {
    std::map<std::uint32_t, std::uint64_t> out;
    for (const auto& [key, seq] : m) out[key.first] = std::max(out[key.first], seq);
    return out;
  }
  std::optional<AppliedGtids> mysql_gtids;
  std::optional<State> maria_state;
};

std::vector<VerifyProblem> verify_files(
    const std::vector<std::string>& files,
    const std::function<std::unique_ptr<binlog::Source>(std::size_t)>& open,
    std::uint64_t* events_checked) {
  std::vector<VerifyProblem> problems;
  const std::vector<std::uint32_t> writers = file_writers(files, open);
  std::uint64_t events = 0;
  GtidChain chain;
  std::uint32_t prev_writer = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string& path = files[i];
    // A file written by another server than the one before it: the archive followed a failover
    // (the file before ends where that server's history goes on, without a Rotate).
    const std::uint32_t writer = writers[i];
    const bool failover = i > 0 && writer != 0 && prev_writer != 0 && writer != prev_writer;
    prev_writer = writer;
    std::string last_type;
    std::string rotate_to;
    std::uint64_t end = 0;
    try {
      const auto src = open(i);
      binlog::ReaderOptions ro;
      ro.verify_checksum = true;
      binlog::EventReader reader(*src, ro);
      while (auto ev = reader.next()) {
        ++events;
        if (ev->in_payload) continue;
        end = ev->end_pos();
        last_type = binlog::event_type_name(ev->header.type);
        rotate_to.clear();
        if (const auto* r = std::get_if<binlog::Rotate>(&ev->body))
          rotate_to = std::string(r->next_file);
        chain.event(*ev, failover, path, problems);
      }
    } catch (const Error& e) {
      problems.push_back({path, e.has_offset() ? e.offset() : end, e.describe()});
      continue;
    }
    if (i + 1 < files.size()) {
      const std::string next = std::filesystem::path(files[i + 1]).filename().string();
      // (at a failover the old server's end may be missing, or name a file it never wrote
      // into: the GTIDs tell whether the next server's files go on from it)
      const bool other_next = writer != 0 && writers[i + 1] != 0 && writers[i + 1] != writer;
      if (other_next) continue;
      if (last_type == "Rotate") {
        if (next.size() < rotate_to.size() ||
            next.compare(next.size() - rotate_to.size(), rotate_to.size(), rotate_to) != 0)
          problems.push_back(
              {path, end,
               "ends with a Rotate to " + rotate_to + ", but the index goes on with " + next});
      } else if (last_type != "Stop") {
        problems.push_back({path, end,
                            "ends without a Rotate (or Stop) event after " +
                                (last_type.empty() ? "nothing" : last_type) +
                                ": its end is missing"});
      }
    }
  }
  if (events_checked != nullptr) *events_checked = events;
  return problems;
}

}  // namespace binrecover::recovery
