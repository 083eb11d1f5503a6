// binrecover archive --to s3://...: the server's binlogs into object storage (layout in
// recovery/storage/s3_archive.h). The file being written is kept in memory from the end of its
// last sealed piece and stored piece by piece (recovery/archive/s3_active_file.h): at most
// --upload-interval seconds of it are ever at risk. This sink holds the server's manifest and
// index, the flusher thread that uploads on the interval while the server is quiet, and the
// retention policy over the bucket's files.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "binlog/error.h"
#include "recovery/archive/archive_sink.h"
#include "recovery/archive/s3_active_file.h"
#include "recovery/storage/s3_archive.h"

namespace binrecover::recovery {

namespace {

using s3::ArchivedFile;
using s3::Url;

// The manifest of the server's folder (a new one when there is none), refused when it is
// another server's, with what the server says about itself now.
s3::Manifest server_manifest(s3::Client& client, const Url& folder, const ArchivedServer& server) {
  s3::Manifest m;
  if (auto got = s3::read_manifest(client, folder)) {
    if (got->server_id != server.server_id || got->server_uuid != server.uuid)
      throw Error(ErrorCode::kServer,
                  folder.text() + " holds the archive of server id " +
                      std::to_string(got->server_id) +
                      (got->server_uuid.empty() ? "" : " (" + got->server_uuid + ")") +
                      ", not of the server at " + server.where + " (server id " +
                      std::to_string(server.server_id) + "): give another --to or --s3-folder");
    m = std::move(*got);
  }
  m.server_id = server.server_id;
  m.server_uuid = server.uuid;
  m.flavor = server.mariadb ? "mariadb" : "mysql";
  m.version = server.version;
  m.server = server.where;
  return m;
}

// A folder that has files keeps the way they are stored: the same --zstd and key, else refused.
// A new folder takes this run's.
void check_codec(s3::Manifest& m, const Codec& codec, const Url& folder) {
  if (m.files.empty()) {
    m.codec = codec.name();
    m.key_id = codec.key ? codec.key_id : std::string();
    return;
  }
  if (m.codec == codec.name() && (!codec.key || m.key_id == codec.key_id)) return;
  throw Error(ErrorCode::kUsage,
              folder.text() + " is stored " +
                  (m.codec.empty()
                       ? std::string("byte for byte")
                       : "as " + m.codec +
                             (m.key_id.empty() ? std::string() : " (key id " + m.key_id + ")")) +
                  ": continue it with the same --zstd and --encryption-key-file");
}

class S3Archive : public ArchiveSink {
 public:
  S3Archive(const ArchiveOptions& opts, const ArchivedServer& server,
            const binlog::WarningSink& warn)
      : o_(opts),
        warn_(warn),
        client_(s3::load_config(opts.s3)),
        folder_(server_folder(opts, server)),
        file_(client_, folder_, opts.codec, opts.part_bytes, manifest_,
              [this] { write_manifest(); }) {
    client_.on_retry = [this](const std::string& m) { warn_("the store failed " + m); };
    manifest_ = server_manifest(client_, folder_, server);
    check_codec(manifest_, opts.codec, folder_);
    file_.open_last();
    flusher_ = std::thread([this] { upload_when_due(); });
  }

  ~S3Archive() override {
    client_.retry_seconds = 10;  // (on the way out: do not hold the exit up for long)
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    flusher_.join();
    try {
      std::lock_guard<std::mutex> lock(mu_);
      file_.upload();
      manifest_.active = false;  // (the folder is free for retention run alone)
      write_manifest();
    } catch (const Error& e) {  // (the next run goes on from what the manifest names)
      warn_(std::string("the last upload failed: ") + e.what());
    }
  }
  S3Archive(const S3Archive&) = delete;
  S3Archive& operator=(const S3Archive&) = delete;

  void start_new(const std::string& name) override {
    std::lock_guard<std::mutex> lock(mu_);
    file_.start(name);
    write_index();
    write_manifest();
    ++result_.files;
  }

  void append(const binlog::Frame& f) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (flusher_error_) std::rethrow_exception(flusher_error_);
    if (!accept_event(f, file_.pos(), file_.name(), file_.url().text(), file_.crc())) return;
    file_.add(f);
    ++result_.events;
    result_.bytes += f.raw.size();
    result_.last_file = file_.name();
    result_.last_pos = file_.pos();
    if (file_.full()) {
      last_upload_ = std::chrono::steady_clock::now();
      file_.seal();
    } else if (due()) {
      upload();
    }
  }

  void finish_file() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (file_.name().empty() || manifest_.files.back().complete) return;
    last_upload_ = std::chrono::steady_clock::now();
    file_.compose();
  }

