#include "cli/option_rules.h"

#include <algorithm>

namespace binrecover::cli {

const std::vector<OptionRule>& option_rules() {
  using K = OptionRule::Kind;
  static const std::vector<OptionRule> rules = {
      // Listings: the picture's buckets and rows.
      {"bucket", K::kNeeds, {"timeline", "html"}, {}, "--bucket applies to --timeline and --html"},
      {"by", K::kNeeds, {"timeline", "html"}, {}, "--by applies to --timeline and --html"},
      // plan and drill.
      {"to-end",
       K::kConflicts,
       {"incident"},
       {Command::kDrill},
       "--to-end replays everything: not with --incident"},
      // archive: a folder or a bucket, one mode.
      {"dir", K::kConflicts, {"to"}, {Command::kArchive}, "give either --dir or --to, not both"},
      {"fsync-interval",
       K::kConflicts,
       {"to"},
       {Command::kArchive},
       "--fsync-interval applies to --dir (with --to, see --upload-interval)"},
      {"status-file", K::kConflicts, {"to"}, {Command::kArchive}, "--status-file applies to --dir"},
      {"s3-folder",
       K::kNeeds,
       {"to"},
       {Command::kArchive},
       "--s3-folder applies with --to s3://..."},
      {"upload-interval",
       K::kNeeds,
       {"to"},
       {Command::kArchive},
       "--upload-interval applies with --to s3://..."},
      {"part-size",
       K::kNeeds,
       {"to"},
       {Command::kArchive},
       "--part-size applies with --to s3://..."},
      {"format",
       K::kNeeds,
       {"status"},
       {Command::kArchive},
       "--format applies to archive --status"},
      {"verify",
       K::kConflicts,
       {"status"},
       {Command::kArchive},
       "give either --verify or --status, not both"},
      // replay.
      {"window",
       K::kNeeds,
       {"server-applier"},
       {Command::kReplay},
       "--window applies with --server-applier"},
      {"listen",
       K::kNeeds,
       {"server-applier"},
       {Command::kReplay},
       "--listen applies with --server-applier"},
      {"in-doubt", K::kNeeds, {"resume"}, {Command::kReplay}, "--in-doubt applies with --resume"},
  };
  return rules;
}

void check_option_rules(const Given& g, Command cmd) {
  for (const OptionRule& r : option_rules()) {
    if (!r.commands.empty() &&
        std::find(r.commands.begin(), r.commands.end(), cmd) == r.commands.end())
      continue;
    if (!g.has(r.option)) continue;
    const bool any = std::any_of(r.others.begin(), r.others.end(),
                                 [&](const char* other) { return g.has(other); });
    if (r.kind == OptionRule::Kind::kNeeds ? !any : any) usage_error(r.message);
  }
}

}  // namespace binrecover::cli
