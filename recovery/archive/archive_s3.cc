// binrecover archive --to s3://...: the server's binlogs into object storage (layout in
// recovery/storage/s3_archive.h).
//
// The file being written is kept in memory from the end of its last sealed piece ("the tail",
// at most part_bytes plus one event). Every upload_seconds the bytes that came since the last
// upload become one more small immutable piece, and the manifest is rewritten to list it: at
// most that many seconds are ever at risk. Once the tail reaches part_bytes it is sealed: stored
// as one piece that replaces the small ones. When the server rotates, the file's object is
// composed inside the store by a multipart upload that copies the sealed pieces (nothing is
// downloaded but the first piece, whose in-use flag is cleared) and uploads the tail; then the
// manifest says the file is complete and its pieces are deleted. Every piece is written before
// the manifest names it, so a kill at any moment leaves the manifest describing whole events
// only; a piece the manifest never named is deleted with the others.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "binlog/byte_cursor.h"
#include "binlog/error.h"
#include "binlog/event_type.h"
#include "recovery/archive/archive_sink.h"
#include "recovery/storage/s3_archive.h"

namespace binrecover::recovery {

namespace {

using s3::ArchivedFile;
using s3::Piece;
using s3::Url;

constexpr std::size_t kMaxTailPieces = 32;  // small pieces before the tail is stored as one

std::string piece_key(const std::string& folder, const std::string& file, std::uint64_t offset,
                      std::uint64_t size) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%016llu-%llu", static_cast<unsigned long long>(offset),
                static_cast<unsigned long long>(size));
  return folder + ".active/" + file + "/" + buf;
}

// The GTID an event carries, as text ("" for other events): MariaDB's domain-server-seq,
// MySQL's uuid:gno.
std::string frame_gtid(binlog::Bytes raw) {
  if (raw.size() < 19) return {};
  const auto type = static_cast<binlog::EventType>(raw[4]);
  binlog::ByteCursor c(raw, 0);
  c.skip(5);
  const std::uint32_t server = c.u32le();
  if (type == binlog::EventType::kMariaGtid && raw.size() >= 19 + 12) {
    binlog::ByteCursor b(raw, 0);
    b.skip(19);
    const std::uint64_t seq = b.u64le();
    const std::uint32_t domain = b.u32le();
    return std::to_string(domain) + "-" + std::to_string(server) + "-" + std::to_string(seq);
  }
  if (type == binlog::EventType::kGtid && raw.size() >= 19 + 25) {
    static const char digits[] = "0123456789abcdef";
    std::string uuid;
    for (int i = 0; i < 16; ++i) {
      const auto b = static_cast<unsigned>(raw[20 + static_cast<std::size_t>(i)]);
      if (i == 4 || i == 6 || i == 8 || i == 10) uuid += '-';
      uuid += digits[b >> 4];
      uuid += digits[b & 15];
    }
    binlog::ByteCursor g(raw, 0);
    g.skip(36);
    return uuid + ":" + std::to_string(g.u64le());
  }
  return {};
}

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

// The object `obj` made inside the store by a multipart upload of the sealed pieces (the first
// downloaded, `fix_first` applied to it; the others copied) and the tail (from `tail_start`).
// Returns the object's ranges as pieces.
std::vector<Piece> compose_object(s3::Client& client, const Url& obj, const std::string& bucket,
                                  const std::vector<Piece>& sealed,
                                  const std::vector<std::byte>& tail, std::uint64_t tail_start,
                                  const std::function<void(std::vector<std::byte>&)>& fix_first) {
  std::vector<Piece> ranges;
  const std::string id = client.create_multipart(obj);
  try {
    std::vector<std::string> etags;
    for (std::size_t i = 0; i < sealed.size(); ++i) {
      const Piece& p = sealed[i];
      if (i == 0) {
        std::vector<std::byte> bytes = s3::read_piece(client, bucket, p, false, Codec{});
        fix_first(bytes);
        etags.push_back(client.upload_part(obj, id, 1, bytes));
        ranges.push_back(Piece{0, bytes.size(), {}, s3::sha256_hex(bytes), false});
      } else {
        etags.push_back(client.upload_part_copy(obj, id, static_cast<unsigned>(i + 1),
                                                Url{bucket, p.key}, 0, p.size - 1));
        ranges.push_back(Piece{p.offset, p.size, {}, p.sha256, false});
      }
    }
    if (!tail.empty()) {
      etags.push_back(client.upload_part(obj, id, static_cast<unsigned>(sealed.size() + 1), tail));
      ranges.push_back(Piece{tail_start, tail.size(), {}, s3::sha256_hex(tail), false});
    }
    client.complete_multipart(obj, id, etags);
  } catch (...) {
    try {
      client.abort_multipart(obj, id);
    } catch (const Error&) {
    }
    throw;
  }
  return ranges;
}

