#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "binlog/byte_cursor.h"

namespace binrecover::recovery::s3 {

// s3://BUCKET/KEY (KEY may be empty or a prefix ending in '/').
struct Url {
  std::string bucket;
  std::string key;
  std::string text() const { return "s3://" + bucket + "/" + key; }
};
inline bool is_url(std::string_view s) { return s.substr(0, 5) == "s3://"; }
// Throws Error(kUsage) when `s` is not s3://BUCKET[/KEY] with a valid bucket name.
Url parse_url(std::string_view s);

enum class Addressing { kAuto, kPath, kVirtual };

// Where the store is and who we are, as the AWS tools take them (docs/usage.md, "S3"):
// AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, else the profile
// (AWS_PROFILE, default "default") of AWS_SHARED_CREDENTIALS_FILE (~/.aws/credentials);
// AWS_REGION / AWS_DEFAULT_REGION, else the profile's region in AWS_CONFIG_FILE (~/.aws/config),
// else us-east-1; the endpoint from --s3-endpoint, AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the
// profile's endpoint_url, else https://s3.REGION.amazonaws.com.
struct Config {
  std::string access_key, secret_key, session_token;
  std::string region = "us-east-1";
  std::string endpoint;  // scheme://host[:port], no path
  Addressing addressing = Addressing::kAuto;
  std::string ca_file;  // AWS_CA_BUNDLE (else the system's)
  bool verify_tls = true;
  std::size_t streams = 4;  // requests in flight in one transfer (--s3-streams; s3_transfer.h)
};

struct ConfigOverrides {
  std::optional<std::string> endpoint;  // --s3-endpoint
  std::optional<std::string> region;    // --s3-region
  std::optional<std::string> profile;   // --s3-profile
  Addressing addressing = Addressing::kAuto;
  std::size_t streams = 4;  // --s3-streams
};
// The configuration from the environment and the AWS files; `env` reads a variable (getenv by
// default: tests pass their own).
Config load_config(const ConfigOverrides& o,
                   const std::function<std::optional<std::string>(const char*)>& env = {});

// AWS Signature Version 4 of one request (exposed for the test against AWS's published
// examples). `headers` are the headers to sign (any case; values trimmed); `query` the
// parameters (unencoded). Returns the Authorization header's value.
struct SignInput {
  std::string method, host, path;  // path unencoded, starting with '/'
  std::vector<std::pair<std::string, std::string>> query;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string payload_sha256;  // hex
  std::string amz_date;        // YYYYMMDDTHHMMSSZ
  std::string region, service = "s3";
  std::string access_key, secret_key;
};
std::string sigv4_authorization(const SignInput& in);

std::string sha256_hex(binlog::Bytes data);
// Lower-case hex of bytes.
std::string hex_of(const unsigned char* p, std::size_t n);
// SHA-256 of bytes given a piece at a time (a stream: a dump, an object read by ranges).
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* p, std::size_t n);
  std::string hex();  // (once, at the end)

 private:
  void* ctx_;
};
std::string md5_base64(binlog::Bytes data);
// The RFC 3986 encoding S3 signs: unreserved bytes kept, '/' kept when `keep_slash`.
std::string uri_encode(std::string_view s, bool keep_slash);

struct ObjectInfo {
  std::string key;
  std::uint64_t size = 0;
  std::string etag;
};

struct Listing {
  std::vector<ObjectInfo> objects;
  std::vector<std::string> prefixes;  // common prefixes (with a delimiter)
};

// One connection (reused between requests) to the store: not for use by two threads at once.
// Every failure is an Error(kIo) naming the URL, the HTTP status and S3's error code and message;
// network errors, 5xx and 429 answers are retried with backoff (for up to `retry_seconds`).
class Client {
 public:
  explicit Client(Config config);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  const Config& config() const { return config_; }
  unsigned retry_seconds = 120;
  // Told once per request when the store first fails it in a way a retry may help (connection
  // refused, 5xx, timeout), before the retries: what failed and for how long it is retried.
  std::function<void(const std::string&)> on_retry;
  // Set from another thread: the request under way stops (within a second) and no retry
  // follows; the call fails with ErrorCode::kInterrupted. (A transfer whose reader is gone.)
  std::atomic<bool> cancelled{false};

  std::optional<ObjectInfo> head(const Url& u);
  // The object's bytes (nullopt when there is none): for small objects (manifests, indexes).
  std::optional<std::string> get(const Url& u);
  // Up to `n` bytes from `offset` into `out` (a ranged GET); returns how many came (fewer only
  // at the object's end).
  std::size_t get_range(const Url& u, std::uint64_t offset, std::size_t n, std::byte* out);
  // Stores `data` as the object (replacing it atomically), with Content-MD5 and the payload's
  // SHA-256 signed: the store refuses a body damaged on the way.
  void put(const Url& u, binlog::Bytes data, const std::string& content_type = {});
  void remove(const Url& u);
  Listing list(const std::string& bucket, const std::string& prefix,
               const std::string& delimiter = {});

  // Multipart upload (objects composed of parts, all but the last at least 5 MiB).
  std::string create_multipart(const Url& u);
  std::string upload_part(const Url& u, const std::string& upload_id, unsigned part,
                          binlog::Bytes data);
  // A part copied inside the store from bytes [first, last] of `source`.
  std::string upload_part_copy(const Url& u, const std::string& upload_id, unsigned part,
                               const Url& source, std::uint64_t first, std::uint64_t last);
  void complete_multipart(const Url& u, const std::string& upload_id,
                          const std::vector<std::string>& etags);
  void abort_multipart(const Url& u, const std::string& upload_id);

 private:
  struct Request;
  struct Response {
    long status = 0;
    bool too_big = false;  // a whole-object GET past 16 MiB (Client::get)
    std::string body;
    std::map<std::string, std::string> headers;  // lower-case names
  };
  Response perform(Request& r);
  Response call(Request& r, long also_ok = 0);  // also_ok: a status that is no error

  Config config_;
  void* curl_ = nullptr;
};

}  // namespace binrecover::recovery::s3
