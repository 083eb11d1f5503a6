#include "recovery/workflows/replay.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "binlog/error.h"
#include "binlog/event_type.h"
#include "recovery/sql/output.h"

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

std::string coordinates(const ReplayState& st) {
  std::string s = st.file + ":" + std::to_string(st.position);
  if (!st.gtid.empty()) s += " (GTID " + st.gtid + ")";
  return s;
}

}  // namespace

std::optional<ReplayState> read_replay_state(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return std::nullopt;
    io_error("cannot read the replay state", path);
  }
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
    }
  }
  if (!have_file || !have_pos)
    throw Error(ErrorCode::kUsage,
                "not a binrecover replay state file (it needs file=NAME and position=N lines)")
        .with_file(path);
  return st;
}

void write_replay_state(const std::string& path, const ReplayState& st) {
  std::string text =
      "# binrecover replay: the end of the last transaction applied and committed.\n"
      "# `binrecover replay --resume` continues here.\n";
  text += "file=" + st.file + "\nposition=" + std::to_string(st.position) + "\n";
  if (!st.gtid.empty()) text += "gtid=" + st.gtid + "\n";
  if (!st.server.empty()) text += "server=" + st.server + "\n";
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) io_error("cannot create the replay state", tmp);
  write_all(fd, text, tmp);
  if (::fsync(fd) != 0) {
    ::close(fd);
    io_error("cannot sync the replay state", tmp);
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) io_error("cannot replace the replay state", path);
  // The rename is durable once the folder is.
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

