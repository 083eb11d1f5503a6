// binrecover archive --verify and --status over an archive in a bucket (layout in
// recovery/storage/s3_archive.h): every object read back and checked against its manifest, and
// each server's state (its files, how fresh its manifest is).
#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <set>

#include "binlog/byte_cursor.h"
#include "binlog/error.h"
#include "binlog/event_type.h"
#include "recovery/archive/archive.h"
#include "recovery/archive/archive_sink.h"
#include "recovery/storage/s3_archive.h"
#include "recovery/storage/s3_source.h"

namespace binrecover::recovery {

namespace {

using s3::ArchivedFile;
using s3::Piece;
using s3::Url;

// A SHA-256 computed piece by piece.
using s3::Sha256;

}  // namespace

std::vector<VerifyProblem> verify_s3_archive(const std::string& url,
                                             std::uint64_t* events_checked) {
  const auto client = s3::reader_client();
  const Url u = s3::parse_url(url);
  const bool is_folder = u.key.empty() || u.key.back() == '/';
  const Url folder = is_folder ? u : s3::folder_of(u);
  std::vector<VerifyProblem> problems;
  const std::optional<s3::Manifest> manifest = s3::read_manifest(*client, folder);
  std::vector<Url> urls;
  try {
    urls = s3::expand_inputs(*client, u);
  } catch (const Error& e) {
    return {{url, 0, e.what()}};
  }
  if (urls.empty()) return {{url, 0, "the archive lists no file"}};
  if (manifest) {
    // The index object names the manifest's files, in order.
    std::string base = manifest->files.empty() ? std::string() : manifest->files.front().name;
    if (const auto dot = base.rfind('.'); dot != std::string::npos) base = base.substr(0, dot);
    const Url index{folder.bucket, folder.key + base + ".index"};
    std::vector<std::string> listed, named;
    try {
      for (const Url& x : s3::expand_inputs(*client, index))
        listed.push_back(s3::base_name_of(x.key));
    } catch (const Error& e) {
      problems.push_back({index.text(), 0, e.what()});
    }
    for (const auto& f : manifest->files) named.push_back(f.name);
    // The manifest's files in a row of the index: before them only files retention is
    // deleting (the manifest is rewritten first), after them at most the one an archiver is
    // beginning (the index is written first).
    const auto run = std::search(listed.begin(), listed.end(), named.begin(), named.end());
    const bool in_row = run != listed.end() || named.empty();
    const std::size_t after =
        in_row && !named.empty() ? static_cast<std::size_t>(listed.end() - run) - named.size() : 0;
    if (!listed.empty() && (!in_row || after > 1))
      problems.push_back({index.text(), 0, "the index does not list the manifest's files"});
    // Each complete object: its size and the SHA-256 of each range the manifest gives.
    std::vector<std::byte> buf(std::size_t{4} << 20);
    for (const auto& f : manifest->files) {
      if (!f.complete) continue;
      if (!manifest->codec.empty()) {
        // Each piece (the file) opened with the key, its original bytes' SHA-256 checked.
        std::uint64_t at = 0;
        for (const Piece& p : f.pieces) {
          try {
            if (p.offset != at) throw Error(ErrorCode::kIo, "a gap before this piece");
            s3::read_piece(*client, folder.bucket, p, true, s3::reader_codec());
          } catch (const Error& e) {
            if (e.code() == ErrorCode::kUsage) throw;  // (no key, another key: one clear error)
            problems.push_back({Url{folder.bucket, p.key}.text(), p.offset, e.what()});
          }
          at = p.offset + p.size;
        }
        if (at != f.size)
          problems.push_back({folder.text() + f.name, at, "the pieces end before the file's size"});
        continue;
      }
      const Url obj{folder.bucket, folder.key + f.name};
      const auto info = client->head(obj);
      if (!info) {
        problems.push_back({obj.text(), 0, "the object is missing"});
        continue;
      }
      if (info->size != f.size) {
        problems.push_back({obj.text(), std::min(info->size, f.size),
                            "the object has " + std::to_string(info->size) +
                                " bytes, the manifest says " + std::to_string(f.size)});
        continue;
      }
      for (const Piece& p : f.pieces) {
        Sha256 h;
        std::uint64_t at = p.offset;
        while (at < p.offset + p.size) {
          const auto want =
              static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), p.offset + p.size - at));
          const std::size_t got = client->get_range(obj, at, want, buf.data());
          if (got == 0) break;
          h.update(buf.data(), got);
          at += got;
        }
        if (h.hex() != p.sha256)
          problems.push_back({obj.text(), p.offset,
                              "the bytes " + std::to_string(p.offset) + " to " +
                                  std::to_string(p.offset + p.size) +
                                  " are not what was stored (SHA-256 differs)"});
      }
    }
  }
  std::vector<std::string> names;
  for (const Url& x : urls) names.push_back(x.text());
  const std::optional<s3::Manifest>* m = &manifest;
  auto more = verify_files(
      names,
      [&](std::size_t i) -> std::unique_ptr<binlog::Source> {
        return std::make_unique<s3::S3Source>(client, urls[i], urls[i].text(), m);
      },
      events_checked);
  problems.insert(problems.end(), more.begin(), more.end());
  return problems;
}

