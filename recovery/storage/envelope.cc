#include "recovery/storage/envelope.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "binlog/error.h"
#include "recovery/libs/crypto_api.h"
#include "recovery/storage/s3.h"

namespace binrecover::recovery {

namespace {

constexpr unsigned char kZstd = 1, kAes = 2;
constexpr std::size_t kTag = 16;

void put_u32(std::byte* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::byte>(v >> (8 * i));
}
void put_u64(std::byte* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::byte>(v >> (8 * i));
}
std::uint64_t get_le(const std::byte* p, int n) {
  std::uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

struct CipherCtx {
  EVP_CIPHER_CTX* c = libs::crypto().EVP_CIPHER_CTX_new();
  ~CipherCtx() { libs::crypto().EVP_CIPHER_CTX_free(c); }
};

std::string octal(unsigned v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%03o", v);
  return buf;
}

[[noreturn]] void damaged(const std::string& what, const std::string& why) {
  throw Error(ErrorCode::kIo, what + " is damaged: " + why);
}

}  // namespace

std::string Codec::name() const {
  if (zstd && key) return "zstd+aes-256-gcm";
  if (zstd) return "zstd";
  if (key) return "aes-256-gcm";
  return "";
}

std::string key_id_of(const std::array<unsigned char, 32>& key) {
  std::string data = "binrecover key id";
  data.append(reinterpret_cast<const char*>(key.data()), key.size());
  return s3::sha256_hex({reinterpret_cast<const std::byte*>(data.data()), data.size()})
      .substr(0, 16);
}

std::array<unsigned char, 32> read_key_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw Error(ErrorCode::kUsage,
                "cannot read the key file " + path + ": " + std::strerror(errno));
  struct stat st {};
  ::fstat(fd, &st);
  char buf[130];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  if ((st.st_mode & 077) != 0)
    throw Error(ErrorCode::kUsage, "the key file " + path + " may be read by others (mode " +
                                       octal(st.st_mode & 0777) + "): chmod 600 it");
  std::array<unsigned char, 32> key{};
  std::string text(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  if (text.size() == 64 && text.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos) {
    for (std::size_t i = 0; i < 32; ++i)
      key[i] = static_cast<unsigned char>(std::stoul(text.substr(2 * i, 2), nullptr, 16));
    return key;
  }
  if (n == 32) {
    std::memcpy(key.data(), buf, 32);
    return key;
  }
  throw Error(ErrorCode::kUsage, "the key file " + path +
                                     " holds no key: 32 bytes, or 64 hex digits (openssl rand "
                                     "-hex 32 > FILE)");
}

bool is_envelope(binlog::Bytes b) { return b.size() >= 4 && std::memcmp(b.data(), "BRE1", 4) == 0; }

std::optional<std::size_t> envelope_size(binlog::Bytes b, const std::string& what) {
  if (b.size() < kEnvelopeHeader) return std::nullopt;
  if (!is_envelope(b)) damaged(what, "no envelope where one begins");
  const auto flags = static_cast<unsigned char>(b[4]);
  const std::uint64_t payload = get_le(b.data() + 16, 4);
  // (told before a reader gathers that much: a payload larger than a piece can be)
  if (payload > kMaxEnvelope + 1024 || get_le(b.data() + 8, 8) > kMaxEnvelope)
    damaged(what, "an envelope larger than 1 GiB");
  return kEnvelopeHeader + payload + ((flags & kAes) != 0 ? kTag : 0);
}

std::vector<std::byte> seal(const Codec& c, binlog::Bytes plain) {
  const libs::CryptoApi& crypto = libs::crypto();
  std::vector<std::byte> payload;
  if (c.zstd) {
    payload.resize(ZSTD_compressBound(plain.size()));
    const std::size_t n =
        ZSTD_compress(payload.data(), payload.size(), plain.data(), plain.size(), c.level);
    if (ZSTD_isError(n)) throw Error(ErrorCode::kIo, std::string("zstd: ") + ZSTD_getErrorName(n));
    payload.resize(n);
  } else {
    payload.assign(plain.begin(), plain.end());
  }
  std::vector<std::byte> out(kEnvelopeHeader);
  std::memcpy(out.data(), "BRE1", 4);
  out[4] = static_cast<std::byte>((c.zstd ? kZstd : 0) | (c.key ? kAes : 0));
  put_u64(out.data() + 8, plain.size());
  put_u32(out.data() + 16, static_cast<std::uint32_t>(payload.size()));
  if (!c.key) {
    out.resize(kEnvelopeHeader + payload.size());
    if (!payload.empty()) std::memcpy(out.data() + kEnvelopeHeader, payload.data(), payload.size());
    return out;
  }
  for (std::size_t i = 0; i < 8; ++i)
    out[20 + i] = static_cast<std::byte>(std::stoul(c.key_id.substr(2 * i, 2), nullptr, 16));
  auto* nonce = reinterpret_cast<unsigned char*>(out.data() + 28);
  if (crypto.RAND_bytes(nonce, 12) != 1) throw Error(ErrorCode::kIo, "no random bytes for a nonce");
  CipherCtx x;
  int len = 0;
  out.resize(kEnvelopeHeader + payload.size() + kTag);
  auto* o = reinterpret_cast<unsigned char*>(out.data());
  if (crypto.EVP_EncryptInit_ex(x.c, crypto.EVP_aes_256_gcm(), nullptr, nullptr, nullptr) != 1 ||
      crypto.EVP_CIPHER_CTX_ctrl(x.c, EVP_CTRL_GCM_SET_IVLEN, 12, nullptr) != 1 ||
      crypto.EVP_EncryptInit_ex(x.c, nullptr, nullptr, c.key->data(), o + 28) != 1 ||
      crypto.EVP_EncryptUpdate(x.c, nullptr, &len, o, static_cast<int>(kEnvelopeHeader)) != 1 ||
      crypto.EVP_EncryptUpdate(x.c, o + kEnvelopeHeader, &len,
                               reinterpret_cast<const unsigned char*>(payload.data()),
                               static_cast<int>(payload.size())) != 1 ||
      crypto.EVP_EncryptFinal_ex(x.c, o + kEnvelopeHeader + len, &len) != 1 ||
      crypto.EVP_CIPHER_CTX_ctrl(x.c, EVP_CTRL_GCM_GET_TAG, static_cast<int>(kTag),
                                 o + kEnvelopeHeader + payload.size()) != 1)
    throw Error(ErrorCode::kIo, "AES-256-GCM encryption failed");
  return out;
}

std::vector<std::byte> unseal(const Codec& c, binlog::Bytes stored, const std::string& what) {
  const libs::CryptoApi& crypto = libs::crypto();
  const auto size = envelope_size(stored, what);
  if (!size || *size != stored.size()) damaged(what, "its envelope's size is not the object's");
  const auto flags = static_cast<unsigned char>(stored[4]);
  const std::uint64_t original = get_le(stored.data() + 8, 8);
  const std::size_t payload_size = static_cast<std::size_t>(get_le(stored.data() + 16, 4));
  // (nothing binrecover seals is larger than a piece, at most --part-size's 1 GiB: a bigger
  // size is a hostile or damaged header, not memory to give it)
  if (original > kMaxEnvelope) damaged(what, "an envelope larger than 1 GiB");
  std::vector<std::byte> payload(
      stored.begin() + kEnvelopeHeader,
      stored.begin() + static_cast<std::ptrdiff_t>(kEnvelopeHeader + payload_size));
  if ((flags & kAes) != 0) {
    const std::string id =
        s3::hex_of(reinterpret_cast<const unsigned char*>(stored.data() + 20), 8);
    if (!c.key)
      throw Error(ErrorCode::kUsage, what + " is encrypted (key id " + id +
                                         "): give --encryption-key-file=FILE (or "
                                         "BINRECOVER_ENCRYPTION_KEY_FILE)");
    if (id != c.key_id)
      throw Error(ErrorCode::kUsage, what + " was encrypted with another key (key id " + id +
                                         "; the key given has id " + c.key_id + ")");
    CipherCtx x;
    int len = 0;
    const auto* s = reinterpret_cast<const unsigned char*>(stored.data());
    std::vector<std::byte> plain(payload.size() + 16);
    auto* p = reinterpret_cast<unsigned char*>(plain.data());
    std::array<unsigned char, kTag> tag{};
    std::memcpy(tag.data(), s + kEnvelopeHeader + payload_size, kTag);
    int total = 0;
    const bool ok =
        crypto.EVP_DecryptInit_ex(x.c, crypto.EVP_aes_256_gcm(), nullptr, nullptr, nullptr) == 1 &&
        crypto.EVP_CIPHER_CTX_ctrl(x.c, EVP_CTRL_GCM_SET_IVLEN, 12, nullptr) == 1 &&
        crypto.EVP_DecryptInit_ex(x.c, nullptr, nullptr, c.key->data(), s + 28) == 1 &&
        crypto.EVP_DecryptUpdate(x.c, nullptr, &len, s, static_cast<int>(kEnvelopeHeader)) == 1 &&
        crypto.EVP_DecryptUpdate(x.c, p, &len, s + kEnvelopeHeader,
                                 static_cast<int>(payload_size)) == 1 &&
        (total = len, true) &&
        crypto.EVP_CIPHER_CTX_ctrl(x.c, EVP_CTRL_GCM_SET_TAG, static_cast<int>(kTag), tag.data()) ==
            1 &&
        crypto.EVP_DecryptFinal_ex(x.c, p + total, &len) == 1;
    if (!ok) damaged(what, "its authentication tag does not match (changed after it was stored)");
    plain.resize(static_cast<std::size_t>(total + len));
    payload = std::move(plain);
  }
  if ((flags & kZstd) == 0) {
    if (payload.size() != original) damaged(what, "its size is not the one recorded");
    return payload;
  }
  std::vector<std::byte> out(static_cast<std::size_t>(original));
  const std::size_t n = ZSTD_decompress(out.data(), out.size(), payload.data(), payload.size());
  if (ZSTD_isError(n) || n != original)
    damaged(what, std::string("it does not decompress (") +
                      (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short") + ")");
  return out;
}

}  // namespace binrecover::recovery
