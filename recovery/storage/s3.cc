#include "recovery/storage/s3.h"

#include <curl/curl.h>
#include <expat.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "binlog/error.h"

// S3 over libcurl (HTTP, TLS, connection reuse) and expat (the XML answers); the request
// signature (AWS Signature Version 4) is computed here with OpenSSL's HMAC-SHA256 rather than by
// curl's CURLOPT_AWS_SIGV4: curl 7.88 (Debian 12) does not sort the query parameters it signs
// nor sign a session token, and both are needed (docs/design.md, "S3").

namespace binrecover::recovery::s3 {

namespace {

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
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len);
  return std::string(reinterpret_cast<const char*>(out), len);
}

std::string digest(const EVP_MD* md, binlog::Bytes data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out, &len, md, nullptr);
  return std::string(reinterpret_cast<const char*>(out), len);
}

binlog::Bytes bytes_of(std::string_view s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  std::string out;
  bool space = false;  // inner runs of spaces signed as one
  for (std::size_t i = b; i < e; ++i) {
    if (s[i] == ' ') {
      if (!space) out += ' ';
      space = true;
    } else {
      out += s[i];
      space = false;
    }
  }
  return out;
}

std::string amz_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

// The leaves (path, text) and element starts ("", path) of an XML document, namespaces
// dropped: enough for S3's answers.
struct XmlItem {
  bool start = false;
  std::string path, text;
};

std::vector<XmlItem> xml_items(const std::string& doc) {
  struct State {
    std::vector<XmlItem> items;
    std::vector<std::string> stack;
    std::string text;
  } st;
  XML_Parser p = XML_ParserCreate(nullptr);
  XML_SetUserData(p, &st);
  XML_SetElementHandler(
      p,
      [](void* ud, const XML_Char* name, const XML_Char**) {
        auto* s = static_cast<State*>(ud);
        std::string n = name;
        const auto colon = n.rfind(':');
        if (colon != std::string::npos) n = n.substr(colon + 1);
        s->stack.push_back(n);
        std::string path;
        for (const auto& e : s->stack) path += "/" + e;
        s->items.push_back({true, path, {}});
        s->text.clear();
      },
      [](void* ud, const XML_Char*) {
        auto* s = static_cast<State*>(ud);
        std::string path;
        for (const auto& e : s->stack) path += "/" + e;
        s->items.push_back({false, path, s->text});
        s->text.clear();
        s->stack.pop_back();
      });
  XML_SetCharacterDataHandler(p, [](void* ud, const XML_Char* t, int len) {
    static_cast<State*>(ud)->text.append(t, static_cast<std::size_t>(len));
  });
  const bool ok = XML_Parse(p, doc.data(), static_cast<int>(doc.size()), 1) != XML_STATUS_ERROR;
  XML_ParserFree(p);
  if (!ok) return {};
  return st.items;
}

std::string xml_value(const std::vector<XmlItem>& items, std::string_view path) {
  for (const auto& i : items)
    if (!i.start && i.path == path) return i.text;
  return {};
}

// "[section]" then "key = value" lines; an indented line under "s3 =" is the key "s3.NAME".
std::map<std::string, std::map<std::string, std::string>> read_ini(const std::string& path) {
  std::map<std::string, std::map<std::string, std::string>> out;
  std::ifstream in(path);
  std::string line, section, nested;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#' || t[0] == ';') continue;
    if (t.front() == '[' && t.back() == ']') {
      section = trim(t.substr(1, t.size() - 2));
      nested.clear();
      continue;
    }
    const auto eq = t.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = lower(trim(t.substr(0, eq)));
    const std::string value = trim(t.substr(eq + 1));
    const bool indented = std::isspace(static_cast<unsigned char>(line[0])) != 0;
    if (indented && !nested.empty()) {
      out[section][nested + "." + key] = value;
    } else {
      nested = value.empty() ? key : std::string();
      out[section][key] = value;
    }
  }
  return out;
}

struct Endpoint {
  std::string scheme, host;  // host with its port
};

Endpoint split_endpoint(const std::string& e) {
  const auto sep = e.find("://");
  if (sep == std::string::npos)
    throw Error(ErrorCode::kUsage, "the S3 endpoint '" + e + "' needs http:// or https://");
  Endpoint out{lower(e.substr(0, sep)), e.substr(sep + 3)};
  while (!out.host.empty() && out.host.back() == '/') out.host.pop_back();
  if ((out.scheme != "http" && out.scheme != "https") || out.host.empty() ||
      out.host.find('/') != std::string::npos)
    throw Error(ErrorCode::kUsage,
                "the S3 endpoint '" + e + "' must be http(s)://HOST[:PORT] without a path");
  return out;
}

