#include "recovery/sql/sql_sink.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "binlog/charsets.h"
#include "binlog/checksum.h"
#include "binlog/digits.h"
#include "binlog/error.h"
#include "binlog/event_edit.h"
#include "binlog/maria_compression.h"
#include "recovery/reading/sql_lexer.h"
#include "recovery/reading/statement_dbs.h"
#include "recovery/reading/temp_file.h"
#include "recovery/sql/event_info.h"
#include "recovery/sql/rewrite_db.h"
#include "recovery/sql/row_sql.h"
#include "recovery/sql/text_writer.h"

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

void SqlSink::plain_statement(std::string_view text) {
  append(text);
  const std::size_t end = buf_.size();
  append(";\n");
  if (opts_.apply) out_.statement(end, buf_.size(), Output::Statement::Kind::kSql, {}, 0);
}

void SqlSink::mark_statements(const std::vector<std::size_t>& ends) {
  if (!opts_.apply) return;
  constexpr std::size_t kDelimiter = std::string_view("/*!*/;\n").size();
  for (std::size_t p : ends)
    out_.statement(p, p + kDelimiter, Output::Statement::Kind::kSql, at_, type_);
}

void SqlSink::generated_session() {
  if (st_.generated) return;
  st_.generated = true;
  append("/*!\\C utf8mb4 */");
  delimiter(Output::Statement::Kind::kCharset);
  append(
      "SET @binrecover_sql_mode=@@session.sql_mode, "
      "@@session.sql_mode='NO_AUTO_VALUE_ON_ZERO,NO_BACKSLASH_ESCAPES', "
      "@@session.character_set_client=utf8mb4, @@session.collation_connection=utf8mb4_bin");
  delimiter();
  // The next logged statement sets its own again.
  st_.sql_mode.reset();
  st_.charset.reset();
}

void SqlSink::nbe_begin() {
  append(
      "SET @binrecover_sql_mode=@@session.sql_mode, "
      "@@session.sql_mode='NO_BACKSLASH_ESCAPES'");
  delimiter();
}

void SqlSink::nbe_end() {
  append("SET @@session.sql_mode=@binrecover_sql_mode");
  delimiter();
}

void SqlSink::begin() {
  at_.reset();
  type_ = 0;
  plain_statement("/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/");
  if (opts_.disable_log_bin)
    plain_statement("/*!32316 SET @OLD_SQL_LOG_BIN=@@SQL_LOG_BIN, SQL_LOG_BIN=0*/");
  plain_statement("/*!40019 SET @@session.max_delayed_threads=0*/");
  plain_statement("/*!50003 SET @OLD_COMPLETION_TYPE=@@COMPLETION_TYPE,COMPLETION_TYPE=0*/");
  if (!opts_.set_charset.empty()) {
    plain_statement("/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */");
    plain_statement("/*!40101 SET @OLD_CHARACTER_SET_RESULTS=@@CHARACTER_SET_RESULTS */");
    plain_statement("/*!40101 SET @OLD_COLLATION_CONNECTION=@@COLLATION_CONNECTION */");
    plain_statement("/*!40101 SET NAMES " + opts_.set_charset + " */");
  }
  if (opts_.idempotent) plain_statement("/*!50700 SET @@SESSION.RBR_EXEC_MODE=IDEMPOTENT*/");
  if (opts_.require_row_format) plain_statement("/*!80019 SET @@SESSION.REQUIRE_ROW_FORMAT=1*/");
  if (!opts_.apply) append("DELIMITER /*!*/;\n");
}

