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
#include "cli/option_groups.h"
#include "cli/option_groups_servers.h"
#include "cli/option_readers.h"
#include "recovery/archive/archive.h"
#include "recovery/backups/restore.h"
#include "recovery/storage/s3.h"
#include "recovery/storage/s3_archive.h"
#include "recovery/text/escape.h"

namespace binrecover::cli {

// The options of `binrecover archive`: bytes, not events (no range or filter).
namespace {

Group archive_group() {
  Group grp("Archive");
  po::options_description& g = grp.d;
  g.add_options()("dir", po::value<std::string>(),
                  "the folder the binlogs are copied to (continued where it ends when it holds "
                  "an archive already)")(
      "stop-never", "follow the server: wait for new events, reconnect after any loss")(
      "fsync-interval", po::value<std::string>(),
      "fsync the file being written at most every N seconds (default 1; each file is fsynced "
      "when the server rotates)")(
      "heartbeat-period", po::value<std::string>(),
      "with --stop-never: the server sends a heartbeat after N quiet seconds (default 30); "
      "two missed (no byte for 2 x N seconds) and binrecover connects again")(
      "status-file", po::value<std::string>(),
      "rewrite this one-line JSON status (file, position, events, time) as the archive grows")(
      "verify",
      "check an archive instead: FILE is its folder or .index (or s3://... of either); every "
      "file there, every event's checksum, the chain of Rotate events, in a bucket each "
      "object against the manifest (exit 4 naming file and offset)")(
      "to", po::value<std::string>(),
      "into object storage instead of --dir: s3://BUCKET/PREFIX/ (each server in its own "
      "folder PREFIX/SERVER/, by its server_uuid or server-ID)")(
      "s3-folder", po::value<std::string>(),
      "with --to: the server's folder under PREFIX (default: its server_uuid, or server-ID)")(
      "upload-interval", po::value<std::string>(),
      "with --to: the file being written is stored at least every N seconds (default 5): "
      "at most that much is at risk")(
      "part-size", po::value<std::string>(),
      "with --to: MiB per sealed piece and multipart part, 5 to 1024 (default 16; memory "
      "holds up to this much)")(
      "status",
      "list the servers archived under s3://BUCKET/[PREFIX/]: last file and position, last "
      "event time, lag, gaps, size")(
      "retain", po::value<std::string>(),
      "keep the newest N base backups (binrecover backup) and delete older ones and the "
      "binlogs only they need; the newest backup, and every binlog from the oldest kept "
      "backup's on, always stay. With --dir/--to the archiver applies it as it goes; alone, "
      "to the archive named (DIR, or s3://BUCKET/PREFIX/SERVER/)")(
      "retain-days", po::value<std::string>(),
      "also keep every backup begun in the last D days (with --retain: a backup either keeps "
      "stays)")("dry-run", "with --retain: say what would be deleted, delete nothing")(
      "zstd",
      "with --to: store each piece zstd-compressed (a complete file is then kept as its "
      "pieces, not one object; every reader reads it as before)")(
      "zstd-level", po::value<std::string>(), "with --zstd: the level, 1 to 19 (default 3)")(
      "format", po::value<std::string>(), "with --status: table (default) or json");
  return grp;
}

}  // namespace

std::vector<Group> archive_option_groups(bool for_option_files) {
  std::vector<Group> d;
  d.push_back(archive_group());
  d.push_back(s3_group());
  d.push_back(remote_group());
  if (!for_option_files) d.push_back(connection_group(ConnectionFor::kSource));
  d.push_back(misc_group());
  return d;
}

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

// Reading the archive options (parse_options calls read_archive, cli/option_readers.h).

namespace {

// --retain, --retain-days, --dry-run (recovery/archive/retention.h).
void read_retention(const Given& g, Options& o) {
  recovery::RetentionPolicy& p = o.archive.retain;
  if (auto n = g.u64("retain")) {
    if (*n < 1 || *n > 100000) usage_error("--retain keeps at least 1 backup (1 to 100000)");
    p.keep = static_cast<unsigned>(*n);
  }
  if (auto n = g.u64("retain-days")) {
    if (*n < 1 || *n > 36500) usage_error("--retain-days must be 1 to 36500");
    p.days = static_cast<unsigned>(*n);
  }
  p.dry_run = g.has("dry-run");
  if (p.dry_run && !p.any()) usage_error("--dry-run applies with --retain or --retain-days");
}

// archive's plain settings: --stop-never, --verify, --dir, intervals, --status and its format.
void read_archive_settings(const Given& g, Options& o) {
  o.remote = true;
  o.archive.stop_never = g.has("stop-never");
  o.archive_verify = g.has("verify");
  if (auto d = g.text("dir")) o.archive.dir = *d;
  if (auto n = g.u64("fsync-interval"))
    o.archive.fsync_seconds = static_cast<unsigned>(std::min<std::uint64_t>(*n, 86400));
  o.archive.remote.heartbeat_seconds = 30;
  if (auto n = g.u64("heartbeat-period"))
    o.archive.remote.heartbeat_seconds =
        static_cast<unsigned>(std::min<std::uint64_t>(*n, 4294967));
  o.archive.status_file = g.text("status-file");
  o.archive_status = g.has("status");
  if (auto f = g.text("format")) {  // (with --status: option_rules.cc)
    if (*f != "table" && *f != "json")
      usage_error("--format must be table or json, not '" + *f + "'");
    o.archive_status_json = *f == "json";
  }
}

// --to s3://..., --s3-folder, --upload-interval, --part-size.
void read_archive_bucket(const Given& g, Options& o) {
  o.archive.to = g.text("to");
  o.archive.folder = g.text("s3-folder");
  if (o.archive.to) {
    if (!recovery::s3::is_url(*o.archive.to))
      usage_error("--to takes s3://BUCKET/PREFIX/, not '" + *o.archive.to + "'");
    recovery::s3::parse_url(*o.archive.to);
  }
  if (o.archive.folder &&
      (o.archive.folder->empty() || o.archive.folder->find('/') != std::string::npos ||
       (*o.archive.folder)[0] == '.'))
    usage_error("--s3-folder takes a name without '/', not '" + *o.archive.folder + "'");
  if (auto n = g.u64("upload-interval")) {
    if (*n < 1 || *n > 3600) usage_error("--upload-interval must be 1 to 3600 seconds");
    o.archive.upload_seconds = static_cast<unsigned>(*n);
  }
  if (auto n = g.u64("part-size")) {
    if (*n < 5 || *n > 1024) usage_error("--part-size must be 5 to 1024 (MiB)");
    o.archive.part_bytes = static_cast<std::size_t>(*n) << 20;
  }
}

// The S3 options apply only where a bucket is written or read.
void check_archive_store_options(const Given& g, const Options& o) {
  bool store = o.archive.to.has_value();
  if (g.has("files"))
    for (const auto& f : g.list("files")) store = store || recovery::s3::is_url(f);
  for (const char* n : kS3Options)
    if (g.has(n) && !store) usage_error(std::string("--") + n + " applies with --to or s3://");
  // (the archiver stores one piece at a time as the server sends it; --status and
  // retention read manifests and delete: only --verify reads binlogs and backups back)
  if (g.has("s3-streams") && !o.archive_verify)
    usage_error(
        "--s3-streams applies to archive --verify s3://... (reading the bucket), "
        "and to the commands that read s3:// or make and restore backups");
  // (a folder's --verify reads its backups, which may be encrypted)
  if (g.has("encryption-key-file") && !store && !o.archive_verify)
    usage_error("--encryption-key-file applies with --to or s3://, or to --verify");
}

// --zstd (--zstd-level) and the key: only for a bucket, whose pieces are sealed.
void read_archive_codec(const Given& g, Options& o) {
  if (g.has("zstd-level") && !g.has("zstd")) usage_error("--zstd-level applies with --zstd");
  if (g.has("zstd")) {
    if (!o.archive.to)
      usage_error(
          "--zstd applies with --to s3://... (a folder archive is byte for byte, as the "
          "server's own folder)");
    o.archive.codec.zstd = true;
    if (auto n = g.u64("zstd-level")) {
      if (*n < 1 || *n > 19) usage_error("--zstd-level must be 1 to 19");
      o.archive.codec.level = static_cast<int>(*n);
    }
  }
  if (g.has("encryption-key-file") && !o.archive.to && !o.archive.dir.empty())
    usage_error(
        "--encryption-key-file applies with --to s3://... (a folder archive is byte for "
        "byte, as the server's own folder)");
  if (o.archive.codec.key && !o.archive.to) {  // (reading only: the key from the environment)
    o.archive.codec.key.reset();
    o.archive.codec.key_id.clear();
  }
}

// One thing at a time: archive (--dir, --to), --verify, --status, or retention alone.
void check_archive_mode(const Given& g, Options& o) {
  const int modes = (o.archive_verify ? 1 : 0) + (o.archive_status ? 1 : 0);  // (one: rules)
  if (modes > 0 && (o.archive.to || !o.archive.dir.empty()))
    usage_error(std::string(o.archive_verify ? "--verify" : "--status") +
                " reads an archive: no --dir or --to");
  if (modes > 0 && o.archive.retain.any())
    usage_error("--retain and --retain-days delete: not with --verify or --status");
  const bool archiving = !o.archive.dir.empty() || o.archive.to;
  o.archive_retain_only = o.archive.retain.any() && !archiving;
  if (o.archive.retain.dry_run && archiving)
    usage_error(
        "--dry-run shows what retention would delete in an archive: name it (archive "
        "--retain=N --dry-run DIR|s3://...), without --dir or --to");
  if (o.archive_retain_only && connection_given(g))
    usage_error(
        "-h, -u ... name a server to archive: give --dir or --to (the archiver then applies "
        "--retain), or name the archive alone");
  if (modes == 0 && !archiving && !o.archive_retain_only)
    usage_error(
        "archive needs --dir=DIR or --to=s3://BUCKET/PREFIX/ (where the binlogs go), or "
        "--verify DIR, or --status s3://BUCKET/, or --retain=N DIR|s3://...");
}

}  // namespace

// archive's own options: where the copy goes (--dir or --to), --verify, --status.
void read_archive(const Given& g, Command cmd, Options& o) {
  if (cmd != Command::kArchive) return;
  read_archive_settings(g, o);
  read_archive_bucket(g, o);
  check_archive_store_options(g, o);
  read_retention(g, o);
  read_archive_codec(g, o);
  check_archive_mode(g, o);
}

}  // namespace binrecover::cli
