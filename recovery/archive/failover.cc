#include "recovery/archive/failover.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "binlog/byte_cursor.h"
#include "binlog/error.h"
#include "binlog/index_file.h"
#include "binlog/source.h"
#include "recovery/archive/folder_io.h"
#include "recovery/reading/gtid_set.h"
#include "recovery/reading/transaction.h"
#include "recovery/sql/event_info.h"

namespace binrecover::recovery {

using binrecover::Error;
using binrecover::ErrorCode;

// The server id in the header of a binlog file's format description (the server that wrote
// the file); 0 when it has none.
std::uint32_t writer_id(const std::string& path) {
  try {
    binlog::FdSource src(path, std::filesystem::path(path).filename().string());
    if (auto f = src.next_frame(); f && f->raw.size() >= 19) {
      binlog::ByteCursor c(f->raw, f->pos);
      c.skip(5);  // timestamp, type
      return c.u32le();
    }
  } catch (const Error&) {
  }
  return 0;
}

namespace {

// What one archived file holds of the history: the GTIDs before it (Previous_gtids or
// Gtid_list), then each complete transaction's GTID and where it ends.
struct FileHistory {
  struct Txn {
    std::string gtid;
    std::uint64_t begin = 0, end = 0;
  };
  explicit FileHistory(bool mariadb) : before(mariadb) {}
  History before;
  std::vector<Txn> txns;
  bool anonymous = false;  // a transaction without a GTID
};

FileHistory read_history(const std::string& path, bool mariadb) {
  FileHistory h(mariadb);
  binlog::FdSource src(path, std::filesystem::path(path).filename().string());
  binlog::EventReader reader(src, binlog::ReaderOptions{});
  UnitTracker tracker;
  std::string gtid;
  std::uint64_t outer_end = 4, begin = 4;
  try {
    while (auto ev = reader.next()) {
      if (!ev->in_payload) outer_end = ev->end_pos();
      if (const auto* p = std::get_if<binlog::PreviousGtids>(&ev->body)) {
        fmt::memory_buffer text;
        append_gtid_set(text, p->data);
        h.before.add(std::string(text.data(), text.size()));
      } else if (const auto* l = std::get_if<binlog::MariaGtidList>(&ev->body)) {
        fmt::memory_buffer text;
        append_maria_gtid_list(text, *l);
        h.before.add(std::string(text.data(), text.size()));
      }
      if (std::holds_alternative<binlog::TransactionPayload>(ev->body)) {
        // A MySQL compressed transaction: whole in this one event, after its GTID.
        if (gtid.empty()) h.anonymous = true;
        h.txns.push_back({gtid, begin, ev->end_pos()});
        gtid.clear();
        tracker.reset();
        continue;
      }
      const UnitTracker::Step step = tracker.push(*ev);
      if (step.interrupts || step.starts) gtid.clear();
      if (step.starts) begin = ev->pos;
      if (is_gtid_event(ev->type())) gtid = event_gtid(*ev);
      if (step.closes) {
        if (gtid.empty()) h.anonymous = true;
        h.txns.push_back({gtid, begin, outer_end});
        gtid.clear();
      }
    }
  } catch (const Error&) {  // a torn end: the complete transactions before it count
  }
  return h;
}

}  // namespace

// The new server's newest binlog that begins after nothing the archive lacks (its
// Previous_gtids / Gtid_list within the archive's GTIDs), and the archive's tail of
// transactions the server does not have (`has`: its gtid_executed / gtid_binlog_state).
// Throws when no binlog qualifies: the server does not have the archive's history.
FailoverPlan plan_failover(const ArchiveOptions& o, const std::vector<std::string>& files,
                           const std::vector<RemoteLog>& logs, bool mariadb, const History& has) {
  FailoverPlan plan;
  // From the newest file back, until one that begins after nothing the server lacks (what it
  // begins after covers every file before it): a failover reads what it must, not the archive.
  std::vector<FileHistory> hist(files.size(), FileHistory(mariadb));
  History through(mariadb);  // the archive's GTIDs: the last file's before, its transactions
  std::size_t first = 0;
  bool shared = false;  // the server has some of the archive's history
  for (std::size_t k = files.size(); k-- > 0;) {
    hist[k] = read_history(files[k], mariadb);
    const FileHistory& h = hist[k];
    if (h.anonymous)
      throw Error(ErrorCode::kServer, files[k] +
                                          " holds transactions without a GTID: a failover "
                                          "can be followed only by GTIDs");
    if (k + 1 == files.size()) through = h.before;
    std::vector<std::string> lost_here;
    for (const auto& t : h.txns) {
      if (k + 1 == files.size()) through.add(t.gtid);
      if (has.contains(t.gtid))
        shared = true;
      else
        lost_here.push_back(t.gtid);
    }
    plan.lost.insert(plan.lost.begin(), lost_here.begin(), lost_here.end());
    if (!h.before.empty() && h.before.subset_of(has)) {
      shared = true;
      first = k;
      break;
    }
  }
  plan.shared = shared;
  bool found = false;
  for (std::size_t j = logs.size(); j-- > 0 && !found;) {
    History b(mariadb);
    b.add(remote_gtids_before(o.remote, logs[j].name));
    if (!b.subset_of(through)) continue;  // begins after transactions the archive lacks
    plan.next_file = logs[j].name;
    found = true;
  }
  if (!found)
    throw Error(ErrorCode::kServer,
                "none of this server's binlogs begins within the archive's history: it does "
                "not have the archive's history (archive it into another --dir)");
  // The tail the server lacks: from the last archived transaction back while it is lost (a
  // file of lost transactions only goes aside whole).
  for (std::size_t k = files.size(); k-- > 0;) {
    const auto& txns = hist[k].txns;
    std::size_t i = txns.size();
    while (i > 0 && !has.contains(txns[i - 1].gtid)) --i;
    std::vector<std::string> here;
    for (std::size_t m = i; m < txns.size(); ++m) here.push_back(txns[m].gtid);
    plan.tail_gtids.insert(plan.tail_gtids.begin(), here.begin(), here.end());
    if (i > 0 || k == first) {
      plan.file_index = k;
      plan.cut = i < txns.size() ? txns[i].begin : 0;
      break;
    }
  }
  return plan;
}

// Carries a failover plan out: the cut file's tail and the later files go into a folder
// DIR/PREFIXdiverged-TIME (nothing is thrown away), the index keeps the rest.
std::string apply_failover(const ArchiveOptions& o, const std::string& index_path,
                           const std::vector<std::string>& files, const FailoverPlan& plan) {
  // (nothing past the boundary: no folder, the index as it is)
  std::error_code size_ec;
  const std::string& cut_file = files[plan.file_index];
  const auto cut_size = std::filesystem::file_size(cut_file, size_ec);
  if (plan.file_index + 1 >= files.size() && (plan.cut == 0 || size_ec || cut_size <= plan.cut))
    return {};
  const std::string base = o.dir + "/" + o.prefix + "diverged-" +
                           std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                              std::chrono::system_clock::now().time_since_epoch())
                                              .count());
  std::string aside = base;
  for (int n = 2; ::mkdir(aside.c_str(), 0700) != 0; ++n) {
    if (errno != EEXIST || n > 100)
      throw Error(ErrorCode::kIo, "cannot create " + aside + ": " + errno_text());
    aside = base + "." + std::to_string(n);
  }
  const std::string& cut_path = files[plan.file_index];
  if (plan.cut > 0) {
    const int fd = ::open(cut_path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) throw Error(ErrorCode::kIo, "cannot open " + cut_path + ": " + errno_text());
    const auto size = static_cast<std::uint64_t>(::lseek(fd, 0, SEEK_END));
    if (size > plan.cut) {
      const std::string tail = aside + "/" + std::filesystem::path(cut_path).filename().string() +
                               ".from-" + std::to_string(plan.cut);
      const int out =
          ::open(tail.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (out < 0) {
        ::close(fd);
        throw Error(ErrorCode::kIo, "cannot create " + tail + ": " + errno_text());
      }
      std::vector<char> chunk(1 << 20);
      for (std::uint64_t at = plan.cut; at < size;) {
        const ssize_t r =
            ::pread(fd, chunk.data(), std::min<std::uint64_t>(chunk.size(), size - at),
                    static_cast<off_t>(at));
        if (r <= 0) {
          ::close(out);
          ::close(fd);
          throw Error(ErrorCode::kIo, "cannot read " + cut_path + ": " + errno_text());
        }
        write_all(out, chunk.data(), static_cast<std::size_t>(r), tail);
        at += static_cast<std::uint64_t>(r);
      }
      ::fsync(out);
      ::close(out);
      if (::ftruncate(fd, static_cast<off_t>(plan.cut)) != 0) {
        ::close(fd);
        throw Error(ErrorCode::kIo, "cannot truncate " + cut_path + ": " + errno_text());
      }
      ::fsync(fd);
    }
    ::close(fd);
  }
  for (std::size_t m = plan.file_index + 1; m < files.size(); ++m) {
    const std::string to = aside + "/" + std::filesystem::path(files[m]).filename().string();
    if (::rename(files[m].c_str(), to.c_str()) != 0)
      throw Error(ErrorCode::kIo, "cannot move " + files[m] + " to " + aside + ": " + errno_text());
  }
  fsync_path(aside);
  write_index(o, index_path, files, plan.file_index + 1);
  return aside;
}