std::once_flag curl_once;

}  // namespace

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

std::string sha256_hex(binlog::Bytes data) {
  const std::string d = digest(EVP_sha256(), data);
  return hex(reinterpret_cast<const unsigned char*>(d.data()), d.size());
}

std::string md5_base64(binlog::Bytes data) {
  const std::string d = digest(EVP_md5(), data);
  unsigned char out[64];
  const int n = EVP_EncodeBlock(out, reinterpret_cast<const unsigned char*>(d.data()),
                                static_cast<int>(d.size()));
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

Config load_config(const ConfigOverrides& o,
                   const std::function<std::optional<std::string>(const char*)>& env_fn) {
  auto env = [&](const char* name) -> std::optional<std::string> {
    if (env_fn) return env_fn(name);
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') return std::nullopt;
    return std::string(v);
  };
  Config c;
  const std::string home = env("HOME").value_or("");
  const std::string profile = o.profile.value_or(env("AWS_PROFILE").value_or("default"));
  const auto creds =
      read_ini(env("AWS_SHARED_CREDENTIALS_FILE").value_or(home + "/.aws/credentials"));
  const auto conf = read_ini(env("AWS_CONFIG_FILE").value_or(home + "/.aws/config"));
  const std::string conf_section = profile == "default" ? "default" : "profile " + profile;
  auto from = [](const auto& ini, const std::string& section,
                 const std::string& key) -> std::optional<std::string> {
    const auto s = ini.find(section);
    if (s == ini.end()) return std::nullopt;
    const auto k = s->second.find(key);
    if (k == s->second.end() || k->second.empty()) return std::nullopt;
    return k->second;
  };
  if (auto id = env("AWS_ACCESS_KEY_ID")) {
    c.access_key = *id;
    c.secret_key = env("AWS_SECRET_ACCESS_KEY").value_or("");
    c.session_token = env("AWS_SESSION_TOKEN").value_or("");
  } else {
    auto pick = [&](const std::string& key) {
      return from(creds, profile, key).value_or(from(conf, conf_section, key).value_or(""));
    };
    c.access_key = pick("aws_access_key_id");
    c.secret_key = pick("aws_secret_access_key");
    c.session_token = pick("aws_session_token");
    if (c.access_key.empty() && o.profile)
      throw Error(ErrorCode::kUsage, "the AWS profile '" + profile + "' has no credentials");
  }
  c.region = o.region.value_or(
      env("AWS_REGION")
          .value_or(env("AWS_DEFAULT_REGION")
                        .value_or(from(conf, conf_section, "region").value_or("us-east-1"))));
  std::string endpoint = o.endpoint.value_or(
      env("AWS_ENDPOINT_URL_S3")
          .value_or(
              env("AWS_ENDPOINT_URL")
                  .value_or(from(conf, conf_section, "s3.endpoint_url")
                                .value_or(from(conf, conf_section, "endpoint_url").value_or("")))));
  if (endpoint.empty()) endpoint = "https://s3." + c.region + ".amazonaws.com";
  split_endpoint(endpoint);  // (checks it)
  c.endpoint = endpoint;
  c.addressing = o.addressing;
  if (c.addressing == Addressing::kAuto) {
    const auto style = from(conf, conf_section, "s3.addressing_style");
    if (style == "path") c.addressing = Addressing::kPath;
    if (style == "virtual") c.addressing = Addressing::kVirtual;
  }
  c.ca_file = env("AWS_CA_BUNDLE").value_or("");
  return c;
}

// ---------------------------------------------------------------------------------------------

struct Client::Request {
  std::string method;
  Url url;
  std::vector<std::pair<std::string, std::string>> query;
  std::vector<std::pair<std::string, std::string>> headers;  // signed
  binlog::Bytes body;
  // A ranged GET's bytes go here (else into Response::body).
  std::byte* out = nullptr;
  std::size_t out_capacity = 0;
  std::size_t out_size = 0;
  bool overflow = false;  // the store sent more than the range asked for
};

Client::Client(Config config) : config_(std::move(config)) {
  std::call_once(curl_once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  curl_ = curl_easy_init();
  if (curl_ == nullptr) throw Error(ErrorCode::kIo, "cannot start libcurl");
}

Client::~Client() { curl_easy_cleanup(static_cast<CURL*>(curl_)); }

Client::Response Client::perform(Request& r) {
  CURL* c = static_cast<CURL*>(curl_);
  curl_easy_reset(c);
  const Endpoint ep = split_endpoint(config_.endpoint);
  bool virtual_host = config_.addressing == Addressing::kVirtual;
  if (config_.addressing == Addressing::kAuto)
    virtual_host = ep.host.size() >= 13 &&
                   ep.host.compare(ep.host.size() - 13, 13, "amazonaws.com") == 0 &&
                   r.url.bucket.find('.') == std::string::npos;
  const std::string host = virtual_host ? r.url.bucket + "." + ep.host : ep.host;
  const std::string path = virtual_host ? "/" + r.url.key : "/" + r.url.bucket + "/" + r.url.key;

  SignInput s;
  s.method = r.method;
  s.host = host;
  s.path = path;
  s.query = r.query;
  s.headers = r.headers;
  s.payload_sha256 = sha256_hex(r.body);
  s.amz_date = amz_now();
  s.region = config_.region;
  s.access_key = config_.access_key;
  s.secret_key = config_.secret_key;
  s.headers.emplace_back("host", host);
  s.headers.emplace_back("x-amz-date", s.amz_date);
  s.headers.emplace_back("x-amz-content-sha256", s.payload_sha256);
  if (!config_.session_token.empty())
    s.headers.emplace_back("x-amz-security-token", config_.session_token);

  std::string url = ep.scheme + "://" + host + uri_encode(path, true);
  {
    std::vector<std::pair<std::string, std::string>> q;
    for (const auto& [k, v] : r.query) q.emplace_back(uri_encode(k, false), uri_encode(v, false));
    std::sort(q.begin(), q.end());
    std::string qs;
    for (const auto& [k, v] : q) qs += (qs.empty() ? "?" : "&") + k + "=" + v;
    url += qs;
  }
  curl_slist* hl = nullptr;
  for (const auto& [k, v] : s.headers)
    if (k != "host") hl = curl_slist_append(hl, (k + ": " + v).c_str());
  if (!config_.access_key.empty())
    hl = curl_slist_append(hl, ("Authorization: " + sigv4_authorization(s)).c_str());
  hl = curl_slist_append(hl, "Expect:");
  bool has_type = false;
  for (const auto& [k, v] : r.headers) has_type = has_type || lower(k) == "content-type";
  if (!has_type) hl = curl_slist_append(hl, "Content-Type:");

  Response resp;
  r.out_size = 0;
  r.overflow = false;
  struct Sink {
    Request* req;
    Response* resp;
  } sink{&r, &resp};
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 60L);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  if (!config_.ca_file.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, config_.ca_file.c_str());
  if (!config_.verify_tls) curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
  if (r.method == "HEAD") {
    curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  } else if (r.method == "PUT" || r.method == "POST") {
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS,
                     r.body.empty() ? "" : reinterpret_cast<const char*>(r.body.data()));
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, r.method.c_str());
  } else if (r.method != "GET") {
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, r.method.c_str());
  }
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(
      c, CURLOPT_WRITEFUNCTION, +[](char* p, size_t, size_t n, void* ud) -> size_t {
        auto* s = static_cast<Sink*>(ud);
        if (s->req->out != nullptr && s->resp->status / 100 == 2) {
          const std::size_t room = s->req->out_capacity - s->req->out_size;
          if (n > room) {  // more than asked for: the transfer fails
            s->req->overflow = true;
            return 0;
          }
          std::memcpy(s->req->out + s->req->out_size, p, n);
          s->req->out_size += n;
        } else if (s->resp->body.size() < (std::size_t{16} << 20)) {
          s->resp->body.append(p, n);
        }
        return n;
      });
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &sink);
  curl_easy_setopt(
      c, CURLOPT_HEADERFUNCTION, +[](char* p, size_t, size_t n, void* ud) -> size_t {
        auto* s = static_cast<Sink*>(ud);
        std::string_view line(p, n);
        if (line.substr(0, 5) == "HTTP/") {
          s->resp->headers.clear();
          const auto sp = line.find(' ');
          if (sp != std::string_view::npos)
            s->resp->status = std::strtol(std::string(line.substr(sp + 1, 3)).c_str(), nullptr, 10);
          return n;
        }
        const auto colon = line.find(':');
        if (colon != std::string_view::npos)
          s->resp->headers[lower(std::string(line.substr(0, colon)))] =
              trim(line.substr(colon + 1));
        return n;
      });
  const CURLcode rc = curl_easy_perform(c);
  curl_slist_free_all(hl);
  if (rc != CURLE_OK) {
    resp.status = -static_cast<long>(rc);
    resp.body = curl_easy_strerror(rc);
  } else {
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp.status);
  }
  return resp;
}

