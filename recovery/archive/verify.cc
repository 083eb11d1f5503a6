#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "binlog/byte_cursor.h"
#include "binlog/error.h"
#include "binlog/index_file.h"
#include "binlog/source.h"
#include "recovery/archive/archive.h"
#include "recovery/reading/gtid_set.h"
#include "recovery/reading/transaction.h"
#include "recovery/sql/event_info.h"

// archive --verify over a folder (and, through verify_files, a bucket: archive_s3.cc): every
// event's checksum, the chain of Rotates, each file's account of the GTIDs before it.
namespace binrecover::recovery {

using binrecover::Error;
using binrecover::ErrorCode;

std::vector<VerifyProblem> verify_archive(const std::string& index_path,
                                          std::uint64_t* events_checked) {
  std::vector<std::string> files;
  try {
    files = binlog::read_index_file(index_path);
  } catch (const Error& e) {
    return {{index_path, 0, e.what()}};
  }
  if (files.empty()) return {{index_path, 0, "the index lists no file"}};
  return verify_files(
      files,
      [&](std::size_t i) -> std::unique_ptr<binlog::Source> {
        return std::make_unique<binlog::FdSource>(
            files[i], std::filesystem::path(files[i]).filename().string());
      },
      events_checked);
}

// The server id in the header of each file's format description (0: none, or unreadable).
std::vector<std::uint32_t> file_writers(
    const std::vector<std::string>& files,
    const std::function<std::unique_ptr<binlog::Source>(std::size_t)>& open) {
  std::vector<std::uint32_t> writers(files.size(), 0);
  for (std::size_t i = 0; i < files.size(); ++i) {
    try {
      const auto src = open(i);
      if (auto f = src->next_frame(); f && f->raw.size() >= 19) {
        binlog::ByteCursor c(f->raw, f->pos);
        c.skip(5);  // timestamp, type
        writers[i] = c.u32le();
      }
    } catch (const Error&) {
    }
  }
  return writers;
}

// The GTIDs logged so far, to check each file's own account of the ones before it (MySQL's
// Previous_gtids, MariaDB's Gtid_list): a file missing, or copied twice, shows there. At a
// failover (`failover`: the file is another server's) the new server's files may begin before
// the old one's end (readers take each transaction once), never past what the archive holds.
class GtidChain {
 public:
  void event(const binlog::Event& e, bool failover, const std::string& path,
             std::vector<VerifyProblem>& problems) {
    const binlog::Event* ev = &e;
    if (const auto* p = std::get_if<binlog::PreviousGtids>(&ev->body)) {
      fmt::memory_buffer text;
      append_gtid_set(text, p->data);
      AppliedGtids before;
      if (p->data.size() >= 8 && binlog::ByteCursor(p->data, 0).u64le() != 0)
        before.add_mysql_set(std::string_view(text.data(), text.size()));
      // (at a failover the new server's files may begin before the old one's end: readers
      // take each transaction once; they must not begin after what the archive holds)
      if (mysql_gtids && failover && !before.subset_of(*mysql_gtids))
        problems.push_back({path, ev->pos,
                            "a gap at the failover: this server's file begins after " +
                                before.canonical() + " but the files before hold " +
                                mysql_gtids->canonical() + ": transactions missing"});
      else if (mysql_gtids && !failover && mysql_gtids->canonical() != before.canonical())
        problems.push_back({path, ev->pos,
                            "Previous_gtids says the files before hold " + before.canonical() +
                                " but they hold " + mysql_gtids->canonical() +
                                ": transactions missing or twice"});
      mysql_gtids = before;
    } else if (mysql_gtids && is_gtid_event(ev->type())) {
      const std::string g = event_gtid(*ev);
      if (!g.empty() && g.find(':') != std::string::npos) mysql_gtids->add_mysql_set(g);
    }
    if (const auto* l = std::get_if<binlog::MariaGtidList>(&ev->body)) {
      std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> state;
      binlog::ByteCursor c(l->entries, 0);
      for (std::uint32_t k = 0; k < l->count; ++k) {
        const std::uint32_t d = c.u32le();
        const std::uint32_t sv = c.u32le();
        state[{d, sv}] = c.u64le();
      }
      const auto within = [&] {  // (every domain and server of `state` no further)
        return std::all_of(state.begin(), state.end(), [&](const auto& e) {
          const auto it = maria_state->find(e.first);
          return it != maria_state->end() ? e.second <= it->second
                                          : e.second <= by_domain(*maria_state)[e.first.first];
        });
      };
      if (maria_state && failover && !within())
        problems.push_back({path, ev->pos,
                            "a gap at the failover: this server's Gtid_list goes past the "
                            "GTIDs of the files before it: transactions missing"});
      else if (maria_state && !failover && *maria_state != state)
        problems.push_back({path, ev->pos,
                            "Gtid_list does not match the GTIDs of the files before it: "
                            "transactions missing or twice"});
      maria_state = state;
    } else if (const auto* g = std::get_if<binlog::MariaGtid>(&ev->body); g && maria_state) {
      (*maria_state)[{g->domain_id, ev->header.server_id}] = g->seq_no;
    }
  }