// The archive's index rewritten to list files[0, count): written beside it, then renamed over it.
void write_index(const ArchiveOptions& o, const std::string& index_path,
                 const std::vector<std::string>& files, std::size_t count) {
  const std::string tmp = index_path + ".failover";
  ::unlink(tmp.c_str());
  const int ix = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (ix < 0) throw Error(ErrorCode::kIo, "cannot write " + tmp + ": " + errno_text());
  std::string lines;
  for (std::size_t m = 0; m < count; ++m)
    lines += "./" + std::filesystem::path(files[m]).filename().string() + "\n";
  try {
    write_all(ix, lines.data(), lines.size(), tmp);
  } catch (...) {
    ::close(ix);
    throw;
  }
  ::fsync(ix);
  ::close(ix);
  if (::rename(tmp.c_str(), index_path.c_str()) != 0)
    throw Error(ErrorCode::kIo, "cannot replace " + index_path + ": " + errno_text());
  fsync_path(o.dir);
}

namespace {

// Files at the archive's end the old server began without writing an event into (it died
// between opening a new file and its first event): they hold nothing. Their count.
std::size_t eventless_tail(const std::vector<std::string>& files) {
  const auto eventless = [](const std::string& f) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(f, ec);
    return (ec || size < 512) && writer_id(f) == 0;
  };
  std::size_t written = files.size();
  while (written > 0 && eventless(files[written - 1])) --written;
  return files.size() - written;
}

