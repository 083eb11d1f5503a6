#include "recovery/backups/restore.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "binlog/error.h"
#include "binlog/reader.h"
#include "recovery/reading/local_time.h"
#include "recovery/recover/plan.h"
#include "recovery/server/session.h"
#include "recovery/sql/event_info.h"
#include "recovery/storage/envelope.h"
#include "recovery/storage/s3_archive.h"
#include "recovery/text/escape.h"

namespace binrecover::recovery {

void read_dump(BackupStore& store, const BackupEntry& b, const ByteSink& out) {
  s3::Sha256 sha;
  std::uint64_t bytes = 0;
  const std::string what = "backup " + b.id + " (" + b.location + ")";
  {
    ZstdDecompressor z(what, [&](std::string_view s) {
      sha.update(s.data(), s.size());
      bytes += s.size();
      out(s);
    });
    if (b.encryption.empty()) {
      store.read(b, [&](std::string_view s) { z.write(s); });
    } else {
      // Envelopes one after another, each opened with the reader's key as it is whole.
      std::string held;
      store.read(b, [&](std::string_view s) {
        held.append(s);
        std::size_t at = 0;
        for (;;) {
          const binlog::Bytes rest{reinterpret_cast<const std::byte*>(held.data()) + at,
                                   held.size() - at};
          const auto size = envelope_size(rest, what);
          if (!size || *size > rest.size()) break;
          const std::vector<std::byte> plain =
              unseal(s3::reader_codec(), rest.subspan(0, *size), what);
          z.write({reinterpret_cast<const char*>(plain.data()), plain.size()});
          at += *size;
        }
        held.erase(0, at);
      });
      if (!held.empty()) throw Error(ErrorCode::kIo, what + " ends inside an envelope (cut short)");
    }
    z.finish();
  }
  if (sha.hex() != b.sha256 || bytes != b.dump_bytes)
    throw Error(ErrorCode::kIo, what +
                                    " is damaged: its dump does not match the SHA-256 and size "
                                    "its manifest recorded");
}

namespace {

// A folder of our own for the dump while it is loaded (0700), removed afterwards.
class ScratchDir {
 public:
  ScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    path_ = std::string(tmp != nullptr && *tmp ? tmp : "/tmp") + "/binrecover-restore-XXXXXX";
    if (::mkdtemp(path_.data()) == nullptr)
      throw Error(ErrorCode::kIo,
                  "cannot create a temporary folder: " + std::string(std::strerror(errno)));
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The backup's dump, decompressed into `path` (new, private) and checked against its manifest.
void fetch_dump(BackupStore& store, const BackupEntry& b, const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) throw Error(ErrorCode::kIo, "cannot create " + path + ": " + std::strerror(errno));
  try {
    read_dump(store, b, [&](std::string_view s) {
      while (!s.empty()) {
        const ssize_t n = ::write(fd, s.data(), s.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0)
          throw Error(ErrorCode::kIo, "cannot write " + path + ": " + std::strerror(errno));
        s.remove_prefix(static_cast<std::size_t>(n));
      }
    });
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
}

// The server folder a backup sits in (its location less "backups/ID/").
std::string server_folder_of(const BackupEntry& b) {
  std::string loc = b.location;
  while (!loc.empty() && loc.back() == '/') loc.pop_back();
  for (int i = 0; i < 2; ++i) {
    const std::size_t slash = loc.rfind('/');
    loc = slash == std::string::npos ? std::string() : loc.substr(0, slash);
  }
  return loc;
}

// The input that is the backup's binlog: its name, in the backup's server folder when the
// inputs come from several.
std::optional<std::size_t> binlog_input(const BackupEntry& b,
                                        const std::vector<InputFile>& inputs) {
  if (b.binlog_file.empty()) return std::nullopt;
  const std::string folder = server_folder_of(b);
  std::optional<std::size_t> any;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].display_name != b.binlog_file) continue;
    if (!folder.empty() && inputs[i].path.rfind(folder + "/", 0) == 0) return i;
    if (!any) any = i;
  }
  return any;
}

bool has_point(const RestoreOptions& o) {
  const FilterOptions& f = o.drill.filter;
  return f.stop_datetime || f.stop_position || f.stop_gtid || o.drill.to_end || o.before_incident;
}