class S3Archive : public ArchiveSink {
 public:
  S3Archive(const ArchiveOptions& opts, const ArchivedServer& server,
            const binlog::WarningSink& warn)
      : o_(opts), warn_(warn), client_(s3::load_config(opts.s3)) {
    client_.on_retry = [this](const std::string& m) { warn_("the store failed " + m); };
    Url base = s3::parse_url(*opts.to);
    if (!base.key.empty() && base.key.back() != '/') base.key += '/';
    const std::string name = opts.folder.value_or(
        server.uuid.empty() ? "server-" + std::to_string(server.server_id) : server.uuid);
    folder_ = Url{base.bucket, base.key + name + "/"};
    manifest_ = server_manifest(client_, folder_, server);
    if (manifest_.files.empty()) {
      manifest_.codec = opts.codec.name();
      manifest_.key_id = opts.codec.key ? opts.codec.key_id : std::string();
    } else if (manifest_.codec != opts.codec.name() ||
               (opts.codec.key && manifest_.key_id != opts.codec.key_id)) {
      throw Error(ErrorCode::kUsage,
                  folder_.text() + " is stored " +
                      (manifest_.codec.empty() ? std::string("byte for byte")
                                               : "as " + manifest_.codec +
                                                     (manifest_.key_id.empty()
                                                          ? std::string()
                                                          : " (key id " + manifest_.key_id + ")")) +
                      ": continue it with the same --zstd and --encryption-key-file");
    }
    tail_.reserve(opts.part_bytes + (std::size_t{1} << 20));
    open_last();
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
      upload();
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
    file_ = name;
    ArchivedFile f;
    f.name = name;
    manifest_.files.push_back(f);
    tail_.assign({std::byte{0xfe}, std::byte{'b'}, std::byte{'i'}, std::byte{'n'}});
    tail_start_ = 0;
    uploaded_ = 0;
    pos_ = 4;
    crc_ = false;
    ended_next_.clear();
    write_index();
    write_manifest();
    ++result_.files;
  }

