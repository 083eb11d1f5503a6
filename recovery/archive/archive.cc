#include "recovery/archive/archive.h"

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
#include "recovery/archive/archive_sink.h"
#include "recovery/archive/failover.h"
#include "recovery/archive/folder_io.h"
#include "recovery/reading/gtid_history.h"
#include "recovery/reading/gtid_set.h"
#include "recovery/reading/transaction.h"
#include "recovery/sql/event_info.h"
#include "recovery/storage/private_file.h"
#include "recovery/text/escape.h"

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

// "mysql-bin" of "mysql-bin.000042".
std::string log_base(const std::string& name) {
  const auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
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
    open_file();
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
    fd_ = create_archive_file(path_, index_path_, warn_);
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

  void retain() override {
    if (!o_.retain.any()) return;
    const RetentionResult r = retain_folder(o_.dir, o_.retain, true, warn_);
    if (o_.note && (!r.plan.dropped.empty() || !r.plan.drop_files.empty())) o_.note(r.text());
  }

 private:
  void open_file() {
    fd_ = ::open(path_.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd_ < 0) throw Error(ErrorCode::kIo, "cannot open " + path_ + ": " + errno_text());
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
  std::string executed;  // gtid_executed (MySQL) or gtid_binlog_state (MariaDB)
  ArchivedServer server;
  {
    Session s(opts.remote.connection);
    logs = remote_logs(s);
    server.server_id =
        static_cast<std::uint32_t>(std::stoul(s.value("SELECT @@server_id").value_or("0")));
    server.mariadb = s.mariadb();
    server.where = s.where();
    executed = s.value(server.mariadb ? "SELECT @@gtid_binlog_state" : "SELECT @@gtid_executed")
                   .value_or("");
    server.version = s.value("SELECT @@version").value_or("");
    if (!server.mariadb) server.uuid = s.value("SELECT @@server_uuid").value_or("");
  }
  if (opts.to) {
    const std::unique_ptr<ArchiveSink> sink = open_s3_archive(opts, server, warn);
    bool done = false;
    auto [file, pos] = resume_point(*sink, opts, logs, &done);
    sink->retain();
    if (done) return sink->result();
    return copy_from_server(*sink, opts, file, pos, warn);
  }
  std::filesystem::create_directories(opts.dir, ec);
  if (ec) throw Error(ErrorCode::kIo, "cannot create the folder " + opts.dir + ": " + ec.message());
  const FolderLock lock(opts.dir, "archive");
  Archive archive(opts, warn);
  const std::string index = find_index(opts, log_base(logs.front().name));
  // A failover: the archive's last file was written by another server (the old primary).
  const std::optional<std::string> failover_to =
      follow_failover(opts, index, logs, server, executed, warn);
  archive.open_existing(index);
  if (failover_to) {
    archive.start_new(*failover_to);
    return copy_from_server(archive, opts, *failover_to, 4, warn);
  }
  bool done = false;
  auto [file, pos] = resume_point(archive, opts, logs, &done);
  archive.retain();
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
      archive.retain();
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

}  // namespace binrecover::recovery