BackupCoordinates coordinates_of(const BackupEntry& b) {
  BackupCoordinates c;
  c.source = "mysqldump";
  c.file = b.binlog_file;
  c.position = b.binlog_pos;
  c.mysql_gtid_set = b.mysql_gtids;
  c.mariadb_gtid_pos = b.mariadb_gtids;
  return c;
}

std::string when(std::time_t t) { return local_time_text(t, true); }

// Where a backup stands against a point in the inputs: its binlog's input index and position.
struct Place {
  std::size_t input = 0;
  std::uint64_t pos = 0;
};

// The backups that may serve (--server, --backup), oldest first.
std::vector<BackupEntry> candidates(BackupStore& store, const RestoreOptions& o,
                                    const binlog::WarningSink& warn) {
  std::vector<std::string> problems;
  std::vector<BackupEntry> all = store.list(&problems);
  for (const auto& p : problems) warn("a backup left out: " + p);
  std::vector<BackupEntry> out;
  for (auto& b : all) {
    if (o.backup_id && b.id != *o.backup_id) continue;
    if (o.server) {
      const std::string folder = server_folder_of(b);
      const std::size_t slash = folder.rfind('/');
      const std::string name = slash == std::string::npos ? folder : folder.substr(slash + 1);
      if (name != *o.server && b.server != *o.server) continue;
    }
    out.push_back(std::move(b));
  }
  if (out.empty())
    throw Error(ErrorCode::kNotFound,
                "no backup in " + store.where() +
                    (o.backup_id ? " with ID " + *o.backup_id : std::string()) +
                    (o.server ? " of server " + *o.server : std::string()) +
                    " (binrecover backup makes them; binrecover backup --list shows them)");
  return out;
}

// A MySQL target that executed GTIDs of the log already would skip those transactions without
// a word (MySQL's GTID auto-skip): refused before anything is loaded.
void check_target_gtids(const ConnectionOptions& target, const BackupEntry& b) {
  Session s(target);
  if (s.mariadb()) return;
  const std::string mode = s.value("SELECT @@GLOBAL.gtid_mode").value_or("OFF");
  if (mode == "OFF") return;
  const std::string executed = s.value("SELECT @@GLOBAL.gtid_executed").value_or("");
  std::vector<std::string> uuids;
  if (!b.server_uuid.empty()) uuids.push_back(b.server_uuid);
  std::string set = b.mysql_gtids;
  for (std::size_t at = 0; at < set.size();) {
    const std::size_t end = std::min(set.find(',', at), set.size());
    const std::string item = set.substr(at, end - at);
    uuids.push_back(item.substr(0, item.find(':')));
    at = end + 1;
  }
  const auto lower = [](std::string v) {
    for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return v;
  };
  const std::string have = lower(executed);
  for (const std::string& u : uuids)
    if (u.size() == 36 && have.find(lower(u)) != std::string::npos)
      throw Error(ErrorCode::kUsage,
                  s.where() + " has executed transactions of " + u + " already (gtid_executed " +
                      executed +
                      "): MySQL would skip the log's transactions it has without a word. "
                      "Restore into a new server, or clear its GTID state first (RESET BINARY "
                      "LOGS AND GTIDS; RESET MASTER before 8.4)");
}

}  // namespace

std::optional<std::time_t> backup_point(const BackupEntry& b, const std::vector<InputFile>& inputs,
                                        const DecodeOptions& decode) {
  const auto i = binlog_input(b, inputs);
  if (!i || !b.binlog_pos) return std::nullopt;
  const std::unique_ptr<binlog::Source> src = open_input(inputs[*i]);
  binlog::EventReader reader(*src, decode.reader);
  std::time_t latest = 0;
  while (auto ev = reader.next()) {
    if (ev->pos >= *b.binlog_pos) break;
    latest = std::max<std::time_t>(latest, ev->header.timestamp);
  }
  return latest;
}

std::time_t last_event_time(const std::vector<InputFile>& inputs, const DecodeOptions& decode) {
  if (inputs.empty()) return 0;
  const std::unique_ptr<binlog::Source> src = open_input(inputs.back());
  binlog::EventReader reader(*src, decode.reader);
  std::time_t latest = 0;
  while (auto ev = reader.next()) latest = std::max<std::time_t>(latest, ev->header.timestamp);
  return latest;
}