  void append(const binlog::Frame& f) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (flusher_error_) std::rethrow_exception(flusher_error_);
    const auto type = static_cast<binlog::EventType>(f.raw[4]);
    if (!accept_event(f, pos_, file_, current_url().text(), crc_)) return;
    const std::size_t at = tail_.size();
    tail_.insert(tail_.end(), f.raw.begin(), f.raw.end());
    // The server clears the in-use flag when it sends the format description; in its file the
    // flag stays set until the file is closed (the composed object has it clear).
    if (type == binlog::EventType::kFormatDescription && f.pos == 4) tail_[at + kFlagsAt] |= kInUse;
    pos_ += f.raw.size();
    ArchivedFile& af = manifest_.files.back();
    ++af.events;
    if (const std::string g = frame_gtid(f.raw); !g.empty()) {
      if (af.first_gtid.empty()) af.first_gtid = g;
      af.last_gtid = g;
    }
    ended_next_.clear();
    if (type == binlog::EventType::kRotate && f.raw.size() > 27 + (crc_ ? 4 : 0))
      ended_next_.assign(reinterpret_cast<const char*>(f.raw.data()) + 27,
                         f.raw.size() - 27 - (crc_ ? 4 : 0));
    else if (type == binlog::EventType::kStop)
      ended_next_ = "?";
    manifest_.last_event_time = binlog::ByteCursor(f.raw, 0).u32le();
    ++result_.events;
    result_.bytes += f.raw.size();
    result_.last_file = file_;
    result_.last_pos = pos_;
    if (tail_.size() >= o_.part_bytes) {
      seal();
    } else if (std::chrono::steady_clock::now() - last_upload_ >=
               std::chrono::seconds(o_.upload_seconds)) {
      upload();
    }
  }

  void finish_file() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (file_.empty() || manifest_.files.back().complete) return;
    compose();
  }

  void sync(bool now) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (now ||
        std::chrono::steady_clock::now() - last_upload_ >= std::chrono::seconds(o_.upload_seconds))
      upload();
  }

  const std::string& file() const override { return file_; }
  std::uint64_t pos() const override { return pos_; }
  bool has_file() const override { return !file_.empty(); }
  const std::string& ended_next() const override { return ended_next_; }
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
      if (!f.complete && f.name != file_) break;
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
    if (!r.plan.drop_files.empty()) {
      const std::set<std::string> drop(r.plan.drop_files.begin(), r.plan.drop_files.end());
      for (const ArchivedFile& f : manifest_.files)
        if (drop.count(f.name)) r.bytes += f.size;
      manifest_.files.erase(
          std::remove_if(manifest_.files.begin(), manifest_.files.end(),
                         [&](const ArchivedFile& f) { return drop.count(f.name) > 0; }),
          manifest_.files.end());
      write_manifest();
      write_index();
      for (const auto& f : r.plan.drop_files) {
        client_.remove(Url{folder_.bucket, folder_.key + f});
        if (enveloped())  // (its pieces are the file)
          for (const auto& o :
               client_.list(folder_.bucket, folder_.key + ".active/" + f + "/").objects)
            client_.remove(Url{folder_.bucket, o.key});
      }
    }
    if (o_.note) o_.note(r.text());
  }

 private:
  Url current_url() const { return Url{folder_.bucket, folder_.key + file_}; }

  // Continues the manifest's last file: a complete one is where the copy goes on after; one
  // being written has its tail (the pieces after the last sealed one) read back.
  void open_last() {
    if (manifest_.files.empty()) return;
    ArchivedFile& f = manifest_.files.back();
    file_ = f.name;
    pos_ = f.size;
    uploaded_ = f.size;
    ended_next_ = f.next;
    crc_ = f.checksum;
    if (f.complete) return;
    tail_start_ = 0;
    for (const Piece& p : f.pieces)
      if (p.sealed) tail_start_ = p.offset + p.size;
    tail_.clear();
    for (const Piece& p : f.pieces) {
      if (p.offset < tail_start_) continue;
      const std::vector<std::byte> bytes =
          s3::read_piece(client_, folder_.bucket, p, enveloped(), o_.codec);
      tail_.insert(tail_.end(), bytes.begin(), bytes.end());
    }
    if (tail_start_ + tail_.size() != pos_)
      throw Error(ErrorCode::kIo, folder_.text() + ": the pieces of " + file_ + " do not add up");
    if (pos_ < 4) {  // (a manifest written before the magic was stored: start the file again)
      tail_.assign({std::byte{0xfe}, std::byte{'b'}, std::byte{'i'}, std::byte{'n'}});
      pos_ = 4;
      uploaded_ = 0;
    }
  }

  // (under mu_) The bytes since the last upload as one more piece, then the manifest.
  void upload() {
    last_upload_ = std::chrono::steady_clock::now();
    if (file_.empty() || manifest_.files.back().complete) return;
    ArchivedFile& f = manifest_.files.back();
    if (uploaded_ == pos_) {
      if (s3::unix_now() - manifest_.updated >= 60) write_manifest();  // (alive: --status)
      return;
    }
    std::size_t tail_pieces = 0;
    for (const Piece& p : f.pieces) tail_pieces += p.offset >= tail_start_ ? 1 : 0;
    if (tail_pieces >= kMaxTailPieces) {
      store_tail(false);
      return;
    }
    const std::size_t from = static_cast<std::size_t>(uploaded_ - tail_start_);
    const binlog::Bytes bytes(tail_.data() + from, tail_.size() - from);
    Piece p{uploaded_, bytes.size(), piece_key(folder_.key, file_, uploaded_, bytes.size()),
            s3::sha256_hex(bytes), false};
    put_piece(p.key, bytes);
    f.pieces.push_back(p);
    f.size = pos_;
    f.checksum = crc_;
    f.next = ended_next_;
    uploaded_ = pos_;
    write_manifest();
  }

  // (under mu_) The whole tail as one piece replacing its small ones: sealed (the tail starts
  // again after it) or not (it only makes the list short).
  void store_tail(bool sealed) {
    ArchivedFile& f = manifest_.files.back();
    const binlog::Bytes bytes(tail_.data(), tail_.size());
    Piece p{tail_start_, bytes.size(), piece_key(folder_.key, file_, tail_start_, bytes.size()),
            s3::sha256_hex(bytes), sealed};
    put_piece(p.key, bytes);
    std::vector<Piece> gone;
    std::vector<Piece> kept;
    for (const Piece& q : f.pieces) (q.offset >= tail_start_ ? gone : kept).push_back(q);
    kept.push_back(p);
    f.pieces = kept;
    f.size = pos_;
    f.checksum = crc_;
    f.next = ended_next_;
    uploaded_ = pos_;
    write_manifest();
    // (only the file's own pieces: a manifest naming other keys deletes nothing else)
    const std::string own = folder_.key + ".active/" + file_ + "/";
    for (const Piece& q : gone)
      if (q.key != p.key && q.key.compare(0, own.size(), own) == 0)
        client_.remove(Url{folder_.bucket, q.key});
    if (sealed) {
      tail_start_ = pos_;
      tail_.clear();
    }
  }

  void seal() {
    last_upload_ = std::chrono::steady_clock::now();
    store_tail(true);
  }

  bool enveloped() const { return !manifest_.codec.empty(); }

  // A piece's bytes stored under `key`: as they are, or as an envelope.
  void put_piece(const std::string& key, binlog::Bytes bytes) {
    if (!enveloped()) {
      client_.put(Url{folder_.bucket, key}, bytes);
      return;
    }
    const std::vector<std::byte> e = recovery::seal(o_.codec, bytes);
    client_.put(Url{folder_.bucket, key}, e);
  }

  // (under mu_) An envelope archive's file made complete: its tail sealed as a last piece, the
  // first piece stored again with the in-use flag clear (under a key of its own, the manifest
  // naming it before the old one is deleted), the file's pieces kept as the file.
  void complete_enveloped() {
    ArchivedFile& f = manifest_.files.back();
    if (!tail_.empty()) store_tail(true);
    if (!f.pieces.empty() && f.pieces.front().offset == 0) {
      Piece& first = f.pieces.front();
      std::vector<std::byte> bytes = s3::read_piece(client_, folder_.bucket, first, true, o_.codec);
      if (bytes.size() > 4 + kFlagsAt && (bytes[4 + kFlagsAt] & kInUse) != std::byte{0}) {
        bytes[4 + kFlagsAt] &= ~kInUse;
        Piece closed{0, bytes.size(), first.key + ".closed", s3::sha256_hex(bytes), true};
        if (first.key.size() > 7 && first.key.compare(first.key.size() - 7, 7, ".closed") == 0)
          closed.key = first.key;  // (already)
        put_piece(closed.key, bytes);
        first = closed;
      }
    }
    f.complete = true;
    f.size = pos_;
    f.checksum = crc_;
    f.next = ended_next_;
    write_manifest();
    std::set<std::string> named;
    for (const Piece& p : f.pieces) named.insert(p.key);
    const auto listing = client_.list(folder_.bucket, folder_.key + ".active/" + file_ + "/");
    for (const auto& o : listing.objects)
      if (!named.count(o.key)) client_.remove(Url{folder_.bucket, o.key});
    tail_.clear();
    tail_start_ = pos_;
  }

  // (under mu_) The file's object from its pieces, then the manifest says it is complete.
  void compose() {
    ArchivedFile& f = manifest_.files.back();
    upload();  // (everything in a piece first: a kill while composing loses nothing)
    if (enveloped()) {
      complete_enveloped();
      return;
    }
    const Url obj = current_url();
    std::vector<Piece> sealed;
    for (const Piece& p : f.pieces)
      if (p.sealed) sealed.push_back(p);
    std::vector<Piece> ranges;
    auto clear_flag = [](std::vector<std::byte>& b) {
      if (b.size() > 4 + kFlagsAt) b[4 + kFlagsAt] &= ~kInUse;
    };
    if (sealed.empty()) {
      std::vector<std::byte> bytes = tail_;
      clear_flag(bytes);
      client_.put(obj, bytes);
      ranges.push_back(Piece{0, bytes.size(), {}, s3::sha256_hex(bytes), false});
    } else {  // (the first piece's format description: its in-use flag cleared)
      ranges = compose_object(client_, obj, folder_.bucket, sealed, tail_, tail_start_, clear_flag);
    }
    const auto info = client_.head(obj);
    if (!info || info->size != pos_)
      throw Error(ErrorCode::kIo, obj.text() + ": the composed object has " +
                                      std::to_string(info ? info->size : 0) + " bytes, not " +
                                      std::to_string(pos_));
    f.pieces = ranges;
    f.etag = info->etag;
    f.complete = true;
    f.size = pos_;
    f.checksum = crc_;
    f.next = ended_next_;
    write_manifest();
    // The pieces, and any a killed run stored but never named.
    const auto listing = client_.list(folder_.bucket, folder_.key + ".active/" + file_ + "/");
    for (const auto& o : listing.objects) client_.remove(Url{folder_.bucket, o.key});
    tail_.clear();
    tail_start_ = pos_;
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
    if (o_.progress) o_.progress(file_ + " " + std::to_string(pos_));
  }

  // The flusher thread: what came is uploaded on the interval even while the server is quiet.
  void upload_when_due() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopping_) {
      cv_.wait_for(lock, std::chrono::milliseconds(200));
      if (stopping_ || flusher_error_) continue;
      try {
        if (std::chrono::steady_clock::now() - last_upload_ >=
            std::chrono::seconds(o_.upload_seconds))
          upload();
      } catch (...) {
        flusher_error_ = std::current_exception();
      }
    }
  }

  const ArchiveOptions& o_;
  const binlog::WarningSink& warn_;
  s3::Client client_;
  Url folder_;
  s3::Manifest manifest_;
  std::string file_, ended_next_;
  std::vector<std::byte> tail_;   // the file from tail_start_ to pos_
  std::uint64_t tail_start_ = 0;  // the end of the last sealed piece
  std::uint64_t uploaded_ = 0;    // the pieces hold the file up to here
  std::uint64_t pos_ = 0;
  bool crc_ = false;
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
