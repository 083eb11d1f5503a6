// recovery/archive/s3_active_file.h: the file an archive is writing into a bucket.
//
// Every upload interval the bytes that came since the last upload become one more small
// immutable piece, and the manifest is rewritten to list it. Once the tail reaches the part size
// it is sealed: stored as one piece that replaces the small ones. When the server rotates, the
// file's object is composed inside the store by a multipart upload that copies the sealed pieces
// (nothing is downloaded but the first piece, whose in-use flag is cleared) and uploads the
// tail; then the manifest says the file is complete and its pieces are deleted. A piece the
// manifest never named (a killed run's) is deleted with the others.
#include "recovery/archive/s3_active_file.h"

#include <cstdio>
#include <set>
#include <utility>

#include "binlog/byte_cursor.h"
#include "binlog/error.h"
#include "binlog/event_type.h"
#include "recovery/archive/archive_sink.h"

namespace binrecover::recovery {

namespace {

using s3::ArchivedFile;
using s3::Piece;
using s3::Url;

constexpr std::size_t kMaxTailPieces = 32;  // small pieces before the tail is stored as one

const std::vector<std::byte> kMagic{std::byte{0xfe}, std::byte{'b'}, std::byte{'i'},
                                    std::byte{'n'}};

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

}  // namespace

S3ActiveFile::S3ActiveFile(s3::Client& client, const Url& folder, const Codec& codec,
                           std::size_t part_bytes, s3::Manifest& manifest,
                           std::function<void()> publish)
    : client_(client),
      folder_(folder),
      codec_(codec),
      part_bytes_(part_bytes),
      manifest_(manifest),
      publish_(std::move(publish)) {
  tail_.reserve(part_bytes + (std::size_t{1} << 20));
}

void S3ActiveFile::open_last() {
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
        s3::read_piece(client_, folder_.bucket, p, enveloped(), codec_);
    tail_.insert(tail_.end(), bytes.begin(), bytes.end());
  }
  if (tail_start_ + tail_.size() != pos_)
    throw Error(ErrorCode::kIo, folder_.text() + ": the pieces of " + file_ + " do not add up");
  if (pos_ < 4) {  // (a manifest written before the magic was stored: start the file again)
    tail_ = kMagic;
    pos_ = 4;
    uploaded_ = 0;
  }
}

void S3ActiveFile::start(const std::string& name) {
  file_ = name;
  ArchivedFile f;
  f.name = name;
  manifest_.files.push_back(f);
  tail_ = kMagic;
  tail_start_ = 0;
  uploaded_ = 0;
  pos_ = 4;
  crc_ = false;
  ended_next_.clear();
}

void S3ActiveFile::add(const binlog::Frame& f) {
  const auto type = static_cast<binlog::EventType>(f.raw[4]);
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
}

void S3ActiveFile::upload() {
  if (file_.empty() || manifest_.files.back().complete) return;
  ArchivedFile& f = manifest_.files.back();
  if (uploaded_ == pos_) {
    if (s3::unix_now() - manifest_.updated >= 60) publish_();  // (alive: --status)
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
  mark_stored(f);
  publish_();
}

void S3ActiveFile::mark_stored(ArchivedFile& f) {
  f.size = pos_;
  f.checksum = crc_;
  f.next = ended_next_;
  uploaded_ = pos_;
}

// The whole tail as one piece replacing its small ones: sealed (the tail starts again after
// it) or not (it only makes the list short).
void S3ActiveFile::store_tail(bool sealed) {
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
  mark_stored(f);
  publish_();
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

// A piece's bytes stored under `key`: as they are, or as an envelope.
void S3ActiveFile::put_piece(const std::string& key, binlog::Bytes bytes) {
  if (!enveloped()) {
    client_.put(Url{folder_.bucket, key}, bytes);
    return;
  }
  const std::vector<std::byte> e = recovery::seal(codec_, bytes);
  client_.put(Url{folder_.bucket, key}, e);
}

void S3ActiveFile::delete_pieces(const std::vector<Piece>& keep) {
  std::set<std::string> named;
  for (const Piece& p : keep) named.insert(p.key);
  const auto listing = client_.list(folder_.bucket, folder_.key + ".active/" + file_ + "/");
  for (const auto& o : listing.objects)
    if (!named.count(o.key)) client_.remove(Url{folder_.bucket, o.key});
  tail_.clear();
  tail_start_ = pos_;
}

// An envelope archive's file made complete: its tail sealed as a last piece, the first piece
// stored again with the in-use flag clear (under a key of its own, the manifest naming it before
// the old one is deleted), the file's pieces kept as the file.
void S3ActiveFile::complete_enveloped() {
  ArchivedFile& f = manifest_.files.back();
  if (!tail_.empty()) store_tail(true);
  if (!f.pieces.empty() && f.pieces.front().offset == 0) {
    Piece& first = f.pieces.front();
    std::vector<std::byte> bytes = s3::read_piece(client_, folder_.bucket, first, true, codec_);
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
  mark_stored(f);
  publish_();
  delete_pieces(f.pieces);
}

void S3ActiveFile::compose() {
  if (file_.empty() || manifest_.files.back().complete) return;
  ArchivedFile& f = manifest_.files.back();
  upload();  // (everything in a piece first: a kill while composing loses nothing)
  if (enveloped()) {
    complete_enveloped();
    return;
  }
  const Url obj = url();
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
  mark_stored(f);
  publish_();
  // The pieces (the ranges name no key), and any a killed run stored but never named.
  delete_pieces(f.pieces);
}

}  // namespace binrecover::recovery
