#include "recovery/decisions/incident.h"

#include <algorithm>

#include "binlog/error.h"
#include "recovery/reading/sql_lexer.h"

namespace binrecover::recovery {

void RangeCounts::add(const RangeCounts& o) {
  transactions += o.transactions;
  for (const auto& [name, c] : o.tables) {
    TableCounts& t = tables[name];
    t.inserted += c.inserted;
    t.updated += c.updated;
    t.deleted += c.deleted;
    t.statements += c.statements;
  }
}

RangeCounts RangeCounts::since(const RangeCounts& earlier) const {
  RangeCounts out;
  out.transactions = transactions - std::min(transactions, earlier.transactions);
  for (const auto& [name, c] : tables) {
    TableCounts d = c;
    if (const auto it = earlier.tables.find(name); it != earlier.tables.end()) {
      d.inserted -= std::min(d.inserted, it->second.inserted);
      d.updated -= std::min(d.updated, it->second.updated);
      d.deleted -= std::min(d.deleted, it->second.deleted);
      d.statements -= std::min(d.statements, it->second.statements);
    }
    if (!d.empty()) out.tables.emplace(name, d);
  }
  return out;
}

std::string_view severity_name(Severity s) {
  return s == Severity::kCertainLoss ? "certain loss" : "suspect";
}

namespace {

bool keyword(const SqlToken& t, std::string_view kw) { return is_keyword(t, kw); }
bool punct(const SqlToken& t, char c) {
  return t.kind == SqlToken::Kind::kPunct && t.text.size() == 1 && t.text[0] == c;
}

// A literal at tokens[i]: a number (signed, with a fraction), a string (with a character set
// introducer), a user variable, NULL, TRUE/FALSE. Advances i past it.
bool literal(const std::vector<SqlToken>& t, std::size_t& i) {
  std::size_t k = i;
  if (k < t.size() && (punct(t[k], '-') || punct(t[k], '+'))) ++k;
  if (k < t.size() && t[k].kind == SqlToken::Kind::kNumber) {
    ++k;
    if (k + 1 < t.size() && punct(t[k], '.') && t[k + 1].kind == SqlToken::Kind::kNumber) k += 2;
    i = k;
    return true;
  }
  if (k != i) return false;
  if (k < t.size() && t[k].kind == SqlToken::Kind::kWord && t[k].text.size() > 1 &&
      t[k].text[0] == '_' && k + 1 < t.size() && t[k + 1].kind == SqlToken::Kind::kString)
    ++k;  // _utf8mb4'x'
  if (k < t.size() && t[k].kind == SqlToken::Kind::kString) {
    i = k + 1;
    return true;
  }
  if (k + 1 < t.size() && punct(t[k], '@') && t[k + 1].kind == SqlToken::Kind::kWord) {
    i = k + 2;
    return true;
  }
  if (k < t.size() && (keyword(t[k], "NULL") || keyword(t[k], "TRUE") || keyword(t[k], "FALSE"))) {
    i = k + 1;
    return true;
  }
  return false;
}

// A column name at tokens[i], qualified or not. Advances i past it.
bool column(const std::vector<SqlToken>& t, std::size_t& i) {
  std::size_t k = i;
  const auto name = [&](std::size_t j) {
    return j < t.size() && (t[j].kind == SqlToken::Kind::kIdent ||
                            (t[j].kind == SqlToken::Kind::kWord && !keyword(t[j], "NULL")));
  };
  if (!name(k)) return false;
  ++k;
  while (k + 1 < t.size() && punct(t[k], '.') && name(k + 1)) k += 2;
  i = k;
  return true;
}

// `col = literal`, `literal = col`, `col IN (literal, ...)`: exactly the conjunct's tokens.
bool pins(const std::vector<SqlToken>& t) {
  std::size_t i = 0;
  if (column(t, i)) {
    if (i < t.size() && punct(t[i], '=')) {
      ++i;
      return literal(t, i) && i == t.size();
    }
    if (i + 1 < t.size() && (punct(t[i], '<') && punct(t[i + 1], '=')) && i + 2 < t.size() &&
        punct(t[i + 2], '>')) {
      i += 3;  // <=>
      return literal(t, i) && i == t.size();
    }
    if (i < t.size() && keyword(t[i], "IN") && i + 1 < t.size() && punct(t[i + 1], '(')) {
      i += 2;
      for (;;) {
        if (!literal(t, i)) return false;
        if (i < t.size() && punct(t[i], ',')) {
          ++i;
          continue;
        }
        return i + 1 == t.size() && punct(t[i], ')');
      }
    }
    return false;
  }
  i = 0;
  if (!literal(t, i) || i >= t.size() || !punct(t[i], '=')) return false;
  ++i;
  return column(t, i) && i == t.size();
}

}  // namespace

WhereKind where_kind(std::string_view statement) {
  SqlLexer lex(statement);
  std::vector<SqlToken> where;
  int depth = 0;
  bool in_where = false;
  for (SqlToken t = lex.next(); t.kind != SqlToken::Kind::kEnd; t = lex.next()) {
    if (punct(t, '(')) ++depth;
    if (punct(t, ')')) --depth;
    if (depth == 0 && !in_where && keyword(t, "WHERE")) {
      in_where = true;
      continue;
    }
    if (!in_where) continue;
    if (depth == 0 &&
        (keyword(t, "ORDER") || keyword(t, "LIMIT") || keyword(t, "RETURNING") || punct(t, ';')))
      break;
    where.push_back(t);
  }
  if (!in_where) return WhereKind::kNone;
  // Alternatives (OR) of conjuncts (AND), at the top level: every alternative must fix a column.
  std::vector<SqlToken> conjunct;
  bool alternative_pinned = false;
  depth = 0;
  std::size_t i = 0;
  const auto end_conjunct = [&] {
    // (a conjunct wrapped in parentheses as a whole counts as itself)
    while (conjunct.size() >= 2 && punct(conjunct.front(), '(') && punct(conjunct.back(), ')')) {
      conjunct.erase(conjunct.begin());
      conjunct.pop_back();
    }
    alternative_pinned = alternative_pinned || pins(conjunct);
    conjunct.clear();
  };
  for (; i <= where.size(); ++i) {
    const bool at_end = i == where.size();
    if (!at_end) {
      const SqlToken& t = where[i];
      if (punct(t, '(')) ++depth;
      if (punct(t, ')')) --depth;
      const bool op_and =
          depth == 0 && (keyword(t, "AND") ||
                         (punct(t, '&') && i + 1 < where.size() && punct(where[i + 1], '&')));
      const bool op_or =
          depth == 0 && (keyword(t, "OR") || keyword(t, "XOR") ||
                         (punct(t, '|') && i + 1 < where.size() && punct(where[i + 1], '|')));
      if (op_and || op_or) {
        if (!keyword(t, "AND") && !keyword(t, "OR") && !keyword(t, "XOR")) ++i;  // && ||
        end_conjunct();
        if (op_or) {
          if (!alternative_pinned) return WhereKind::kOpen;
          alternative_pinned = false;
        }
        continue;
      }
      conjunct.push_back(t);
      continue;
    }
    end_conjunct();
  }
  return alternative_pinned ? WhereKind::kPinned : WhereKind::kOpen;
}

std::string statement_shape(std::string_view statement) {
  SqlLexer lex(statement);
  std::string out;
  for (SqlToken t = lex.next(); t.kind != SqlToken::Kind::kEnd; t = lex.next()) {
    if (!out.empty()) out += ' ';
    switch (t.kind) {
      case SqlToken::Kind::kNumber:
      case SqlToken::Kind::kString:
        out += '?';
        break;
      case SqlToken::Kind::kWord:
        for (char c : t.text) out += c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
        break;
      case SqlToken::Kind::kIdent:
        out += '`';
        out += t.text;
        out += '`';
        break;
      default:
        out += t.text;
    }
  }
  return out;
}

namespace {

char fold(char c, bool icase) {
  return icase && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
}

// Glob match of the whole text (* any run, ? one byte).
bool glob(std::string_view pat, std::string_view text, bool icase) {
  std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pat.size() && (pat[p] == '?' || fold(pat[p], icase) == fold(text[t], icase))) {
      ++p;
      ++t;
    } else if (p < pat.size() && pat[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pat.size() && pat[p] == '*') ++p;
  return p == pat.size();
}

// Runs of spaces, tabs and line breaks as one space; none at the ends.
std::string one_spaced(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

}  // namespace

const std::string* AllowRules::match(std::string_view target, std::string_view statement) const {
  for (const std::string& r : rules_) {
    if (r.find(' ') != std::string::npos) {
      if (!statement.empty() && glob(one_spaced(r) + "*", one_spaced(statement), true)) return &r;
    } else if (glob(r, target, false)) {
      return &r;
    }
  }
  return nullptr;
}

void weigh_damage(std::vector<Damage>& damage, const AllowRules& allow) {
  std::map<std::string, std::uint32_t> seen;
  const auto key = [](const Damage& d) {
    std::string what;
    for (char c : d.what)  // "DELETE of all 1200 rows" and "... 1300 rows" are one kind
      if (c < '0' || c > '9') what += c;
    return d.target + '\n' + what + '\n' + statement_shape(d.statement);
  };
  for (const Damage& d : damage)
    if (d.severity == Severity::kCertainLoss) ++seen[key(d)];
  std::uint32_t number = 0;
  for (Damage& d : damage) {
    d.number = ++number;
    if (d.severity == Severity::kCertainLoss) d.repeats = seen[key(d)];
    if (const std::string* rule = allow.match(d.target, d.statement)) d.allowed_by = *rule;
  }
}

IncidentChoice choose_incident(const std::vector<Damage>& damage,
                               const std::optional<std::string>& spec) {
  IncidentChoice out;
  if (spec) {
    const bool number = !spec->empty() && spec->size() <= 9 &&
                        spec->find_first_not_of("0123456789") == std::string::npos;
    for (std::size_t i = 0; i < damage.size(); ++i)
      if (number ? damage[i].number == std::stoul(*spec) : damage[i].named) {
        out.index = i;
        out.why = "chosen with --incident=" + *spec;
        return out;
      }
    throw Error(ErrorCode::kUsage,
                "--incident=" + *spec +
                    (number ? ": the plan lists " + std::to_string(damage.size()) + " event(s)"
                            : ": no transaction of the range has that GTID or an event at that "
                              "position") +
                    " (give a listed number, a GTID, or FILE:POS of one of the transaction's "
                    "events)");
  }
  std::size_t passed_over = 0;
  for (std::size_t i = damage.size(); i-- > 0;) {
    const Damage& d = damage[i];
    if (d.severity != Severity::kCertainLoss) continue;
    if (d.routine() || !d.allowed_by.empty()) {
      ++passed_over;
      continue;
    }
    out.index = i;
    out.why = "the latest certain loss";
    if (passed_over > 0)
      out.why +=
          " (" + std::to_string(passed_over) + " later one(s) passed over: routine or --allow)";
    return out;
  }
  out.why = "no certain loss that is neither routine nor allowed";
  return out;
}

std::string with_commas(std::uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3)
    s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

std::string counts_text(const RangeCounts& c, std::size_t limit) {
  std::string out;
  std::size_t shown = 0;
  for (const auto& [name, t] : c.tables) {
    if (shown == limit) {
      out += "; and " + std::to_string(c.tables.size() - limit) + " more table(s)";
      break;
    }
    ++shown;
    if (!out.empty()) out += "; ";
    out += name;
    std::string parts;
    const auto part = [&](std::uint64_t n, const char* what) {
      if (n == 0) return;
      parts += (parts.empty() ? " " : ", ") + with_commas(n) + " " + what;
    };
    part(t.inserted, "inserted");
    part(t.updated, "updated");
    part(t.deleted, "deleted");
    part(t.statements, t.statements == 1 ? "statement" : "statements");
    out += parts;
  }
  return out;
}

}  // namespace binrecover::recovery