Client::Response Client::call(Request& r, long also_ok) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(retry_seconds);
  std::chrono::milliseconds wait{200};
  for (;;) {
    Response resp = perform(r);
    if (r.overflow)
      throw Error(ErrorCode::kIo, "GET " + r.url.text() + ": the store ignored the Range request");
    // Retried: the store restarting or overloaded, the network dropping; not: a name that does
    // not resolve, a certificate that is not trusted, a bad URL (no retry helps those).
    bool transient = resp.status >= 500 || resp.status == 429 || resp.status == 408;
    if (resp.status < 0) {
      switch (static_cast<CURLcode>(-resp.status)) {
        case CURLE_COULDNT_CONNECT:
        case CURLE_OPERATION_TIMEDOUT:
        case CURLE_SEND_ERROR:
        case CURLE_RECV_ERROR:
        case CURLE_GOT_NOTHING:
        case CURLE_PARTIAL_FILE:
        case CURLE_SSL_CONNECT_ERROR:
          transient = true;
          break;
        default:
          break;
      }
    }
    // (a GET's body is retried too: the buffer is filled again from its start)
    if (transient && std::chrono::steady_clock::now() + wait < deadline) {
      if (on_retry && wait == std::chrono::milliseconds{200})
        on_retry(r.method + " " + r.url.text() + ": " +
                 (resp.status < 0 ? resp.body : "HTTP " + std::to_string(resp.status)) +
                 ": retrying for up to " + std::to_string(retry_seconds) + " s");
      std::this_thread::sleep_for(wait);
      wait = std::min(wait * 2, std::chrono::milliseconds(5000));
      continue;
    }
    if (resp.status / 100 == 2 || (also_ok != 0 && resp.status == also_ok)) {
      // CompleteMultipartUpload may fail after its 200 (the error is the body).
      if (r.method == "POST" && resp.body.find("<Error>") != std::string::npos) {
        const auto items = xml_items(resp.body);
        throw Error(ErrorCode::kIo, r.url.text() + ": " + xml_value(items, "/Error/Code") + ": " +
                                        xml_value(items, "/Error/Message"));
      }
      return resp;
    }
    std::string what;
    if (resp.status < 0) {
      what = resp.body;
    } else {
      const auto items = xml_items(resp.body);
      const std::string code = xml_value(items, "/Error/Code");
      const std::string msg = xml_value(items, "/Error/Message");
      what = "HTTP " + std::to_string(resp.status) + (code.empty() ? "" : " " + code) +
             (msg.empty() ? "" : ": " + msg);
    }
    throw Error(ErrorCode::kIo, r.method + " " + r.url.text() + ": " + what);
  }
}

