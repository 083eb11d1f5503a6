#include "recovery/sql/sql_sink.h"

#include <fcntl.h>
#include <unistd.h>

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
#include "recovery/reading/statement_dbs.h"
#include "recovery/reading/temp_file.h"
#include "recovery/sql/event_info.h"
#include "recovery/sql/rewrite_db.h"
#include "recovery/sql/row_sql.h"
#include "recovery/sql/text_writer.h"

namespace binrecover::recovery {

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

namespace {

constexpr char kBase64Alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Two output characters for every 12-bit value: half the lookups of a 6-bit table.
struct Base64Pairs {
  char pairs[4096][2];
  constexpr Base64Pairs() : pairs() {
    for (int v = 0; v < 4096; ++v) {
      pairs[v][0] = kBase64Alphabet[v >> 6];
      pairs[v][1] = kBase64Alphabet[v & 63];
    }
  }
};
constexpr Base64Pairs kBase64Pairs;

}  // namespace

namespace {

// The text append_base64 writes for `n` bytes, and what BINLOG '\n...' adds around it.
constexpr std::size_t base64_size(std::size_t n) { return (n + 2) / 3 * 4 + n / 57 + 2; }
constexpr std::size_t kBinlogStatementFrame = 16;

}  // namespace

void append_base64(fmt::memory_buffer& out, Bytes data) {
  constexpr std::size_t kLineBytes = 57;  // 76 characters a line
  const std::size_t n = data.size();
  const auto* p = reinterpret_cast<const std::uint8_t*>(data.data());
  const std::size_t start = out.size();
  const std::size_t encoded = (n + 2) / 3 * 4;
  out.resize(start + encoded + n / kLineBytes + 1);
  char* o = out.data() + start;
  std::size_t i = 0;
  while (n - i >= 3) {
    const std::size_t line_end = std::min(n - (n - i) % 3, i + kLineBytes);
    for (; i < line_end; i += 3) {
      const std::uint32_t v = (p[i] << 16) | (p[i + 1] << 8) | p[i + 2];
      std::memcpy(o, kBase64Pairs.pairs[v >> 12], 2);
      std::memcpy(o + 2, kBase64Pairs.pairs[v & 0xfff], 2);
      o += 4;
    }
    if (i % kLineBytes == 0 && i < n) *o++ = '\n';
  }
  if (i < n) {
    std::uint32_t v = p[i] << 16;
    if (i + 1 < n) v |= p[i + 1] << 8;
    o[0] = kBase64Alphabet[v >> 18];
    o[1] = kBase64Alphabet[(v >> 12) & 63];
    o[2] = i + 1 < n ? kBase64Alphabet[(v >> 6) & 63] : '=';
    o[3] = '=';
    o += 4;
  }
  out.resize(static_cast<std::size_t>(o - out.data()));
}

SqlSink::SqlSink(Output& out, SqlOptions opts)
    : out_(out),
      opts_(std::move(opts)),
      comments_(!opts_.short_form && !opts_.apply),
      buf_(out.buf()),
      tables_(TableCache::Options{nullptr, true, &opts_.rewrite_db}) {}

SqlSink::~SqlSink() = default;

void SqlSink::plain_statement(std::string_view text) {
  append(text);
  const std::size_t end = buf_.size();
  append(";\n");
  if (opts_.apply) out_.statement(end, buf_.size(), Output::Statement::Kind::kSql, {}, 0);
}

void SqlSink::mark_statements(std::size_t from) {
  if (!opts_.apply) return;
  const std::string_view text(buf_.data(), buf_.size());
  constexpr std::string_view kDelimiter = "/*!*/;\n";
  for (std::size_t p = text.find(kDelimiter, from); p != std::string_view::npos;
       p = text.find(kDelimiter, p + kDelimiter.size()))
    out_.statement(p, p + kDelimiter.size(), Output::Statement::Kind::kSql, at_, type_);
}

void SqlSink::begin() {
  at_.reset();
  type_ = 0;
  plain_statement("/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/");
  if (opts_.disable_log_bin)
    plain_statement("/*!32316 SET @OLD_SQL_LOG_BIN=@@SQL_LOG_BIN, SQL_LOG_BIN=0*/");
  plain_statement("/*!40019 SET @@session.max_delayed_threads=0*/");
  plain_statement("/*!50003 SET @OLD_COMPLETION_TYPE=@@COMPLETION_TYPE,COMPLETION_TYPE=0*/");
  if (!opts_.apply) append("DELIMITER /*!*/;\n");
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
  plain_statement("/*!50003 SET COMPLETION_TYPE=@OLD_COMPLETION_TYPE*/");
  if (opts_.disable_log_bin) plain_statement("/*!32316 SET SQL_LOG_BIN=@OLD_SQL_LOG_BIN*/");
  plain_statement("/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=0*/");
}

void SqlSink::comment(std::string_view text) {
  if (!comments_) return;
  append("# ");
  append(text);
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
  auto it = std::back_inserter(buf_);
  const auto* p = reinterpret_cast<const std::uint8_t*>(ev.raw.data());
  const std::size_t n = ev.raw.size();
  const std::size_t hdr = std::min<std::size_t>(ctx.header_length, n);
  append("# Position  Timestamp   Type   Source ID        Size      Source Pos    Flags\n");
  fmt::format_to(it, "# {:>8x} ", ev.pos);
  for (std::size_t i = 0; i < hdr; ++i) {
    fmt::format_to(it, "{:02x} ", p[i]);
    if (i == 3 || i == 4 || i == 8 || i == 12 || i == 16) append("  ");
  }
  append("\n");
  for (std::size_t off = hdr; off < n; off += 16) {
    fmt::format_to(it, "# {:>8x} ", ev.pos + off);
    std::size_t k = 0;
    for (; k < 16 && off + k < n; ++k) {
      fmt::format_to(it, "{:02x} ", p[off + k]);
      if (k == 7) append(" ");
    }
    for (; k < 16; ++k) append(k == 7 ? "    " : "   ");
    append("|");
    for (k = 0; k < 16 && off + k < n; ++k) {
      const std::uint8_t c = p[off + k];
      buf_.push_back(c >= 32 && c < 127 ? static_cast<char>(c) : '.');
    }
    append("|\n");
  }
}

void SqlSink::base64_event(const Event& ev, const FormatContext& ctx) {
  Bytes raw = ev.raw;
  if (const auto* tm = std::get_if<TableMap>(&ev.body);
      tm != nullptr && !opts_.rewrite_db.empty()) {
    const std::string_view to = db_name(tm->db);
    if (to.data() != tm->db.data()) {  // --rewrite-db
      renamed_table_map(ev, *tm, to, renamed_map_);
      seal_event(renamed_map_, ctx.checksum == ChecksumAlg::kCrc32 && !ev.in_payload);
      raw = Bytes(renamed_map_.data(), renamed_map_.size());
    }
  }
  const auto* rows = std::get_if<Rows>(&ev.body);
  if (force_stmt_end_ || (ev.in_payload && ctx.checksum == ChecksumAlg::kCrc32) ||
      (rows != nullptr && rows->compressed)) {
    rewritten_event(ev, raw, ctx, force_stmt_end_, scratch_);
    raw = Bytes(scratch_.data(), scratch_.size());
  }
  if (opts_.max_binlog_statement == 0) {
    append_base64(rows_b64_, raw);
    rows_b64_.push_back('\n');
    rows_pending_ = true;
    return;
  }
  // Limited statements (replay): where the event's STMT_END_F flag is, for cutting statements.
  const std::uint8_t ph = ctx.post_header_len[ev.header.type];
  const std::size_t flags_at = ctx.header_length + (ph == 6 ? 4 : 6);
  const bool crc = ctx.checksum == ChecksumAlg::kCrc32;
  if (rows == nullptr) {
    push_limited(raw, false, flags_at, crc);
    return;
  }
  const std::size_t budget = limited_budget();
  const SqlTable* t = tables_.find(rows->table_id);
  const auto head = static_cast<std::size_t>(rows->rows.data() - ev.raw.data());
  const std::size_t tail = crc ? 4 : 0;
  if (base64_size(raw.size()) <= budget || t == nullptr || head + tail > raw.size() ||
      flags_at + 2 > head) {
    push_limited(raw, true, flags_at, crc);  // fits (or no layout to find the rows by)
    return;
  }
  // Too large on its own: cut into events of as many whole rows as fit, STMT_END_F (if the
  // event has it) on the last, as the server cuts at binlog_row_event_max_size.
  const Bytes images = raw.subspan(head, raw.size() - head - tail);
  try {
    binlog::row_ends(*rows, images, t->info.layout, ev.pos + head, row_ends_);
  } catch (const Error&) {
    row_ends_.clear();  // rows the layout cannot walk: the event goes whole, as it came
  }
  if (row_ends_.empty()) {
    push_limited(raw, true, flags_at, crc);
    return;
  }
  const bool stmt_end = (raw[flags_at] & std::byte{kStmtEndFlag}) != std::byte{0};
  std::size_t from = 0;  // start of the next piece's rows
  std::size_t k = 0;
  while (k < row_ends_.size()) {
    std::size_t to = row_ends_[k++];  // at least one row
    while (k < row_ends_.size() && base64_size(head + (row_ends_[k] - from) + tail) <= budget)
      to = row_ends_[k++];
    piece_.assign(raw.begin(), raw.begin() + static_cast<std::ptrdiff_t>(head));
    piece_.insert(piece_.end(), images.begin() + static_cast<std::ptrdiff_t>(from),
                  images.begin() + static_cast<std::ptrdiff_t>(to));
    piece_.resize(piece_.size() + tail);
    if (stmt_end && k < row_ends_.size()) piece_[flags_at] &= ~std::byte{kStmtEndFlag};
    seal_event(piece_, crc);
    push_limited(Bytes(piece_.data(), piece_.size()), true, flags_at, crc);
    from = to;
  }
}

std::size_t SqlSink::limited_budget() const {
  // What one rows event may take so that it fits a statement after the statement's table maps
  // (each encoded on its own: a few characters of padding and a newline each, hence the margin).
  const std::size_t used =
      kBinlogStatementFrame + base64_size(stmt_maps_.size()) + 8 * stmt_map_count_ + 64;
  return opts_.max_binlog_statement > used ? opts_.max_binlog_statement - used : 0;
}

void SqlSink::push_limited(Bytes raw, bool is_rows, std::size_t flags_at, bool crc) {
  // The last rows event is held back, and table maps after it too: if the next rows event does
  // not fit the statement any more, the held one gets STMT_END_F and closes the statement, and
  // the next statement starts with the table maps again (the server forgets them at a
  // statement's end, and silently skips rows events of a table id it has no map for). Each
  // BINLOG statement is then a whole statement of its own; inside the transaction that is the
  // same change.
  if (!is_rows) {
    stmt_maps_.insert(stmt_maps_.end(), raw.begin(), raw.end());
    ++stmt_map_count_;
    if (held_.empty()) {  // the statement's first maps
      append_base64(rows_b64_, raw);
      rows_b64_.push_back('\n');
      rows_pending_ = true;
    } else {
      pending_maps_.insert(pending_maps_.end(), raw.begin(), raw.end());
    }
    return;
  }
  if (!held_.empty()) {
    const std::size_t need = rows_b64_.size() + base64_size(held_.size()) +
                             base64_size(pending_maps_.size()) + base64_size(raw.size()) +
                             kBinlogStatementFrame;
    if (need <= opts_.max_binlog_statement) {
      encode_held();
      encode_pending_maps();
    } else {
      held_[held_flags_at_] |= std::byte{kStmtEndFlag};
      seal_event(held_, held_crc_);
      encode_held();
      emit_binlog_statement();
      pending_maps_.clear();  // they are in stmt_maps_, which the next statement starts with
      append_base64(rows_b64_, Bytes(stmt_maps_.data(), stmt_maps_.size()));
      rows_b64_.push_back('\n');
      rows_pending_ = true;
    }
  }
  held_.assign(raw.begin(), raw.end());
  held_flags_at_ = flags_at;
  held_crc_ = crc;
  rows_pending_ = true;
}

void SqlSink::encode_held() {
  append_base64(rows_b64_, Bytes(held_.data(), held_.size()));
  rows_b64_.push_back('\n');
  held_.clear();
}

void SqlSink::encode_pending_maps() {
  if (pending_maps_.empty()) return;
  append_base64(rows_b64_, Bytes(pending_maps_.data(), pending_maps_.size()));
  rows_b64_.push_back('\n');
  pending_maps_.clear();
}

void SqlSink::flush_binlog_statement() {
  if (!held_.empty()) encode_held();
  encode_pending_maps();
  stmt_maps_.clear();
  stmt_map_count_ = 0;
  emit_binlog_statement();
}

void SqlSink::emit_binlog_statement() {
  if (!rows_pending_) return;
  if (!opts_.short_form && rows_b64_.size() > 0) {
    append("BINLOG '\n");
    out_.append_large(std::string_view(rows_b64_.data(), rows_b64_.size()));
    append("'");
    delimiter();
  }
  out_.append_large(verbose_spill_);
  if (verbose_.size() > 0) {
    out_.append_large(std::string_view(verbose_.data(), verbose_.size()));
    verbose_.clear();
  }
  render_verbose(buf_);
  rows_b64_.clear();
  rows_pending_ = false;
}

void SqlSink::render_verbose(fmt::memory_buffer& out) {
  for (const PendingRows& p : verbose_pending_) {
    const Event& ev = *p.event;
    try {
      const auto& b = std::get<Rows>(ev.body);
      Bytes images = b.rows;
      if (b.compressed) {
        row_scratch_.clear();
        maria_uncompress_append(b.rows, row_scratch_, ev.pos);
        images = Bytes(row_scratch_.data(), row_scratch_.size());
      }
      append_rows_verbose(out, b, images, *p.table, opts_.verbose > 1, ev.pos);
    } catch (Error& e) {
      e.with_offset(ev.pos);
      e.with_event(std::string(event_type_name(ev.header.type)));
      verbose_pending_.clear();
      throw;
    }
  }
  verbose_pending_.clear();
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

void SqlSink::begin_unit(const UnitInfo& u, const FormatContext& /*ctx*/) {
  in_meta_ = u.kind == UnitKind::kMeta;
  streamed_ = u.streamed;
  if (!in_meta_) out_.begin_unit(streamed_);
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

void SqlSink::end_unit(const UnitInfo& u) {
  if (!in_meta_) {
    flush_binlog_statement();
    out_.end_unit();
  }
  out_.flush_if_large();
  if (on_unit_) on_unit_(u);
}

void SqlSink::reset_statement() {
  force_stmt_end_ = false;
  if (verbose_spill_) verbose_spill_->clear();
  rows_b64_.clear();
  verbose_.clear();
  verbose_pending_.clear();
  held_.clear();
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

void SqlSink::session_state(const Query& q, const FormatContext& ctx) {
  auto it = std::back_inserter(buf_);
  const QueryStatus& s = q.status;
  if (s.flags2) flags2_line(*s.flags2, ctx);
  if (s.sql_mode && s.sql_mode != st_.sql_mode) {
    st_.sql_mode = s.sql_mode;
    fmt::format_to(it, "SET @@session.sql_mode={}", *s.sql_mode);
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
    if (ctx.mariadb && client != nullptr)
      fmt::format_to(it, "SET @@session.character_set_client={}", client->charset);
    else
      fmt::format_to(it, "SET @@session.character_set_client={}", cs[0]);
    fmt::format_to(it, ",@@session.collation_connection={},@@session.collation_server={}", cs[1],
                   cs[2]);
    delimiter();
  }
  if (s.time_zone && (!st_.time_zone_printed || st_.time_zone != *s.time_zone)) {
    st_.time_zone.assign(*s.time_zone);
    st_.time_zone_printed = true;
    append("SET @@session.time_zone=");
    append_quoted_string(buf_, *s.time_zone);
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
        fmt::format_to(it, "SET @@session.collation_database={}", cdb);
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
    append("use ");
    append_quoted_ident(buf_, db);
    delimiter();
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
  session_state(q, ctx);
  if (ev.type() == EventType::kExecuteLoadQuery) {
    load_data_query(ev, q);
  } else {
    if (rewrite_statement(q.query, opts_.rewrite_db, rewritten_))
      append(rewritten_);
    else
      append(q.query);
    append("\n");
  }
  delimiter();
}

std::string_view SqlSink::db_name(std::string_view db) const {
  return rewritten_database(db, opts_.rewrite_db);
}

std::string SqlSink::load_file_path(std::uint32_t file_id, std::uint64_t pos, bool create) {
  if (!create) {
    for (auto it = load_files_.rbegin(); it != load_files_.rend(); ++it)
      if (it->first == file_id) return it->second;
    throw Error(ErrorCode::kBadEvent,
                "LOAD DATA block for file id " + std::to_string(file_id) +
                    " has no BEGIN_LOAD_QUERY or CREATE_FILE before it",
                pos);
  }
  if (load_dir_.empty()) {
    if (!opts_.local_load_dir.empty()) {
      load_dir_ = opts_.local_load_dir;
      std::error_code ec;
      std::filesystem::create_directories(load_dir_, ec);
    } else {
      const char* tmp = std::getenv("TMPDIR");
      std::string tmpl =
          std::string(tmp != nullptr && *tmp ? tmp : "/tmp") + "/binrecover-load-XXXXXX";
      if (::mkdtemp(tmpl.data()) == nullptr)
        throw Error(ErrorCode::kIo, "cannot create a folder for LOAD DATA files: " +
                                        std::string(std::strerror(errno)));
      load_dir_ = tmpl;
    }
  }
  std::string path = load_dir_ + "/SQL_LOAD-" + std::to_string(file_id) + "-" + std::to_string(pos);
  if (load_files_.size() > 64) load_files_.erase(load_files_.begin());
  load_files_.emplace_back(file_id, path);
  return path;
}

void SqlSink::write_load_block(const Event& ev, const LoadBlock& b, bool begin) {
  const std::string path = load_file_path(b.file_id, ev.pos, begin);
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (begin ? O_TRUNC : O_APPEND), 0644);
  if (fd < 0)
    throw Error(ErrorCode::kIo, "cannot write LOAD DATA file " + path + ": " + std::strerror(errno),
                ev.pos);
  const char* p = reinterpret_cast<const char*>(b.data.data());
  std::size_t left = b.data.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      throw Error(ErrorCode::kIo, "cannot write LOAD DATA file " + path, ev.pos);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  ::close(fd);
}

void SqlSink::load_data_query(const Event& ev, const Query& q) {
  // The server logs "LOAD DATA INFILE '<its temp file>' [REPLACE|IGNORE] INTO ..." with the
  // file name part between fn_pos_start and fn_pos_end; the replay reads our copy of the data
  // through the client instead (LOCAL), as mysqlbinlog does.
  if (q.fn_pos_start > q.fn_pos_end || q.fn_pos_end > q.query.size())
    throw Error(ErrorCode::kBadEvent, "LOAD DATA file name position outside the statement", ev.pos);
  const std::string path = load_file_path(q.file_id, ev.pos, false);
  append(q.query.substr(0, q.fn_pos_start));
  append(" LOCAL INFILE '");
  for (char c : path) {
    if (c == '\\' || c == '\'') buf_.push_back('\\');
    buf_.push_back(c);
  }
  append("'");
  if (q.dup_handling == 2) append(" REPLACE");  // LOAD_DUP_REPLACE; IGNORE is implied by LOCAL
  append(" INTO");
  append(q.query.substr(q.fn_pos_end));
  append("\n");
}

namespace {

// A FIELDS/LINES option as a string literal, escaped as mysqlbinlog prints them.
void append_load_term(fmt::memory_buffer& out, std::string_view s) {
  out.push_back('\'');
  for (char c : s) {
    switch (c) {
      case '\n':
        out.append(std::string_view("\\n"));
        break;
      case '\t':
        out.append(std::string_view("\\t"));
        break;
      case '\r':
        out.append(std::string_view("\\r"));
        break;
      case '\b':
        out.append(std::string_view("\\b"));
        break;
      case '\0':
        out.append(std::string_view("\\0"));
        break;
      case '\x1a':
        out.append(std::string_view("\\Z"));
        break;
      case '\'':
        out.append(std::string_view("\\'"));
        break;
      case '\\':
        out.append(std::string_view("\\\\"));
        break;
      default:
        out.push_back(c);
    }
  }
  out.push_back('\'');
}

}  // namespace

void SqlSink::create_file(const Event& ev, const LoadData& l) {
  // 4.x LOAD DATA: CREATE_FILE carries the statement's options and the first block of the data,
  // APPEND_BLOCKs the rest, EXEC_LOAD runs it. The data goes to --local-load and the statement
  // becomes LOAD DATA LOCAL INFILE on that file, as mysqlbinlog writes it.
  write_load_block(ev, LoadBlock{l.file_id, l.block}, true);
  const std::string path = load_file_path(l.file_id, ev.pos, false);
  fmt::memory_buffer st;
  st.append(std::string_view("LOAD DATA LOCAL INFILE "));
  append_load_term(st, path);
  if (l.opt_flags & LoadData::kReplace) st.append(std::string_view(" REPLACE"));
  if (l.opt_flags & LoadData::kIgnore) st.append(std::string_view(" IGNORE"));
  st.append(std::string_view(" INTO TABLE "));
  append_quoted_ident(st, l.table);
  st.append(std::string_view(" FIELDS TERMINATED BY "));
  append_load_term(st, l.field_term);
  if (l.opt_flags & LoadData::kOptEnclosed) st.append(std::string_view(" OPTIONALLY"));
  st.append(std::string_view(" ENCLOSED BY "));
  append_load_term(st, l.enclosed);
  st.append(std::string_view(" ESCAPED BY "));
  append_load_term(st, l.escaped);
  st.append(std::string_view(" LINES TERMINATED BY "));
  append_load_term(st, l.line_term);
  st.append(std::string_view(" STARTING BY "));
  append_load_term(st, l.line_start);
  if (l.skip_lines > 0) fmt::format_to(std::back_inserter(st), " IGNORE {} LINES", l.skip_lines);
  if (l.num_fields > 0) {
    st.append(std::string_view(" ("));
    ByteCursor names(l.field_names, ev.pos);
    for (std::uint32_t k = 0; k < l.num_fields; ++k) {
      if (k) st.push_back(',');
      append_quoted_ident(st, names.cstr());
    }
    st.push_back(')');
  }
  std::erase_if(pending_loads_, [&](const PendingLoad& p) { return p.file_id == l.file_id; });
  if (pending_loads_.size() > 64) pending_loads_.erase(pending_loads_.begin());
  pending_loads_.push_back(
      {l.file_id, l.thread_id, std::string(l.db), std::string(st.data(), st.size())});
}

void SqlSink::exec_load(const Event& ev, std::uint32_t file_id) {
  const auto p = std::find_if(pending_loads_.begin(), pending_loads_.end(),
                              [&](const PendingLoad& l) { return l.file_id == file_id; });
  if (p == pending_loads_.end())
    throw Error(
        ErrorCode::kBadEvent,
        "EXEC_LOAD for file id " + std::to_string(file_id) + " has no CREATE_FILE before it",
        ev.pos);
  auto it = std::back_inserter(buf_);
  if (!p->db.empty() && db_name(p->db) != st_.db) {
    st_.db = db_name(p->db);
    append("use ");
    append_quoted_ident(buf_, st_.db);
    delimiter();
  }
  fmt::format_to(it, "SET TIMESTAMP={}", ev.header.timestamp);
  delimiter();
  if (!st_.thread_printed || p->thread_id != st_.thread_id) {
    st_.thread_printed = true;
    st_.thread_id = p->thread_id;
    fmt::format_to(it, "SET @@session.pseudo_thread_id={}", p->thread_id);
    delimiter();
  }
  append(p->statement);
  append("\n");
  delimiter();
  pending_loads_.erase(p);
}

void SqlSink::write_event(const Event& ev, const FormatContext& ctx) {
  at_ = ev.pos;
  type_ = ev.header.type;
  try {
    write_event_text(ev, ctx);
  } catch (Error& e) {
    e.with_offset(ev.pos);
    e.with_event(std::string(event_type_name(ev.header.type)));
    throw;
  }
}

void SqlSink::write_event_text(const Event& ev, const FormatContext& ctx) {
  const EventType type = ev.type();
  const bool is_rows = std::holds_alternative<Rows>(ev.body);
  if (!is_rows && type != EventType::kTableMap && type != EventType::kMariaAnnotateRows &&
      type != EventType::kRowsQuery)
    flush_binlog_statement();
  event_header(ev, ctx);
  auto it = std::back_inserter(buf_);
  const bool sf = !comments_;
  std::visit(
      [&](const auto& b) {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, FormatDescription>) {
          if (!sf) {
            fmt::format_to(it, "Start: binlog v {}, server v {} created ", b.binlog_version,
                           b.server_version);
            time_text(b.created != 0 ? b.created : ev.header.timestamp);
            if (b.created != 0) append(" at startup");
            append("\n");
            if (ev.header.flags & kLogEventBinlogInUse)
              append("# Warning: this binlog is either in use or was not closed properly.\n");
          }
          if (b.created != 0) {
            append("ROLLBACK");
            delimiter();
          }
          if (!opts_.short_form && !opts_.rows_as_sql &&
              opts_.base64_output != Base64Output::kNever) {
            // (plain SQL needs no BINLOG statement at all)
            append("BINLOG '\n");
            append_base64(buf_, ev.raw);
            append("\n'");
            delimiter();
          }
          // Each file starts a fresh print state, as mysqlbinlog's: the output of one file stays
          // replayable on its own.
          st_ = PrintedState{};
        } else if constexpr (std::is_same_v<T, StartV3>) {
          if (!sf) {
            fmt::format_to(it, "Start: binlog v {}, server v {} created ", b.binlog_version,
                           b.server_version);
            time_text(b.created);
            if (b.created != 0) append(" at startup");
            append("\n");
          }
          if (b.created != 0) {
            append("ROLLBACK");
            delimiter();
          }
        } else if constexpr (std::is_same_v<T, Rotate>) {
          if (!sf) fmt::format_to(it, "Rotate to {}  pos: {}\n", b.next_file, b.position);
        } else if constexpr (std::is_same_v<T, Stop>) {
          if (!sf) append("Stop\n");
        } else if constexpr (std::is_same_v<T, Query>) {
          query(ev, b, ctx);
        } else if constexpr (std::is_same_v<T, Xid>) {
          if (!sf) Writer(buf_) << "Xid = " << b.xid << "\n";
          append("COMMIT");
          delimiter();
        } else if constexpr (std::is_same_v<T, Intvar>) {
          if (!sf) append("Intvar\n");
          fmt::format_to(it, "SET {}={}", b.type == 1 ? "LAST_INSERT_ID" : "INSERT_ID", b.value);
          delimiter();
        } else if constexpr (std::is_same_v<T, Rand>) {
          if (!sf) append("Rand\n");
          fmt::format_to(it, "SET @@RAND_SEED1={}, @@RAND_SEED2={}", b.seed1, b.seed2);
          delimiter();
        } else if constexpr (std::is_same_v<T, UserVar>) {
          if (!sf) append("User_var\n");
          append("SET @");
          append_quoted_ident(buf_, b.name);
          append(":=");
          append_user_var_value(buf_, b, true);
          delimiter();
        } else if constexpr (std::is_same_v<T, TableMap>) {
          if (opts_.base64_output == Base64Output::kNever && !opts_.rows_as_sql)
            throw Error(ErrorCode::kUnsupportedFormat,
                        "--base64-output=NEVER, but the binlog holds row events, which replay "
                        "only as BINLOG statements (use --rows-as-sql for plain SQL, or AUTO)",
                        ev.pos);
          if (!sf) {
            append("Table_map: ");
            append_quoted_ident(buf_, db_name(b.db));
            append(".");
            append_quoted_ident(buf_, b.table);
            Writer(buf_) << " mapped to number " << b.table_id << "\n";
          }
          // Rows waiting for their -v text were read with the maps as they are now.
          if (!verbose_pending_.empty()) render_verbose(verbose_);
          if (decode_rows()) {
            tables_.update(ev, b, ctx);
          } else if (opts_.max_binlog_statement > 0) {
            // Only for cutting statements: a map whose layout does not decode (5.1.15-5.1.17
            // wrote no metadata) leaves its rows events whole.
            try {
              tables_.update(ev, b, ctx);
            } catch (const Error&) {
            }
          }
          if (!opts_.rows_as_sql && opts_.base64_output == Base64Output::kAuto)
            base64_event(ev, ctx);
        } else if constexpr (std::is_same_v<T, Rows>) {
          if (!sf) {
            static constexpr std::string_view kNames[] = {"Write_rows", "Update_rows",
                                                          "Delete_rows", "Update_rows_partial"};
            append(kNames[static_cast<int>(b.kind)]);
            if (b.compressed) append("_compressed");
            Writer(buf_) << ": table id " << b.table_id
                         << ((b.flags & kStmtEndFlag) ? " flags: STMT_END_F\n" : "\n");
          }
          if (decode_rows()) {
            const SqlTable* t = tables_.find(b.table_id);
            if (t == nullptr)
              throw Error(
                  ErrorCode::kMissingTableMap,
                  "rows event for table id " + std::to_string(b.table_id) + " has no table map",
                  ev.pos);
            if (opts_.rows_as_sql) {
              Bytes images = b.rows;
              if (b.compressed) {
                row_scratch_.clear();
                maria_uncompress_append(b.rows, row_scratch_, ev.pos);
                images = Bytes(row_scratch_.data(), row_scratch_.size());
              }
              const std::size_t from = buf_.size();
              append_rows_sql(buf_, b, images, *t, "/*!*/;\n", ev.pos);
              mark_statements(from);
            } else {
              // The -v text follows the statement's BINLOG: written when the statement ends,
              // straight into the output (no copy of the text).
              verbose_pending_.push_back(PendingRows{&ev, t});
            }
          }
          if (!opts_.rows_as_sql) {
            if (opts_.base64_output == Base64Output::kNever)
              throw Error(ErrorCode::kUnsupportedFormat,
                          "--base64-output=NEVER, but the binlog holds row events", ev.pos);
            if (opts_.base64_output != Base64Output::kDecodeRows) {
              base64_event(ev, ctx);
            } else {
              rows_pending_ = true;  // only the decoded comments are printed
            }
            if ((b.flags & kStmtEndFlag) || force_stmt_end_) flush_binlog_statement();
          }
        } else if constexpr (std::is_same_v<T, Gtid>) {
          if (!sf) {
            fmt::format_to(it, "{}\tlast_committed={}\tsequence_number={}\n",
                           b.anonymous ? "Anonymous_GTID" : "GTID", b.last_committed,
                           b.sequence_number);
          }
          if (!opts_.skip_gtids) {
            append("SET @@SESSION.GTID_NEXT= '");
            if (b.anonymous) {
              append("ANONYMOUS");
            } else {
              append_uuid(buf_, b.sid);
              if (!b.tag.empty()) fmt::format_to(it, ":{}", b.tag);
              fmt::format_to(it, ":{}", b.gno);
            }
            append("'");
            delimiter();
            st_.mysql_gtid_next = true;
          }
        } else if constexpr (std::is_same_v<T, PreviousGtids>) {
          if (!sf) {
            append("Previous-GTIDs\n# ");
            if (b.data.size() >= 8 && ByteCursor(b.data, 0).u64le() == 0)
              append("[empty]");
            else
              append_gtid_set(buf_, b.data);
            append("\n");
          }
        } else if constexpr (std::is_same_v<T, MariaGtid>) {
          if (!sf) {
            Writer(buf_) << "GTID " << std::uint64_t{b.domain_id} << "-"
                         << std::uint64_t{ev.header.server_id} << "-" << b.seq_no;
            if (b.flags & MariaGtid::kGroupCommitId) fmt::format_to(it, " cid={}", b.commit_id);
            if (b.flags & MariaGtid::kDdl) append(" ddl");
            if (b.flags & MariaGtid::kTransactional) append(" trans");
            if (b.flags & MariaGtid::kWaited) append(" waited");
            append("\n");
          }
          if (!opts_.skip_gtids) {
            const bool skip_parallel = !(b.flags & MariaGtid::kAllowParallel);
            if (st_.skip_parallel != skip_parallel) {
              st_.skip_parallel = skip_parallel;
              fmt::format_to(it, "/*M!100101 SET @@session.skip_parallel_replication={}*/",
                             skip_parallel ? 1 : 0);
              delimiter();
            }
            if (st_.gtid_domain != b.domain_id) {
              st_.gtid_domain = b.domain_id;
              fmt::format_to(it, "/*M!100001 SET @@session.gtid_domain_id={}*/", b.domain_id);
              delimiter();
            }
            if (st_.gtid_server != ev.header.server_id) {
              st_.gtid_server = ev.header.server_id;
              fmt::format_to(it, "/*M!100001 SET @@session.server_id={}*/", ev.header.server_id);
              delimiter();
            }
            fmt::format_to(it, "/*M!100001 SET @@session.gtid_seq_no={}*/", b.seq_no);
            delimiter();
          }
          if (b.flags & MariaGtid::kPreparedXa) {
            append("XA START ");
            append_xid(buf_, b.xa_format_id, b.xa_data, b.xa_gtrid_len, b.xa_bqual_len);
            delimiter();
          } else if (!(b.flags & MariaGtid::kStandalone)) {
            append("START TRANSACTION\n");
            delimiter();
          }
        } else if constexpr (std::is_same_v<T, MariaGtidList>) {
          if (!sf) {
            append("Gtid list [");
            append_maria_gtid_list(buf_, b);
            append("]\n");
          }
        } else if constexpr (std::is_same_v<T, BinlogCheckpoint>) {
          if (!sf) fmt::format_to(it, "Binlog checkpoint {}\n", b.file);
        } else if constexpr (std::is_same_v<T, RowsQuery>) {
          if (!sf) {
            const bool annotate = type == EventType::kMariaAnnotateRows;
            append(annotate ? "Annotate_rows:\n" : "Rows_query\n");
            std::string_view q = b.query;
            while (!q.empty()) {
              const auto nl = q.find('\n');
              append(annotate ? "#Q> " : "# ");
              append(q.substr(0, nl));
              append("\n");
              if (nl == std::string_view::npos) break;
              q.remove_prefix(nl + 1);
            }
          }
        } else if constexpr (std::is_same_v<T, XaPrepare>) {
          if (!sf) append("XA PREPARE\n");
          append(b.one_phase ? "XA COMMIT " : "XA PREPARE ");
          append_xid(buf_, b.format_id, b.data, b.gtrid_len, b.bqual_len);
          if (b.one_phase) append(" ONE PHASE");
          append("\n");
          delimiter();
        } else if constexpr (std::is_same_v<T, Incident>) {
          if (!sf) fmt::format_to(it, "Incident: {}\n", b.type == 1 ? "LOST_EVENTS" : "NONE");
          append("RELOAD DATABASE; # Shall generate syntax error\n");
          delimiter();
        } else if constexpr (std::is_same_v<T, Heartbeat>) {
          if (!sf) append("Heartbeat\n");
        } else if constexpr (std::is_same_v<T, TransactionPayload>) {
          if (!sf)
            fmt::format_to(it,
                           "Transaction_Payload\tpayload_size={}\tcompression_type={}\t"
                           "uncompressed_size={}\n# The events of the payload follow, each at "
                           "its position\n",
                           b.payload_size,
                           b.compression == TransactionPayload::kZstd ? "ZSTD" : "NONE",
                           b.uncompressed_size);
        } else if constexpr (std::is_same_v<T, LoadBlock>) {
          if (!sf)
            fmt::format_to(it, "\n#{}: file_id: {}  block_len: {}\n",
                           type == EventType::kBeginLoadQuery ? "Begin_load_query" : "Append_block",
                           b.file_id, b.data.size());
          write_load_block(ev, b, type == EventType::kBeginLoadQuery);
        } else if constexpr (std::is_same_v<T, LoadData>) {
          if (type != EventType::kCreateFile)
            throw Error(ErrorCode::kUnsupportedFormat,
                        "LOAD DATA of a MySQL 3.23/4.0 log (" + std::string(event_type_name(type)) +
                            "): the data file is not in the binlog, it was read from " +
                            std::string(b.fname) + " on the source",
                        ev.pos);
          if (!sf)
            fmt::format_to(it, "Create_file: db: {}  table: {}  file_id: {}  block_len: {}\n", b.db,
                           b.table, b.file_id, b.block.size());
          create_file(ev, b);
        } else if constexpr (std::is_same_v<T, LoadFileRef>) {
          if (type == EventType::kExecLoad) {
            if (!sf) fmt::format_to(it, "Exec_load: file_id: {}\n", b.file_id);
            exec_load(ev, b.file_id);
          } else {
            if (!sf) fmt::format_to(it, "Delete_file: file_id: {}\n", b.file_id);
            std::erase_if(pending_loads_, [&](const auto& p) { return p.file_id == b.file_id; });
          }
        } else {
          if (!sf) fmt::format_to(it, "{} (not replayed)\n", event_type_name(type));
        }
      },
      ev.body);
}

}  // namespace binrecover::recovery
