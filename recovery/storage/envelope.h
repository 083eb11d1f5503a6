#pragma once

// Objects stored compressed and/or encrypted ("envelopes"): an archive's binlog pieces and a
// backup's dump, when the archive is made with --zstd or --encryption-key-file
// (docs/usage.md, "Compression and encryption at rest"). One envelope:
//   "BRE1" | u8 flags (1 zstd, 2 AES-256-GCM) | 3 zero bytes | u64le original size |
//   u32le payload size | 8-byte key id | 12-byte nonce | payload | 16-byte tag (encrypted)
// all little-endian; the 40-byte header is the cipher's associated data (nothing in it can be
// changed unnoticed). The key id (the first 8 bytes of SHA-256("binrecover key id" || key))
// tells a wrong key from damage. OpenSSL's AES-256-GCM (libcrypto, already linked for S3's
// signatures; authenticated, a fresh random nonce per envelope) and libzstd do the work.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "binlog/byte_cursor.h"

namespace binrecover::recovery {

inline constexpr std::size_t kEnvelopeHeader = 40;
// The largest original size an envelope may hold: a piece of --part-size's largest (1 GiB).
inline constexpr std::uint64_t kMaxEnvelope = std::uint64_t{1} << 30;

struct Codec {
  bool zstd = false;
  int level = 3;
  std::optional<std::array<unsigned char, 32>> key;
  std::string key_id;  // hex, of `key`
  bool active() const { return zstd || key.has_value(); }
  // As a manifest names it: "" (plain), "zstd", "aes-256-gcm", "zstd+aes-256-gcm".
  std::string name() const;
};

// The key from a file: 32 raw bytes or 64 hex digits (a newline after them allowed). Refused
// (Error kUsage) when the file is readable by others than its owner, or not a key.
std::array<unsigned char, 32> read_key_file(const std::string& path);
std::string key_id_of(const std::array<unsigned char, 32>& key);

std::vector<std::byte> seal(const Codec& c, binlog::Bytes plain);
// One whole envelope's original bytes. `c` gives the key (when the envelope is encrypted).
// Throws Error: kUsage for no key or another key (naming both ids), kIo for damage (`what`).
std::vector<std::byte> unseal(const Codec& c, binlog::Bytes stored, const std::string& what);
bool is_envelope(binlog::Bytes b);
// The whole size of the envelope that `b` begins with (its header read), or nullopt when `b`
// holds less than a header. Throws Error(kIo) for bytes that are no envelope.
std::optional<std::size_t> envelope_size(binlog::Bytes b, const std::string& what);

}  // namespace binrecover::recovery
