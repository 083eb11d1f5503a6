#include "recovery/backups/catalog.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <limits>
#include <nlohmann/json.hpp>

#include "binlog/error.h"
#include "binlog/log_name.h"
#include "recovery/storage/json_number.h"
#include "recovery/storage/private_file.h"
#include "recovery/storage/s3_transfer.h"

namespace binrecover::recovery {

namespace {

using json = nlohmann::json;

template <typename T>
T number(const json& j, const char* key, const std::string& where, std::optional<T> missing) {
  return json_whole<T>(j, key, where, missing, "binrecover backup manifest");
}

std::string text_of(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool is_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

[[noreturn]] void io_failed(const std::string& what, const std::string& path) {
  throw Error(ErrorCode::kIo, what + " " + path + ": " + std::strerror(errno));
}

// A folder of ours: made 0700 when missing; an existing one must be a real folder (no link).
void own_folder(const std::string& path) {
  if (::mkdir(path.c_str(), 0700) == 0) return;
  if (errno != EEXIST) io_failed("cannot create", path);
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) io_failed("cannot read", path);
  if (!S_ISDIR(st.st_mode))
    throw Error(ErrorCode::kIo, path + " is not a folder (a link or a file): refused");
}

// A small file read without following a link at its name.
std::optional<std::string> read_small(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string s;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    s.append(buf, static_cast<std::size_t>(n));
    if (s.size() > (std::size_t{16} << 20)) break;  // (no manifest is that big)
  }
  ::close(fd);
  return s;
}

void sort_entries(std::vector<BackupEntry>& v) {
  std::sort(v.begin(), v.end(), [](const BackupEntry& a, const BackupEntry& b) {
    return a.started != b.started ? a.started < b.started : a.id < b.id;
  });
}

// --- a folder -------------------------------------------------------------------------------

class FolderStore : public BackupStore {
 public:
  explicit FolderStore(std::string dir) : dir_(std::move(dir)), root_(dir_ + "/backups") {}
  ~FolderStore() override {
    if (fd_ >= 0) abandon();
  }

  std::vector<BackupEntry> list(std::vector<std::string>* problems) override {
    std::vector<BackupEntry> out;
    DIR* d = ::opendir(root_.c_str());
    if (d == nullptr) {
      if (errno == ENOENT) return out;
      io_failed("cannot read", root_);
    }
    while (const dirent* e = ::readdir(d)) {
      const std::string id = e->d_name;
      if (!valid_backup_id(id)) continue;
      const std::string folder = root_ + "/" + id;
      const auto text = read_small(folder + "/" + kBackupManifest);
      if (!text) continue;  // (incomplete)
      try {
        BackupEntry b = BackupEntry::from_json(*text, folder + "/" + kBackupManifest);
        if (b.id != id)
          throw Error(ErrorCode::kServer,
                      folder + "/" + kBackupManifest + " names another backup: " + b.id);
        b.location = folder;
        out.push_back(std::move(b));
      } catch (const Error& err) {
        if (problems != nullptr) problems->push_back(err.what());
      }
    }
    ::closedir(d);
    sort_entries(out);
    return out;
  }

  std::string begin(const std::string& id) override {
    own_folder(dir_);
    own_folder(root_);
    for (int n = 1; n < 100; ++n) {
      const std::string name = n == 1 ? id : id + "-" + std::to_string(n);
      const std::string folder = root_ + "/" + name;
      if (::mkdir(folder.c_str(), 0700) != 0) {
        if (errno == EEXIST) continue;
        io_failed("cannot create", folder);
      }
      folder_ = folder;
      dump_ = folder + "/" + kBackupDump;
      fd_ = ::open(dump_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd_ < 0) io_failed("cannot create", dump_);
      return name;
    }
    throw Error(ErrorCode::kIo, "too many backups begun in one second in " + root_);
  }

  void write(std::string_view bytes) override {
    while (!bytes.empty()) {
      const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        io_failed("cannot write", dump_);
      }
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
  }