// Refuses a plan that would mix histories: a server with none of the archive's transactions,
// or one whose next binlog has the name of a file the archive keeps.
void check_plan(const ArchiveOptions& opts, const std::vector<std::string>& files,
                const FailoverPlan& plan, const ArchivedServer& server, std::uint32_t was) {
  const std::string where =
      "the server at " + server.where + " (server id " + std::to_string(server.server_id) + ")";
  if (!plan.shared && !plan.lost.empty())
    throw Error(ErrorCode::kServer, where +
                                        " has none of the archive's transactions: it does not "
                                        "have the archive's history (archive it into another "
                                        "--dir)");
  const std::string clash = opts.dir + "/" + opts.prefix + plan.next_file;
  std::error_code ec;
  for (std::size_t m = 0; m <= plan.file_index; ++m)
    if (std::filesystem::equivalent(files[m], clash, ec))
      throw Error(ErrorCode::kServer,
                  where + " goes on from its binlog " + plan.next_file +
                      ", but the archive holds a file of that name from server id " +
                      std::to_string(was) + ": archive this server into another --dir");
}

// What the failover did, in words.
void tell_failover(const std::vector<std::string>& files, const FailoverPlan& plan,
                   const std::string& aside, const ArchivedServer& server, std::uint32_t was,
                   const binlog::WarningSink& warn) {
  const auto list_of = [](const std::vector<std::string>& g) {
    std::string list;
    for (std::size_t m = 0; m < g.size() && m < 5; ++m) list += (m ? ", " : "") + g[m];
    return g.size() > 5 ? list + ", ..." : list;
  };
  const std::string& where = server.where;
  warn("failover: the archive's last file came from server id " + std::to_string(was) +
       "; the server at " + where + " (server id " + std::to_string(server.server_id) +
       ") goes on from its binlog " + plan.next_file +
       " (the archive keeps every transaction this server has; where the two servers' files "
       "overlap, readers take each transaction once)" +
       (aside.empty() ? std::string("; nothing set aside")
                      : "; " + std::filesystem::path(files[plan.file_index]).filename().string() +
                            (plan.cut > 0 ? " cut at " + std::to_string(plan.cut) : "") +
                            ", the archive's last " + std::to_string(plan.tail_gtids.size()) +
                            " transaction(s) set aside in " + aside));
  if (!plan.tail_gtids.empty())
    warn(std::to_string(plan.tail_gtids.size()) + " of them the server at " + where +
         " does not have (lost in the failover; kept in " + aside +
         "): " + list_of(plan.tail_gtids));
  if (plan.lost.size() > plan.tail_gtids.size())
    warn(std::to_string(plan.lost.size() - plan.tail_gtids.size()) +
         " more archived transaction(s) the server at " + where +
         " does not have stay in the archive among ones it has: readers leave them out and "
         "name them (" +
         list_of(plan.lost) + ")");
}

}  // namespace

std::optional<std::string> follow_failover(const ArchiveOptions& opts, const std::string& index,
                                           const std::vector<RemoteLog>& logs,
                                           const ArchivedServer& server,
                                           const std::string& executed,
                                           const binlog::WarningSink& warn) {
  std::error_code ec;
  if (!std::filesystem::exists(index, ec)) return std::nullopt;
  std::vector<std::string> files = binlog::read_index_file(index);
  const std::size_t written = files.size() - eventless_tail(files);
  const std::uint32_t was = written == 0 ? 0 : writer_id(files[written - 1]);
  if (was == 0 || was == server.server_id) return std::nullopt;
  if (written < files.size()) {  // dropped: out of the index first, then off the disk
    write_index(opts, index, files, written);
    for (std::size_t m = written; m < files.size(); ++m) ::unlink(files[m].c_str());
    warn("failover: " + std::to_string(files.size() - written) +
         " file(s) the old server began without writing an event into are dropped (" +
         std::filesystem::path(files[written]).filename().string() + ")");
    files.resize(written);
  }
  // What the server has logged: MySQL's gtid_executed; MariaDB's gtid_binlog_state (each
  // domain and server's last seq_no).
  History has(server.mariadb);
  has.add(executed);
  const FailoverPlan plan = plan_failover(opts, files, logs, server.mariadb, has);
  check_plan(opts, files, plan, server, was);
  const std::string aside = apply_failover(opts, index, files, plan);
  tell_failover(files, plan, aside, server, was, warn);
  return plan.next_file;
}

}  // namespace binrecover::recovery
