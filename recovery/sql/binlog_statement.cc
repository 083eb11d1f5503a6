// SQL output: BINLOG statements, assembled from the row events of each statement (and cut
// under max_binlog_statement), with their -v comments after them (recovery/sql/sql_sink.h).
#include "binlog/error.h"
#include "binlog/event_edit.h"
#include "binlog/maria_compression.h"
#include "binlog/row_layout.h"
#include "recovery/reading/temp_file.h"
#include "recovery/sql/row_sql.h"
#include "recovery/sql/sql_sink.h"
#include "recovery/text/base64.h"

namespace binrecover::recovery {

using namespace binlog;

namespace {

// What an event of `n` bytes adds to a statement, at most: its text (base64_text_size), its
// "\n" and a byte of margin; and what BINLOG '\n...' adds around the text.
constexpr std::size_t base64_size(std::size_t n) { return base64_text_size(n) + 2; }
constexpr std::size_t kBinlogStatementFrame = 16;

}  // namespace

SqlSink::SqlSink(Output& out, SqlOptions opts)
    : out_(out),
      opts_(std::move(opts)),
      comments_(!opts_.short_form && !opts_.apply),
      buf_(out.buf()),
      tables_(TableCache::Options{nullptr, true, &opts_.rewrite_db, opts_.target_mariadb}) {}

SqlSink::~SqlSink() = default;

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
    add_statement_event(raw, raw.data() == ev.raw.data());
    rows_pending_ = true;
    return;
  }
  // Limited statements (replay): where the event's STMT_END_F flag is, for cutting statements.
  const std::size_t flags_at = rows_flags_offset(ctx, ev.header.type);
  const bool crc = ctx.checksum == ChecksumAlg::kCrc32;
  if (rows == nullptr) {
    push_limited(raw, false, flags_at, crc, raw.data() == ev.raw.data());
    return;
  }
  const std::size_t budget = limited_budget();
  const SqlTable* t = tables_.find(rows->table_id);
  const auto head = static_cast<std::size_t>(rows->rows.data() - ev.raw.data());
  const std::size_t tail = crc ? 4 : 0;
  if (base64_size(raw.size()) <= budget || t == nullptr || head + tail > raw.size() ||
      flags_at + 2 > head) {
    push_limited(raw, true, flags_at, crc, raw.data() == ev.raw.data());  // fits (or no layout)
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
  if (row_ends_.size() <= 1) {  // one row: nothing to cut
    push_limited(raw, true, flags_at, crc, raw.data() == ev.raw.data());
    return;
  }
  cut_rows_event(
      raw, head, tail, flags_at, row_ends_, crc,
      [&](std::size_t size) { return base64_size(size) <= budget; }, piece_,
      [&](Bytes piece) { push_limited(piece, true, flags_at, crc, false); });
}

std::size_t SqlSink::limited_budget() const {
  // What one rows event may take so that it fits a statement after the statement's table maps
  // (each encoded on its own: a few characters of padding and a newline each, hence the margin).
  const std::size_t used =
      kBinlogStatementFrame + base64_size(stmt_maps_.size()) + 8 * stmt_map_count_ + 64;
  return opts_.max_binlog_statement > used ? opts_.max_binlog_statement - used : 0;
}

// The event's base64 is made when the statement is written (StatementText): `stable` bytes are
// kept where they are until then, others copied; in a streamed transaction (events gone after
// their call, text written only once the transaction is whole) the text past 1 MiB is set aside.
void SqlSink::add_statement_event(Bytes raw, bool stable) {
  if (streamed_ && !opts_.apply)
    text_.add_set_aside(raw);
  else
    text_.add(raw, stable && !streamed_);
}