  void end() override {
    if (::fsync(fd_) != 0) io_failed("cannot write", dump_);
    ::close(fd_);
    fd_ = -1;
  }

  void abandon() noexcept override {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (!dump_.empty()) ::unlink(dump_.c_str());
    if (!folder_.empty()) ::rmdir(folder_.c_str());
  }

  void commit(const BackupEntry& e) override {
    write_private_file(folder_ + "/" + kBackupManifest, e.to_json(), true);
    folder_.clear();
    dump_.clear();
  }

  void read(const BackupEntry& e, const ByteSink& sink) override {
    const std::string path = e.location + "/" + kBackupDump;
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) io_failed("cannot open", path);
    std::string buf(std::size_t{1} << 20, '\0');
    for (;;) {
      const ssize_t n = ::read(fd, buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        ::close(fd);
        io_failed("cannot read", path);
      }
      if (n == 0) break;
      sink(std::string_view(buf.data(), static_cast<std::size_t>(n)));
    }
    ::close(fd);
  }

  void remove(const BackupEntry& e) override {
    for (const char* name : {kBackupManifest, kBackupDump}) {
      const std::string path = e.location + "/" + name;
      if (::unlink(path.c_str()) != 0 && errno != ENOENT) io_failed("cannot delete", path);
    }
    ::rmdir(e.location.c_str());
  }

  std::string where() const override { return dir_; }
  std::string location_of(const std::string& id) const override { return root_ + "/" + id; }

 private:
  std::string dir_, root_, folder_, dump_;
  int fd_ = -1;
};

// --- a bucket -------------------------------------------------------------------------------

// A dump's parts (doubled after every 1,000: s3_transfer.h) and the ranges it is read by.
constexpr std::size_t kPartBytes = std::size_t{8} << 20;
constexpr std::size_t kReadBytes = std::size_t{4} << 20;

class BucketStore : public BackupStore {
 public:
  BucketStore(std::shared_ptr<s3::Client> client, s3::Url url)
      : client_(std::move(client)), url_(std::move(url)) {
    if (!url_.key.empty() && url_.key.back() != '/') url_.key += '/';
  }
  ~BucketStore() override {
    if (!dump_.key.empty()) abandon();
  }

  std::vector<BackupEntry> list(std::vector<std::string>* problems) override {
    std::vector<BackupEntry> out;
    const s3::Listing l = client_->list(url_.bucket, url_.key);
    const std::string tail = std::string("/") + kBackupManifest;
    for (const s3::ObjectInfo& o : l.objects) {
      // FOLDER/backups/ID/backup.json
      if (o.key.size() <= tail.size() ||
          o.key.compare(o.key.size() - tail.size(), tail.size(), tail) != 0)
        continue;
      const std::string folder = o.key.substr(0, o.key.size() - tail.size());  // .../backups/ID
      const std::size_t slash = folder.rfind('/');
      if (slash == std::string::npos) continue;
      const std::string id = folder.substr(slash + 1);
      const std::string parent = folder.substr(0, slash);
      if (!valid_backup_id(id) ||
          (parent != "backups" &&
           (parent.size() < 8 || parent.compare(parent.size() - 8, 8, "/backups") != 0)))
        continue;
      const s3::Url m{url_.bucket, o.key};
      try {
        const auto text = client_->get(m);
        if (!text) continue;
        BackupEntry b = BackupEntry::from_json(*text, m.text());
        if (b.id != id)
          throw Error(ErrorCode::kServer, m.text() + " names another backup: " + b.id);
        b.location = s3::Url{url_.bucket, folder + "/"}.text();
        out.push_back(std::move(b));
      } catch (const Error& err) {
        if (problems != nullptr) problems->push_back(err.what());
      }
    }
    sort_entries(out);
    return out;
  }

