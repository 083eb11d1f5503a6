#include "recovery/storage/s3.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <thread>

#include "binlog/error.h"
#include "recovery/libs/curl_api.h"
#include "recovery/storage/s3_internal.h"

// S3 over libcurl (HTTP, TLS, connection reuse) and expat (the XML answers); the request
// signature (AWS Signature Version 4) is computed in s3_sign.cc with OpenSSL's HMAC-SHA256 rather
// than by curl's CURLOPT_AWS_SIGV4: curl 7.88 (Debian 12) does not sort the query parameters it
// signs nor sign a session token, and both are needed (docs/design.md, "S3").

namespace binrecover::recovery::s3 {

namespace {

using namespace detail;  // NOLINT(google-build-using-namespace): s3_internal.h

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
  XML_Parser p = libs::expat().XML_ParserCreate(nullptr);
  libs::expat().XML_SetUserData(p, &st);
  libs::expat().XML_SetElementHandler(
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
  libs::expat().XML_SetCharacterDataHandler(p, [](void* ud, const XML_Char* t, int len) {
    static_cast<State*>(ud)->text.append(t, static_cast<std::size_t>(len));
  });
  const bool ok =
      libs::expat().XML_Parse(p, doc.data(), static_cast<int>(doc.size()), 1) != XML_STATUS_ERROR;
  libs::expat().XML_ParserFree(p);
  if (!ok) return {};
  return st.items;
}

std::string xml_value(const std::vector<XmlItem>& items, std::string_view path) {
  for (const auto& i : items)
    if (!i.start && i.path == path) return i.text;
  return {};
}

}  // namespace

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
  curl_ = libs::curl().curl_easy_init();
  if (curl_ == nullptr) throw Error(ErrorCode::kIo, "cannot start libcurl");
}

Client::~Client() { libs::curl().curl_easy_cleanup(static_cast<CURL*>(curl_)); }

namespace {

// "?k=v&..." of a request's parameters, encoded and sorted as SigV4 signs them ("" for none).
std::string query_string(const std::vector<std::pair<std::string, std::string>>& query) {
  std::vector<std::pair<std::string, std::string>> q;
  for (const auto& [k, v] : query) q.emplace_back(uri_encode(k, false), uri_encode(v, false));
  std::sort(q.begin(), q.end());
  std::string qs;
  for (const auto& [k, v] : q) qs += (qs.empty() ? "?" : "&") + k + "=" + v;
  return qs;
}

// The request's headers for curl: the signed ones (host is curl's), the signature when there
// are keys, no Expect, and no Content-Type unless one was given.
curl_slist* header_list(const SignInput& s, bool sign,
                        const std::vector<std::pair<std::string, std::string>>& given) {
  const libs::CurlApi& curl = libs::curl();
  curl_slist* hl = nullptr;
  for (const auto& [k, v] : s.headers)
    if (k != "host") hl = curl.curl_slist_append(hl, (k + ": " + v).c_str());
  if (sign) hl = curl.curl_slist_append(hl, ("Authorization: " + sigv4_authorization(s)).c_str());
  hl = curl.curl_slist_append(hl, "Expect:");
  bool has_type = false;
  for (const auto& [k, v] : given) has_type = has_type || lower(k) == "content-type";
  if (!has_type) hl = curl.curl_slist_append(hl, "Content-Type:");
  return hl;
}

}  // namespace

Client::Response Client::perform(Request& r) {
  CURL* c = static_cast<CURL*>(curl_);
  const libs::CurlApi& curl = libs::curl();
  curl.curl_easy_reset(c);
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

  const std::string url = ep.scheme + "://" + host + uri_encode(path, true) + query_string(r.query);
  curl_slist* hl = header_list(s, !config_.access_key.empty(), r.headers);

  Response resp;
  r.out_size = 0;
  r.overflow = false;
  struct Sink {
    Request* req;
    Response* resp;
  } sink{&r, &resp};
  curl.curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl.curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
  curl.curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl.curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
  curl.curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl.curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 60L);
  curl.curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  if (!config_.ca_file.empty()) curl.curl_easy_setopt(c, CURLOPT_CAINFO, config_.ca_file.c_str());
  if (!config_.verify_tls) curl.curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
  if (r.method == "HEAD") {
    curl.curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  } else if (r.method == "PUT" || r.method == "POST") {
    curl.curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl.curl_easy_setopt(c, CURLOPT_POSTFIELDS,
                          r.body.empty() ? "" : reinterpret_cast<const char*>(r.body.data()));
    curl.curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
    curl.curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, r.method.c_str());
  } else if (r.method != "GET") {
    curl.curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, r.method.c_str());
  }
  curl.curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
  curl.curl_easy_setopt(
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
        } else if (s->resp->body.size() + n <= (std::size_t{16} << 20)) {
          s->resp->body.append(p, n);
        } else if (s->resp->status / 100 == 2) {
          s->resp->too_big = true;  // (a whole-object GET is for small objects: said, not cut)
          return 0;
        }
        return n;
      });
  curl.curl_easy_setopt(c, CURLOPT_HEADERDATA, &sink);
  curl.curl_easy_setopt(
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
  // (a cancel stops the transfer: curl asks this about once a second, and at each chunk)
  curl.curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl.curl_easy_setopt(c, CURLOPT_XFERINFODATA, &cancelled);
  curl.curl_easy_setopt(
      c, CURLOPT_XFERINFOFUNCTION,
      +[](void* ud, curl_off_t, curl_off_t, curl_off_t, curl_off_t) -> int {
        return static_cast<std::atomic<bool>*>(ud)->load(std::memory_order_relaxed) ? 1 : 0;
      });
  const CURLcode rc = curl.curl_easy_perform(c);
  curl.curl_slist_free_all(hl);
  if (rc != CURLE_OK) {
    resp.status = -static_cast<long>(rc);
    resp.body = curl.curl_easy_strerror(rc);
  } else {
    curl.curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp.status);
  }
  return resp;
}

Client::Response Client::call(Request& r, long also_ok) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(retry_seconds);
  std::chrono::milliseconds wait{200};
  for (;;) {
    Response resp = perform(r);
    if (cancelled)
      throw Error(ErrorCode::kInterrupted, r.method + " " + r.url.text() + ": cancelled");
    if (r.overflow)
      throw Error(ErrorCode::kIo, "GET " + r.url.text() + ": the store ignored the Range request");
    if (resp.too_big)
      throw Error(ErrorCode::kIo, "GET " + r.url.text() +
                                      ": the object is larger than 16 MiB, more than binrecover "
                                      "reads whole (a manifest or an index is small)");
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
      for (auto slept = std::chrono::milliseconds{0}; slept < wait && !cancelled;
           slept += std::chrono::milliseconds{100})
        std::this_thread::sleep_for(std::chrono::milliseconds{100});
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
