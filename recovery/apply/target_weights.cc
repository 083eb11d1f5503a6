#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "recovery/apply/target_keys.h"
#include "recovery/sql/sql_quote.h"
#include "recovery/text/escape.h"

// TargetKeys' weights of key values (TargetKeys::weigh): what the target's collations make of
// them, learned from its WEIGHT_STRING.

namespace binrecover::recovery {

namespace {

bool printable_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c <= 0x7e; });
}

// Whether `s` is well-formed text of `charset` (UTF-8: no overlong forms, surrogates or code
// points past U+10FFFF; utf8mb3: none past U+FFFF), so that the target weighs what a row holds.
bool well_formed(std::string_view s, std::string_view charset) {
  if (single_byte(charset)) return true;
  if (charset == "ascii") return std::all_of(s.begin(), s.end(), [](char c) { return c >= 0; });
  // (other character sets of several bytes a character: not told here)
  if (!utf8_family(charset)) return false;
  const std::size_t most = charset == "utf8mb4" ? 4 : 3;
  for (std::size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = utf8_length(s, i);
    if (n == 0 || n > most) return false;
    i += n;
  }
  return true;
}

std::string utf8_bytes(std::uint32_t code) {
  std::string out;
  if (code < 0x80) {
    out.push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (code >> 6)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
  } else if (code < 0x10000) {
    out.push_back(static_cast<char>(0xe0 | (code >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xf0 | (code >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
  }
  return out;
}

// Whether a UCA collation weighs the character the same wherever it stands: the blocks that
// hold no part of a contraction of the root tables (those pair a letter with a combining mark,
// 'L' with U+00B7, or reorder Thai, Lao and Tibetan): Latin-1 (but U+00B7) and Latin Extended,
// Greek and Cyrillic letters, general punctuation, currency signs, kana (but the sound and
// iteration marks), CJK ideographs, Hangul syllables, emoji.
bool plain_uca(std::uint32_t c) {
  static constexpr std::uint32_t kRanges[][2] = {
      {0x00a0, 0x00b6}, {0x00b8, 0x024f}, {0x0370, 0x0386}, {0x0388, 0x03ff},  {0x0400, 0x0482},
      {0x048a, 0x052f}, {0x1e00, 0x1eff}, {0x2010, 0x2027}, {0x20a0, 0x20bf},  {0x3041, 0x3096},
      {0x30a1, 0x30fa}, {0x4e00, 0x9fff}, {0xac00, 0xd7a3}, {0x1f300, 0x1faff}};
  for (const auto& r : kRanges)
    if (c >= r[0] && c <= r[1]) return true;
  return false;
}

}  // namespace

void TargetKeys::learn(Collation& c) {
  c.learned = true;
  const std::string as = " COLLATE " + c.name;
  auto text = [&](std::string_view bytes) {
    return "_" + c.charset + " " + hex_literal(bytes) + as;
  };
  auto weight = [&](std::string_view bytes) {
    return "IFNULL(HEX(WEIGHT_STRING(" + text(bytes) + ")), '-')";
  };
  static constexpr std::string_view kSample = "Ab~ z{0|";
  std::string sql = "SELECT " + text("a") + " = " + text("a ") + ", " + weight(kSample);
  for (char ch = 0x20; ch <= 0x7e; ++ch) sql += ", " + weight(std::string_view(&ch, 1));
  std::vector<std::vector<std::string>> rows;
  try {
    rows = session_.rows(sql);
  } catch (const Error&) {  // (a server without the collation, or WEIGHT_STRING: folded)
    return;
  }
  if (rows.size() != 1 || rows[0].size() != 2 + 95) return;
  const std::vector<std::string>& r = rows[0];
  for (std::size_t i = 0; i < 95; ++i) {
    if (r[2 + i] == "-") return;
    c.ascii[i] = r[2 + i];
  }
  // The weights of an ASCII string are its characters' weights one after another.
  std::string sum;
  for (const char ch : kSample) sum += c.ascii[static_cast<std::size_t>(ch - 0x20)];
  if (sum != r[1] || c.ascii[0].empty()) return;
  c.pad = r[0] == "1";
  c.usable = true;
}

Weighing TargetKeys::weigh(std::uint32_t collation, std::string_view value, std::uint32_t prefix,
                           std::string& out) {
  if (collation >= collations_.size()) return Weighing::kFold;
  Collation& c = collations_[collation];
  if (!c.learned) learn(c);
  // (folded where that is sure; else the rows hold their table)
  if (!c.usable) return ascii_foldable(c.charset) ? Weighing::kFold : Weighing::kUnknown;
  out.clear();
  if (printable_ascii(value)) {
    if (prefix > 0 && value.size() > prefix) value = value.substr(0, prefix);
    for (const char ch : value) out += c.ascii[static_cast<std::size_t>(ch - 0x20)];
  } else {
    if (!well_formed(value, c.charset)) return Weighing::kUnknown;
    const bool added = c.by_char && by_characters(c, value, prefix, out);
    if (!added || c.checks_left > 0) {
      std::string got;
      if (!ask(c, value, prefix, got)) return Weighing::kUnknown;
      if (added && --c.checks_left >= 0 && got != out) {
        c.by_char = false;
        if (name_differences_)
          std::fprintf(stderr, "binrecover: test: %s %s weighs %s, added up %s\n", c.name.c_str(),
                       hex_literal(value).c_str(), got.c_str(), out.c_str());
      }
      out = std::move(got);
    }
  }
  // PAD SPACE: a value and the same with trailing spaces are one.
  const std::string& space = c.ascii[0];
  if (c.pad)
    while (out.size() >= space.size() && out.size() % space.size() == 0 &&
           out.compare(out.size() - space.size(), space.size(), space) == 0)
      out.resize(out.size() - space.size());
  return Weighing::kWeights;
}

TargetKeys::TargetKeys(Session& session) : session_(session) {
  if (const char* v = std::getenv("BINRECOVER_TEST_WEIGHT_CHECKS"); v != nullptr && *v != 0) {
    checks_ = static_cast<int>(std::strtol(v, nullptr, 10));
    name_differences_ = true;
  }
}

bool TargetKeys::ask(Collation& c, std::string_view value, std::uint32_t prefix, std::string& out) {
  // (the lookup's key in a buffer kept across values: no allocation for a value known)
  std::string& id = lookup_;
  id.assign(reinterpret_cast<const char*>(&prefix), sizeof prefix);
  id.append(value);
  if (const auto it = c.known.find(id); it != c.known.end()) {
    out = it->second;
    return true;
  }
  std::string text = "_" + c.charset + " " + hex_literal(value) + " COLLATE " + c.name;
  if (prefix > 0) text = "LEFT(" + text + ", " + std::to_string(prefix) + ")";
  std::optional<std::string> got;
  try {
    got = session_.value("SELECT IFNULL(HEX(WEIGHT_STRING(" + text + ")), '-')");
  } catch (const Error&) {
    return false;
  }
  if (!got || *got == "-") return false;
  if (c.known_bytes > (std::size_t{8} << 20)) {  // (a bound: forgotten, asked again)
    c.known.clear();
    c.known_bytes = 0;
  }
  c.known_bytes += id.size() + got->size();
  out = *got;
  c.known.emplace(id, std::move(*got));
  return true;
}

bool TargetKeys::by_characters(Collation& c, std::string_view value, std::uint32_t prefix,
                               std::string& out) {
  out.clear();
  const bool bytes = single_byte(c.charset);
  std::uint32_t chars = 0;
  for (std::size_t i = 0; i < value.size(); ++chars) {
    if (prefix > 0 && chars == prefix) break;
    const auto b = static_cast<unsigned char>(value[i]);
    const std::size_t n = bytes || b < 0x80 ? 1 : utf8_length(value, i);
    if (n == 0) return false;  // (not UTF-8: weigh() asks well_formed() first)
    const std::uint32_t code = n == 1 ? b : utf8_code_point(value, i, n);
    i += n;
    if (code >= 0x20 && code <= 0x7e) {
      out += c.ascii[code - 0x20];
      continue;
    }
    if (code < 0x80 || (c.uca && !plain_uca(code))) return false;
    const std::string* w = char_weight(c, code);
    if (w == nullptr) return false;
    out += *w;
  }
  return true;
}

const std::string* TargetKeys::char_weight(Collation& c, std::uint32_t code) {
  constexpr std::uint32_t kBlock = 128;
  // (a bound: a log of every script's characters, 5 MiB a collation; forgotten, asked again)
  if (c.blocks.size() >= 1024 && c.blocks.find(code / kBlock) == c.blocks.end()) c.blocks.clear();
  auto [it, added] = c.blocks.try_emplace(code / kBlock);
  std::vector<std::string>& block = it->second;
  if (added) {
    const std::uint32_t first = code / kBlock * kBlock;
    const bool bytes = single_byte(c.charset);
    const std::uint32_t most = c.charset == "utf8mb4" ? 0x10ffff : 0xffff;
    std::string sql = "SELECT ";
    for (std::uint32_t k = first; k < first + kBlock; ++k) {
      if (k != first) sql += ", ";
      std::string ch;
      if (bytes && k <= 0xff)
        ch.push_back(static_cast<char>(k));
      else if (!bytes && k >= 0x80 && k <= most && (k < 0xd800 || k > 0xdfff))
        ch = utf8_bytes(k);
      if (ch.empty()) {
        sql += "'-'";
        continue;
      }
      sql += "IFNULL(HEX(WEIGHT_STRING(_" + c.charset + " " + hex_literal(ch) + " COLLATE " +
             c.name + ")), '-')";
    }
    try {
      const auto rows = session_.rows(sql);
      if (rows.size() == 1 && rows[0].size() == kBlock) block = rows[0];
    } catch (const Error&) {  // (the values are asked one by one)
    }
  }
  if (block.empty() || block[code % kBlock] == "-") return nullptr;
  return &block[code % kBlock];
}

}  // namespace binrecover::recovery