  void sync(bool now) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (now || due()) upload();
  }

  const std::string& file() const override { return file_.name(); }
  std::uint64_t pos() const override { return file_.pos(); }
  bool has_file() const override { return !file_.name().empty(); }
  const std::string& ended_next() const override { return file_.ended_next(); }
  ArchiveResult& result() override { return result_; }

  // The policy over the complete files before the current one, from the manifest in memory:
  // the manifest and the index without the dropped files first, then their objects.
  void retain() override {
    if (!o_.retain.any()) return;
    std::lock_guard<std::mutex> lock(mu_);
    // (every file named, the one being written too: the oldest kept backup may begin in it;
    // only complete files before it can go)
    std::vector<std::string> names;
    for (const ArchivedFile& f : manifest_.files) {
      if (!f.complete && f.name != file_.name()) break;
      names.push_back(f.name);
    }
    auto store = s3_backup_store(std::make_shared<s3::Client>(s3::load_config(o_.s3)), folder_);
    std::vector<std::string> problems;
    const std::vector<BackupEntry> backups = store->list(&problems);
    for (const auto& p : problems) warn_("a backup left out: " + p);
    RetentionResult r;
    r.plan = plan_retention(backups, names, o_.retain, s3::unix_now());
    if (r.plan.dropped.empty() && r.plan.drop_files.empty()) return;
    for (const BackupEntry& b : r.plan.dropped) store->remove(b);
    if (!r.plan.drop_files.empty()) r.bytes = drop_files(r.plan.drop_files);
    if (o_.note) o_.note(r.text());
  }

 private:
  // The server's folder under --to: --s3-folder, else its server_uuid (MySQL) or server id.
  static Url server_folder(const ArchiveOptions& opts, const ArchivedServer& server) {
    Url base = s3::parse_url(*opts.to);
    if (!base.key.empty() && base.key.back() != '/') base.key += '/';
    const std::string name = opts.folder.value_or(
        server.uuid.empty() ? "server-" + std::to_string(server.server_id) : server.uuid);
    return Url{base.bucket, base.key + name + "/"};
  }

  bool due() const {
    return std::chrono::steady_clock::now() - last_upload_ >=
           std::chrono::seconds(o_.upload_seconds);
  }

  // (under mu_)
  void upload() {
    last_upload_ = std::chrono::steady_clock::now();
    file_.upload();
  }

  // (under mu_) The files out of the manifest and the index, then their objects; returns
  // their bytes.
  std::uint64_t drop_files(const std::vector<std::string>& files) {
    std::uint64_t bytes = 0;
    const std::set<std::string> drop(files.begin(), files.end());
    for (const ArchivedFile& f : manifest_.files)
      if (drop.count(f.name)) bytes += f.size;
    manifest_.files.erase(
        std::remove_if(manifest_.files.begin(), manifest_.files.end(),
                       [&](const ArchivedFile& f) { return drop.count(f.name) > 0; }),
        manifest_.files.end());
    write_manifest();
    write_index();
    for (const auto& f : files) {
      client_.remove(Url{folder_.bucket, folder_.key + f});
      if (file_.enveloped())  // (its pieces are the file)
        for (const auto& o :
             client_.list(folder_.bucket, folder_.key + ".active/" + f + "/").objects)
          client_.remove(Url{folder_.bucket, o.key});
    }
    return bytes;
  }

  void write_index() {
    std::string lines;
    for (const ArchivedFile& f : manifest_.files) lines += "./" + f.name + "\n";
    std::string base = manifest_.files.front().name;
    const auto dot = base.rfind('.');
    if (dot != std::string::npos) base = base.substr(0, dot);
    client_.put(Url{folder_.bucket, folder_.key + base + ".index"},
                {reinterpret_cast<const std::byte*>(lines.data()), lines.size()}, "text/plain");
  }

  void write_manifest() {
    manifest_.updated = s3::unix_now();
    if (!stopping_) manifest_.active = true;
    const std::string text = manifest_.to_json();
    client_.put(Url{folder_.bucket, folder_.key + s3::kManifestName},
                {reinterpret_cast<const std::byte*>(text.data()), text.size()}, "application/json");
    if (o_.progress) o_.progress(file_.name() + " " + std::to_string(file_.pos()));
  }

  // The flusher thread: what came is uploaded on the interval even while the server is quiet.
  void upload_when_due() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopping_) {
      cv_.wait_for(lock, std::chrono::milliseconds(200));
      if (stopping_ || flusher_error_) continue;
      try {
        if (due()) upload();
      } catch (...) {
        flusher_error_ = std::current_exception();
      }
    }
  }

  const ArchiveOptions& o_;
  const binlog::WarningSink& warn_;
  s3::Client client_;
  const Url folder_;
  s3::Manifest manifest_;
  S3ActiveFile file_;
  ArchiveResult result_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::exception_ptr flusher_error_;
  std::chrono::steady_clock::time_point last_upload_ = std::chrono::steady_clock::now();
  std::thread flusher_;  // (last: started when the rest is ready)
};

}  // namespace

std::unique_ptr<ArchiveSink> open_s3_archive(const ArchiveOptions& opts,
                                             const ArchivedServer& server,
                                             const binlog::WarningSink& warn) {
  return std::make_unique<S3Archive>(opts, server, warn);
}

}  // namespace binrecover::recovery
