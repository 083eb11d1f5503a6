#pragma once

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "binlog/byte_cursor.h"
#include "binlog/events.h"

namespace binrecover::recovery {

// The text of the identifiers transactions carry.
// 16-byte server uuid as 8-4-4-4-12 hex.
void append_uuid(fmt::memory_buffer& out, const std::array<std::uint8_t, 16>& sid);
// XA id as X'gtrid',X'bqual',format_id.
void append_xid(fmt::memory_buffer& out, std::uint32_t format_id, binlog::Bytes data,
                std::size_t gtrid_len, std::size_t bqual_len);

// A serialized GTID set (PREVIOUS_GTIDS body): "uuid:1-5:7,\nuuid2:1-3" (the uuids apart as
// `separator` says: the server's ",\n"; mysqlbinlog's comment goes on with ",\n# ").
void append_gtid_set(fmt::memory_buffer& out, binlog::Bytes data,
                     std::string_view separator = ",\n");
// MariaDB GTID list entries: "0-1-8,1-2-3".
void append_maria_gtid_list(fmt::memory_buffer& out, const binlog::MariaGtidList& l);
// The GTIDs a server has already applied, for `replay --gtids=skip-applied`: MariaDB positions
// (gtid_binlog_pos / gtid_slave_pos: the last seq_no per domain) and MySQL GTID sets
// (gtid_executed). A plain value the filter consults; empty means "skip nothing".
class AppliedGtids {
 public:
  // "0-1-42,1-1-7" (MariaDB). Several positions may be added; the highest seq_no per domain
  // counts. Throws Error(kServer) on text that is not a position.
  void add_maria_position(std::string_view text);
  // "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5:11,2174b383-...:1-27" (MySQL, tags of 8.3+ as
  // "uuid:tag:1-5"). Throws Error(kServer) on text that is not a GTID set.
  void add_mysql_set(std::string_view text);

  // "0-1-42,0-2-43" (MariaDB GTIDs, each one transaction: --include-gtids/--exclude-gtids).
  // Throws Error(kServer) on text that is not a list of GTIDs.
  void add_maria_gtids(std::string_view text);

  bool empty() const { return maria_.empty() && mysql_.empty() && maria_exact_.empty(); }
  // Whether the GTID (as transaction_gtid() writes it: "0-1-42", "uuid:42", "uuid:tag:42") is
  // among the applied ones. A MariaDB GTID is applied when its seq_no is at or below the
  // position's seq_no for its domain.
  bool contains(std::string_view gtid) const;
  // The set in one canonical text (uuids and tags sorted, intervals merged; then MariaDB's
  // positions as domain-seq_no, by domain), so that two sets can be compared.
  std::string canonical() const;
  // Whether every GTID of this set is in `other` (MariaDB: each domain's seq_no at or below
  // the other's for that domain).
  bool subset_of(const AppliedGtids& other) const;

  // The MySQL intervals: "uuid" (or "uuid:tag", lower case) and first..last.
  struct Interval {
    std::string source;
    std::uint64_t first, last;
  };
  std::vector<Interval> mysql_intervals() const;
  // The MariaDB GTIDs of add_maria_gtids as one-number intervals of their domain ("0").
  std::vector<Interval> maria_gtid_intervals() const;

 private:
  struct Range {
    std::uint64_t first, last;
  };
  std::vector<std::pair<std::uint32_t, std::uint64_t>> maria_;  // domain, seq_no
  struct MariaGtid {
    std::uint32_t domain, server;
    std::uint64_t seq;
  };
  std::vector<MariaGtid> maria_exact_;                             // add_maria_gtids
  std::vector<std::pair<std::string, std::vector<Range>>> mysql_;  // "uuid" or "uuid:tag"
};

}  // namespace binrecover::recovery
