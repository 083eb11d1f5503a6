#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "binlog/source.h"
#include "recovery/storage/s3.h"
#include "recovery/storage/s3_archive.h"

namespace binrecover::recovery::s3 {

class ReadAhead;

// An archived binlog read from the bucket: a plain object, or a file of an archive folder
// (complete: its object; being written: its pieces), in chunks (4 MiB ranges of a plain object,
// an envelope piece whole) fetched ahead by up to Config::streams connections (ReadAhead):
// memory stays flat, and a seek (--start-position) is a Range, not a download.
class S3Source : public binlog::BlockSource {
 public:
  // `manifest`: the folder's, when read already (else it is looked up).
  S3Source(std::shared_ptr<Client> client, const Url& url, std::string display_name,
           const std::optional<Manifest>* manifest = nullptr);
  ~S3Source() override;

 protected:
  std::size_t read_some(std::byte* out, std::size_t n) override;
  void reposition(std::uint64_t pos) override;

 private:
  struct Chunk {
    std::size_t piece = 0;
    std::uint64_t offset = 0, size = 0;  // in the file
  };
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  // The manifest read again after a piece went missing (at most 100 times per source).
  bool reload_pieces();
  void make_chunks();
  void fetch(Client& c, const Chunk& ch, std::vector<std::byte>& out) const;

  std::shared_ptr<Client> client_;
  std::string bucket_;
  Url url_;
  unsigned reloads_ = 0;
  std::vector<Piece> pieces_;
  std::uint64_t at_ = 0;  // input position of the next read
  bool enveloped_ = false;
  std::vector<Chunk> chunks_;
  std::vector<std::byte> held_;  // the chunk at held_index_ (original bytes)
  std::size_t held_index_ = kNone;
  std::unique_ptr<ReadAhead> ahead_;  // (last: its workers read the members above)
};

}  // namespace binrecover::recovery::s3
