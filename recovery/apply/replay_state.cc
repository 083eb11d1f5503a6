#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "binlog/checksum.h"
#include "binlog/error.h"
#include "recovery/apply/replay_common.h"

// The replay's state on disk: STATE (text, replaced atomically), STATE.journal (its durable
// copy, written in place) and STATE.lock. (docs/usage.md, "Replay: the state file")

namespace binrecover::recovery {

namespace {

[[noreturn]] void io_error(const std::string& what, const std::string& path) {
  throw Error(ErrorCode::kIo, what + ": " + std::strerror(errno)).with_file(path);
}

void write_all(int fd, const std::string& text, const std::string& path) {
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      io_error("cannot write the replay state", path);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

// A state file's text (nullopt: not one).
std::optional<ReplayState> parse_state(const std::string& text) {
  std::istringstream in(text);
  ReplayState st;
  bool have_file = false, have_pos = false;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = line.substr(0, eq), value = line.substr(eq + 1);
    if (key == "file") {
      st.file = value;
      have_file = !value.empty();
    } else if (key == "position") {
      if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos) break;
      st.position = std::stoull(value);
      have_pos = st.position >= 4;
    } else if (key == "gtid") {
      st.gtid = value;
    } else if (key == "server") {
      st.server = value;
    } else if (key == "in_doubt_begin" || key == "in_doubt_end") {
      if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos) break;
      (key == "in_doubt_begin" ? st.in_doubt_begin : st.in_doubt_end) = std::stoull(value);
    } else if (key == "in_doubt_gtid") {
      st.in_doubt_gtid = value;
    } else if (key == "in_doubt_binlog") {
      st.in_doubt_binlog = value;
    } else if (key == "target_binlog") {
      st.target_binlog = value;
    } else if (key == "target_settings_before") {
      st.settings_before = value;
    } else if (key == "server_started") {
      st.server_started = std::strtoull(value.c_str(), nullptr, 10);
    } else if (key == "target_gtids_at_start") {
      st.target_gtids_at_start = value;
    } else if (key == "write") {
      st.write = std::strtoull(value.c_str(), nullptr, 10);
    }
  }
  if (!have_file || !have_pos) return std::nullopt;
  return st;
}

std::string state_text(const ReplayState& st) {
  std::string text =
      "# binrecover replay: the end of the last transaction applied and committed.\n"
      "# `binrecover replay --resume` continues here.\n";
  text += "file=" + st.file + "\nposition=" + std::to_string(st.position) + "\n";
  if (!st.gtid.empty()) text += "gtid=" + st.gtid + "\n";
  if (!st.server.empty()) text += "server=" + st.server + "\n";
  if (st.server_started != 0) text += "server_started=" + std::to_string(st.server_started) + "\n";
  if (!st.target_binlog.empty()) text += "target_binlog=" + st.target_binlog + "\n";
  if (!st.settings_before.empty())
    text +=
        "# The target's settings before --server-applier changed them:\n"
        "target_settings_before=" +
        st.settings_before + "\n";
  if (st.target_gtids_at_start)
    text += "# The target's GTIDs when the replay started:\ntarget_gtids_at_start=" +
            *st.target_gtids_at_start + "\n";
  if (st.write != 0) text += "write=" + std::to_string(st.write) + "\n";
  if (st.in_doubt_end > 0)
    text +=
        "# Being applied when the replay stopped (not a transaction: it may or may not be\n"
        "# on the target):\nin_doubt_begin=" +
        std::to_string(st.in_doubt_begin) + "\nin_doubt_end=" + std::to_string(st.in_doubt_end) +
        "\nin_doubt_gtid=" + st.in_doubt_gtid + "\n" +
        (st.in_doubt_binlog.empty() ? "" : "in_doubt_binlog=" + st.in_doubt_binlog + "\n");
  return text;
}
// STATE replaced by a private temporary file beside it and a rename; with `durable` the file
// fsynced first and the folder after.
void replace_state(const std::string& path, const std::string& text, bool durable) {
  const std::string tmp = path + ".tmp";
  ::unlink(tmp.c_str());  // (a leftover of a killed run; never followed if it is a link)
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) io_error("cannot create the replay state", tmp);
  write_all(fd, text, tmp);
  if (durable && ::fsync(fd) != 0) {
    ::close(fd);
    io_error("cannot sync the replay state", tmp);
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) io_error("cannot replace the replay state", path);
  if (!durable) return;
  // The rename is durable once the folder is.
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

