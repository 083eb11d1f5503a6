#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "binlog/events.h"
#include "binlog/reader.h"
#include "recovery/reading/gtid_history.h"
#include "recovery/reading/walker.h"

namespace binrecover::recovery {

// One history across servers (an archive after a failover, or several servers' files given
// at once): the walker reads the inputs in order, and where one server's files are followed
// by another's (another folder or another binlog base name), the transactions are read once
// by GTID:
//  - a transaction is read from the first file that has it: one whose GTID was read already
//    (in an earlier server's file) is left out;
//  - an earlier server's transaction that the last server's history does not hold at its end
//    (its last file's Previous_gtids / Gtid_list and transactions) was lost at a failover: left
//    out, named at the end ("set aside"). (Nothing is read out of its order: a stop position,
//    time or GTID inside the earlier server's files stops where it says.)
//  - the next server's files must begin at GTIDs read already: GTIDs past what was read is a
//    gap, an error naming the missing range;
//  - the earlier server's last file may end without its Rotate (its server stopped there).
// Only where the servers differ (server ids) and share a history (an origin of GTIDs: the new
// server replicated the old one); inactive (no cost) for one server's files, files without
// GTIDs, and unrelated servers' files given together (read one after the other, as before).
class OneHistory {
 public:
  // `start`: the start position in the first input (--start-position).
  OneHistory(const std::deque<InputFile>& inputs, const binlog::ReaderOptions& reader,
             std::optional<std::uint64_t> start);
  OneHistory(const OneHistory&) = delete;
  OneHistory& operator=(const OneHistory&) = delete;
  bool active() const { return active_; }
  // Whether input i is followed by another server's files.
  bool server_ends(std::size_t i) const { return i < next_.size() && next_[i] >= 0; }
  // Before input i is read. Throws Error(kTruncated) on a gap where it begins another
  // server's files.
  void begin_file(std::size_t i);
  enum class Verdict : std::uint8_t { kRead, kReadBefore, kNotInNext };
  // A complete transaction of input i with its GTID (not empty), at `where` (file:pos).
  Verdict transaction(std::size_t i, const std::string& gtid, const std::string& where);
  // What was left out, said once at the end.
  std::vector<std::string> at_end() const;

 private:
  // How a file begins: its server id, what it begins after (Previous_gtids / Gtid_list) with
  // its first transaction's GTID.
  struct FileStart {
    std::uint32_t server_id = 0;
    std::optional<History> before;  // nullopt: no GTIDs before it (an old server)
    std::optional<History> with_first;
  };
  static FileStart file_start(const InputFile& in, const binlog::ReaderOptions& reader);
  std::optional<History> read_before(const InputFile& in, std::optional<std::uint64_t> start) const;
  bool active_ = false;
  const std::deque<InputFile>& inputs_;
  binlog::ReaderOptions reader_;
  std::optional<std::uint64_t> start_;
  std::vector<long> next_;  // per input: the first input of the next server, or -1
  std::vector<std::optional<History>> begins_;  // per input that starts a server's files
  std::optional<History> known_;                // GTIDs read, and what the first file began after
  std::optional<History> last_;  // the last server's history at the end of its last file
  std::size_t first_read_ = static_cast<std::size_t>(-1);
  std::uint64_t read_before_ = 0;
  std::map<std::string, std::string> set_aside_;  // GTID, where
};

}  // namespace binrecover::recovery
