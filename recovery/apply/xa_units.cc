#include "recovery/apply/xa_units.h"

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
  if (started) {
    const auto prepared = xa_xid(last, "PREPARE");
    if (!prepared || *prepared != *started) return std::nullopt;
    return XaUnit{true, std::string(*started)};
  }
  auto ended = xa_xid(last, "COMMIT");
  if (!ended) ended = xa_xid(last, "ROLLBACK");
  if (!ended) return std::nullopt;
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
