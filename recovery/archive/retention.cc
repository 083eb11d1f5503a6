#include "recovery/archive/retention.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>

#include "binlog/error.h"
#include "binlog/index_file.h"
#include "binlog/log_name.h"
#include "recovery/storage/private_file.h"
#include "recovery/storage/s3_archive.h"

namespace binrecover::recovery {

namespace {

namespace fs = std::filesystem;

// A test-only fault point: with BINRECOVER_TEST_PAUSE_RETENTION=1 in the environment,
// retention stops once the index (or manifest) no longer names the binlogs it deletes, before
// the first is deleted, says so on stderr and waits to be killed: a test kills it at that
// moment for certain. Never set in a real run.
void test_pause_retention() {
  const char* v = std::getenv("BINRECOVER_TEST_PAUSE_RETENTION");
  if (v == nullptr || std::string(v) != "1") return;
  std::fprintf(stderr, "binrecover: test pause: retention\n");
  std::fflush(stderr);
  for (;;) ::pause();
}

// Whether an archive file name is a backup's binlog (a folder's copies may carry a prefix).
bool names_binlog(const std::string& archived, const std::string& binlog) {
  return archived.size() >= binlog.size() &&
         archived.compare(archived.size() - binlog.size(), binlog.size(), binlog) == 0;
}

std::string base_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

RetentionPlan plan_retention(const std::vector<BackupEntry>& backups,
                             const std::vector<std::string>& files, const RetentionPolicy& p,
                             std::int64_t now) {
  RetentionPlan plan;
  const std::size_t n = backups.size();
  for (std::size_t i = 0; i < n; ++i) {
    const BackupEntry& b = backups[i];
    const bool newest = i + 1 == n;
    const bool by_count = p.keep && n - i <= *p.keep;
    const bool by_age = p.days && now - b.started < static_cast<std::int64_t>(*p.days) * 86400;
    (newest || by_count || by_age ? plan.kept : plan.dropped).push_back(b);
  }
  if (plan.kept.empty()) {
    plan.binlogs_why = "no backup in the archive: every binlog is kept";
    return plan;
  }
  const BackupEntry& oldest = plan.kept.front();
  if (oldest.binlog_file.empty()) {
    plan.binlogs_why =
        "the oldest backup kept (" + oldest.id + ") names no binlog file: every binlog is kept";
    return plan;
  }
  const auto at = std::find_if(files.begin(), files.end(), [&](const std::string& f) {
    return names_binlog(f, oldest.binlog_file);
  });
  if (at == files.end()) {
    plan.binlogs_why = "the oldest backup kept (" + oldest.id + ") starts in " +
                       oldest.binlog_file +
                       ", which the archive does not hold: every binlog is kept";
    return plan;
  }
  plan.drop_files.assign(files.begin(), at);
  plan.binlogs_why = "the binlogs before " + oldest.binlog_file +
                     ", where the oldest backup kept (" + oldest.id + ") starts";
  return plan;
}

std::string RetentionResult::text() const {
  std::string s;
  for (const BackupEntry& b : plan.dropped) s += "backup " + b.id + ": deleted\n";
  for (const BackupEntry& b : plan.kept) s += "backup " + b.id + ": kept\n";
  if (plan.drop_files.empty())
    s += "binlogs: none deleted (" + plan.binlogs_why + ")\n";
  else
    s += fmt::format("binlogs: {} deleted, {} to {}, {:.1f} MiB ({})\n", plan.drop_files.size(),
                     plan.drop_files.front(), plan.drop_files.back(),
                     static_cast<double>(bytes) / 1048576.0, plan.binlogs_why);
  return s;
}

FolderLock::FolderLock(const std::string& dir, const std::string& who) {
  const std::string path = dir + "/.binrecover-archive.lock";
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd_ < 0) throw Error(ErrorCode::kIo, "cannot open " + path + ": " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    fd_ = -1;
    throw Error(ErrorCode::kServer, "another binrecover archive is writing " + dir + " (" + who +
                                        " waits for none: it holds " + path + ")");
  }
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);
}

