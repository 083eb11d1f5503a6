#include "recovery/reading/gtid_history.h"

#include <algorithm>

#include "binlog/error.h"

namespace binrecover::recovery {

namespace {

using Key = std::pair<std::uint32_t, std::uint32_t>;

template <class F>
void for_each_maria(const std::string& text, F f) {
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find(',', at);
    if (end == std::string::npos) end = text.size();
    const std::string g = text.substr(at, end - at);
    const auto d1 = g.find('-');
    const auto d2 = g.find('-', d1 + 1);
    if (d1 == std::string::npos || d2 == std::string::npos)
      throw Error(ErrorCode::kServer, "not a MariaDB GTID: " + g);
    try {
      f(Key{static_cast<std::uint32_t>(std::stoul(g.substr(0, d1))),
            static_cast<std::uint32_t>(std::stoul(g.substr(d1 + 1, d2 - d1 - 1)))},
        std::stoull(g.substr(d2 + 1)));
    } catch (const std::logic_error&) {
      throw Error(ErrorCode::kServer, "not a MariaDB GTID: " + g);
    }
    at = end + 1;
  }
}

}  // namespace

void History::add(const std::string& text) {
  if (!mariadb_) {
    if (!text.empty()) mysql_.add_mysql_set(text);
    return;
  }
  for_each_maria(text, [this](Key key, std::uint64_t seq) {
    auto& at = maria_[key];
    at = std::max(at, seq);
  });
}

bool History::contains(const std::string& gtid) const {
  if (!mariadb_) return mysql_.contains(gtid);
  bool has = true;
  for_each_maria(gtid, [&](Key key, std::uint64_t seq) {
    const auto it = maria_.find(key);
    has = has && it != maria_.end() && it->second >= seq;
  });
  return has;
}

bool History::subset_of(const History& o) const {
  if (!mariadb_) return mysql_.subset_of(o.mysql_);
  for (const auto& [key, seq] : maria_) {
    const auto it = o.maria_.find(key);
    if (it == o.maria_.end() || it->second < seq) return false;
  }
  return true;
}

bool History::same_as(const History& o) const {
  return mariadb_ ? maria_ == o.maria_ : mysql_.canonical() == o.mysql_.canonical();
}

std::set<std::string> History::origins() const {
  std::set<std::string> out;
  for (const auto& [key, seq] : maria_)
    out.insert(std::to_string(key.first) + "-" + std::to_string(key.second));
  for (const auto& iv : mysql_.mysql_intervals()) out.insert(iv.source);
  return out;
}

std::vector<std::string> History::missing_past(const History& o) const {
  std::vector<std::string> out;
  if (mariadb_) {
    for (const auto& [key, seq] : maria_) {
      // (an origin `o` lacks: its sequence numbers go on from its domain's, MariaDB numbers
      // a domain's transactions whatever server wrote them)
      const auto it = o.maria_.find(key);
      std::uint64_t have = it == o.maria_.end() ? 0 : it->second;
      if (it == o.maria_.end()) {
        for (const auto& [k, s] : o.maria_)
          if (k.first == key.first && s < seq) have = std::max(have, s);
        for (const auto& [k, s] : maria_)
          if (k.first == key.first && k != key && s < seq) have = std::max(have, s);
      }
      if (seq <= have) continue;
      const std::string origin = std::to_string(key.first) + "-" + std::to_string(key.second) + "-";
      out.push_back(origin + std::to_string(have + 1) +
                    (seq > have + 1 ? ".." + origin + std::to_string(seq) : ""));
    }
    return out;
  }
  std::map<std::string, std::uint64_t> last;  // o's last GTID of each origin
  for (const auto& iv : o.mysql_.mysql_intervals())
    last[iv.source] = std::max(last[iv.source], iv.last);
  for (const auto& iv : mysql_.mysql_intervals()) {
    const std::uint64_t have = last.count(iv.source) ? last[iv.source] : 0;
    if (iv.last <= have) continue;
    const std::uint64_t from = std::max(iv.first, have + 1);
    out.push_back(iv.source + ":" + std::to_string(from) +
                  (iv.last > from ? "-" + std::to_string(iv.last) : ""));
  }
  return out;
}

}  // namespace binrecover::recovery