 private:
  using State = std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t>;
  // Per domain, the last seq_no (MariaDB numbers a domain's transactions whatever server wrote
  // them).
  static std::map<std::uint32_t, std::uint64_t> by_domain(const State& m) {
    std::map<std::uint32_t, std::uint64_t> out;
    for (const auto& [key, seq] : m) out[key.first] = std::max(out[key.first], seq);
    return out;
  }
  std::optional<AppliedGtids> mysql_gtids;
  std::optional<State> maria_state;
};

std::vector<VerifyProblem> verify_files(
    const std::vector<std::string>& files,
    const std::function<std::unique_ptr<binlog::Source>(std::size_t)>& open,
    std::uint64_t* events_checked) {
  std::vector<VerifyProblem> problems;
  const std::vector<std::uint32_t> writers = file_writers(files, open);
  std::uint64_t events = 0;
  GtidChain chain;
  std::uint32_t prev_writer = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string& path = files[i];
    // A file written by another server than the one before it: the archive followed a failover
    // (the file before ends where that server's history goes on, without a Rotate).
    const std::uint32_t writer = writers[i];
    const bool failover = i > 0 && writer != 0 && prev_writer != 0 && writer != prev_writer;
    prev_writer = writer;
    std::string last_type;
    std::string rotate_to;
    std::uint64_t end = 0;
    try {
      const auto src = open(i);
      binlog::ReaderOptions ro;
      ro.verify_checksum = true;
      binlog::EventReader reader(*src, ro);
      while (auto ev = reader.next()) {
        ++events;
        if (ev->in_payload) continue;
        end = ev->end_pos();
        last_type = binlog::event_type_name(ev->header.type);
        rotate_to.clear();
        if (const auto* r = std::get_if<binlog::Rotate>(&ev->body))
          rotate_to = std::string(r->next_file);
        chain.event(*ev, failover, path, problems);
      }
    } catch (const Error& e) {
      problems.push_back({path, e.has_offset() ? e.offset() : end, e.describe()});
      continue;
    }
    if (i + 1 < files.size()) {
      const std::string next = std::filesystem::path(files[i + 1]).filename().string();
      // (at a failover the old server's end may be missing, or name a file it never wrote
      // into: the GTIDs tell whether the next server's files go on from it)
      const bool other_next = writer != 0 && writers[i + 1] != 0 && writers[i + 1] != writer;
      if (other_next) continue;
      if (last_type == "Rotate") {
        if (next.size() < rotate_to.size() ||
            next.compare(next.size() - rotate_to.size(), rotate_to.size(), rotate_to) != 0)
          problems.push_back(
              {path, end,
               "ends with a Rotate to " + rotate_to + ", but the index goes on with " + next});
      } else if (last_type != "Stop") {
        problems.push_back({path, end,
                            "ends without a Rotate (or Stop) event after " +
                                (last_type.empty() ? "nothing" : last_type) +
                                ": its end is missing"});
      }
    }
  }
  if (events_checked != nullptr) *events_checked = events;
  return problems;
}

}  // namespace binrecover::recovery
