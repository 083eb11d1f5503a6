#include "recovery/reading/gtid_order.h"

#include <algorithm>

#include "binlog/byte_cursor.h"

namespace binrecover::recovery {

GtidOrder::Domain* GtidOrder::find(std::uint32_t id) {
  auto it =
      std::find_if(domains_.begin(), domains_.end(), [id](const Domain& d) { return d.id == id; });
  return it == domains_.end() ? nullptr : &*it;
}

void GtidOrder::seed(const binlog::MariaGtidList& list) {
  if (seeded_ || list.count == 0) return;
  seeded_ = true;
  binlog::ByteCursor cur(list.entries, 0);
  for (std::uint32_t i = 0; i < list.count && cur.remaining() >= 16; ++i) {
    const auto domain = static_cast<std::uint32_t>(cur.uint_le(4));
    const auto server = static_cast<std::uint32_t>(cur.uint_le(4));
    const std::uint64_t seq = cur.uint_le(8);
    Domain* d = find(domain);
    if (d == nullptr) {
      domains_.push_back({domain, seq, server, seq});
    } else if (seq > d->start) {
      d->start = d->last = seq;
      d->last_server = server;
    }
  }
}

std::optional<std::string> GtidOrder::record(std::uint32_t domain, std::uint32_t server,
                                             std::uint64_t seq) {
  seeded_ = true;  // (a Gtid_list after the first GTID seeds nothing)
  Domain* d = find(domain);
  if (d == nullptr) {
    domains_.push_back({domain, 0, server, seq});
    return std::nullopt;
  }
  if (seq <= d->last && seq >= d->start)
    return std::to_string(domain) + "-" + std::to_string(server) + "-" + std::to_string(seq) +
           " after " + std::to_string(domain) + "-" + std::to_string(d->last_server) + "-" +
           std::to_string(d->last);
  d->last = seq;
  d->last_server = server;
  return std::nullopt;
}

}  // namespace binrecover::recovery
