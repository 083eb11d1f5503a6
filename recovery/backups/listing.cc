#include "recovery/backups/listing.h"

#include <fmt/format.h>

#include <algorithm>

#include "binlog/reader.h"
#include "recovery/backups/restore.h"
#include "recovery/reading/local_time.h"
#include "recovery/sql/event_info.h"
#include "recovery/text/escape.h"

namespace binrecover::recovery {

namespace {

std::string mib(std::uint64_t b) {
  return fmt::format("{:.1f} MiB", static_cast<double>(b) / 1048576.0);
}

std::string coordinates(const BackupEntry& e) {
  std::string s = e.binlog_file.empty() ? std::string("-") : e.binlog_file;
  if (e.binlog_pos) s += ":" + std::to_string(*e.binlog_pos);
  return s;
}

std::string gtids(const BackupEntry& e) {
  return !e.mariadb_gtids.empty() ? e.mariadb_gtids : !e.mysql_gtids.empty() ? e.mysql_gtids : "-";
}

}  // namespace

std::vector<BackupRow> backup_rows(BackupStore& store, const std::vector<InputFile>& inputs,
                                   const DecodeOptions& decode,
                                   std::vector<std::string>* problems) {
  std::vector<BackupRow> rows;
  const std::time_t end = last_event_time(inputs, decode);  // (restore.h)
  for (BackupEntry& e : store.list(problems)) {
    BackupRow r;
    r.point = backup_point(e, inputs, decode);
    if (r.point && end >= *r.point) r.restorable_to = end;
    r.backup = std::move(e);
    rows.push_back(std::move(r));
  }
  return rows;
}

void write_backup_list_text(const std::vector<BackupRow>& rows, Output& out) {
  auto& b = out.buf();
  auto it = std::back_inserter(b);
  if (rows.empty()) {
    append(b, "no backups\n");
    return;
  }
  for (const BackupRow& r : rows) {
    const BackupEntry& e = r.backup;
    fmt::format_to(it, "{}  {} {} (server id {}{})\n", terminal_text(e.id), terminal_text(e.flavor),
                   terminal_text(e.version), e.server_id,
                   e.server.empty() ? std::string() : ", " + terminal_text(e.server));
    fmt::format_to(it, "  made:        {} - {} by {}\n", local_time_text(e.started, true),
                   local_time_text(e.completed, true), terminal_text(e.tool));
    fmt::format_to(it, "  coordinates: {}  GTIDs {}\n", terminal_text(coordinates(e)),
                   terminal_text(gtids(e)));
    fmt::format_to(it, "  databases:   {}\n",
                   terminal_text(fmt::format("{}", fmt::join(e.databases, ", "))));
    fmt::format_to(it, "  size:        {} dumped, {} stored (zstd)\n", mib(e.dump_bytes),
                   mib(e.stored_bytes));
    if (r.point && r.restorable_to)
      fmt::format_to(it, "  restores to: {} - {}\n", local_time_text(*r.point, true),
                     local_time_text(*r.restorable_to, true));
    else
      fmt::format_to(it,
                     "  restores to: its own point only (its binlog {} is not in the archive)\n",
                     terminal_text(coordinates(e)));
    fmt::format_to(it, "  location:    {}\n", terminal_text(e.location));
  }
}

void write_backup_list_json(const std::vector<BackupRow>& rows, Output& out) {
  auto& b = out.buf();
  auto it = std::back_inserter(b);
  append(b, "[");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const BackupRow& r = rows[i];
    const BackupEntry& e = r.backup;
    append(b, i ? ",\n{\"id\":" : "\n{\"id\":");
    append_json_string(b, e.id);
    for (const auto& [k, v] : {std::pair<const char*, const std::string*>{"flavor", &e.flavor},
                               {"version", &e.version},
                               {"server", &e.server},
                               {"server_uuid", &e.server_uuid},
                               {"tool", &e.tool},
                               {"tool_version", &e.tool_version},
                               {"binlog_file", &e.binlog_file},
                               {"mysql_gtids", &e.mysql_gtids},
                               {"mariadb_gtids", &e.mariadb_gtids},
                               {"location", &e.location}}) {
      fmt::format_to(it, ",\"{}\":", k);
      append_json_string(b, *v);
    }
    fmt::format_to(it,
                   ",\"server_id\":{},\"binlog_pos\":{},\"started\":{},\"completed\":{},"
                   "\"dump_bytes\":{},\"stored_bytes\":{},\"point\":{},\"restorable_to\":{},"
                   "\"databases\":[",
                   e.server_id, e.binlog_pos ? std::to_string(*e.binlog_pos) : "null", e.started,
                   e.completed, e.dump_bytes, e.stored_bytes,
                   r.point ? std::to_string(*r.point) : "null",
                   r.restorable_to ? std::to_string(*r.restorable_to) : "null");
    for (std::size_t d = 0; d < e.databases.size(); ++d) {
      if (d) append(b, ",");
      append_json_string(b, e.databases[d]);
    }
    append(b, "]}");
  }
  append(b, "\n]\n");
}

std::string backup_made_text(const BackupEntry& e) {
  return fmt::format(
      "backup {} stored in {}: {} dumped by {}, {} stored (zstd); coordinates {}, GTIDs {}; "
      "databases {}\n",
      terminal_text(e.id), terminal_text(e.location), mib(e.dump_bytes), terminal_text(e.tool),
      mib(e.stored_bytes), terminal_text(coordinates(e)), terminal_text(gtids(e)),
      terminal_text(fmt::format("{}", fmt::join(e.databases, ", "))));
}

}  // namespace binrecover::recovery
