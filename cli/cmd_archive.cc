// binrecover archive: a server's binlogs copied byte for byte, and archive --verify.
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "binlog/error.h"
#include "binlog/index_file.h"
#include "cli/commands.h"
#include "recovery/archive/archive.h"
#include "recovery/backups/restore.h"
#include "recovery/storage/s3.h"
#include "recovery/storage/s3_archive.h"
#include "recovery/text/escape.h"

namespace binrecover::cli {

namespace {

// Prints the problems (exit 4) or that the archive is whole (`what` says what was checked).
int report(const std::string& name, const std::vector<recovery::VerifyProblem>& problems,
           std::uint64_t events, const char* what) {
  for (const auto& p : problems)
    std::fprintf(stderr, "binrecover: %s: at %llu: %s\n", recovery::terminal_text(p.file).c_str(),
                 static_cast<unsigned long long>(p.offset),
                 recovery::terminal_text(p.what).c_str());
  if (!problems.empty()) return 4;
  std::printf("%s: whole: %llu events, %s\n", name.c_str(), static_cast<unsigned long long>(events),
              what);
  return 0;
}

// The backups kept in the archive (recovery/backups/): each dump read back whole, decrypted
// and decompressed, against its manifest's SHA-256. Adds to `problems`; returns how many.
std::size_t verify_backups(const std::string& where,
                           std::vector<recovery::VerifyProblem>& problems) {
  const auto store =
      recovery::s3::is_url(where)
          ? recovery::s3_backup_store(recovery::s3::reader_client(), recovery::s3::parse_url(where))
          : recovery::folder_backup_store(where);
  std::vector<std::string> refused;
  const auto backups = store->list(&refused);
  for (const auto& r : refused) problems.push_back({where, 0, "a backup manifest: " + r});
  for (const auto& b : backups) {
    try {
      recovery::read_dump(*store, b, [](std::string_view) {});
    } catch (const Error& e) {
      if (e.code() == ErrorCode::kUsage) throw;  // (no key, another key: one clear error)
      problems.push_back({b.location, 0, e.what()});
    }
  }
  return backups.size();
}

std::string backups_text(std::size_t n) {
  return n == 0 ? std::string()
                : ", " + std::to_string(n) + " backup" + (n == 1 ? "" : "s") +
                      " read back whole (SHA-256 of each dump as recorded)";
}

int verify(const Options& o) {
  if (o.remote_files.size() != 1)
    throw Error(ErrorCode::kUsage, "archive --verify takes one folder or .index file");
  std::string index = o.remote_files.front();
  std::uint64_t events = 0;
  if (recovery::s3::is_url(index)) {
    auto problems = recovery::verify_s3_archive(index, &events);
    std::string folder = index;
    if (folder.back() != '/') folder = folder.substr(0, folder.rfind('/') + 1);
    const std::size_t backups = verify_backups(folder, problems);
    return report(index, problems, events,
                  ("every checksum right, every object as the manifest says, the chain of files "
                   "complete" +
                   backups_text(backups))
                      .c_str());
  }
  if (std::filesystem::is_directory(index)) {
    const std::string found = binlog::index_in_folder(index);
    if (found.empty()) throw Error(ErrorCode::kUsage, index + " holds no .index file to check");
    index = found;
  }
  auto problems = recovery::verify_archive(index, &events);
  const std::string dir = std::filesystem::path(index).parent_path().string();
  const std::size_t backups = verify_backups(dir.empty() ? "." : dir, problems);
  return report(
      index, problems, events,
      ("every checksum right, the chain of files complete" + backups_text(backups)).c_str());
}

std::string utc_text(std::int64_t t) {
  if (t <= 0) return "-";
  const std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

// archive --status: after every folder is listed, a folder whose manifest was refused makes the
// exit status its error's (6 for a name refused, 3 for a manifest that cannot be read).
int refused(const std::vector<recovery::ArchiveStatusRow>& rows) {
  int status = 0;
  for (const auto& r : rows) {
    if (r.problem.empty()) continue;
    warn("the archive folder " + r.folder + " is not listed: " + r.problem);
    if (status == 0) status = exit_status(r.problem_code);
  }
  return status;
}

int status(const Options& o) {
  if (o.remote_files.size() != 1 || !recovery::s3::is_url(o.remote_files.front()))
    throw Error(ErrorCode::kUsage, "archive --status takes one s3://BUCKET/[PREFIX/]");
  const auto rows = recovery::archive_status(o.remote_files.front());
  if (o.archive_status_json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : rows) {
      nlohmann::json j;
      j["folder"] = r.folder;
      j["flavor"] = r.flavor;
      j["version"] = r.version;
      j["server"] = r.server;
      j["server_id"] = r.server_id;
      j["server_uuid"] = r.server_uuid;
      j["last_file"] = r.last_file;
      j["last_position"] = r.last_pos;
      j["last_event_time"] = r.last_event_time;
      j["updated"] = r.updated;
      j["lag_seconds"] = r.lag_seconds;
      j["files"] = r.files;
      j["bytes"] = r.bytes;
      j["gaps"] = r.gaps;
      if (!r.followed_by.empty()) j["followed_by"] = r.followed_by;
      if (!r.problem.empty()) j["problem"] = r.problem;
      out.push_back(j);
    }
    std::printf("%s\n", out.dump(1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return refused(rows);
  }
  std::printf("%-44s %-8s %10s %-18s %12s %-19s %8s %6s %12s %s\n", "Folder", "Flavor", "Server_id",
              "Last_file", "Position", "Last_event (UTC)", "Lag_s", "Files", "Bytes", "Gaps");
  // Every field from a manifest is shown as text: no byte of it can end a row or reach the
  // terminal as a control.
  for (const auto& r : rows) {
    if (!r.problem.empty()) {
      std::printf("%-44s refused: %s\n", recovery::terminal_text(r.folder).c_str(),
                  recovery::terminal_text(r.problem).c_str());
      continue;
    }
    std::string gaps;
    for (const auto& g : r.gaps) gaps += (gaps.empty() ? "" : "; ") + g;
    if (!r.followed_by.empty())
      gaps = (gaps.empty() ? "none" : gaps) + "  (failed over to " + r.followed_by + ")";
    std::printf("%-44s %-8s %10u %-18s %12llu %-19s %8lld %6llu %12llu %s\n",
                recovery::terminal_text(r.folder).c_str(),
                recovery::terminal_text(r.flavor).c_str(), r.server_id,
                recovery::terminal_text(r.last_file).c_str(),
                static_cast<unsigned long long>(r.last_pos), utc_text(r.last_event_time).c_str(),
                static_cast<long long>(r.lag_seconds), static_cast<unsigned long long>(r.files),
                static_cast<unsigned long long>(r.bytes),
                gaps.empty() ? "none" : recovery::terminal_text(gaps).c_str());
  }
  return refused(rows);
}

}  // namespace

// archive --retain=N [--retain-days=D] [--dry-run] DIR|s3://BUCKET/PREFIX/SERVER/.
int retain(const Options& o) {
  if (o.remote_files.size() != 1)
    throw Error(ErrorCode::kUsage,
                "archive --retain takes one archive: its folder, or s3://BUCKET/PREFIX/SERVER/");
  const std::string& where = o.remote_files.front();
  const recovery::RetentionResult r =
      recovery::s3::is_url(where) ? recovery::retain_s3(where, o.archive.retain, warn)
                                  : recovery::retain_folder(where, o.archive.retain, false, warn);
  std::string text = r.text();
  if (o.archive.retain.dry_run) {
    // (what would happen, said so)
    for (const char* from : {": deleted\n", " deleted, "}) {
      const std::string to =
          std::string(from) == ": deleted\n" ? ": would be deleted\n" : " would be deleted, ";
      for (std::size_t at = text.find(from); at != std::string::npos;
           at = text.find(from, at + to.size()))
        text.replace(at, std::string(from).size(), to);
    }
  }
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    std::printf("%s\n", recovery::terminal_text(line).c_str());
  return 0;
}

int archive_command(Options& o) {
  if (o.archive_verify) return verify(o);
  if (o.archive_status) return status(o);
  if (o.archive_retain_only) return retain(o);
  if (o.source_password_prompt && !o.source.password) o.source.password = read_password();
  recovery::ArchiveOptions a = o.archive;
  a.remote.connection = o.source;
  a.remote.server_id = o.remote_server_id;
  a.remote.blocking = a.stop_never;
  if (a.stop_never && a.remote.server_id == 0) {
    // A blocking dump needs a server id of its own (0 makes MySQL end the stream).
    a.remote.server_id = 65535 - static_cast<std::uint32_t>(::getpid() % 1000);
  }
  if (!o.remote_files.empty()) a.first_file = o.remote_files.front();
  if (o.remote_files.size() > 1)
    throw Error(ErrorCode::kUsage, "archive takes one FILE: the server's binlog to begin with");
  a.note = [](const std::string& s) {
    std::istringstream lines(s);
    for (std::string line; std::getline(lines, line);)
      std::fprintf(stderr, "binrecover: retention: %s\n", recovery::terminal_text(line).c_str());
  };
  bool shown = false;
  if (o.progress && ::isatty(STDERR_FILENO) != 0)
    a.progress = [&shown](const std::string& s) {
      std::fprintf(stderr, "\rbinrecover: archived to %s   ", recovery::terminal_text(s).c_str());
      shown = true;
    };
  const recovery::ArchiveResult r = recovery::run_archive(a, warn);
  if (shown) std::fputs("\n", stderr);
  const std::string into = recovery::terminal_text(a.to ? *a.to : a.dir);
  if (r.events == 0 || r.last_file.empty())
    std::fprintf(stderr, "binrecover: nothing new to archive: %s holds everything the server has\n",
                 into.c_str());
  else
    std::fprintf(stderr, "binrecover: archived %llu events (%llu bytes) into %s, up to %s:%llu\n",
                 static_cast<unsigned long long>(r.events),
                 static_cast<unsigned long long>(r.bytes), into.c_str(),
                 recovery::terminal_text(r.last_file).c_str(),
                 static_cast<unsigned long long>(r.last_pos));
  return 0;
}

}  // namespace binrecover::cli