std::vector<ArchiveStatusRow> archive_status(const std::string& url) {
  const auto client = s3::reader_client();
  Url u = s3::parse_url(url);
  if (!u.key.empty() && u.key.back() != '/') u.key += '/';
  // The server folders (s3::find_archives); a folder whose manifest is refused is listed with
  // its problem, as its own row.
  s3::FoundArchives archives = s3::find_archives(*client, u.bucket, u.key);
  const auto& found = archives.found;
  std::vector<ArchiveStatusRow> refused;
  for (const auto& [key, e] : archives.refused) {
    ArchiveStatusRow r;
    r.folder = Url{u.bucket, key}.text();
    r.problem = e.what();
    r.problem_code = e.code();
    refused.push_back(std::move(r));
  }
  std::vector<ArchiveStatusRow> rows;
  const std::int64_t now = s3::unix_now();
  std::vector<std::set<std::string>> origins;
  for (const auto& f : found) origins.push_back(s3::manifest_origins(f.second));
  // (a failover: the latest written folder sharing an origin went on with this history)
  auto followed_by = [&](std::size_t i) {
    std::optional<std::size_t> best;
    for (std::size_t j = 0; j < found.size(); ++j) {
      if (j == i || found[j].second.last_event_time <= found[i].second.last_event_time) continue;
      if (std::none_of(origins[i].begin(), origins[i].end(),
                       [&](const std::string& o) { return origins[j].count(o) != 0; }))
        continue;
      if (!best || found[j].second.last_event_time > found[*best].second.last_event_time) best = j;
    }
    return best ? Url{u.bucket, found[*best].first}.text() : std::string();
  };
  for (std::size_t idx = 0; idx < found.size(); ++idx) {
    const auto& [key, manifest] = found[idx];
    const Url folder{u.bucket, key};
    const s3::Manifest* m = &manifest;
    ArchiveStatusRow r;
    r.folder = folder.text();
    r.flavor = m->flavor;
    r.version = m->version;
    r.server = m->server;
    r.server_uuid = m->server_uuid;
    r.server_id = m->server_id;
    r.last_event_time = m->last_event_time;
    r.updated = m->updated;
    r.lag_seconds =
        m->last_event_time > 0 ? std::max<std::int64_t>(0, now - m->last_event_time) : 0;
    r.followed_by = followed_by(idx);
    r.files = m->files.size();
    for (const auto& f : m->files) r.bytes += f.size;
    if (!m->files.empty()) {
      r.last_file = m->files.back().name;
      r.last_pos = m->files.back().size;
    }
    // Gaps: numbers missing from the files' sequence (a file the archive never got).
    for (std::size_t i = 1; i < m->files.size(); ++i) {
      const std::string& a = m->files[i - 1].name;
      const std::string& b = m->files[i].name;
      const auto da = a.rfind('.'), db = b.rfind('.');
      if (da == std::string::npos || db == std::string::npos || a.substr(0, da) != b.substr(0, db))
        continue;
      const unsigned long long na = std::strtoull(a.c_str() + da + 1, nullptr, 10);
      const unsigned long long nb = std::strtoull(b.c_str() + db + 1, nullptr, 10);
      if (nb != na + 1)
        r.gaps.push_back(a.substr(0, da) + " " + std::to_string(na + 1) +
                         (nb > na + 2 ? " to " + std::to_string(nb - 1) : std::string()));
    }
    rows.push_back(std::move(r));
  }
  rows.insert(rows.end(), std::make_move_iterator(refused.begin()),
              std::make_move_iterator(refused.end()));
  std::sort(rows.begin(), rows.end(),
            [](const auto& a, const auto& b) { return a.folder < b.folder; });
  return rows;
}

}  // namespace binrecover::recovery
