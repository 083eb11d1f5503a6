#pragma once

// Retention of an archive (docs/usage.md, "Retention"): the backups past the policy are
// deleted, and the binlogs no kept backup needs (those before the oldest kept backup's
// coordinates); never a backup the policy keeps, never the newest backup, never a binlog from
// the oldest kept backup's on. Each deletion leaves a consistent archive: a backup's manifest
// goes before its dump; the index (and in a bucket the manifest) is rewritten without the
// binlogs before they are deleted, so a kill at any moment leaves at most files nothing names
// (deleted by the next run), and archive --verify passes.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "recovery/backups/catalog.h"
#include "recovery/storage/s3.h"

namespace binrecover::recovery {

struct RetentionPolicy {
  std::optional<unsigned> keep;  // --retain=N: the newest N backups
  std::optional<unsigned> days;  // --retain-days=D: the backups begun in the last D days
  bool dry_run = false;          // say what would go, delete nothing
  bool any() const { return keep.has_value() || days.has_value(); }
};

struct RetentionPlan {
  std::vector<BackupEntry> kept, dropped;  // backups, oldest first
  std::vector<std::string> drop_files;     // binlogs (archive names), in order
  std::string binlogs_why;                 // why those binlogs (or none) go
};

// The decision alone: `backups` oldest first, `files` the archive's binlogs in order (names as
// the archive has them), `now` in unix seconds.
RetentionPlan plan_retention(const std::vector<BackupEntry>& backups,
                             const std::vector<std::string>& files, const RetentionPolicy& p,
                             std::int64_t now);

// What a retention run did (or with dry_run would do), in words: one line per backup and a
// line for the binlogs.
struct RetentionResult {
  RetentionPlan plan;
  std::uint64_t bytes = 0;  // the binlogs' bytes deleted
  std::string text() const;
};

// A folder archive (DIR, or its .index). `locked`: the caller (the archiver) holds the
// folder's lock already; else it is taken here, and an archiver writing the folder makes this
// an error (it applies the policy itself when given --retain).
RetentionResult retain_folder(const std::string& dir, const RetentionPolicy& p, bool locked,
                              const std::function<void(const std::string&)>& warn);
// A bucket archive folder s3://BUCKET/PREFIX/SERVER/ (not while an archiver writes it: its
// manifest rewritten in the last two minutes).
RetentionResult retain_s3(const std::string& url, const RetentionPolicy& p,
                          const std::function<void(const std::string&)>& warn);

// The folder archive's lock (DIR/.binrecover-archive.lock, flock): held by an archiver for its
// run, and by retention. Throws Error(kServer) when another process holds it.
class FolderLock {
 public:
  FolderLock(const std::string& dir, const std::string& who);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace binrecover::recovery