std::optional<ObjectInfo> Client::head(const Url& u) {
  Request r{"HEAD", u, {}, {}, {}, nullptr, 0, 0};
  const Response resp = call(r, 404);
  if (resp.status == 404) return std::nullopt;
  ObjectInfo info{u.key, 0, {}};
  if (auto it = resp.headers.find("content-length"); it != resp.headers.end())
    info.size = std::strtoull(it->second.c_str(), nullptr, 10);
  if (auto it = resp.headers.find("etag"); it != resp.headers.end()) info.etag = it->second;
  return info;
}

std::optional<std::string> Client::get(const Url& u) {
  Request r{"GET", u, {}, {}, {}, nullptr, 0, 0};
  Response resp = call(r, 404);
  if (resp.status == 404) return std::nullopt;
  return std::move(resp.body);
}

std::size_t Client::get_range(const Url& u, std::uint64_t offset, std::size_t n, std::byte* out) {
  if (n == 0) return 0;
  Request r{"GET", u, {}, {}, {}, out, n, 0};
  r.headers.emplace_back("range",
                         "bytes=" + std::to_string(offset) + "-" + std::to_string(offset + n - 1));
  const Response resp = call(r, 416);
  if (resp.status == 416) return 0;  // at or past the end
  if (resp.status == 200 && offset != 0)
    throw Error(ErrorCode::kIo, "GET " + u.text() + ": the store ignored the Range request");
  return r.out_size;
}

void Client::put(const Url& u, binlog::Bytes data, const std::string& content_type) {
  Request r{"PUT", u, {}, {}, data, nullptr, 0, 0};
  r.headers.emplace_back("content-md5", md5_base64(data));
  if (!content_type.empty()) r.headers.emplace_back("content-type", content_type);
  call(r);
}

