#include "recovery/reading/gtid_set.h"

#include <algorithm>
#include <cctype>
#include <tuple>

#include "binlog/error.h"

namespace binrecover::recovery {

namespace {

constexpr char kHexUpper[] = "0123456789ABCDEF";
constexpr char kHexLower[] = "0123456789abcdef";

void append_hex_upper(fmt::memory_buffer& out, binlog::Bytes b) {
  for (const std::byte x : b) {
    const auto v = static_cast<std::uint8_t>(x);
    out.push_back(kHexUpper[v >> 4]);
    out.push_back(kHexUpper[v & 15]);
  }
}

}  // namespace

void append_uuid(fmt::memory_buffer& out, const std::array<std::uint8_t, 16>& sid) {
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(kHexLower[sid[i] >> 4]);
    out.push_back(kHexLower[sid[i] & 15]);
  }
}

void append_xid(fmt::memory_buffer& out, std::uint32_t format_id, binlog::Bytes data,
                std::size_t gtrid_len, std::size_t bqual_len) {
  out.append(std::string_view("X'"));
  append_hex_upper(out, data.first(gtrid_len));
  out.append(std::string_view("',X'"));
  append_hex_upper(out, data.subspan(gtrid_len, bqual_len));
  fmt::format_to(std::back_inserter(out), "',{}", format_id);
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool number(std::string_view s, std::uint64_t& out) {
  if (s.empty() || s.size() > 20) return false;
  out = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    out = out * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return true;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (;;) {
    const auto p = s.find(sep);
    out.push_back(s.substr(0, p));
    if (p == std::string_view::npos) return out;
    s.remove_prefix(p + 1);
  }
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

[[noreturn]] void bad(std::string_view what, std::string_view text) {
  throw Error(ErrorCode::kServer,
              "the server's " + std::string(what) + " '" + std::string(text) + "' is not readable");
}

}  // namespace

void AppliedGtids::add_maria_position(std::string_view text) {
  for (std::string_view part : split(text, ',')) {
    part = trim(part);
    if (part.empty()) continue;
    const std::vector<std::string_view> f = split(part, '-');
    std::uint64_t domain = 0, server = 0, seq = 0;
    if (f.size() != 3 || !number(f[0], domain) || !number(f[1], server) || !number(f[2], seq) ||
        domain > 0xffffffffULL)
      bad("GTID position", text);
    const auto d = static_cast<std::uint32_t>(domain);
    auto it =
        std::find_if(maria_.begin(), maria_.end(), [&](const auto& e) { return e.first == d; });
    if (it == maria_.end())
      maria_.emplace_back(d, seq);
    else
      it->second = std::max(it->second, seq);
  }
}

void AppliedGtids::add_maria_gtids(std::string_view text) {
  for (std::string_view part : split(text, ',')) {
    part = trim(part);
    const std::vector<std::string_view> f = split(part, '-');
    std::uint64_t domain = 0, server = 0, seq = 0;
    if (f.size() != 3 || !number(f[0], domain) || !number(f[1], server) || !number(f[2], seq) ||
        domain > 0xffffffffULL || server > 0xffffffffULL)
      bad("MariaDB GTID list", text);
    maria_exact_.push_back(
        {static_cast<std::uint32_t>(domain), static_cast<std::uint32_t>(server), seq});
  }
}

std::vector<AppliedGtids::Interval> AppliedGtids::maria_gtid_intervals() const {
  std::vector<Interval> out;
  for (const MariaGtid& g : maria_exact_) out.push_back({std::to_string(g.domain), g.seq, g.seq});
  return out;
}

void AppliedGtids::add_mysql_set(std::string_view text) {
  for (std::string_view part : split(text, ',')) {
    part = trim(part);
    if (part.empty()) continue;
    const std::vector<std::string_view> f = split(part, ':');
    if (f[0].size() != 36) bad("gtid_executed", text);
    const std::string uuid = lower(trim(f[0]));
    std::string key = uuid;
    for (std::size_t i = 1; i < f.size(); ++i) {
      const std::string_view item = trim(f[i]);
      std::uint64_t a = 0, b = 0;
      const auto dash = item.find('-');
      if (!item.empty() && !std::isdigit(static_cast<unsigned char>(item[0]))) {
        key = uuid + ":" + lower(item);  // a tag: the intervals after it are tagged
        continue;
      }
      bool ok = false;
      if (dash == std::string_view::npos) {
        ok = number(item, a);
        b = a;
      } else {
        ok = number(item.substr(0, dash), a) && number(item.substr(dash + 1), b) && b >= a;
      }
      if (!ok) bad("gtid_executed", text);
      auto it =
          std::find_if(mysql_.begin(), mysql_.end(), [&](const auto& e) { return e.first == key; });
      if (it == mysql_.end()) {
        mysql_.emplace_back(key, std::vector<Range>{});
        it = mysql_.end() - 1;
      }
      it->second.push_back({a, b});
    }
  }
}

bool AppliedGtids::contains(std::string_view gtid) const {
  if (gtid.empty()) return false;
  if (gtid.find(':') == std::string_view::npos) {
    const std::vector<std::string_view> f = split(gtid, '-');
    std::uint64_t domain = 0, server = 0, seq = 0;
    if (f.size() != 3 || !number(f[0], domain) || !number(f[1], server) || !number(f[2], seq))
      return false;
    for (const MariaGtid& g : maria_exact_)
      if (g.domain == domain && g.server == server && g.seq == seq) return true;
    for (const auto& [d, s] : maria_)
      if (d == domain) return seq <= s;
    return false;
  }
  const auto colon = gtid.rfind(':');
  std::uint64_t gno = 0;
  if (!number(gtid.substr(colon + 1), gno)) return false;
  const std::string key = lower(gtid.substr(0, colon));
  for (const auto& [k, ranges] : mysql_) {
    if (k != key) continue;
    for (const Range& r : ranges)
      if (gno >= r.first && gno <= r.last) return true;
  }
  return false;
}

std::vector<AppliedGtids::Interval> AppliedGtids::mysql_intervals() const {
  std::vector<Interval> out;
  for (const auto& [key, ranges] : mysql_)
    for (const Range& r : ranges) out.push_back({key, r.first, r.last});
  return out;
}

std::string AppliedGtids::canonical() const {
  std::vector<std::pair<std::string, std::vector<Range>>> sets = mysql_;
  std::sort(sets.begin(), sets.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (auto& [key, ranges] : sets) {
    std::sort(ranges.begin(), ranges.end(),
              [](const Range& a, const Range& b) { return a.first < b.first; });
    out += key;
    std::uint64_t first = 0, last = 0;
    bool open = false;
    for (const Range& r : ranges) {
      if (open && r.first <= last + 1) {
        last = std::max(last, r.last);
        continue;
      }
      if (open) fmt::format_to(std::back_inserter(out), ":{}-{}", first, last);
      first = r.first;
      last = r.last;
      open = true;
    }
    if (open) fmt::format_to(std::back_inserter(out), ":{}-{}", first, last);
    out += ",";
  }
  std::vector<std::pair<std::uint32_t, std::uint64_t>> maria = maria_;
  std::sort(maria.begin(), maria.end());
  for (const auto& [domain, seq] : maria)
    fmt::format_to(std::back_inserter(out), "{}-{},", domain, seq);
  std::vector<MariaGtid> exact = maria_exact_;
  std::sort(exact.begin(), exact.end(), [](const MariaGtid& a, const MariaGtid& b) {
    return std::tie(a.domain, a.server, a.seq) < std::tie(b.domain, b.server, b.seq);
  });
  for (const MariaGtid& g : exact)
    fmt::format_to(std::back_inserter(out), "{}-{}-{},", g.domain, g.server, g.seq);
  return out;
}

bool AppliedGtids::subset_of(const AppliedGtids& other) const {
  for (const MariaGtid& g : maria_exact_)
    if (!other.contains(std::to_string(g.domain) + "-" + std::to_string(g.server) + "-" +
                        std::to_string(g.seq)))
      return false;
  for (const auto& [domain, seq] : maria_) {
    const auto it = std::find_if(other.maria_.begin(), other.maria_.end(),
                                 [d = domain](const auto& e) { return e.first == d; });
    if (it == other.maria_.end() || it->second < seq) return false;
  }
  for (const auto& entry : mysql_) {
    const std::string& key = entry.first;
    const auto it = std::find_if(other.mysql_.begin(), other.mysql_.end(),
                                 [&key](const auto& e) { return e.first == key; });
    for (const Range& r : entry.second) {
      // Walk r through the other set's intervals (in any order): covered when nothing is left.
      std::uint64_t next = r.first;
      bool moved = true;
      while (next <= r.last && moved) {
        moved = false;
        if (it == other.mysql_.end()) return false;
        for (const Range& o : it->second)
          if (o.first <= next && next <= o.last) {
            next = o.last + 1;
            moved = true;
            if (o.last >= r.last) break;
          }
      }
      if (next <= r.last) return false;
    }
  }
  return true;
}

void append_gtid_set(fmt::memory_buffer& out, binlog::Bytes data, std::string_view separator) {
  binlog::ByteCursor cur(data, 0);
  std::uint64_t n = cur.u64le();
  const bool tagged = (n >> 56) == 1;
  if (tagged) n = (n >> 8) & 0xffffffffffffULL;
  std::array<std::uint8_t, 16> previous{};
  for (std::uint64_t i = 0; i < n; ++i) {
    std::array<std::uint8_t, 16> sid{};
    binlog::Bytes b = cur.bytes(16);
    for (int k = 0; k < 16; ++k) sid[k] = static_cast<std::uint8_t>(b[k]);
    // The tags of one uuid follow it: "uuid:1-13:mytag:1-2".
    if (i == 0 || sid != previous) {
      if (i > 0) out.append(separator);
      append_uuid(out, sid);
    }
    previous = sid;
    if (tagged) {
      const std::uint64_t len = cur.varlen();
      const std::string_view tag = cur.str(len);
      if (!tag.empty()) {
        out.push_back(':');
        out.append(tag);
      }
    }
    const std::uint64_t intervals = cur.u64le();
    for (std::uint64_t k = 0; k < intervals; ++k) {
      const auto start = static_cast<std::int64_t>(cur.u64le());
      const auto end = static_cast<std::int64_t>(cur.u64le());
      if (end - 1 == start)
        fmt::format_to(std::back_inserter(out), ":{}", start);
      else
        fmt::format_to(std::back_inserter(out), ":{}-{}", start, end - 1);
    }
  }
}

void append_maria_gtid_list(fmt::memory_buffer& out, const binlog::MariaGtidList& l) {
  binlog::ByteCursor cur(l.entries, 0);
  for (std::uint32_t i = 0; i < l.count; ++i) {
    const std::uint32_t domain = cur.u32le();
    const std::uint32_t server = cur.u32le();
    const std::uint64_t seq = cur.u64le();
    if (i > 0) out.push_back(',');
    fmt::format_to(std::back_inserter(out), "{}-{}-{}", domain, server, seq);
  }
}

}  // namespace binrecover::recovery