// STATE.journal: two slots of kSlot bytes, written in turn in place and fdatasync'ed: a
// durable state costs one data sync of a block, where a durable rename of STATE costs a sync
// of a new file and one of its folder (0.08 ms against 0.35 ms on the bench machine's ext4;
// an XA- or DDL-heavy log marks every unit in doubt durably before it runs). Each slot holds
// STATE's text, then "crc32=XXXXXXXX" of that text; the slot with the higher write count whose
// sum is right is the journal's state. A slot torn by a crash mid-write fails its sum: the
// other slot, written before, holds the state before it.
constexpr std::size_t kSlot = 4096;
constexpr std::string_view kSum = "crc32=";

std::string slot_text(const std::string& text) {
  char sum[16];
  std::snprintf(sum, sizeof sum, "%08x", binlog::crc32(0, text.data(), text.size()));
  std::string slot = text + std::string(kSum) + sum + "\n";
  slot.resize(kSlot, '\0');
  return slot;
}

std::optional<ReplayState> parse_slot(std::string_view slot) {
  const std::size_t end = slot.find('\0');
  if (end != std::string_view::npos) slot = slot.substr(0, end);
  const std::size_t at = slot.rfind(kSum);
  if (at == std::string_view::npos || (at > 0 && slot[at - 1] != '\n')) return std::nullopt;
  const std::string text(slot.substr(0, at));
  char sum[16];
  std::snprintf(sum, sizeof sum, "%08x", binlog::crc32(0, text.data(), text.size()));
  if (slot.substr(at + kSum.size()) != std::string(sum) + "\n") return std::nullopt;
  return parse_state(text);
}

}  // namespace

std::optional<ReplayState> read_replay_state(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return std::nullopt;
    io_error("cannot read the replay state", path);
  }
  std::ostringstream text;
  text << in.rdbuf();
  auto st = parse_state(text.str());
  if (!st)
    throw Error(ErrorCode::kUsage,
                "not a binrecover replay state file (it needs file=NAME and position=N lines)")
        .with_file(path);
  return st;
}

void write_replay_state(const std::string& path, const ReplayState& st, bool durable) {
  replace_state(path, state_text(st), durable);
}