  std::string begin(const std::string& id) override {
    for (int n = 1; n < 100; ++n) {
      const std::string name = n == 1 ? id : id + "-" + std::to_string(n);
      const std::string folder = url_.key + "backups/" + name + "/";
      if (!client_->list(url_.bucket, folder).objects.empty()) continue;
      folder_ = s3::Url{url_.bucket, folder};
      dump_ = s3::Url{url_.bucket, folder + kBackupDump};
      upload_ =
          std::make_unique<s3::ParallelUpload>(*client_, dump_, kPartBytes, "application/zstd");
      return name;
    }
    throw Error(ErrorCode::kIo, "too many backups begun in one second in " + url_.text());
  }

  void write(std::string_view bytes) override { upload_->write(bytes); }

  void end() override {
    upload_->finish();
    upload_.reset();
  }

  void abandon() noexcept override {
    if (upload_) upload_->abort();
    upload_.reset();
    try {
      if (!dump_.key.empty()) client_->remove(dump_);
    } catch (...) {
    }
    dump_.key.clear();
  }

  void commit(const BackupEntry& e) override {
    const std::string text = e.to_json();
    client_->put(s3::Url{folder_.bucket, folder_.key + kBackupManifest}, as_bytes(text),
                 "application/json");
    dump_.key.clear();
  }

  void read(const BackupEntry& e, const ByteSink& sink) override {
    const s3::Url loc = s3::parse_url(e.location);
    const s3::Url obj{loc.bucket, loc.key + kBackupDump};
    const auto info = client_->head(obj);
    if (!info) throw Error(ErrorCode::kIo, obj.text() + ": no such object");
    const std::uint64_t size = info->size;
    const std::size_t chunks = static_cast<std::size_t>((size + kReadBytes - 1) / kReadBytes);
    s3::ReadAhead ahead(
        *client_, chunks, client_->config().streams,
        [&](s3::Client& c, std::size_t i, std::vector<std::byte>& buf) {
          const std::uint64_t at = std::uint64_t{i} * kReadBytes;
          buf.resize(static_cast<std::size_t>(std::min<std::uint64_t>(kReadBytes, size - at)));
          for (std::size_t done = 0; done < buf.size();) {
            const std::size_t got =
                c.get_range(obj, at + done, buf.size() - done, buf.data() + done);
            if (got == 0) throw Error(ErrorCode::kIo, obj.text() + " ends before its size");
            done += got;
          }
        });
    std::vector<std::byte> b;
    for (std::size_t i = 0; i < chunks; ++i) {
      ahead.take(i, b);
      sink(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
    }
  }

  void remove(const BackupEntry& e) override {
    const s3::Url loc = s3::parse_url(e.location);
    client_->remove(s3::Url{loc.bucket, loc.key + kBackupManifest});
    client_->remove(s3::Url{loc.bucket, loc.key + kBackupDump});
  }

  std::string where() const override { return url_.text(); }
  std::string location_of(const std::string& id) const override {
    return url_.text() + "backups/" + id + "/";
  }

 private:
  static binlog::Bytes as_bytes(std::string_view s) {
    return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
  }

  std::shared_ptr<s3::Client> client_;
  s3::Url url_, folder_, dump_;
  std::unique_ptr<s3::ParallelUpload> upload_;
};

}  // namespace

bool valid_backup_id(std::string_view id) {
  // YYYYMMDDTHHMMSSZ[-N]
  if (id.size() < 16 || id.size() > 20) return false;
  if (!is_digits(id.substr(0, 8)) || id[8] != 'T' || !is_digits(id.substr(9, 6)) || id[15] != 'Z')
    return false;
  if (id.size() == 16) return true;
  return id[16] == '-' && is_digits(id.substr(17));
}

std::string backup_id_at(std::int64_t unix_seconds) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