void SqlSink::check_row_format(const Event& ev, std::string_view sql) const {
  if (!opts_.require_row_format) return;
  const char* what = nullptr;
  switch (ev.type()) {
    case EventType::kIntvar:
      what = "an INSERT_ID / LAST_INSERT_ID of a statement";
      break;
    case EventType::kRand:
      what = "the RAND() seeds of a statement";
      break;
    case EventType::kUserVar:
      what = "a user variable of a statement";
      break;
    case EventType::kLoad:
    case EventType::kNewLoad:
    case EventType::kCreateFile:
    case EventType::kAppendBlock:
    case EventType::kExecLoad:
    case EventType::kDeleteFile:
    case EventType::kBeginLoadQuery:
    case EventType::kExecuteLoadQuery:
      what = "LOAD DATA";
      break;
    case EventType::kQuery:
    case EventType::kMariaQueryCompressed: {
      using Action = StatementTargets::Action;
      const Action a = statement_targets(sql).action;
      if (a == Action::kInsert || a == Action::kUpdate || a == Action::kDelete ||
          a == Action::kLoad) {
        what = "a DML statement (statement format)";
        break;
      }
      SqlLexer lex(sql);
      const SqlToken first = lex.next();
      if (is_keyword(first, "CREATE") || is_keyword(first, "DROP"))
        if (is_keyword(lex.next(), "TEMPORARY")) what = "a temporary table";
      break;
    }
    default:
      break;
  }
  if (what != nullptr)
    throw Error(ErrorCode::kUnsupportedFormat,
                std::string("--require-row-format: ") + what + " is not row format", ev.pos)
        .with_event(std::string(event_type_name(ev.type())));
}

void SqlSink::finish() {
  flush_binlog_statement();
  at_.reset();
  type_ = 0;
  if (st_.mysql_gtid_next && !opts_.skip_gtids) {
    append("SET @@SESSION.GTID_NEXT= 'AUTOMATIC' /* added by binrecover */ ");
    delimiter();
  }
  if (!opts_.apply) {
    append("DELIMITER ;\n");
    append("# End of log file\n");
  }
  plain_statement("ROLLBACK /* added by binrecover */");
  if (!opts_.set_charset.empty()) {
    plain_statement("/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */");
    plain_statement("/*!40101 SET CHARACTER_SET_RESULTS=@OLD_CHARACTER_SET_RESULTS */");
    plain_statement("/*!40101 SET COLLATION_CONNECTION=@OLD_COLLATION_CONNECTION */");
  }
  plain_statement("/*!50003 SET COMPLETION_TYPE=@OLD_COMPLETION_TYPE*/");
  if (opts_.disable_log_bin) plain_statement("/*!32316 SET SQL_LOG_BIN=@OLD_SQL_LOG_BIN*/");
  plain_statement("/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=0*/");
}

void SqlSink::comment(std::string_view text) {
  if (!comments_) return;
  append("# ");
  append_comment_text(buf_, text);
  append("\n");
}