ReplayResult run_replay(std::vector<InputFile> inputs, DecodeOptions decode, FilterOptions filter,
                        SqlOptions sql, const ReplayOptions& opts, Session& session,
                        const binlog::WarningSink& warn, const ReplayProgressFn& progress,
                        Schema* schema) {
  ReplayResult result;
  const std::optional<ReplayState> prior = read_replay_state(opts.state_file);
  if (opts.resume) {
    if (!prior)
      throw Error(ErrorCode::kUsage, "--resume: there is no replay state file " + opts.state_file +
                                         " (name it with --state-file)");
    std::size_t idx = 0;
    while (idx < inputs.size() && inputs[idx].display_name != prior->file) ++idx;
    if (idx == inputs.size())
      throw Error(ErrorCode::kUsage, "--resume: the state file " + opts.state_file +
                                         " continues at " + coordinates(*prior) + ", but " +
                                         prior->file + " is not among the binlogs given");
    if (filter.start_position && (idx != 0 || *filter.start_position != prior->position) && warn)
      warn("--start-position is replaced by the resume position " + coordinates(*prior));
    if (!prior->server.empty() && prior->server != session.where() && warn)
      warn("the state file " + opts.state_file + " was written for " + prior->server +
           ", resuming on " + session.where());
    inputs.erase(inputs.begin(), inputs.begin() + static_cast<std::ptrdiff_t>(idx));
    filter.start_position = prior->position;
    decode.skip_events = 0;
    result.last = prior;
  } else if (prior) {
    throw Error(ErrorCode::kUsage,
                "the replay state file " + opts.state_file +
                    " exists: an earlier replay applied up to " + coordinates(*prior) +
                    ". Continue it with --resume, or remove the file to start over");
  }

  if (opts.gtids == GtidMode::kStrip) sql.skip_gtids = true;
  if (opts.gtids == GtidMode::kSkipApplied) {
    if (session.mariadb()) {
      for (const char* var : {"@@GLOBAL.gtid_binlog_pos", "@@GLOBAL.gtid_slave_pos"})
        if (auto v = session.value(std::string("SELECT ") + var))
          filter.applied_gtids.add_maria_position(*v);
    } else if (auto v = session.value("SELECT @@GLOBAL.gtid_executed")) {
      filter.applied_gtids.add_mysql_set(*v);
    }
  }

  // Sizes for the progress line.
  std::vector<std::uint64_t> sizes;
  std::uint64_t total = 0;
  for (const InputFile& in : inputs) {
    std::error_code ec;
    std::uint64_t size = 0;
    if (in.memory)
      size = in.memory->size();
    else if (in.path != "-")
      size = std::filesystem::file_size(in.path, ec);
    if (ec) size = 0;
    sizes.push_back(size);
    total += size;
  }
  const std::uint64_t skipped = filter.start_position.value_or(4) - 4;
  total = total > skipped ? total - skipped : 0;
  std::size_t current = 0;
  std::uint64_t done_before = 0;

  Applier applier(session);
  bool stopped = false;  // after an error nothing more goes to the server (not even the footer)
  Output out(
      [&](std::string_view text, const std::vector<Output::Statement>& statements) {
        if (!stopped) applier.apply(text, statements);
      },
      session.where());
  // Row events of one statement that together pass the server's max_allowed_packet go in
  // several BINLOG statements (a MariaDB target takes one row too large even for that as two
  // fragments, see Applier).
  // (never more than the default: memory stays that of one statement of at most 16 MiB)
  sql.max_binlog_statement = std::min(applier.max_statement(), sql.max_binlog_statement);
  sql.apply = true;                        // statements marked as written, no comments
  sql.target_mariadb = session.mariadb();  // a MySQL log into MariaDB: no GTID_NEXT etc.
  SqlSink sink(out, sql);
  if (schema != nullptr) sink.set_schema(schema);

  sink.set_unit_hook([&](const UnitInfo& unit) {
    try {
      out.flush();
    } catch (Error& e) {
      e.with_offset(unit.first_pos);
      throw;
    }
    result.events_applied += unit.events;
    const std::string& file = *unit.file;
    if (unit.kind == UnitKind::kTransaction) {
      result.last = ReplayState{file, unit.end_pos, unit.gtid, session.where()};
      write_replay_state(opts.state_file, *result.last);
      ++result.transactions_applied;
    }
    if (progress) {
      while (current + 1 < inputs.size() && inputs[current].display_name != file) {
        done_before += sizes[current];
        ++current;
      }
      const std::uint64_t pos = unit.end_pos;
      const std::uint64_t at = done_before + pos;
      progress({file, pos, result.events_applied, result.transactions_applied,
                at > skipped ? at - skipped : 0, total});
    }
  });

  try {
    result.stats = run_sql(inputs, decode, filter, sink, warn);
  } catch (const Error& e) {
    stopped = true;
    if (!sink.load_dir().empty() && sql.local_load_dir.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(sink.load_dir(), ec);
    }
    std::string where;
    if (!result.last && e.code() == ErrorCode::kServer && !inputs.empty()) {
      // Nothing committed yet: the run's own start is where to resume.
      result.last = ReplayState{inputs.front().display_name, filter.start_position.value_or(4), "",
                                session.where()};
      write_replay_state(opts.state_file, *result.last);
    }
    if (result.last)
      where = "; the last transaction applied ends at " + coordinates(*result.last) +
              ": fix the cause, then continue there with --resume (state in " + opts.state_file +
              ")";
    else
      where = "; nothing was applied";
    Error out_err(e.code(), std::string(e.what()) + where);
    if (!e.file().empty()) out_err.with_file(e.file());
    if (e.has_offset()) out_err.with_offset(e.offset());
    if (!e.event().empty()) out_err.with_event(e.event());
    throw out_err;
  }
  // The footer: ROLLBACK of nothing, session settings restored. Every transaction is committed
  // by now, so a failure here only deserves a warning (MySQL with GTID_MODE=ON refuses the
  // ROLLBACK when no transaction set GTID_NEXT, e.g. when --gtids=skip-applied left out all).
  try {
    out.flush();
  } catch (const Error& e) {
    stopped = true;
    if (warn) warn(std::string("after the last transaction: ") + e.what());
  }
  if (!sink.load_dir().empty() && sql.local_load_dir.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(sink.load_dir(), ec);
  }
  return result;
}

}  // namespace binrecover::recovery