std::string BackupEntry::to_json() const {
  json j;
  j["format"] = format;
  j["id"] = id;
  j["flavor"] = flavor;
  j["version"] = version;
  j["server"] = server;
  j["server_id"] = server_id;
  j["server_uuid"] = server_uuid;
  j["tool"] = tool;
  j["tool_version"] = tool_version;
  j["started"] = started;
  j["completed"] = completed;
  j["binlog_file"] = binlog_file;
  j["binlog_pos"] = binlog_pos ? json(*binlog_pos) : json(nullptr);
  j["mysql_gtids"] = mysql_gtids;
  j["mariadb_gtids"] = mariadb_gtids;
  j["databases"] = databases;
  j["object"] = kBackupDump;
  j["compression"] = compression;
  if (!encryption.empty()) {
    j["encryption"] = encryption;
    j["key_id"] = key_id;
  }
  j["stored_bytes"] = stored_bytes;
  j["dump_bytes"] = dump_bytes;
  j["sha256"] = sha256;
  return j.dump(2, ' ', true, json::error_handler_t::replace) + "\n";
}

BackupEntry BackupEntry::from_json(const std::string& text, const std::string& where) {
  try {
    const json j = json::parse(text);
    BackupEntry b;
    b.format = number<int>(j, "format", where, std::nullopt);
    if (b.format != 1)
      throw Error(ErrorCode::kUnsupportedFormat, where + ": backup manifest format " +
                                                     std::to_string(b.format) +
                                                     " is newer than this binrecover reads");
    b.id = text_of(j, "id");
    if (!valid_backup_id(b.id))
      throw Error(ErrorCode::kServer, where + ": the backup ID is not one binrecover gives");
    b.flavor = text_of(j, "flavor");
    b.version = text_of(j, "version");
    b.server = text_of(j, "server");
    b.server_id = number<std::uint32_t>(j, "server_id", where, 0U);
    b.server_uuid = text_of(j, "server_uuid");
    b.tool = text_of(j, "tool");
    b.tool_version = text_of(j, "tool_version");
    b.started = number<std::int64_t>(j, "started", where, std::nullopt);
    b.completed = number<std::int64_t>(j, "completed", where, std::nullopt);
    b.binlog_file = text_of(j, "binlog_file");
    if (!b.binlog_file.empty())
      binlog::check_log_name(b.binlog_file, "the backup manifest " + where);
    if (j.contains("binlog_pos") && !j.at("binlog_pos").is_null())
      b.binlog_pos = number<std::uint64_t>(j, "binlog_pos", where, std::nullopt);
    b.mysql_gtids = text_of(j, "mysql_gtids");
    b.mariadb_gtids = text_of(j, "mariadb_gtids");
    if (j.contains("databases"))
      for (const json& d : j.at("databases"))
        if (d.is_string()) b.databases.push_back(d.get<std::string>());
    if (text_of(j, "object") != kBackupDump)
      throw Error(ErrorCode::kServer, where + ": the backup names an object binrecover refuses");
    b.compression = text_of(j, "compression");
    if (b.compression != "zstd")
      throw Error(ErrorCode::kUnsupportedFormat,
                  where + ": compression '" + b.compression + "' is not one this binrecover reads");
    b.encryption = text_of(j, "encryption");
    b.key_id = text_of(j, "key_id");
    if (!b.encryption.empty() && b.encryption != "aes-256-gcm")
      throw Error(ErrorCode::kUnsupportedFormat,
                  where + ": encryption '" + b.encryption + "' is not one this binrecover reads");
    b.stored_bytes = number<std::uint64_t>(j, "stored_bytes", where, std::nullopt);
    b.dump_bytes = number<std::uint64_t>(j, "dump_bytes", where, std::nullopt);
    b.sha256 = text_of(j, "sha256");
    if (b.sha256.size() != 64 ||
        b.sha256.find_first_not_of("0123456789abcdef") != std::string::npos)
      throw Error(ErrorCode::kIo, where + ": no SHA-256 of the dump");
    return b;
  } catch (const json::exception& e) {
    throw Error(ErrorCode::kIo, where + ": not a binrecover backup manifest (" + e.what() + ")");
  }
}

std::unique_ptr<BackupStore> folder_backup_store(const std::string& dir) {
  return std::make_unique<FolderStore>(dir);
}

std::unique_ptr<BackupStore> s3_backup_store(std::shared_ptr<s3::Client> client,
                                             const s3::Url& url) {
  return std::make_unique<BucketStore>(std::move(client), url);
}

}  // namespace binrecover::recovery