namespace {

// A --to-time past the archive's last event: what happened between is not known (an archiver
// may lag, a server may have written what never reached it).
void check_time_in_archive(const FilterOptions& f, const std::vector<InputFile>& inputs,
                           const DecodeOptions& decode) {
  if (!f.stop_datetime) return;
  const std::time_t end = last_event_time(inputs, decode);
  if (*f.stop_datetime > end)
    throw Error(ErrorCode::kNotFound,
                "--to-time " + when(*f.stop_datetime) + " is past the archive's last event (" +
                    (end > 0 ? when(end) : std::string("none")) +
                    "): what happened after it is not in the archive. Give --to-end to restore "
                    "everything it holds, or a time within it");
}

// Where the point is: its time (nullopt: the end), and for --before-incident the incident's
// place, as the drill is then told it (`spec`) and why it was chosen.
struct Point {
  std::optional<std::time_t> limit;
  std::optional<Place> incident_at;
  std::string spec, why;
};

// --before-incident: a plan over the whole range from the oldest backup on (an incident before
// the newest backup must not be missed); the drill is told that incident (d.plan.incident).
Point find_incident(const std::vector<BackupEntry>& all, const RestoreOptions& o, DrillOptions& d,
                    const std::vector<InputFile>& inputs, const DecodeOptions& decode,
                    const binlog::WarningSink& warn) {
  Point pt;
  pt.limit = d.filter.stop_datetime;
  if (!o.before_incident) return pt;
  PlanOptions p = d.plan;
  // (the coordinates are the manifest's: the dump itself is not read)
  p.dump = all.front().location;
  p.backup = coordinates_of(all.front());
  const Plan plan = make_plan(inputs, p, decode, d.filter, warn);
  if (!plan.incident)
    throw Error(ErrorCode::kNotFound,
                "no incident in the archive's binlogs since backup " + all.front().id +
                    " (no certain loss of data): give --to-time, or --to-end");
  const Damage& dmg = plan.damage[*plan.incident];
  pt.limit = static_cast<std::time_t>(dmg.timestamp) + 1;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].display_name == dmg.file) pt.incident_at = Place{i, dmg.pos};
  d.plan.incident = dmg.file + ":" + std::to_string(dmg.event_pos);
  if (!o.drill.plan.incident) {
    pt.spec = "chosen with --incident=" + *d.plan.incident;
    pt.why = plan.incident_why + " since backup " + all.front().id;
  }
  return pt;
}

// The newest backup whose content is all before the point (into r.backup, r.backup_point,
// r.why); none: an error before anything is loaded.
void choose_backup(const std::vector<BackupEntry>& all, const Point& pt,
                   const std::vector<InputFile>& inputs, const DecodeOptions& decode,
                   const BackupStore& store, RestoreResult& r) {
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    const std::optional<std::time_t> point = backup_point(*it, inputs, decode);
    const auto at = binlog_input(*it, inputs);
    if (pt.incident_at && at && it->binlog_pos) {  // (by place: before the incident's transaction)
      if (*at > pt.incident_at->input ||
          (*at == pt.incident_at->input && *it->binlog_pos > pt.incident_at->pos))
        continue;
      r.backup = *it;
      r.backup_point = point;
      r.why = "the newest backup before the incident (its coordinates " + it->binlog_file + ":" +
              std::to_string(*it->binlog_pos) + " come before it)";
      return;
    }
    const std::time_t reach = point ? *point : static_cast<std::time_t>(it->completed);
    if (pt.limit && reach >= *pt.limit) continue;
    r.backup = *it;
    r.backup_point = point;
    r.why =
        !pt.limit
            ? "the newest backup"
            : "the newest backup whose content is all before " + when(*pt.limit) +
                  (point ? " (its binlog's last event before its coordinates: " + when(*point) + ")"
                         : " (completed " + when(it->completed) +
                               "; its binlog is not in the archive)");
    return;
  }
  throw Error(ErrorCode::kNotFound, "no backup in " + store.where() + " is older than the point" +
                                        (pt.limit ? " (" + when(*pt.limit) + ")" : std::string()) +
                                        ": the oldest, " + all.front().id +
                                        ", holds changes from after it");
}