StateStore::StateStore(std::string path) : path_(std::move(path)) {
  const std::string journal = path_ + ".journal";
  fd_ = ::open(journal.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd_ < 0) io_error("cannot open the replay journal", journal);
  struct stat sb {};
  if (::fstat(fd_, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw Error(ErrorCode::kIo, "the replay journal is not a regular file").with_file(journal);
  }
  // Its name is durable before anything relies on it.
  std::filesystem::path dir = std::filesystem::path(path_).parent_path();
  if (dir.empty()) dir = ".";
  if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

StateStore::~StateStore() {
  if (fd_ >= 0) ::close(fd_);
}

std::optional<ReplayState> StateStore::read() {
  std::lock_guard lock(mu_);
  std::optional<ReplayState> best;
  for (std::size_t slot = 0; slot < 2; ++slot) {
    std::string buf(kSlot, '\0');
    const ssize_t n = ::pread(fd_, buf.data(), kSlot, static_cast<off_t>(slot * kSlot));
    if (n <= 0) continue;
    buf.resize(static_cast<std::size_t>(n));
    if (auto st = parse_slot(buf); st && (!best || st->write > best->write)) {
      best = std::move(st);
      next_slot_ = 1 - slot;  // (the next durable state goes beside this one)
    }
  }
  std::optional<ReplayState> file;
  try {
    file = read_replay_state(path_);
  } catch (const Error&) {
    // (a STATE that a crash left empty or torn: the journal's state, which is durable)
    if (!best) throw;
  }
  std::optional<ReplayState> out;
  if (file || best) {  // (no STATE: nothing to resume; a journal alone is an earlier run's)
    out = best && (!file || best->write > file->write) ? best : file;
    if (!file && !std::filesystem::exists(path_)) out.reset();
  }
  writes_ = std::max(file ? file->write : 0, best ? best->write : 0);
  return out;
}

void StateStore::keep_target_gtids_at_start(std::optional<std::string> gtids) {
  std::lock_guard lock(mu_);
  gtids_at_start_ = std::move(gtids);
}

void StateStore::reset() {
  std::lock_guard lock(mu_);
  // (durably: an earlier run's states must not outlive this run's first ones)
  if (::ftruncate(fd_, 0) != 0 || ::fsync(fd_) != 0)
    io_error("cannot empty the replay journal", path_ + ".journal");
  writes_ = 0;
  next_slot_ = 0;
}

void StateStore::write(const ReplayState& st, bool durable) {
  std::lock_guard lock(mu_);
  ReplayState copy = st;
  copy.write = ++writes_;
  copy.target_gtids_at_start = gtids_at_start_;
  const std::string text = state_text(copy);
  // STATE itself is durable once in each run (its first write makes it), and whenever its
  // text does not fit a slot; else the journal is.
  const bool journal = durable && state_made_ && text.size() + 32 <= kSlot;
  if (journal) {
    const std::string slot = slot_text(text);
    // (the other slot keeps the last durable state until this one is whole)
    const off_t at = static_cast<off_t>(next_slot_ * kSlot);
    next_slot_ = 1 - next_slot_;
    std::size_t done = 0;
    while (done < slot.size()) {
      const ssize_t n =
          ::pwrite(fd_, slot.data() + done, slot.size() - done, at + static_cast<off_t>(done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) io_error("cannot write the replay journal", path_ + ".journal");
      done += static_cast<std::size_t>(n);
    }
    if (::fdatasync(fd_) != 0) io_error("cannot sync the replay journal", path_ + ".journal");
  }
  replace_state(path_, text, durable && !journal);
  state_made_ = true;
}

StateLock::StateLock(const std::string& state_file) : path_(state_file + ".lock") {
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd_ < 0) io_error("cannot open the replay lock", path_);
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    char pid[32] = {};
    const ssize_t n = ::pread(fd_, pid, sizeof pid - 1, 0);
    ::close(fd_);
    throw Error(ErrorCode::kUsage,
                "another binrecover replay is running with the state file " + state_file +
                    (n > 0 ? " (process " + std::string(pid, static_cast<std::size_t>(n)) + ")"
                           : std::string()) +
                    ": one replay per state file");
  }
  const std::string pid = std::to_string(::getpid());
  if (::ftruncate(fd_, 0) == 0 && ::pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
    // (the pid is only for the message above)
  }
}

StateLock::~StateLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock; the file stays (unlinking it would race)
}

std::vector<std::uint64_t> input_sizes(const std::vector<InputFile>& inputs, std::uint64_t& total) {
  std::vector<std::uint64_t> sizes;
  total = 0;
  for (const InputFile& in : inputs) {
    std::error_code ec;
    std::uint64_t size = in.size.value_or(0);
    if (in.memory)
      size = in.memory->size();
    else if (!in.size && in.path != "-" && !in.open)
      size = std::filesystem::file_size(in.path, ec);
    if (ec) size = 0;
    sizes.push_back(size);
    total += size;
  }
  return sizes;
}

}  // namespace binrecover::recovery
