#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "binlog/error.h"
#include "recovery/storage/s3.h"
#include "recovery/storage/s3_internal.h"

// Where the S3 settings come from: options first, then the environment, then the AWS files
// (credentials and config, a profile's section).

namespace binrecover::recovery::s3 {

namespace {

using namespace detail;  // NOLINT(google-build-using-namespace): s3_internal.h

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

}  // namespace

namespace detail {

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

}  // namespace detail

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
  c.streams = o.streams;
  if (c.addressing == Addressing::kAuto) {
    const auto style = from(conf, conf_section, "s3.addressing_style");
    if (style == "path") c.addressing = Addressing::kPath;
    if (style == "virtual") c.addressing = Addressing::kVirtual;
  }
  c.ca_file = env("AWS_CA_BUNDLE").value_or("");
  return c;
}

}  // namespace binrecover::recovery::s3