// The drill was told the incident found over the whole archive: said as such, not as an
// option the user gave.
void say_incident_as_found(DrillResult& d, const Point& pt) {
  if (pt.spec.empty()) return;
  std::vector<std::string*> texts = {&d.incident, &d.target};
  for (DrillStep& step : d.steps) texts.push_back(&step.detail);
  for (std::string* t : texts)
    for (std::size_t at; (at = t->find(pt.spec)) != std::string::npos;)
      t->replace(at, pt.spec.size(), pt.why);
}

// The target's GTID state ("" when it cannot be read: said as a warning).
std::string target_gtids(const ConnectionOptions& target, const binlog::WarningSink& warn) {
  try {
    Session s(target);
    if (s.mariadb())
      return "gtid_binlog_pos " + s.value("SELECT @@GLOBAL.gtid_binlog_pos").value_or("") +
             ", gtid_slave_pos " + s.value("SELECT @@GLOBAL.gtid_slave_pos").value_or("");
    return "gtid_executed " + s.value("SELECT @@GLOBAL.gtid_executed").value_or("");
  } catch (const Error& e) {
    warn(std::string("the target's GTID state could not be read: ") + e.what());
    return {};
  }
}

}  // namespace

RestoreResult run_restore(BackupStore& store, const std::vector<InputFile>& inputs,
                          const RestoreOptions& o, const DecodeOptions& decode,
                          const binlog::WarningSink& warn) {
  if (!has_point(o))
    throw Error(ErrorCode::kUsage,
                "restore needs its point: --to-time, --stop-position, --stop-gtid, "
                "--before-incident or --to-end");
  if (!o.drill.server)
    throw Error(ErrorCode::kUsage, "restore loads the backup into a server: give -h/-P/-u or -S");
  const std::vector<BackupEntry> all = candidates(store, o, warn);
  DrillOptions d = o.drill;
  check_time_in_archive(d.filter, inputs, decode);
  const Point pt = find_incident(all, o, d, inputs, decode, warn);
  RestoreResult r;
  choose_backup(all, pt, inputs, decode, store, r);
  check_target_gtids(*d.server, r.backup);

  ScratchDir scratch;
  const std::string dump = scratch.path() + "/dump.sql";
  fetch_dump(store, r.backup, dump);
  d.plan.dump = dump;
  d.plan.backup = coordinates_of(r.backup);
  d.plan.allow_empty = true;
  r.drill = run_drill(inputs, d, decode, warn);
  r.ran = true;
  say_incident_as_found(r.drill, pt);
  r.target_gtids = target_gtids(*d.server, warn);
  return r;
}

void write_restore_report(const RestoreResult& r, const RestoreOptions& opts, Output& out) {
  auto& b = out.buf();
  const BackupEntry& e = r.backup;
  append(b, "{\"backup\":{\"id\":");
  append_json_string(b, e.id);
  append(b, ",\"location\":");
  append_json_string(b, e.location);
  append(b, ",\"binlog_file\":");
  append_json_string(b, e.binlog_file);
  fmt::format_to(std::back_inserter(b), ",\"binlog_pos\":{},\"started\":{},\"completed\":{}",
                 e.binlog_pos ? std::to_string(*e.binlog_pos) : "null", e.started, e.completed);
  append(b, ",\"point\":");
  append(b, r.backup_point ? std::to_string(*r.backup_point) : std::string("null"));
  append(b, ",\"why\":");
  append_json_string(b, r.why);
  append(b, "},\"target_gtids\":");
  append_json_string(b, r.target_gtids);
  append(b, ",\"drill\":");
  write_drill_report(r.drill, opts.drill, out);
  append(b, "}\n");
}

std::string restore_summary(const RestoreResult& r) {
  std::ostringstream o;
  o << "backup: " << terminal_text(r.backup.id) << " (" << terminal_text(r.backup.location)
    << "): " << terminal_text(r.why) << "\n";
  std::string s = o.str() + drill_summary(r.drill);
  if (!r.target_gtids.empty()) {
    // (before the verdict line)
    const std::size_t last = s.rfind("\n", s.size() - 2);
    s.insert(last == std::string::npos ? 0 : last + 1,
             "target GTIDs: " + terminal_text(r.target_gtids) + "\n");
  }
  // The drill's words, as a restore says them.
  const std::string from = "drill ";
  const std::size_t at = s.find(": drill ");
  if (at != std::string::npos) s.replace(at + 2, from.size(), "restore ");
  return s;
}

}  // namespace binrecover::recovery
