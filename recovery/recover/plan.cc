#include "recovery/recover/plan.h"

#include <algorithm>
#include <filesystem>

#include "binlog/error.h"
#include "recovery/decisions/backup_start.h"
#include "recovery/decisions/damage_finder.h"

namespace binrecover::recovery {

namespace {

// "mysql-bin.000023" -> ("mysql-bin", 23) (nullopt without a numeric extension).
std::optional<std::pair<std::string, std::uint64_t>> sequence(const std::string& name) {
  const auto dot = name.rfind('.');
  if (dot == std::string::npos || dot + 1 == name.size() || name.size() - dot > 19)
    return std::nullopt;
  std::uint64_t n = 0;
  for (std::size_t i = dot + 1; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return std::nullopt;
    n = n * 10 + static_cast<std::uint64_t>(name[i] - '0');
  }
  return std::pair{name.substr(0, dot), n};
}

// `what` names the place: "--start-file=mysql-bin.000009 is", "the backup's coordinates
// mysql-bin.000009:4 are".
std::size_t input_named(const std::vector<InputFile>& inputs, const std::string& name,
                        const std::string& what) {
  const std::string want = std::filesystem::path(name).filename().string();
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].display_name == want) return i;
  throw Error(ErrorCode::kUsage,
              what + " not in any of the binlogs given (first: " + inputs.front().display_name +
                  ", last: " + inputs.back().display_name + ")");
}

// Why the backup's coordinates FILE:POS cannot start the range although they name a binlog ("":
// they can): FILE is not among the inputs, or the input of that name ends before POS (cut where
// its server failed over; what came after it is in the next server's files).
std::string backup_file_missing(const std::vector<InputFile>& inputs, const std::string& file,
                                std::uint64_t pos) {
  const std::string want = std::filesystem::path(file).filename().string();
  for (const InputFile& in : inputs) {
    if (in.display_name != want) continue;
    std::optional<std::uint64_t> size = in.size;
    std::error_code ec;
    if (!size && !in.memory && !in.open && !in.path.empty() && in.path != "-") {
      const auto n = std::filesystem::file_size(in.path, ec);
      if (!ec) size = n;
    }
    if (size && pos > *size)
      return "the backup's coordinates " + file + ":" + std::to_string(pos) +
             " are past the end of " + want + " (" + std::to_string(*size) +
             " bytes: the file was cut where its server stopped)";
    return "";
  }
  return "the backup's binlog " + want + " is not among the binlogs given";
}

// Where the range starts: an option, the backup's coordinates, or the binlog its flush opened.
PlanStart choose_start(const std::vector<InputFile>& inputs, const PlanOptions& opts,
                       const BackupCoordinates& backup, const DecodeOptions& decode) {
  PlanStart s;
  const auto pos_text = [](std::uint64_t p) { return std::to_string(p); };
  if (opts.start_file) {
    s.input = input_named(inputs, *opts.start_file, "--start-file=" + *opts.start_file + " is");
    s.position = opts.start_position;
    s.why = opts.start_position ? "--start-file and --start-position" : "--start-file";
    return s;
  }
  if (opts.start_datetime) {
    s.position = opts.start_position;
    s.why = "--start-datetime (the first transaction at or after it, in every binlog given)";
    return s;
  }
  const bool has_gtids = !backup.mysql_gtid_set.empty() || !backup.mariadb_gtid_pos.empty();
  // The backup's binlog is not in the archive, or only the part before a failover cut it: the
  // server went on elsewhere, and its GTIDs find the place in the history that carries on.
  std::string by_gtids;
  if (opts.dump && !backup.file.empty() && backup.position && has_gtids)
    by_gtids = backup_file_missing(inputs, backup.file, *backup.position);
  if (opts.dump && !backup.file.empty() && backup.position && by_gtids.empty()) {
    s.input = input_named(
        inputs, backup.file,
        "the backup's coordinates " + backup.file + ":" + pos_text(*backup.position) + " are");
    s.position = opts.start_position ? opts.start_position : backup.position;
    s.why = opts.start_position ? "--start-position in the backup's binlog"
                                : "the backup's coordinates";
    return s;
  }
  if (opts.dump && has_gtids) {
    const StartChoice c =
        gtid_start(backup.mysql_gtid_set, backup.mariadb_gtid_pos, inputs, decode.reader);
    s.input = c.input;
    if (opts.start_position) {  // a position given overrides the GTIDs
      s.position = opts.start_position;
      s.why = "--start-position in the binlog the backup's GTIDs reach";
      return s;
    }
    s.why = (by_gtids.empty() ? "the backup names GTIDs, no position: "
                              : by_gtids + "; from the backup's GTIDs instead: ") +
            c.why;
    s.mysql_gtids = backup.mysql_gtid_set;
    s.maria_gtids = backup.mariadb_gtid_pos;
    return s;
  }
  if (opts.dump) {
    const StartChoice c =
        flush_start(*opts.dump, read_dump_times(*opts.dump), inputs, decode.reader);
    s.input = c.input;
    s.position = opts.start_position;
    s.why = c.why;
    return s;
  }
  if (opts.start_position) {
    s.position = opts.start_position;
    s.why = "--start-position";
    return s;
  }
  throw Error(ErrorCode::kUsage,
              "plan needs to know where the backup stands: --dump=BACKUP, or --start-file / "
              "--start-position / --start-datetime");
}

