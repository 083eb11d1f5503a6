#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "binlog/error.h"
#include "recovery/storage/envelope.h"
#include "recovery/storage/s3.h"

namespace binrecover::recovery::s3 {

// How binrecover archive lays a server's binlogs out under a folder F of a bucket
// (docs/usage.md, "Archive to S3"):
//   F/mysql-bin.000001 ...          complete files, byte for byte as the server has them
//   F/mysql-bin.index               the files in order ("./NAME" lines), as the server's index
//   F/.active/NAME/OFFSET-SIZE      the file being written: immutable pieces, in order
//   F/binrecover-manifest.json      what is there (rewritten, atomically, after every change)
// A reader takes a complete file from its object and the file being written from its pieces.
inline constexpr const char* kManifestName = "binrecover-manifest.json";

struct Piece {
  std::uint64_t offset = 0, size = 0;
  std::string key;      // the object's key
  std::string sha256;   // of its bytes, as stored
  bool sealed = false;  // a piece of the file being written that the tail no longer holds
};

struct ArchivedFile {
  std::string name;
  std::uint64_t size = 0;
  bool complete = false;
  std::vector<Piece> pieces;  // complete: the object's ranges with their SHA-256; else the pieces
  std::string etag;           // complete: the object's ETag
  std::string first_gtid, last_gtid;
  std::uint64_t events = 0;
  bool checksum = false;  // its events end with a CRC32
  std::string next;       // how it ends: its Rotate's next file, "?" a Stop, "" not yet
};

// Seconds since the epoch, as a manifest counts them (Manifest::updated).
inline std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

struct Manifest {
  int format = 1;
  std::uint32_t server_id = 0;
  std::string server_uuid, flavor, version, server;
  std::int64_t updated = 0;          // unix seconds of the last rewrite
  std::int64_t last_event_time = 0;  // timestamp of the last event archived
  // An archiver writes the folder (set while one runs, cleared when it ends; a killed one
  // leaves it set: then `updated` tells how long ago it last wrote).
  bool active = false;
  // How the pieces are stored (storage/envelope.h): "" byte for byte, complete files composed
  // into one object each; else each piece an envelope ("zstd", "aes-256-gcm",
  // "zstd+aes-256-gcm"), complete files kept as their sealed pieces. `key_id`: the key's.
  std::string codec, key_id;
  std::vector<ArchivedFile> files;

  std::string to_json() const;
  // Throws Error(kIo) naming `where` when the text is not a manifest.
  static Manifest from_json(const std::string& text, const std::string& where);
};

// The folder's manifest (nullopt: none there).
std::optional<Manifest> read_manifest(Client& c, const Url& folder);
// Rewrites the folder's manifest as given (its `updated` kept), then its index object from it
// (retention: a kill between the two leaves an index that also names files being deleted,
// which archive --verify accepts).
void write_s3_listing(Client& c, const Url& folder, const Manifest& m);

// The archive folders below `prefix` (a key ending in '/' or empty): those with a manifest,
// down to 4 levels (not inside a server's folder, nor in the pieces' ".active/"), by key. A
// folder whose manifest is refused is in `refused` with its error.
struct FoundArchives {
  std::vector<std::pair<std::string, Manifest>> found;  // folder key, its manifest
  std::vector<std::pair<std::string, Error>> refused;   // folder key, why
};
FoundArchives find_archives(Client& c, const std::string& bucket, const std::string& prefix);
// Where a manifest's transactions come from (its files' first and last GTIDs): MariaDB
// "domain-server", MySQL's uuid. Two servers' archives that share one are one history (a
// replica that took over archives its own copies of the old primary's transactions).
std::set<std::string> manifest_origins(const Manifest& m);

// The folder of an object URL (up to its last '/').
Url folder_of(const Url& u);
std::string base_name_of(const std::string& key);

// The key (and nothing else: readers take what the manifest says) for reading envelope
// archives and backups: set once from --encryption-key-file / BINRECOVER_ENCRYPTION_KEY_FILE.
void set_reader_codec(const Codec& c);
const Codec& reader_codec();
// A piece's original bytes (an envelope opened with the reader's key, or the bytes as stored),
// checked against the manifest's size and SHA-256.
std::vector<std::byte> read_piece(Client& c, const std::string& bucket, const Piece& p,
                                  bool enveloped, const Codec& codec);

// The binlogs an s3:// argument names, in order: an index object (NAME.index) lists them; an
// archive folder (ending in '/') is read through its manifest; a prefix above several servers'
// folders gives every folder's files, the servers in the order they were last written to,
// when they share one history (a failover: the walker reads it once by GTID,
// recovery/reading/one_history.h); anything else is one object.
std::vector<Url> expand_inputs(Client& c, const Url& u);

// The shared client for this process's reads (configured from the environment and the
// --s3-* options once, at the first use).
std::shared_ptr<Client> reader_client();
void set_reader_config(const ConfigOverrides& o);

}  // namespace binrecover::recovery::s3