void SqlSink::time_text(std::uint32_t ts) {
  if (ts != cached_ts_ || cached_time_[0] == 0) {
    std::time_t t = ts;
    std::tm tm{};
    localtime_r(&t, &tm);
    std::snprintf(cached_time_, sizeof cached_time_, "%02d%02d%02d %2d:%02d:%02d", tm.tm_year % 100,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    cached_ts_ = ts;
  }
  append(cached_time_);
}

namespace {

// "0x" and eight lower-case hex digits.
void put_hex32(Writer& line, std::uint32_t v) {
  char* p = line.need(10);
  *p++ = '0';
  *p++ = 'x';
  for (int shift = 28; shift >= 0; shift -= 4) *p++ = "0123456789abcdef"[(v >> shift) & 15];
  line.done(p);
}

}  // namespace

// The header lines of every event are written with the digit writers of binlog/digits.h, not a
// format string: they are a large part of the text of small events.
void SqlSink::event_header(const Event& ev, const FormatContext& ctx) {
  if (!comments_) return;
  Writer(buf_) << "# at " << ev.pos << "\n";
  if (opts_.hexdump) hexdump(ev, ctx);
  append("#");
  time_text(ev.header.timestamp);
  Writer line(buf_);
  line << " server id " << std::uint64_t{ev.header.server_id} << "  end_log_pos "
       << std::uint64_t{ev.header.log_pos} << " ";
  ChecksumAlg alg = ctx.checksum;
  if (const auto* fde = std::get_if<FormatDescription>(&ev.body)) alg = fde->context.checksum;
  if (alg == ChecksumAlg::kCrc32 && ev.raw.size() >= 4 && !ev.in_payload) {
    ByteCursor c(ev.raw.last(4), 0);
    line << "CRC32 ";
    put_hex32(line, c.u32le());
    line << " ";
  }
  line << "\t";
}

void SqlSink::hexdump(const Event& ev, const FormatContext& ctx) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto* p = reinterpret_cast<const std::uint8_t*>(ev.raw.data());
  const std::size_t n = ev.raw.size();
  const std::size_t hdr = std::min<std::size_t>(ctx.header_length, n);
  append("# Position  Timestamp   Type   Source ID        Size      Source Pos    Flags\n");
  fmt::format_to(std::back_inserter(buf_), "# {:>8x} ", ev.pos);
  for (std::size_t i = 0; i < hdr; ++i) {
    const char h[3] = {kHex[p[i] >> 4], kHex[p[i] & 15], ' '};
    buf_.append(h, h + 3);
    if (i == 3 || i == 4 || i == 8 || i == 12 || i == 16) append("  ");
  }
  append("\n");
  // One line per 16 bytes, written through one raw pointer; a huge event's text is set aside
  // every 64 KiB of event in a streamed transaction, so it never sits whole in memory.
  for (std::size_t off = hdr; off < n;) {
    const std::size_t chunk_end = std::min(n, off + (std::size_t{64} << 10));
    {
      Writer line(buf_);
      for (; off < chunk_end; off += 16) {
        char* q = line.need(96);
        *q++ = '#';
        *q++ = ' ';
        const std::uint64_t at = ev.pos + off;
        char digits[16];
        int d = 0;
        for (std::uint64_t v = at; v != 0 || d == 0; v >>= 4) digits[d++] = kHex[v & 15];
        for (int pad = d; pad < 8; ++pad) *q++ = ' ';
        while (d > 0) *q++ = digits[--d];
        *q++ = ' ';
        std::size_t k = 0;
        for (; k < 16 && off + k < n; ++k) {
          const std::uint8_t c = p[off + k];
          *q++ = kHex[c >> 4];
          *q++ = kHex[c & 15];
          *q++ = ' ';
          if (k == 7) *q++ = ' ';
        }
        for (; k < 16; ++k) {
          *q++ = ' ';
          *q++ = ' ';
          *q++ = ' ';
          if (k == 7) *q++ = ' ';
        }
        *q++ = '|';
        for (k = 0; k < 16 && off + k < n; ++k) {
          const std::uint8_t c = p[off + k];
          *q++ = c >= 32 && c < 127 ? static_cast<char>(c) : '.';
        }
        *q++ = '|';
        *q++ = '\n';
        line.done(q);
      }
    }
    if (streamed_ && !opts_.apply) out_.unit_checkpoint();
  }
}

void SqlSink::write_meta(const Event& ev, const FormatContext& ctx) {
  flush_binlog_statement();
  if (ev.type() == EventType::kFormatDescription && st_.mysql_gtid_next && !opts_.skip_gtids) {
    // A BINLOG statement may not run while GTID_NEXT still names the last transaction's GTID.
    append("SET @@SESSION.GTID_NEXT= 'AUTOMATIC' /* added by binrecover */ ");
    delimiter();
    st_.mysql_gtid_next = false;
  }
  write_event(ev, ctx);
  render_verbose(verbose_);  // the event does not outlive this call
}

bool is_atomic_ctas(const binlog::Event& ev) {
  const auto* q = std::get_if<binlog::Query>(&ev.body);
  if (q == nullptr || q->compressed) return false;
  std::string_view text = q->query;
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\r' ||
                           text.back() == '\t' || text.back() == ';'))
    text.remove_suffix(1);
  constexpr std::string_view kTail = " START TRANSACTION";
  return text.size() > kTail.size() && text.substr(text.size() - kTail.size()) == kTail &&
         starts_with_keyword(q->query, "CREATE");
}

void SqlSink::begin_unit(const UnitInfo& u, const FormatContext& /*ctx*/) {
  in_meta_ = u.kind == UnitKind::kMeta;
  if (opts_.self_contained_units && !in_meta_) st_ = PrintedState{};
  streamed_ = u.streamed;
  trigger_stmt_ = false;
  unit_binlog_rows_ = ctas_read_ && !in_meta_;
  ctas_read_ = false;
  if (!in_meta_) out_.begin_unit(streamed_);
  // Before the transaction (outside it, where GTID_NEXT may change): the format description
  // that its BINLOG statements need.
  if (unit_binlog_rows_ && !fde_written_ && !fde_raw_.empty())
    write_fde_binlog(Bytes(fde_raw_.data(), fde_raw_.size()));
}

