#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "recovery/apply/apply_engine.h"
#include "recovery/apply/write_set.h"
#include "recovery/sql/output.h"

namespace binrecover::recovery {

// A unit's MariaDB GTID, as replay needs it.
struct MariaUnit {
  std::uint32_t domain = 0, server = 0;
  std::uint64_t seq_no = 0;
  std::uint8_t flags = 0;
};

// Whether a unit (a transaction of row events, not alone) may join a --merge-transactions
// group: no MySQL GTID of its own to keep (a transaction has one), small (`text`), its COMMIT an
// Xid event's (a transactional engine's: a non-transactional table's changes end with a COMMIT
// query, and would stay applied when a later unit of the group fails), every table
// transactional on the target too (`barrier` false), and with a MariaDB GTID one of an InnoDB
// DML transaction.
bool mergeable_unit(std::string_view text, const std::vector<Output::Statement>& statements,
                    bool barrier, const std::optional<MariaUnit>& maria);

// --merge-transactions: consecutive small transactions held to be applied as one transaction.
class MergeGroup {
 public:
  bool empty() const { return units_ == 0; }
  std::size_t units() const { return units_; }
  // Whether a unit of `bytes` from `file`, read with `prelude`, of MariaDB GTID `maria`, can
  // join the group held: the same file and session setup, not too big, the same MariaDB domain
  // and server with a later sequence number, and the same allow-parallel flag (the SQL writer
  // sets skip_parallel_replication only when it changes: a later unit's SET, left out, would
  // leave it wrong).
  bool fits(const std::string& file, const std::shared_ptr<const Prelude>& prelude,
            std::size_t bytes, const std::optional<MariaUnit>& maria) const;
  // The unit's statements onto the group's text, as the group's transaction has them: the first
  // unit's all but its COMMIT, each later unit's but its GTID's statements (a MariaDB session's
  // GTID cannot change inside a transaction), its BEGIN and its COMMIT; the last unit's COMMIT is
  // kept aside for the end. `place`: the unit's; `ws`: its write set (parallel), or null.
  void append(std::string_view text, const std::vector<Output::Statement>& statements,
              const UnitPlace& place, const std::shared_ptr<const Prelude>& prelude,
              const std::optional<MariaUnit>& maria, const WriteSet* ws);
  // The group held, as one transaction: its place from the first unit's start to the last's end,
  // under the last one's GTID (also as the session's gtid_seq_no); `ws` all of their write
  // sets. The group is empty after.
  ApplyTask take(WriteSet& ws);

  static constexpr std::size_t kUnitBytes = 256 << 10, kGroupBytes = 4 << 20;

 private:
  ApplyTask task_;            // their statements but the last one's COMMIT
  std::string commit_text_;   // the last one's COMMIT
  Output::Statement commit_;  // (its statement)
  std::size_t units_ = 0;     // units in it
  std::size_t seq_at_ = std::string::npos, seq_len_ = 0;  // the first one's gtid_seq_no digits
  std::optional<MariaUnit> maria_;                        // the last one's MariaDB GTID
  WriteSet ws_;                                           // all of theirs (parallel)
};

}  // namespace binrecover::recovery