RetentionResult retain_folder(const std::string& dir_in, const RetentionPolicy& p, bool locked,
                              const std::function<void(const std::string&)>& warn) {
  std::string dir = dir_in;
  if (dir.size() > 6 && dir.compare(dir.size() - 6, 6, ".index") == 0)
    dir = fs::path(dir).parent_path().string();
  std::optional<FolderLock> lock;
  if (!locked && !p.dry_run) lock.emplace(dir, "retention");
  const std::string index = binlog::index_in_folder(dir);
  std::vector<std::string> paths;
  if (!index.empty()) paths = binlog::read_index_file(index, "");
  std::vector<std::string> names;
  for (const auto& q : paths) names.push_back(base_of(q));
  auto store = folder_backup_store(dir);
  std::vector<std::string> problems;
  const std::vector<BackupEntry> backups = store->list(&problems);
  for (const auto& m : problems) warn("a backup left out: " + m);
  RetentionResult r;
  r.plan = plan_retention(backups, names, p, s3::unix_now());
  std::error_code ec;
  for (const auto& f : r.plan.drop_files) r.bytes += fs::file_size(dir + "/" + f, ec);
  if (p.dry_run) return r;
  for (const BackupEntry& b : r.plan.dropped) store->remove(b);
  if (!r.plan.drop_files.empty()) {
    // The index without them first (atomically, durably): then the files.
    std::string lines;
    for (std::size_t i = r.plan.drop_files.size(); i < names.size(); ++i)
      lines += "./" + names[i] + "\n";
    write_private_file(index, lines, true);
    test_pause_retention();
    for (const auto& f : r.plan.drop_files) {
      binlog::check_log_name(f, "retention");
      if (::unlink((dir + "/" + f).c_str()) != 0 && errno != ENOENT)
        throw Error(ErrorCode::kIo, "cannot delete " + dir + "/" + f + ": " + std::strerror(errno));
    }
  }
  // Files of the index's base name older than its first file, left by a killed run: gone too.
  if (!names.empty() && names.size() > r.plan.drop_files.size()) {
    const std::string& first = names[r.plan.drop_files.size()];
    const std::size_t dot = first.rfind('.');
    if (dot != std::string::npos) {
      const std::string base = first.substr(0, dot + 1);
      for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (name.size() == first.size() && name.compare(0, base.size(), base) == 0 &&
            name < first && e.is_regular_file(ec) &&
            name.find_first_not_of("0123456789", base.size()) == std::string::npos)
          ::unlink(e.path().c_str());
      }
    }
  }
  return r;
}

RetentionResult retain_s3(const std::string& url_text, const RetentionPolicy& p,
                          const std::function<void(const std::string&)>& warn) {
  s3::Url folder = s3::parse_url(url_text);
  if (!folder.key.empty() && folder.key.back() != '/') folder.key += '/';
  const auto client = s3::reader_client();
  const std::optional<s3::Manifest> m = s3::read_manifest(*client, folder);
  if (!m)
    throw Error(ErrorCode::kUsage, folder.text() + " is no archive folder (no " +
                                       s3::kManifestName +
                                       "): name a server's folder, s3://BUCKET/PREFIX/SERVER/");
  const std::int64_t now = s3::unix_now();
  if (!p.dry_run && m->active && now - m->updated < 120)
    throw Error(ErrorCode::kServer,
                folder.text() + " is being written by an archiver (its manifest rewritten " +
                    std::to_string(now - m->updated) +
                    " s ago): give the archiver --retain (it applies the policy itself), or run "
                    "this when no archiver writes the folder (a killed one's claim lapses after "
                    "two minutes)");
  // (every file named, the one being written too: the oldest kept backup may begin in it)
  std::vector<std::string> names;
  for (const s3::ArchivedFile& f : m->files) {
    names.push_back(f.name);
    if (!f.complete) break;
  }
  auto store = s3_backup_store(client, folder);
  std::vector<std::string> problems;
  const std::vector<BackupEntry> backups = store->list(&problems);
  for (const auto& q : problems) warn("a backup left out: " + q);
  RetentionResult r;
  r.plan = plan_retention(backups, names, p, now);
  for (const s3::ArchivedFile& f : m->files)
    for (const auto& d : r.plan.drop_files)
      if (f.name == d) r.bytes += f.size;
  if (p.dry_run) return r;
  for (const BackupEntry& b : r.plan.dropped) store->remove(b);
  // The manifest and the index without them first (the index rewritten even when nothing goes:
  // a run killed between the two left it naming files already gone), then their objects, and
  // any object of a binlog before the manifest's first that a killed run left.
  s3::Manifest kept = *m;
  const std::set<std::string> drop(r.plan.drop_files.begin(), r.plan.drop_files.end());
  kept.files.erase(
      std::remove_if(kept.files.begin(), kept.files.end(),
                     [&](const s3::ArchivedFile& f) { return drop.count(f.name) > 0; }),
      kept.files.end());
  write_s3_listing(*client, folder, kept);
  if (!r.plan.drop_files.empty()) test_pause_retention();
  for (const auto& f : r.plan.drop_files) {
    client->remove(s3::Url{folder.bucket, folder.key + f});
    if (!m->codec.empty())  // (its pieces are the file)
      for (const auto& o : client->list(folder.bucket, folder.key + ".active/" + f + "/").objects)
        client->remove(s3::Url{folder.bucket, o.key});
  }
  if (!kept.files.empty()) {
    const std::string& first = kept.files.front().name;
    const std::size_t dot = first.rfind('.');
    const std::string base = dot == std::string::npos ? first : first.substr(0, dot + 1);
    for (const s3::ObjectInfo& o : client->list(folder.bucket, folder.key + base, "/").objects) {
      const std::string name = base_of(o.key);
      if (name.size() == first.size() && name < first &&
          name.find_first_not_of("0123456789", base.size()) == std::string::npos)
        client->remove(s3::Url{folder.bucket, o.key});
    }
  }
  return r;
}

}  // namespace binrecover::recovery
