#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "recovery/reading/gtid_set.h"

namespace binrecover::recovery {

// A history as GTIDs: MySQL's GTID set, or MariaDB's last seq_no per domain and server (as its
// Gtid_list and gtid_binlog_state keep it: a GTID of another server in a domain is not
// taken for one of this server's). What a binlog holds before its first transaction
// (Previous_gtids / Gtid_list) and what a reader has read since, to follow one history
// across servers (an archive after a failover) and an archiver to decide where it goes on.
class History {
 public:
  explicit History(bool mariadb) : mariadb_(mariadb) {}
  // A GTID, a MySQL set, or MariaDB GTIDs "d-s-n,d-s-n". Throws Error(kServer) on other text.
  void add(const std::string& text);
  bool contains(const std::string& gtid) const;
  bool subset_of(const History& o) const;
  bool same_as(const History& o) const;
  bool empty() const { return mariadb_ ? maria_.empty() : mysql_.empty(); }
  bool mariadb() const { return mariadb_; }
  // The GTIDs of this history past the last one `o` has of the same origin (MariaDB: domain
  // and server; MySQL: uuid or uuid:tag), as ranges "0-1-5..0-1-9" / "uuid:5-9": what a
  // reader that has read `o` lacks to go on with a file that begins after this history.
  // (Holes below `o`'s last GTID of an origin are not looked for: a reader that started in
  // the middle of a file has not seen what came before its start.)
  std::vector<std::string> missing_past(const History& o) const;
  // Where its transactions come from: MariaDB "domain-server", MySQL "uuid" (or "uuid:tag").
  std::set<std::string> origins() const;

 private:
  using Key = std::pair<std::uint32_t, std::uint32_t>;  // domain, server
  bool mariadb_;
  AppliedGtids mysql_;
  std::map<Key, std::uint64_t> maria_;
};

}  // namespace binrecover::recovery
