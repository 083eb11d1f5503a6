#include "recovery/storage/s3_archive.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

#include "binlog/error.h"
#include "binlog/log_name.h"
#include "recovery/storage/json_number.h"

// nlohmann/json (Debian's nlohmann-json3-dev) reads and writes the manifest: a well-kept,
// header-only parser beats a hand-written one for a format a monitoring script reads too.

namespace binrecover::recovery::s3 {

using nlohmann::json;

std::string Manifest::to_json() const {
  json j;
  j["format"] = format;
  j["server_id"] = server_id;
  j["server_uuid"] = server_uuid;
  j["flavor"] = flavor;
  j["version"] = version;
  j["server"] = server;
  j["updated"] = updated;
  j["last_event_time"] = last_event_time;
  j["active"] = active;
  if (!codec.empty()) {
    j["codec"] = codec;
    j["key_id"] = key_id;
  }
  json files = json::array();
  for (const ArchivedFile& f : this->files) {
    json jf;
    jf["name"] = f.name;
    jf["size"] = f.size;
    jf["complete"] = f.complete;
    if (!f.etag.empty()) jf["etag"] = f.etag;
    jf["first_gtid"] = f.first_gtid;
    jf["last_gtid"] = f.last_gtid;
    jf["events"] = f.events;
    jf["checksum"] = f.checksum;
    jf["next"] = f.next;
    json pieces = json::array();
    for (const Piece& p : f.pieces) {
      json jp;
      jp["offset"] = p.offset;
      jp["size"] = p.size;
      if (!p.key.empty()) jp["key"] = p.key;
      jp["sha256"] = p.sha256;
      if (p.sealed) jp["sealed"] = true;
      pieces.push_back(jp);
    }
    jf["pieces"] = pieces;
    files.push_back(jf);
  }
  j["files"] = files;
  return j.dump(1) + "\n";
}

template <typename T>
T whole(const json& j, const char* key, const std::string& where, std::optional<T> missing) {
  return json_whole<T>(j, key, where, missing);
}

Manifest Manifest::from_json(const std::string& text, const std::string& where) {
  try {
    const json j = json::parse(text);
    Manifest m;
    m.format = whole<int>(j, "format", where, std::nullopt);
    if (m.format != 1)
      throw Error(ErrorCode::kUnsupportedFormat, where + ": manifest format " +
                                                     std::to_string(m.format) +
                                                     " is newer than this binrecover reads");
    m.server_id = whole<std::uint32_t>(j, "server_id", where, 0U);
    m.server_uuid = j.value("server_uuid", "");
    m.flavor = j.value("flavor", "");
    m.version = j.value("version", "");
    m.server = j.value("server", "");
    m.updated = whole<std::int64_t>(j, "updated", where, std::int64_t{0});
    m.last_event_time = whole<std::int64_t>(j, "last_event_time", where, std::int64_t{0});
    m.active = j.value("active", false);
    m.codec = j.value("codec", "");
    m.key_id = j.value("key_id", "");
    if (m.codec != "" && m.codec != "zstd" && m.codec != "aes-256-gcm" &&
        m.codec != "zstd+aes-256-gcm")
      throw Error(ErrorCode::kUnsupportedFormat, where + ": pieces stored as '" + m.codec +
                                                     "', which this binrecover does not read");
    for (const json& jf : j.at("files")) {
      ArchivedFile f;
      f.name = jf.at("name").get<std::string>();
      binlog::check_log_name(f.name, "the manifest " + where);
      f.size = whole<std::uint64_t>(jf, "size", where, std::nullopt);
      f.complete = jf.at("complete").get<bool>();
      f.etag = jf.value("etag", "");
      f.first_gtid = jf.value("first_gtid", "");
      f.last_gtid = jf.value("last_gtid", "");
      f.events = whole<std::uint64_t>(jf, "events", where, std::uint64_t{0});
      f.checksum = jf.value("checksum", false);
      f.next = jf.value("next", "");
      if (!f.next.empty() && f.next != "?") binlog::check_log_name(f.next, "the manifest " + where);
      std::uint64_t at = 0;
      for (const json& jp : jf.at("pieces")) {
        Piece p;
        p.offset = whole<std::uint64_t>(jp, "offset", where, std::nullopt);
        p.size = whole<std::uint64_t>(jp, "size", where, std::nullopt);
        p.key = jp.value("key", "");
        p.sha256 = jp.value("sha256", "");
        p.sealed = jp.value("sealed", false);
        if (p.offset != at)
          throw Error(ErrorCode::kIo, where + ": the pieces of " + f.name + " leave a gap at " +
                                          std::to_string(at));
        if (p.size > (std::uint64_t{1} << 40))
          throw Error(ErrorCode::kIo, where + ": a piece of " + f.name + " is over 1 TiB");
        at += p.size;
        f.pieces.push_back(std::move(p));
      }
      if (at != f.size)
        throw Error(ErrorCode::kIo, where + ": the pieces of " + f.name + " hold " +
                                        std::to_string(at) + " bytes, the file " +
                                        std::to_string(f.size));
      m.files.push_back(std::move(f));
    }
    return m;
  } catch (const json::exception& e) {
    throw Error(ErrorCode::kIo, where + ": not a binrecover manifest (" + e.what() + ")");
  }
}

Url folder_of(const Url& u) {
  const auto slash = u.key.rfind('/');
  return Url{u.bucket, slash == std::string::npos ? std::string() : u.key.substr(0, slash + 1)};
}

std::string base_name_of(const std::string& key) {
  const auto slash = key.rfind('/');
  return slash == std::string::npos ? key : key.substr(slash + 1);
}

std::optional<Manifest> read_manifest(Client& c, const Url& folder) {
  const Url u{folder.bucket, folder.key + kManifestName};
  const auto text = c.get(u);
  if (!text) return std::nullopt;
  Manifest m = Manifest::from_json(*text, u.text());
  // A piece is ours only under the folder's .active/NAME/: a manifest naming any other key
  // would have us read, and the archiver delete, an object that is not a piece.
  for (const ArchivedFile& f : m.files)
    for (const Piece& p : f.pieces)
      if ((!f.complete || !p.key.empty()) &&
          p.key.rfind(folder.key + ".active/" + f.name + "/", 0) != 0)
        throw Error(ErrorCode::kServer, u.text() + ": a piece of " + f.name +
                                            " is not under the folder's .active/" + f.name +
                                            "/, which binrecover refuses");
  return m;
}

void write_s3_listing(Client& c, const Url& folder, const Manifest& m) {
  const std::string text = m.to_json();
  c.put(Url{folder.bucket, folder.key + kManifestName},
        {reinterpret_cast<const std::byte*>(text.data()), text.size()}, "application/json");
  if (m.files.empty()) return;
  std::string lines;
  for (const ArchivedFile& f : m.files) lines += "./" + f.name + "\n";
  std::string base = m.files.front().name;
  const auto dot = base.rfind('.');
  if (dot != std::string::npos) base = base.substr(0, dot);
  c.put(Url{folder.bucket, folder.key + base + ".index"},
        {reinterpret_cast<const std::byte*>(lines.data()), lines.size()}, "text/plain");
}

std::vector<std::byte> read_piece(Client& client, const std::string& bucket, const Piece& p,
                                  bool enveloped, const Codec& codec) {
  const Url u{bucket, p.key};
  std::vector<std::byte> bytes;
  if (enveloped) {
    // (by ranges: Client::get keeps small objects only, and a piece is up to a part's size)
    const auto info = client.head(u);
    if (!info) throw Error(ErrorCode::kIo, u.text() + ": a piece of the archive is missing");
    // (a piece is at most --part-size, 1 GiB, and its envelope a header and a tag more)
    if (info->size > kMaxEnvelope + kEnvelopeHeader + 64 || p.size > kMaxEnvelope)
      throw Error(ErrorCode::kIo,
                  u.text() +
                      ": a piece of the archive larger than any piece binrecover stores "
                      "(1 GiB)");
    std::vector<std::byte> stored(static_cast<std::size_t>(info->size));
    std::size_t at = 0;
    while (at < stored.size()) {
      const std::size_t got = client.get_range(u, at, stored.size() - at, stored.data() + at);
      if (got == 0) break;
      at += got;
    }
    stored.resize(at);
    bytes = unseal(codec, stored, u.text());
  } else {
    bytes.resize(p.size);
    std::size_t at = 0;
    while (at < bytes.size()) {
      const std::size_t got = client.get_range(u, at, bytes.size() - at, bytes.data() + at);
      if (got == 0) break;
      at += got;
    }
    bytes.resize(at);
  }
  if (bytes.size() != p.size || sha256_hex(bytes) != p.sha256)
    throw Error(ErrorCode::kIo,
                u.text() + ": a piece of the archive is missing or not what the manifest says");
  return bytes;
}

FoundArchives find_archives(Client& c, const std::string& bucket, const std::string& prefix) {
  FoundArchives out;
  std::vector<std::pair<std::string, int>> todo{{prefix, 0}};
  while (!todo.empty()) {
    const auto [key, depth] = todo.back();
    todo.pop_back();
    try {
      if (auto m = read_manifest(c, Url{bucket, key})) {
        out.found.emplace_back(key, std::move(*m));
        continue;
      }
    } catch (const Error& e) {
      if (e.code() == ErrorCode::kInterrupted) throw;
      out.refused.emplace_back(key, e);
      continue;
    }
    if (depth >= 4) continue;
    for (const std::string& p : c.list(bucket, key, "/").prefixes) {
      const std::string last = base_name_of(p.substr(0, p.size() - 1));
      if (!last.empty() && last[0] != '.') todo.emplace_back(p, depth + 1);
    }
  }
  std::sort(out.found.begin(), out.found.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

std::set<std::string> manifest_origins(const Manifest& m) {
  std::set<std::string> out;
  for (const ArchivedFile& f : m.files)
    for (const std::string* g : {&f.first_gtid, &f.last_gtid}) {
      if (g->empty()) continue;
      const auto colon = g->find(':');
      if (colon != std::string::npos) {
        out.insert(g->substr(0, colon));
      } else if (const auto dash = g->rfind('-'); dash != std::string::npos) {
        out.insert(g->substr(0, dash));
      }
    }
  return out;
}

namespace {

// Several servers' archives below a prefix, as one history: ordered by their last event, each
// sharing transactions of some origin with the one before it (a replica that became the
// primary archives its own copies of the old primary's transactions), or refused.
std::vector<Url> several_archives(const Url& u, FoundArchives& a) {
  std::stable_sort(a.found.begin(), a.found.end(), [](const auto& x, const auto& y) {
    return x.second.last_event_time < y.second.last_event_time;
  });
  std::vector<Url> out;
  for (std::size_t i = 0; i < a.found.size(); ++i) {
    const auto& [key, m] = a.found[i];
    if (i > 0) {
      const std::set<std::string> before = manifest_origins(a.found[i - 1].second),
                                  now = manifest_origins(m);
      const bool shared = std::any_of(before.begin(), before.end(),
                                      [&](const std::string& o) { return now.count(o) != 0; });
      if (!shared) {
        std::string names;
        for (const auto& f : a.found) names += (names.empty() ? "" : ", ") + f.first;
        throw Error(ErrorCode::kUsage, u.text() + " holds the archives of " +
                                           std::to_string(a.found.size()) +
                                           " servers that do not share one history (" + names +
                                           "): name one server's folder");
      }
    }
    for (const ArchivedFile& f : m.files) out.push_back(Url{u.bucket, key + f.name});
  }
  return out;
}

}  // namespace

std::vector<Url> expand_inputs(Client& c, const Url& u) {
  std::vector<Url> out;
  const bool folder = u.key.empty() || u.key.back() == '/';
  const std::string base = base_name_of(u.key);
  if (folder) {
    if (const auto m = read_manifest(c, u)) {
      for (const ArchivedFile& f : m->files) out.push_back(Url{u.bucket, u.key + f.name});
      return out;
    }
    FoundArchives a = find_archives(c, u.bucket, u.key);
    if (!a.refused.empty()) throw a.refused.front().second;
    if (a.found.empty())
      throw Error(ErrorCode::kIo, u.text() + ": no binrecover archive there (no " +
                                      std::string(kManifestName) + " in it or below it)");
    return several_archives(u, a);
  }
  if (base.size() > 6 && base.compare(base.size() - 6, 6, ".index") == 0) {
    const auto text = c.get(u);
    if (!text) throw Error(ErrorCode::kIo, u.text() + ": no such object in the store");
    const Url dir = folder_of(u);
    std::size_t at = 0;
    while (at < text->size()) {
      auto nl = text->find('\n', at);
      if (nl == std::string::npos) nl = text->size();
      std::string line = text->substr(at, nl - at);
      at = nl + 1;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty()) continue;
      // The server's index names files relative to its data directory ("./NAME"); an archive's
      // index too. Only names in the index's own folder are taken.
      const std::string name = base_name_of(line);
      if (name.empty() || name == "." || name == "..")
        throw Error(ErrorCode::kIo, u.text() + ": a line that names no file: " + line);
      out.push_back(Url{u.bucket, dir.key + name});
    }
    return out;
  }
  out.push_back(u);
  return out;
}

namespace {
std::mutex reader_mu;
ConfigOverrides reader_overrides;
std::shared_ptr<Client> reader;
}  // namespace

namespace {
Codec reader_key;
}  // namespace

void set_reader_codec(const Codec& c) { reader_key = c; }
const Codec& reader_codec() { return reader_key; }

void set_reader_config(const ConfigOverrides& o) {
  std::lock_guard<std::mutex> lock(reader_mu);
  reader_overrides = o;
  reader.reset();
}

std::shared_ptr<Client> reader_client() {
  std::lock_guard<std::mutex> lock(reader_mu);
  if (!reader) reader = std::make_shared<Client>(load_config(reader_overrides));
  return reader;
}

}  // namespace binrecover::recovery::s3
