
#include <algorithm>
#include <string>

#include "binlog/error.h"
#include "recovery/libs/crypto_api.h"
#include "recovery/storage/s3.h"
#include "recovery/storage/s3_internal.h"

// The request signature (AWS Signature Version 4) with OpenSSL's HMAC-SHA256, the digests and
// encodings it needs, and s3:// URLs.

namespace binrecover::recovery::s3 {

namespace {

using namespace detail;  // NOLINT(google-build-using-namespace): s3_internal.h

std::string hex(const unsigned char* p, std::size_t n) {
  static const char digits[] = "0123456789abcdef";
  std::string out(n * 2, '0');
  for (std::size_t i = 0; i < n; ++i) {
    out[2 * i] = digits[p[i] >> 4];
    out[2 * i + 1] = digits[p[i] & 15];
  }
  return out;
}

std::string hmac(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  libs::crypto().HMAC(libs::crypto().EVP_sha256(), key.data(), static_cast<int>(key.size()),
                      reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len);
  return std::string(reinterpret_cast<const char*>(out), len);
}

std::string digest(const EVP_MD* md, binlog::Bytes data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  libs::crypto().EVP_Digest(data.data(), data.size(), out, &len, md, nullptr);
  return std::string(reinterpret_cast<const char*>(out), len);
}

}  // namespace

using detail::bytes_of;
using detail::lower;
using detail::trim;

Url parse_url(std::string_view s) {
  if (!is_url(s)) throw Error(ErrorCode::kUsage, "not an s3:// URL: " + std::string(s));
  const std::string_view rest = s.substr(5);
  const auto slash = rest.find('/');
  Url u{std::string(rest.substr(0, slash)),
        slash == std::string_view::npos ? std::string() : std::string(rest.substr(slash + 1))};
  const auto ok_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
  };
  if (u.bucket.size() < 3 || u.bucket.size() > 63 ||
      !std::all_of(u.bucket.begin(), u.bucket.end(), ok_char) || u.bucket.front() == '.' ||
      u.bucket.front() == '-' || u.bucket.back() == '.' || u.bucket.back() == '-')
    throw Error(ErrorCode::kUsage, "'" + std::string(s) +
                                       "': the bucket name must be 3 to 63 characters of a-z, "
                                       "0-9, '.', '-' and '_'");
  return u;
}

std::string hex_of(const unsigned char* p, std::size_t n) { return hex(p, n); }

Sha256::Sha256() : ctx_(libs::crypto().EVP_MD_CTX_new()) {
  libs::crypto().EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), libs::crypto().EVP_sha256(),
                                   nullptr);
}
Sha256::~Sha256() { libs::crypto().EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_)); }
void Sha256::update(const void* p, std::size_t n) {
  libs::crypto().EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), p, n);
}
std::string Sha256::hex() {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  libs::crypto().EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), out, &len);
  return hex_of(out, len);
}

std::string sha256_hex(binlog::Bytes data) {
  const std::string d = digest(libs::crypto().EVP_sha256(), data);
  return hex(reinterpret_cast<const unsigned char*>(d.data()), d.size());
}

std::string md5_base64(binlog::Bytes data) {
  const std::string d = digest(libs::crypto().EVP_md5(), data);
  unsigned char out[64];
  const int n = libs::crypto().EVP_EncodeBlock(
      out, reinterpret_cast<const unsigned char*>(d.data()), static_cast<int>(d.size()));
  return std::string(reinterpret_cast<const char*>(out), static_cast<std::size_t>(n));
}

std::string uri_encode(std::string_view s, bool keep_slash) {
  static const char digits[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' ||
        (keep_slash && c == '/')) {
      out += ch;
    } else {
      out += '%';
      out += digits[c >> 4];
      out += digits[c & 15];
    }
  }
  return out;
}

std::string sigv4_authorization(const SignInput& in) {
  std::vector<std::pair<std::string, std::string>> q;
  for (const auto& [k, v] : in.query) q.emplace_back(uri_encode(k, false), uri_encode(v, false));
  std::sort(q.begin(), q.end());
  std::string query;
  for (const auto& [k, v] : q) query += (query.empty() ? "" : "&") + k + "=" + v;
  std::vector<std::pair<std::string, std::string>> h;
  for (const auto& [k, v] : in.headers) h.emplace_back(lower(k), trim(v));
  std::sort(h.begin(), h.end());
  std::string canonical_headers, signed_headers;
  for (const auto& [k, v] : h) {
    canonical_headers += k + ":" + v + "\n";
    signed_headers += (signed_headers.empty() ? "" : ";") + k;
  }
  const std::string canonical = in.method + "\n" + uri_encode(in.path, true) + "\n" + query + "\n" +
                                canonical_headers + "\n" + signed_headers + "\n" +
                                in.payload_sha256;
  const std::string date = in.amz_date.substr(0, 8);
  const std::string scope = date + "/" + in.region + "/" + in.service + "/aws4_request";
  const std::string to_sign =
      "AWS4-HMAC-SHA256\n" + in.amz_date + "\n" + scope + "\n" + sha256_hex(bytes_of(canonical));
  std::string key = hmac("AWS4" + in.secret_key, date);
  key = hmac(key, in.region);
  key = hmac(key, in.service);
  key = hmac(key, "aws4_request");
  const std::string sig = hmac(key, to_sign);
  return "AWS4-HMAC-SHA256 Credential=" + in.access_key + "/" + scope +
         ", SignedHeaders=" + signed_headers +
         ", Signature=" + hex(reinterpret_cast<const unsigned char*>(sig.data()), sig.size());
}

}  // namespace binrecover::recovery::s3
