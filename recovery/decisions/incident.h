#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// What a DBA decides after an accident, made explicit: which events of the range lost data for
// certain, which only look like it (a legitimate batch job looks the same), and which one the
// recovery must stop before.
namespace binrecover::recovery {

// Rows and statements per table, and transactions, of a stretch of the range.
struct TableCounts {
  std::uint64_t inserted = 0, updated = 0, deleted = 0;
  std::uint64_t statements = 0;  // statement-format changes (their rows are not in the log)
  bool empty() const { return inserted == 0 && updated == 0 && deleted == 0 && statements == 0; }
};
struct RangeCounts {
  std::uint64_t transactions = 0;
  std::map<std::string, TableCounts> tables;  // "db.table" (or "db" for database statements)
  void add(const RangeCounts& o);
  // What this (later) stretch has beyond `earlier` (a prefix of it).
  RangeCounts since(const RangeCounts& earlier) const;
};

enum class Severity : std::uint8_t {
  kCertainLoss,  // DROP DATABASE/TABLE, TRUNCATE, DELETE/UPDATE without WHERE or of every row
  kSuspect,      // many rows with a WHERE, a statement whose WHERE pins no row by a key
};
std::string_view severity_name(Severity s);  // "certain loss", "suspect"

// One listed transaction.
struct Damage {
  std::uint32_t number = 0;  // 1.. in the listing
  std::string file;
  std::uint64_t pos = 0;        // first event of the transaction (its GTID or BEGIN)
  std::uint64_t event_pos = 0;  // the damaging event itself
  std::uint64_t end_pos = 0;    // end of the transaction
  std::uint32_t timestamp = 0;
  std::string gtid;
  std::uint32_t thread_id = 0;  // 0: not in the log (row events carry none)
  std::string what;             // "DROP DATABASE", "DELETE without WHERE", "DELETE of 5000 rows"
  std::string target;           // db or db.table
  std::string statement;        // the statement (or the annotation of row events), cut short
  std::uint64_t rows = 0;       // rows the event changed (row format), 0: not known
  Severity severity = Severity::kSuspect;
  std::string why;  // the reason for its severity, in words
  // A certain loss that repeats in the range (the same statement on the same target): a job.
  std::uint32_t repeats = 0;
  std::string allowed_by;  // the --allow rule that marks it legitimate
  bool named = false;      // --incident=GTID|FILE:POS names it
  RangeCounts before;      // the range before this transaction
  RangeCounts own;         // this transaction
  bool routine() const { return repeats > 1; }
};

// The WHERE of an UPDATE or DELETE: none at all, one whose every alternative fixes a column to
// literal values (`id = 5`, `a = 1 AND b IN (2, 3)`: a lookup by a key, as an application does
// one row at a time), or one that does not (ranges, functions, LIKE: a batch).
enum class WhereKind : std::uint8_t { kNone, kPinned, kOpen };
WhereKind where_kind(std::string_view statement);

// The statement with its literals as '?', words in upper case and spacing made one: two runs
// of one job have the same shape.
std::string statement_shape(std::string_view statement);

// --allow rules: known jobs. A rule with a space is a statement pattern (matched against the
// start of the statement, letter case and spacing aside; * and ? wildcards); one without is a
// target: db.table, db.* or db.
class AllowRules {
 public:
  AllowRules() = default;
  explicit AllowRules(std::vector<std::string> rules) : rules_(std::move(rules)) {}
  // The rule that allows an event on `target` with `statement`, or nullptr.
  const std::string* match(std::string_view target, std::string_view statement) const;
  bool empty() const { return rules_.empty(); }

 private:
  std::vector<std::string> rules_;
};

// Marks the listed events that repeat (routine) and those an --allow rule names, and numbers
// them 1.. in order.
void weigh_damage(std::vector<Damage>& damage, const AllowRules& allow);

// The incident a recovery stops before.
struct IncidentChoice {
  std::optional<std::size_t> index;  // into the damage list; none: replay everything
  std::string why;
};
// `spec`: --incident=N (a listing number) or GTID / FILE:POS (the event marked `named`).
// Without it: the latest certain loss that is neither routine nor allowed: the event after which
// the databases asked for no longer hold what is missing. Never a suspect. Throws Error(kUsage)
// when `spec` names nothing listed.
IncidentChoice choose_incident(const std::vector<Damage>& damage,
                               const std::optional<std::string>& spec);

// "1,200"
std::string with_commas(std::uint64_t n);
// "zyyshop.orders 1,200 inserted, 3 deleted; zyyshop.customers 2,000 updated" (at most `limit`
// tables, then "and N more tables").
std::string counts_text(const RangeCounts& c, std::size_t limit = 6);

}  // namespace binrecover::recovery
