#include "recovery/storage/s3_source.h"

#include <algorithm>
#include <cstring>

#include "binlog/error.h"
#include "recovery/storage/s3_transfer.h"

namespace binrecover::recovery::s3 {

namespace {
constexpr std::size_t kReadBlock = std::size_t{4} << 20;
}  // namespace

S3Source::S3Source(std::shared_ptr<Client> client, const Url& url, std::string display_name,
                   const std::optional<Manifest>* manifest)
    : BlockSource(display_name.empty() ? url.text() : std::move(display_name), std::nullopt, 0),
      client_(std::move(client)),
      bucket_(url.bucket),
      url_(url) {
  const Url folder = folder_of(url);
  const std::string name = base_name_of(url.key);
  std::optional<Manifest> own;
  if (manifest == nullptr) {
    own = read_manifest(*client_, folder);
    manifest = &own;
  }
  if (*manifest) {
    enveloped_ = !(*manifest)->codec.empty();
    for (const ArchivedFile& f : (*manifest)->files) {
      if (f.name != name || (f.complete && !enveloped_)) continue;
      for (const Piece& p : f.pieces) pieces_.push_back(p);
      size_ = f.size;
    }
  }
  if (!size_) {
    const auto info = client_->head(url);
    if (!info)
      throw Error(ErrorCode::kIo, "cannot open: no such object in the store").with_file(name_);
    pieces_.push_back(Piece{0, info->size, url.key, {}});
    size_ = info->size;
  }
  check_magic();
}

S3Source::~S3Source() = default;

// The reads' units: a plain piece in ranges of kReadBlock, an envelope piece whole.
void S3Source::make_chunks() {
  ahead_.reset();
  chunks_.clear();
  for (std::size_t i = 0; i < pieces_.size(); ++i) {
    const Piece& p = pieces_[i];
    if (p.size == 0) continue;
    if (enveloped_) {
      chunks_.push_back(Chunk{i, p.offset, p.size});
      continue;
    }
    for (std::uint64_t off = 0; off < p.size; off += kReadBlock)
      chunks_.push_back(
          Chunk{i, p.offset + off, std::min<std::uint64_t>(kReadBlock, p.size - off)});
  }
  ahead_ = std::make_unique<ReadAhead>(
      *client_, chunks_.size(), client_->config().streams,
      [this](Client& c, std::size_t k, std::vector<std::byte>& out) { fetch(c, chunks_[k], out); });
  held_.clear();
  held_index_ = kNone;
}

// (on a worker's connection: reads only what make_chunks left, which stays until ahead_ goes)
void S3Source::fetch(Client& c, const Chunk& ch, std::vector<std::byte>& bytes) const {
  const Piece& p = pieces_[ch.piece];
  if (enveloped_) {
    bytes = read_piece(c, bucket_, p, true, reader_codec());
    return;
  }
  const Url obj{bucket_, p.key};
  bytes.resize(static_cast<std::size_t>(ch.size));
  std::size_t at = 0;
  while (at < bytes.size()) {
    const std::size_t got =
        c.get_range(obj, ch.offset - p.offset + at, bytes.size() - at, bytes.data() + at);
    if (got == 0) break;
    at += got;
  }
  bytes.resize(at);
}

std::size_t S3Source::read_some(std::byte* out, std::size_t n) {
  if (held_index_ == kNone || at_ < chunks_[held_index_].offset ||
      at_ >= chunks_[held_index_].offset + held_.size()) {
    if (!ahead_) make_chunks();
    const auto it =
        std::upper_bound(chunks_.begin(), chunks_.end(), at_,
                         [](std::uint64_t at, const Chunk& c) { return at < c.offset; });
    if (it == chunks_.begin()) return 0;
    const std::size_t k = static_cast<std::size_t>(it - chunks_.begin()) - 1;
    const Chunk ch = chunks_[k];
    if (at_ >= ch.offset + ch.size) return 0;
    try {
      held_index_ = kNone;
      ahead_->take(k, held_);
      held_index_ = k;
    } catch (const Error& e) {
      // A piece of a file being written is gone when the archiver sealed it or composed the
      // file since this reader read the manifest: read the manifest again and go on from the
      // same position in what it names now (the bytes are the same).
      held_index_ = kNone;
      const bool plain_object = !enveloped_ && pieces_[ch.piece].key == url_.key;
      if (e.code() != ErrorCode::kIo || plain_object || !reload_pieces()) throw;
      return read_some(out, n);
    }
    if (held_.size() < ch.size && !enveloped_)
      throw Error(ErrorCode::kTruncated,
                  "the store's object " + Url{bucket_, pieces_[ch.piece].key}.text() +
                      " is shorter than the archive says",
                  ch.offset + held_.size())
          .with_file(name_);
  }
  const std::size_t from = static_cast<std::size_t>(at_ - chunks_[held_index_].offset);
  const std::size_t take = std::min(n, held_.size() - from);
  std::memcpy(out, held_.data() + from, take);
  at_ += take;
  return take;
}

void S3Source::reposition(std::uint64_t pos) { at_ = pos; }

bool S3Source::reload_pieces() {
  if (++reloads_ > 100) return false;
  const auto m = read_manifest(*client_, folder_of(url_));
  if (!m) return false;
  const std::string name = base_name_of(url_.key);
  for (const ArchivedFile& f : m->files) {
    if (f.name != name || f.size < *size_) continue;
    ahead_.reset();  // (its workers read pieces_)
    pieces_.clear();
    if (f.complete && !enveloped_)
      pieces_.push_back(Piece{0, f.size, url_.key, {}, false});
    else
      pieces_ = f.pieces;
    make_chunks();
    return true;
  }
  return false;
}

}  // namespace binrecover::recovery::s3
