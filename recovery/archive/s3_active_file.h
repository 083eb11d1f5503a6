#pragma once
// The file an archive is writing into a bucket (recovery/archive/archive_s3.cc's sink): the
// bytes since its last sealed piece ("the tail") in memory, the pieces stored so far, and, once
// the server has rotated, the object composed from them. Every piece is stored before the
// manifest names it (`publish` stores the manifest), so a kill at any moment leaves the
// manifest describing whole events only.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "binlog/source.h"
#include "recovery/storage/envelope.h"
#include "recovery/storage/s3_archive.h"

namespace binrecover::recovery {

class S3ActiveFile {
 public:
  // `manifest` is the sink's (this file is its last); `publish` stores it.
  S3ActiveFile(s3::Client& client, const s3::Url& folder, const Codec& codec,
               std::size_t part_bytes, s3::Manifest& manifest, std::function<void()> publish);

  // Continues the manifest's last file: a complete one is where the copy goes on after; one
  // being written has its tail (the pieces after the last sealed one) read back.
  void open_last();
  // A new file from its magic, added to the manifest.
  void start(const std::string& name);
  // One event the server sent and the sink accepted, at the end of the file.
  void add(const binlog::Frame& f);
  // The bytes since the last upload as one more piece, then the manifest.
  void upload();
  // Whether the tail has reached the part size (then seal() stores it as one piece).
  bool full() const { return tail_.size() >= part_bytes_; }
  void seal() { store_tail(true); }
  // The file's object from its pieces, then the manifest says it is complete.
  void compose();

  const std::string& name() const { return file_; }
  std::uint64_t pos() const { return pos_; }
  bool& crc() { return crc_; }  // (its events carry a CRC32: set by the format description)
  const std::string& ended_next() const { return ended_next_; }
  bool enveloped() const { return !manifest_.codec.empty(); }
  s3::Url url() const { return s3::Url{folder_.bucket, folder_.key + file_}; }

 private:
  void store_tail(bool sealed);
  void put_piece(const std::string& key, binlog::Bytes bytes);
  void complete_enveloped();
  // The file's pieces the manifest does not name, deleted (all of them: `keep` empty).
  void delete_pieces(const std::vector<s3::Piece>& keep);
  void mark_stored(s3::ArchivedFile& f);

  s3::Client& client_;
  const s3::Url& folder_;
  const Codec& codec_;
  std::size_t part_bytes_;
  s3::Manifest& manifest_;
  std::function<void()> publish_;
  std::string file_, ended_next_;
  std::vector<std::byte> tail_;   // the file from tail_start_ to pos_
  std::uint64_t tail_start_ = 0;  // the end of the last sealed piece
  std::uint64_t uploaded_ = 0;    // the pieces hold the file up to here
  std::uint64_t pos_ = 0;
  bool crc_ = false;
};

}  // namespace binrecover::recovery
