#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "recovery/apply/write_set.h"
#include "recovery/sql/output.h"

namespace binrecover::recovery {

// An XA unit as its SQL says: an XA START ... XA PREPARE group (`prepare`, its xid), or an
// XA COMMIT / XA ROLLBACK of a prepared one (the xid it ends).
struct XaUnit {
  bool prepare = false;
  std::string xid;  // as the log writes it (X'..',X'..',N)
};

// The XA unit in a unit's statements (`text`, the SQL writer's marks), or nullopt for anything
// else: a one-phase commit, an XA START without its XA PREPARE (or of another xid), an XA
// COMMIT in a unit that also starts one, no XA statement last, an xid not
// as MariaDB writes it (plain_xid).
std::optional<XaUnit> read_xa_unit(std::string_view text,
                                   const std::vector<Output::Statement>& statements);

// Whether `xid` is one as MariaDB writes it (X'hex',X'hex',N): only those are sent again.
bool plain_xid(std::string_view xid);

// The xid of `XA <verb> xid` (trimmed), or nullopt for another statement.
std::optional<std::string_view> xa_xid(std::string_view statement, std::string_view verb);

// The XA PREPARE groups handed to the workers, by xid, until their XA COMMIT or XA ROLLBACK:
// the unit that one waits for and the rows it holds until it runs. Bounded: the XA COMMIT of
// one not kept is applied alone.
class PreparedXas {
 public:
  struct Prepared {
    std::uint64_t seq = 0;  // the XA PREPARE unit's (ApplyTask::seq)
    WriteSet writes;
  };
  void add(const std::string& xid, std::uint64_t seq, const WriteSet& writes);
  // The XA PREPARE group of `xid`, forgotten here; nullopt when none was kept.
  std::optional<Prepared> take(const std::string& xid);

 private:
  static constexpr std::size_t kMax = 4096;
  std::unordered_map<std::string, Prepared> by_xid_;
};

}  // namespace binrecover::recovery