void SqlSink::event(const Event& ev, std::uint8_t marks, const FormatContext& ctx) {
  if (in_meta_) {
    write_meta(ev, ctx);
    return;
  }
  // A filter may drop the rows event that carries STMT_END_F (the last table of a multi-table
  // statement). The server's BINLOG statement needs that flag to close the statement, so the
  // last kept rows event of such a statement is emitted with the flag set.
  force_stmt_end_ = (marks & kMarkStmtEnd) != 0;
  if (opts_.require_row_format && ev.type() != EventType::kQuery &&
      ev.type() != EventType::kMariaQueryCompressed)
    check_row_format(ev, {});
  write_event(ev, ctx);
  force_stmt_end_ = false;
  if (streamed_) {
    // The event is gone after this call: its -v text is made now (and set aside when the
    // statement's grows large), and the text so far may be set aside until the transaction is
    // whole.
    if (!verbose_pending_.empty()) render_verbose(verbose_);
    if (verbose_.size() >= kVerboseSetAside) {
      if (!verbose_spill_)
        verbose_spill_ = std::make_unique<TempFile>("the -v text of a statement");
      verbose_spill_->append(std::string_view(verbose_.data(), verbose_.size()));
      verbose_.clear();
    }
    out_.unit_checkpoint();
  }
}

namespace {

constexpr std::size_t kScratchKeep = 4 << 20;

void release(fmt::memory_buffer& b) {
  if (b.capacity() > kScratchKeep) b = fmt::memory_buffer();
}
void release(std::vector<std::byte>& v) {
  if (v.capacity() > kScratchKeep) std::vector<std::byte>().swap(v);
}

}  // namespace

void SqlSink::end_unit(const UnitInfo& u) {
  if (!in_meta_) {
    flush_binlog_statement();
    out_.end_unit();
  }
  out_.flush_if_large();
  // What a huge event needed is given back: memory follows the largest event in flight only.
  release(rows_b64_);
  release(verbose_);
  release(row_scratch_);
  release(scratch_);
  release(piece_);
  release(held_copy_);
  if (on_unit_) on_unit_(u);
}

void SqlSink::reset_statement() {
  force_stmt_end_ = false;
  if (verbose_spill_) verbose_spill_->clear();
  rows_b64_.clear();
  verbose_.clear();
  verbose_pending_.clear();
  holding_ = false;
  pending_maps_.clear();
  stmt_maps_.clear();
  stmt_map_count_ = 0;
  rows_pending_ = false;
}

void SqlSink::abort_unit(const UnitInfo& /*u*/) {
  // An error inside the transaction (a row image that does not decode) takes back its text:
  // the output keeps whole transactions only.
  reset_statement();
  if (!in_meta_) out_.abort_unit();
}

void SqlSink::left_out(const UnitInfo& u, LeftOut why) {
  const std::string where = *u.file + ":" + std::to_string(u.first_pos);
  switch (why) {
    case LeftOut::kIncomplete:
      comment("incomplete transaction at " + where + " not emitted");
      break;
    case LeftOut::kCrossesStop:
      // The stop position or time falls inside this transaction: whole transactions only, so it
      // is left out, as the user asked to stop before it.
      comment("transaction at " + where + " crosses the stop point: not emitted");
      break;
    case LeftOut::kSkipEvent:
      comment("transaction at " + where + " skipped (--skip-event)");
      break;
    case LeftOut::kDamaged:
      comment("transaction at " + where + " left out: it holds a damaged event (--force-read)");
      break;
    case LeftOut::kAlreadyApplied:
      comment("transaction " + u.gtid +
              " skipped: the server has applied it (--gtids=skip-applied)");
      break;
    case LeftOut::kReadBefore:
      comment("transaction " + u.gtid + " at " + where +
              " left out: an earlier server's file had it (one history by GTID)");
      break;
    case LeftOut::kSetAside:
      comment("transaction " + u.gtid + " at " + where +
              " left out: the server whose files follow never had it (lost at the failover)");
      break;
    case LeftOut::kGtidSet:
      comment("transaction at " + where + (u.gtid.empty() ? "" : " (" + u.gtid + ")") +
              " left out (--include-gtids / --exclude-gtids)");
      break;
  }
}

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
  if (!st_.thread_printed ||
      ((ev.header.flags & kLogEventThreadSpecific) && q.thread_id != st_.thread_id)) {
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