void SqlSink::push_limited(Bytes raw, bool is_rows, std::size_t flags_at, bool crc, bool stable) {
  // The last rows event is held back, and table maps after it too: if the next rows event does
  // not fit the statement any more, the held one gets STMT_END_F and closes the statement, and
  // the next statement starts with the table maps again (the server forgets them at a
  // statement's end, and silently skips rows events of a table id it has no map for). Each
  // BINLOG statement is then a whole statement of its own; inside the transaction that is the
  // same change.
  if (!is_rows) {
    stmt_maps_.insert(stmt_maps_.end(), raw.begin(), raw.end());
    ++stmt_map_count_;
    if (!holding_) {  // the statement's first maps
      add_statement_event(raw, stable);
      rows_pending_ = true;
    } else {
      pending_maps_.insert(pending_maps_.end(), raw.begin(), raw.end());
    }
    return;
  }
  if (holding_) {
    const std::uint64_t need = text_.size() + base64_size(held_.size()) +
                               base64_size(pending_maps_.size()) + base64_size(raw.size()) +
                               kBinlogStatementFrame;
    if (need <= opts_.max_binlog_statement) {
      encode_held();
      encode_pending_maps();
    } else {
      if (held_.data() != held_copy_.data()) held_copy_.assign(held_.begin(), held_.end());
      held_copy_[held_flags_at_] |= std::byte{kStmtEndFlag};
      seal_event(held_copy_, held_crc_);
      held_ = Bytes(held_copy_.data(), held_copy_.size());
      encode_held();
      emit_binlog_statement();
      pending_maps_.clear();  // they are in stmt_maps_, which the next statement starts with
      add_statement_event(Bytes(stmt_maps_.data(), stmt_maps_.size()), false);
      rows_pending_ = true;
    }
  }
  // An event that ends its statement is encoded at once: nothing can follow it there.
  if (flags_at < raw.size() && (raw[flags_at] & std::byte{kStmtEndFlag}) != std::byte{0}) {
    add_statement_event(raw, stable);
    rows_pending_ = true;
    return;
  }
  // The event's own bytes stay valid until its transaction is written, unless they are a
  // rewritten copy or the transaction is streamed: then they are copied.
  if (stable && !streamed_) {
    held_ = raw;
  } else {
    held_copy_.assign(raw.begin(), raw.end());
    held_ = Bytes(held_copy_.data(), held_copy_.size());
  }
  holding_ = true;
  held_flags_at_ = flags_at;
  held_crc_ = crc;
  rows_pending_ = true;
}

void SqlSink::encode_held() {
  add_statement_event(held_, held_.data() != held_copy_.data());
  holding_ = false;
}

void SqlSink::encode_pending_maps() {
  if (pending_maps_.empty()) return;
  add_statement_event(Bytes(pending_maps_.data(), pending_maps_.size()), false);
  pending_maps_.clear();
}

void SqlSink::drop_pending_maps() {
  text_.clear();
  rows_pending_ = false;
  stmt_maps_.clear();
  stmt_map_count_ = 0;
  pending_maps_.clear();
  holding_ = false;
}

void SqlSink::flush_binlog_statement() {
  if (opts_.rows_as_sql && !trigger_stmt_ && !unit_binlog_rows_) {  // only maps, unused
    drop_pending_maps();
    return;
  }
  if (holding_) encode_held();
  encode_pending_maps();
  stmt_maps_.clear();
  stmt_map_count_ = 0;
  emit_binlog_statement();
}

void SqlSink::emit_binlog_statement() {
  if (!rows_pending_) return;
  if (!opts_.short_form && !text_.empty()) {
    append(comments_ ? "\nBINLOG '\n" : "BINLOG '\n");  // (a blank line first, as both tools)
    out_.append_large(text_.set_aside_text());
    text_.encode_into(buf_);
    append("'");
    delimiter();
  }
  out_.append_large(verbose_spill_);
  if (verbose_.size() > 0) {
    out_.append_large(std::string_view(verbose_.data(), verbose_.size()));
    verbose_.clear();
  }
  render_verbose(buf_);
  text_.clear();
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
      stmt_rows_ += append_rows_verbose(out, b, images, *p.table, opts_.verbose > 1, ev.pos);
    } catch (Error& e) {
      e.with_offset(ev.pos);
      e.with_event(std::string(event_type_name(ev.header.type)));
      verbose_pending_.clear();
      throw;
    }
  }
  verbose_pending_.clear();
}

}  // namespace binrecover::recovery