// A recovery needs every file of the chain: name the gap rather than replay around it.
void check_chain(const std::vector<InputFile>& files) {
  for (std::size_t i = 1; i < files.size(); ++i) {
    const auto a = sequence(files[i - 1].display_name);
    const auto b = sequence(files[i].display_name);
    if (!a || !b || a->first != b->first) continue;  // another server's files: its own chain
    if (b->second == a->second + 1) continue;
    throw Error(ErrorCode::kUsage,
                "the binlog chain " +
                    (b->second > a->second
                         ? std::string("has a gap: ") + files[i - 1].display_name +
                               " is followed by " + files[i].display_name + " (" +
                               std::to_string(b->second - a->second - 1) + " file(s) missing)"
                         : std::string("is out of order: ") + files[i].display_name +
                               " comes after " + files[i - 1].display_name));
  }
}

}  // namespace

RangeCounts Plan::after_incident() const {
  if (!incident) return {};
  RangeCounts upto = damage[*incident].before;
  upto.add(damage[*incident].own);
  return total.since(upto);
}

RangeCounts Plan::left_out(std::size_t i) const {
  if (!incident) return total.since(damage[i].before);
  const Damage& h = damage[*incident];
  if (i < *incident) return h.before.since(damage[i].before);
  if (i == *incident) return {};
  RangeCounts upto = h.before;
  upto.add(h.own);
  return damage[i].before.since(upto);
}

Plan make_plan(const std::vector<InputFile>& inputs, const PlanOptions& opts,
               const DecodeOptions& decode, const FilterOptions& filter,
               const binlog::WarningSink& warn, WalkConsumer* also) {
  Plan plan;
  if (opts.backup)
    plan.backup = *opts.backup;
  else if (opts.dump)
    plan.backup = read_backup_coordinates(*opts.dump, true);
  plan.start = choose_start(inputs, opts, plan.backup, decode);
  plan.files.assign(inputs.begin() + static_cast<std::ptrdiff_t>(plan.start.input), inputs.end());
  check_chain(plan.files);

  DamageFinderOptions fo;
  fo.rows_threshold = opts.rows_threshold;
  // The dump's rows are the range's start only where the dump itself starts it.
  if (opts.dump && plan.backup.source == "mysqldump" && !opts.start_file && !opts.start_position &&
      !opts.start_datetime)
    fo.dump_rows = opts.dump;
  if (opts.incident && opts.incident->find_first_not_of("0123456789") != std::string::npos) {
    const auto colon = opts.incident->rfind(':');
    bool file_pos = false;
    if (colon != std::string::npos && colon + 1 < opts.incident->size() &&
        opts.incident->find_first_not_of("0123456789", colon + 1) == std::string::npos) {
      const std::string f = opts.incident->substr(0, colon);
      for (const InputFile& in : plan.files) file_pos = file_pos || in.display_name == f;
      if (file_pos) fo.named_pos = {f, std::stoull(opts.incident->substr(colon + 1))};
    }
    if (!file_pos) fo.named_gtid = *opts.incident;
  }
  DamageFinder finder(fo, plan.damage);
  WalkOptions wo;
  wo.decode = decode;
  wo.filter = filter;
  wo.filter.start_position = plan.start.position;
  if (!plan.start.mysql_gtids.empty())
    wo.filter.exclude_gtids.add_mysql_set(plan.start.mysql_gtids);
  if (!plan.start.maria_gtids.empty())
    wo.filter.exclude_gtids.add_maria_position(plan.start.maria_gtids);
  if (also != nullptr) {
    TeeConsumer tee({&finder, also});
    walk(plan.files, wo, tee, warn);
  } else {
    walk(plan.files, wo, finder, warn);
  }
  plan.total = finder.total();
  plan.skipped = finder.skipped();
  if (plan.total.transactions == 0 && !opts.allow_empty)
    throw Error(ErrorCode::kNotFound,
                "nothing to plan: the range and filters keep no transaction of the binlogs read "
                "(from " +
                    plan.files.front().display_name +
                    (plan.start.position ? ":" + std::to_string(*plan.start.position) : "") + ", " +
                    plan.start.why + "); are these the binlogs after the backup?");
  if (finder.suspects_not_listed() > 0)
    warn(std::to_string(finder.suspects_not_listed()) +
         " more suspect transactions are not listed (the first 1000 are)");
  weigh_damage(plan.damage, AllowRules(opts.allow));
  const IncidentChoice choice = choose_incident(plan.damage, opts.incident);
  plan.incident = choice.index;
  plan.incident_why = choice.why;
  return plan;
}

std::unique_ptr<WalkConsumer> damage_finder(const PlanOptions& opts, std::vector<Damage>& out) {
  DamageFinderOptions fo;
  fo.rows_threshold = opts.rows_threshold;
  return std::make_unique<DamageFinder>(fo, out);
}

}  // namespace binrecover::recovery
