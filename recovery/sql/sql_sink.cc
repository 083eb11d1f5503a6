#include "recovery/sql/sql_sink.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "binlog/checksum.h"
#include "binlog/error.h"
#include "binlog/event_edit.h"
#include "binlog/maria_compression.h"
#include "recovery/reading/sql_lexer.h"
#include "recovery/reading/temp_file.h"
#include "recovery/sql/event_info.h"
#include "recovery/sql/rewrite_db.h"
#include "recovery/sql/row_sql.h"
#include "recovery/sql/text_writer.h"

namespace binrecover::recovery {

using namespace binlog;

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
  if (opts_.event_positions) Writer(buf_) << "# at " << ev.pos << "\n";
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

// A BINLOG statement may not run while GTID_NEXT still names the last transaction's GTID
// (1837): set it back first.
void SqlSink::release_gtid_next() {
  if (!st_.mysql_gtid_next || opts_.skip_gtids) return;
  append("SET @@SESSION.GTID_NEXT= 'AUTOMATIC' /* added by binrecover */ ");
  delimiter();
  st_.mysql_gtid_next = false;
}

void SqlSink::write_meta(const Event& ev, const FormatContext& ctx) {
  flush_binlog_statement();
  if (ev.type() == EventType::kFormatDescription) release_gtid_next();
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
  if (unit_binlog_rows_ && !fde_written_ && !fde_raw_.empty()) {
    release_gtid_next();
    write_fde_binlog(Bytes(fde_raw_.data(), fde_raw_.size()));
  }
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

// Kept between units up to this size: a log of transactions of some MiB each (bulk INSERT ...
// SELECT) reuses its buffers instead of faulting them in again for each one (which cost more
// than the decoding); anything larger came from a rare huge event and is given back.
constexpr std::size_t kScratchKeep = 16 << 20;

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
  text_.release();
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
  text_.clear();
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

}  // namespace binrecover::recovery
