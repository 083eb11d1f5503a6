#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "binlog/events.h"

namespace binrecover::recovery {

// --gtid-strict-mode, as mariadb-binlog checks it: within a domain, each MariaDB GTID's seq_no
// must be above the last one seen (whatever the server id). The first non-empty Gtid_list
// seeds each domain it names (a GTID below that state passes, one equal to it does not).
class GtidOrder {
 public:
  // A file's Gtid_list (only the first non-empty one counts; none when the walk started past
  // the first file's start).
  void seed(const binlog::MariaGtidList& list);
  // Records a GTID; the message when it is out of order ("0-1-3 after 0-5-12").
  std::optional<std::string> record(std::uint32_t domain, std::uint32_t server, std::uint64_t seq);
  void no_seed() { seeded_ = true; }

 private:
  struct Domain {
    std::uint32_t id;
    std::uint64_t start;  // the Gtid_list's seq_no (0: none)
    std::uint32_t last_server;
    std::uint64_t last;
  };
  Domain* find(std::uint32_t id);
  std::vector<Domain> domains_;
  bool seeded_ = false;
};

}  // namespace binrecover::recovery
