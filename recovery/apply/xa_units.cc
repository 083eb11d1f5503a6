#include "recovery/apply/xa_units.h"

#include <cctype>

#include "recovery/reading/transaction.h"

namespace binrecover::recovery {

std::optional<std::string_view> xa_xid(std::string_view statement, std::string_view verb) {
  if (!starts_with_keyword(statement, "XA")) return std::nullopt;
  const std::string_view rest = trim_query(statement.substr(2));
  if (!starts_with_keyword(rest, verb)) return std::nullopt;
  const std::string_view after = rest.substr(verb.size());
  // (a whole word: XA STARTX is no XA START)
  if (after.empty() || (after.front() != ' ' && after.front() != '\t' && after.front() != '\n'))
    return std::nullopt;
  const std::string_view xid = trim_query(after);
  if (xid.empty()) return std::nullopt;
  return xid;
}

// An xid as MariaDB writes it in its binlog: X'gtrid',X'bqual',formatID (hex, hex, decimal).
// Anything else is not taken: the xid is sent again in XA END / XA ROLLBACK (ApplyEngine), and
// text from a log must never become SQL of its own there.
bool plain_xid(std::string_view xid) {
  std::size_t i = 0;
  for (int part = 0; part < 2; ++part) {
    if (xid.substr(i, 2) != "X'") return false;
    i += 2;
    while (i < xid.size() && std::isxdigit(static_cast<unsigned char>(xid[i])) != 0) ++i;
    if (xid.substr(i, 2) != "',") return false;
    i += 2;
  }
  if (i >= xid.size() || xid.size() - i > 10) return false;
  for (; i < xid.size(); ++i)
    if (xid[i] < '0' || xid[i] > '9') return false;
  return true;
}

std::optional<XaUnit> read_xa_unit(std::string_view text,
                                   const std::vector<Output::Statement>& statements) {
  std::optional<std::string_view> started;
  std::string_view last;
  for (const Output::Statement& st : statements) {
    if (st.kind != Output::Statement::Kind::kSql) continue;
    last = trim_query(text.substr(st.begin, st.end - st.begin));
    if (auto xid = xa_xid(last, "START")) {
      if (started) return std::nullopt;  // (two XA transactions in one unit)
      started = xid;
    }
  }
  if (started && !plain_xid(*started)) return std::nullopt;
  if (started) {
    const auto prepared = xa_xid(last, "PREPARE");
    if (!prepared || *prepared != *started) return std::nullopt;
    return XaUnit{true, std::string(*started)};
  }
  auto ended = xa_xid(last, "COMMIT");
  if (!ended) ended = xa_xid(last, "ROLLBACK");
  if (!ended || !plain_xid(*ended)) return std::nullopt;
  return XaUnit{false, std::string(*ended)};
}

void PreparedXas::add(const std::string& xid, std::uint64_t seq, const WriteSet& writes) {
  if (by_xid_.size() >= kMax && by_xid_.count(xid) == 0) return;
  by_xid_[xid] = Prepared{seq, writes};
}

std::optional<PreparedXas::Prepared> PreparedXas::take(const std::string& xid) {
  const auto it = by_xid_.find(xid);
  if (it == by_xid_.end()) return std::nullopt;
  Prepared p = std::move(it->second);
  by_xid_.erase(it);
  return p;
}

}  // namespace binrecover::recovery
