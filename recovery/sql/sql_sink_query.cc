#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <cstring>

#include "binlog/charsets.h"
#include "binlog/error.h"
#include "recovery/reading/sql_lexer.h"
#include "recovery/reading/statement_dbs.h"
#include "recovery/sql/rewrite_db.h"
#include "recovery/sql/row_sql.h"
#include "recovery/sql/sql_quote.h"
#include "recovery/sql/sql_sink.h"
#include "recovery/sql/text_writer.h"

// SqlSink's statements: a Query event's session state (sql_mode, the option bits of flags2,
// character sets and collations, time zone), its text, and USE.

namespace binrecover::recovery {

namespace {

constexpr std::uint64_t kModeAnsiQuotes = 4;
constexpr std::uint64_t kModeNoBackslashEscapes = std::uint64_t{1} << 20;

// Whether the mysql client would split `sql`, run under `sql_mode`, elsewhere than the server
// reads it: outside NO_BACKSLASH_ESCAPES the client takes a backslash in a quoted name (`...`,
// or "..." under ANSI_QUOTES) for an escape, the server does not; a backslash before the
// quote makes the client read the rest of the name as SQL, and a delimiter there as the end.
bool client_misreads(std::string_view sql, std::uint64_t sql_mode) {
  if (client_alters(sql)) return true;
  if (sql.find('\\') == std::string_view::npos || (sql_mode & kModeNoBackslashEscapes))
    return false;
  SqlLexer lex(sql);
  for (SqlToken t = lex.next(); t.kind != SqlToken::Kind::kEnd; t = lex.next()) {
    if (t.kind == SqlToken::Kind::kIdent) {
      for (std::size_t i = 0; i < t.text.size(); ++i)
        if (t.text[i] == '\\') {
          if (i + 1 >= t.text.size() || t.text[i + 1] == '`') return true;
          ++i;
        }
    } else if (t.kind == SqlToken::Kind::kString && t.quote == '"' &&
               (sql_mode & kModeAnsiQuotes) && t.text.find('\\') != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

}  // namespace

using namespace binlog;

namespace {

constexpr std::uint32_t kOptionAutoIsNull = 1U << 14;
constexpr std::uint32_t kOptionNoCheckConstraint = 1U << 15;
constexpr std::uint32_t kOptionNotAutocommit = 1U << 19;
constexpr std::uint32_t kOptionExplicitDefTimestamp = 1U << 24;
constexpr std::uint32_t kOptionNoForeignKeyChecks = 1U << 26;
constexpr std::uint32_t kOptionRelaxedUniqueChecks = 1U << 27;
constexpr std::uint32_t kOptionIfExists = 1U << 28;
constexpr std::uint32_t kOptionInsertHistory = 1U << 30;

constexpr std::uint16_t kLogEventThreadSpecific = 0x4;

using V = std::array<int, 3>;

}  // namespace

void SqlSink::flags2_line(std::uint32_t flags2, const FormatContext& ctx) {
  const std::uint32_t changed = st_.flags2 ? (*st_.flags2 ^ flags2) : ~0U;
  st_.flags2 = flags2;
  if (changed == 0) return;
  std::uint32_t mask = kOptionAutoIsNull | kOptionNotAutocommit | kOptionNoForeignKeyChecks |
                       kOptionRelaxedUniqueChecks;
  const V& v = ctx.server_version;
  if (ctx.mariadb) {
    if (v >= V{10, 2, 1}) mask |= kOptionNoCheckConstraint;
    if (v >= V{10, 5, 2}) mask |= kOptionIfExists;
    static constexpr int kMinPatch[] = {99, 99, 99, 99, 99, 17, 9, 5, 4, 2};
    if (v[0] > 10 || (v[0] == 10 && (v[1] >= 10 || (v[1] >= 5 && v[2] >= kMinPatch[v[1]]))))
      mask |= kOptionExplicitDefTimestamp;
    if (v >= V{10, 11, 0}) mask |= kOptionInsertHistory;
  }
  struct Item {
    std::uint32_t bit;
    bool inverted;
    std::string_view name;
  };
  static constexpr Item kItems[] = {
      {kOptionNoForeignKeyChecks, true, "foreign_key_checks"},
      {kOptionAutoIsNull, false, "sql_auto_is_null"},
      {kOptionRelaxedUniqueChecks, true, "unique_checks"},
      {kOptionNotAutocommit, true, "autocommit"},
      {kOptionNoCheckConstraint, true, "check_constraint_checks"},
      {kOptionIfExists, false, "sql_if_exists"},
      {kOptionExplicitDefTimestamp, false, "explicit_defaults_for_timestamp"},
      {kOptionInsertHistory, false, "system_versioning_insert_history"},
  };
  bool first = true;
  for (const Item& item : kItems) {
    if (!(mask & item.bit) || !(changed & item.bit)) continue;
    append(first ? "SET " : ", ");
    first = false;
    const bool set = (flags2 & item.bit) != 0;
    fmt::format_to(std::back_inserter(buf_), "@@session.{}={}", item.name,
                   (item.inverted ? !set : set) ? 1 : 0);
  }
  if (!first) delimiter();
}

std::uint16_t SqlSink::target_collation(std::uint16_t id, const FormatContext& ctx) const {
  // MySQL 8's utf8mb4 collations (utf8mb4_0900_ai_ci = 255 and the ones after it) are not in
  // MariaDB 10.x: the nearest UCA collation it has, utf8mb4_unicode_520_ci (246).
  if (!to_mariadb(ctx) || id < 255) return id;
  const Collation* c = find_collation(id);
  return c != nullptr && c->charset == "utf8mb4" ? 246 : id;
}

void SqlSink::session_state(const Query& q, const FormatContext& ctx) {
  auto it = std::back_inserter(buf_);
  const QueryStatus& s = q.status;
  if (s.flags2) flags2_line(*s.flags2, ctx);
  if (s.sql_mode && s.sql_mode != st_.sql_mode) {
    st_.sql_mode = s.sql_mode;
    std::uint64_t mode = *s.sql_mode;
    if (to_mariadb(ctx)) {
      // As a MariaDB replica reads a MySQL master's mode: the bits above 31 are MySQL's own;
      // MySQL 5.6.4+ rounds fractional seconds unless TIME_TRUNCATE_FRACTIONAL (bit 32),
      // MariaDB truncates unless TIME_ROUND_FRACTIONAL (bit 34).
      constexpr std::uint64_t kMysqlTruncateFractional = std::uint64_t{1} << 32;
      constexpr std::uint64_t kMariaRoundFractional = std::uint64_t{1} << 34;
      const auto& v = ctx.server_version;
      const bool fsp = v[0] > 5 || (v[0] == 5 && (v[1] > 6 || (v[1] == 6 && v[2] >= 4)));
      mode &= 0xffffffffULL;
      if (fsp && !(*s.sql_mode & kMysqlTruncateFractional)) mode |= kMariaRoundFractional;
    }
    fmt::format_to(it, "SET @@session.sql_mode={}", mode);
    delimiter();
  }
  // Absent values are the server defaults; mysqlbinlog prints them too, so a replay never
  // inherits what an earlier session of the client had set.
  const auto auto_inc = s.auto_increment.value_or(std::pair<std::uint16_t, std::uint16_t>{1, 1});
  if (auto_inc != st_.auto_increment) {
    st_.auto_increment = auto_inc;
    fmt::format_to(it,
                   "SET @@session.auto_increment_increment={}, @@session.auto_increment_offset={}",
                   auto_inc.first, auto_inc.second);
    delimiter();
  }
  if (s.charset && s.charset != st_.charset) {
    st_.charset = s.charset;
    const auto& cs = *s.charset;
    const Collation* client = find_collation(cs[0]);
    if (client != nullptr) {
      fmt::format_to(it, "/*!\\C {} */", client->charset);
      delimiter(Output::Statement::Kind::kCharset);
    }
    if ((ctx.mariadb || to_mariadb(ctx)) && client != nullptr)
      fmt::format_to(it, "SET @@session.character_set_client={}", client->charset);
    else
      fmt::format_to(it, "SET @@session.character_set_client={}", cs[0]);
    fmt::format_to(it, ",@@session.collation_connection={},@@session.collation_server={}",
                   target_collation(cs[1], ctx), target_collation(cs[2], ctx));
    delimiter();
  }
  if (s.time_zone && (!st_.time_zone_printed || st_.time_zone != *s.time_zone)) {
    st_.time_zone.assign(*s.time_zone);
    st_.time_zone_printed = true;
    // The log's text: a zone name or offset reads alike in any sql_mode and character set;
    // anything else goes as a hex literal (a string to the server, never SQL to anyone).
    append("SET @@session.time_zone=");
    const bool plain = std::all_of(s.time_zone->begin(), s.time_zone->end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '/' || c == '+' ||
             c == '-' || c == ':' || c == '.';
    });
    if (plain)
      append_quoted_string(buf_, *s.time_zone);
    else
      append(hex_literal(*s.time_zone));
    delimiter();
  }
  const std::uint16_t lc = s.lc_time_names.value_or(0);
  if (lc != st_.lc_time_names) {
    st_.lc_time_names = lc;
    fmt::format_to(it, "SET @@session.lc_time_names={}", lc);
    delimiter();
  }
  {
    const std::uint16_t cdb = s.charset_database.value_or(0);
    if (st_.charset_database != cdb) {
      st_.charset_database = cdb;
      if (cdb)
        fmt::format_to(it, "SET @@session.collation_database={}", target_collation(cdb, ctx));
      else
        append("SET @@session.collation_database=DEFAULT");
      delimiter();
    }
  }
  if (!ctx.mariadb) {
    if (s.default_collation_utf8mb4 &&
        s.default_collation_utf8mb4 != st_.default_collation_utf8mb4) {
      st_.default_collation_utf8mb4 = s.default_collation_utf8mb4;
      fmt::format_to(it, "/*!80011 SET @@session.default_collation_for_utf8mb4={}*/",
                     *s.default_collation_utf8mb4);
      delimiter();
    }
    if (s.explicit_defaults_ts && s.explicit_defaults_ts != st_.explicit_defaults_ts) {
      st_.explicit_defaults_ts = s.explicit_defaults_ts;
      fmt::format_to(it, "/*!80024 SET @@session.explicit_defaults_for_timestamp={}*/",
                     *s.explicit_defaults_ts);
      delimiter();
    }
    if (s.sql_require_primary_key && s.sql_require_primary_key != st_.sql_require_primary_key) {
      st_.sql_require_primary_key = s.sql_require_primary_key;
      fmt::format_to(it, "/*!80013 SET @@session.sql_require_primary_key={}*/",
                     *s.sql_require_primary_key);
      delimiter();
    }
    if (s.default_table_encryption && s.default_table_encryption != st_.default_table_encryption) {
      st_.default_table_encryption = s.default_table_encryption;
      fmt::format_to(it, "/*!80016 SET @@session.default_table_encryption={}*/",
                     *s.default_table_encryption);
      delimiter();
    }
  }
}

void SqlSink::query(const Event& ev, const Query& q, const FormatContext& ctx) {
  if (q.compressed)
    throw Error(ErrorCode::kUnsupportedFormat,
                "compressed query events (log_bin_compress) are not supported yet", ev.pos);
  auto it = std::back_inserter(buf_);
  if (comments_) {
    fmt::format_to(it, "Query\tthread_id={}\texec_time={}\terror_code={}", q.thread_id, q.exec_time,
                   q.error_code);
    if (ctx.mariadb)
      fmt::format_to(it, "\txid={}", q.status.ddl_xid.value_or(0));
    else if (q.status.ddl_xid)
      fmt::format_to(it, "\tXid = {}", *q.status.ddl_xid);
    append("\n");
  }
  const std::string_view db = db_name(q.db);
  if (!db.empty() && db != st_.db && !(ev.header.flags & kLogEventSuppressUse)) {
    st_.db.assign(db);
    use_statement(db);
  }
  fmt::format_to(it, "SET TIMESTAMP={}", ev.header.timestamp);
  if (q.status.microseconds) fmt::format_to(it, ".{:06}", *q.status.microseconds);
  delimiter();
  // The pseudo thread matters only to a statement the server flagged as using it (temporary
  // tables, CONNECTION_ID()): a unit of its own (several sessions) sets it only for one, not
  // at every BEGIN (a log of two clients' units made every one on a session a SET more).
  // Servers before 5.0 may not flag them.
  const bool specific = (ev.header.flags & kLogEventThreadSpecific) != 0;
  const bool first =
      !st_.thread_printed && (!opts_.self_contained_units || specific || ctx.server_version[0] < 5);
  if (first || (specific && q.thread_id != st_.thread_id)) {
    st_.thread_printed = true;
    st_.thread_id = q.thread_id;
    fmt::format_to(it, "SET @@session.pseudo_thread_id={}", q.thread_id);
    delimiter();
  }
  if (st_.generated && !q.status.sql_mode) {
    // (a log older than the sql_mode status: the mode the session had before)
    append("SET @@session.sql_mode=@binrecover_sql_mode");
    delimiter();
  }
  st_.generated = false;
  session_state(q, ctx);
  if (ev.type() == EventType::kExecuteLoadQuery) {
    load_data_query(ev, q);
    delimiter(Output::Statement::Kind::kSql, true);  // the logged LOAD DATA statement
    return;
  } else {
    check_row_format(ev, q.query);
    const std::string_view sql =
        rewrite_statement(q.query, opts_.rewrite_db, rewritten_) ? rewritten_ : q.query;
    if (!opts_.apply && client_misreads(sql, q.status.sql_mode.value_or(0))) {
      prepared_statement(sql, q.status.charset ? find_collation((*q.status.charset)[0]) : nullptr);
    } else {
      append(sql);
      append("\n");
    }
    // The logged text itself (BEGIN and COMMIT aside, which are the writer's own as well).
    delimiter(Output::Statement::Kind::kSql, !is_begin(q.query) && !is_commit_or_rollback(q.query));
    return;
  }
  delimiter();
}

void SqlSink::prepared_statement(std::string_view sql, const Collation* client) {
  // The text as a hex literal, which the client passes as it is, run by the server.
  append_prepared(buf_, sql, client != nullptr ? client->charset : std::string_view("binary"),
                  "/*!*/;\n");
}

void SqlSink::use_statement(std::string_view db) {
  // The mysql client runs a line that starts with "use" itself, up to the line's end: a name
  // holding a line break would leave the rest of it to run as SQL. After a comment the line
  // is a statement the client sends to the server whole.
  if (!opts_.apply && client_alters(db)) {
    std::string use = "USE " + quoted_ident(db);
    append_prepared(buf_, use, "utf8mb4", "/*!*/;\n");
    delimiter();
    return;
  }
  const bool multiline = db.find('\n') != std::string_view::npos;
  const bool nbe = !client_reads_ident_alike(db);
  if (nbe) nbe_begin();
  append(multiline ? "/*!*/ use " : "use ");
  append_quoted_ident(buf_, db);
  delimiter();
  if (nbe) nbe_end();
}

std::string_view SqlSink::db_name(std::string_view db) const {
  return rewritten_database(db, opts_.rewrite_db);
}

}  // namespace binrecover::recovery