void Client::remove(const Url& u) {
  Request r{"DELETE", u, {}, {}, {}, nullptr, 0, 0};
  call(r, 404);
}

Listing Client::list(const std::string& bucket, const std::string& prefix,
                     const std::string& delimiter) {
  Listing out;
  std::string token;
  for (;;) {
    Request r{"GET", Url{bucket, ""}, {{"list-type", "2"}, {"prefix", prefix}}, {}, {}, nullptr, 0,
              0};
    if (!delimiter.empty()) r.query.emplace_back("delimiter", delimiter);
    if (!token.empty()) r.query.emplace_back("continuation-token", token);
    const Response resp = call(r);
    const auto items = xml_items(resp.body);
    if (items.empty()) throw Error(ErrorCode::kIo, "s3://" + bucket + ": unreadable listing");
    bool truncated = false;
    token.clear();
    for (const auto& i : items) {
      if (i.start) {
        if (i.path == "/ListBucketResult/Contents") out.objects.push_back({});
        continue;
      }
      if (i.path == "/ListBucketResult/Contents/Key") out.objects.back().key = i.text;
      if (i.path == "/ListBucketResult/Contents/Size")
        out.objects.back().size = std::strtoull(i.text.c_str(), nullptr, 10);
      if (i.path == "/ListBucketResult/Contents/ETag") out.objects.back().etag = i.text;
      if (i.path == "/ListBucketResult/CommonPrefixes/Prefix") out.prefixes.push_back(i.text);
      if (i.path == "/ListBucketResult/IsTruncated") truncated = i.text == "true";
      if (i.path == "/ListBucketResult/NextContinuationToken") token = i.text;
    }
    if (!truncated || token.empty()) return out;
  }
}

std::string Client::create_multipart(const Url& u) {
  Request r{"POST", u, {{"uploads", ""}}, {}, {}, nullptr, 0, 0};
  const Response resp = call(r);
  const std::string id = xml_value(xml_items(resp.body), "/InitiateMultipartUploadResult/UploadId");
  if (id.empty()) throw Error(ErrorCode::kIo, u.text() + ": the store gave no upload id");
  return id;
}

std::string Client::upload_part(const Url& u, const std::string& upload_id, unsigned part,
                                binlog::Bytes data) {
  Request r{"PUT", u,    {{"partNumber", std::to_string(part)}, {"uploadId", upload_id}},
            {},    data, nullptr,
            0,     0};
  r.headers.emplace_back("content-md5", md5_base64(data));
  const Response resp = call(r);
  const auto it = resp.headers.find("etag");
  if (it == resp.headers.end()) throw Error(ErrorCode::kIo, u.text() + ": a part without an ETag");
  return it->second;
}

std::string Client::upload_part_copy(const Url& u, const std::string& upload_id, unsigned part,
                                     const Url& source, std::uint64_t first, std::uint64_t last) {
  Request r{"PUT", u,  {{"partNumber", std::to_string(part)}, {"uploadId", upload_id}},
            {},    {}, nullptr,
            0,     0};
  r.headers.emplace_back("x-amz-copy-source", uri_encode(source.bucket + "/" + source.key, true));
  r.headers.emplace_back("x-amz-copy-source-range",
                         "bytes=" + std::to_string(first) + "-" + std::to_string(last));
  const Response resp = call(r);
  const std::string etag = xml_value(xml_items(resp.body), "/CopyPartResult/ETag");
  if (etag.empty()) throw Error(ErrorCode::kIo, u.text() + ": a copied part without an ETag");
  return etag;
}

void Client::complete_multipart(const Url& u, const std::string& upload_id,
                                const std::vector<std::string>& etags) {
  std::string xml = "<CompleteMultipartUpload>";
  for (std::size_t i = 0; i < etags.size(); ++i)
    xml += "<Part><PartNumber>" + std::to_string(i + 1) + "</PartNumber><ETag>" + etags[i] +
           "</ETag></Part>";
  xml += "</CompleteMultipartUpload>";
  Request r{"POST", u, {{"uploadId", upload_id}}, {}, bytes_of(xml), nullptr, 0, 0};
  r.headers.emplace_back("content-type", "application/xml");
  call(r);
}

void Client::abort_multipart(const Url& u, const std::string& upload_id) {
  Request r{"DELETE", u, {{"uploadId", upload_id}}, {}, {}, nullptr, 0, 0};
  call(r, 404);
}

}  // namespace binrecover::recovery::s3
