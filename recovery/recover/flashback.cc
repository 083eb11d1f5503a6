#include "recovery/recover/flashback.h"

#include <map>

#include "binlog/error.h"
#include "binlog/event_edit.h"
#include "binlog/maria_compression.h"
#include "binlog/payload.h"
#include "binlog/row_values.h"
#include "recovery/reading/statement_dbs.h"
#include "recovery/reading/temp_file.h"
#include "recovery/reading/walker.h"
#include "recovery/sql/row_sql.h"
#include "recovery/sql/sql_quote.h"
#include "recovery/sql/sql_sink.h"
#include "recovery/sql/table_cache.h"

namespace binrecover::recovery {

using binlog::Event;

namespace {

// The undo text of every transaction goes to a temporary file as it is made, in blocks; an
// index file lists the blocks. Read backwards, the index gives the transactions newest first.
// A transaction's undo statements are reversed in memory in chunks of about 1 MiB: one chunk
// (header + statements reversed + COMMIT) for most, and for a larger one the COMMIT, its chunks
// and then its header, each a block of its own, so memory never holds more than a chunk.
class Flashback : public WalkConsumer {
 public:
  Flashback(Schema* schema, const DatabaseRewrites& rewrites)
      : schema_(schema), tables_(TableCache::Options{schema, false, &rewrites}) {}

  void observe(const Event& ev) override {
    if (schema_ != nullptr) schema_->observe(ev);
  }
  // The DDL before the range: the undo of a table created there must know its generated
  // columns (MySQL logs them in the row images; the undo may not set them).
  bool learns_before_start() const override { return schema_ != nullptr; }
  void learn(const Event& ev) override { schema_->observe(ev); }

  void begin_unit(const UnitInfo& u, const binlog::FormatContext& /*ctx*/) override {
    in_unit_ = u.kind == UnitKind::kTransaction && u.complete;
    statements_.clear();
    ends_.clear();
    chunked_ = false;
  }

  void event(const Event& ev, std::uint8_t /*marks*/, const binlog::FormatContext& ctx) override {
    if (ev.type() == binlog::EventType::kFormatDescription && fde_.empty()) {
      // The format the BINLOG statements of the undo run under: the first file's.
      fde_.assign(ev.raw.begin(), ev.raw.end());
      const auto* f = std::get_if<binlog::FormatDescription>(&ev.body);
      fde_crc_ = f != nullptr && f->context.checksum == binlog::ChecksumAlg::kCrc32;
    }
    if (!in_unit_) return;
    if (const auto* tm = std::get_if<binlog::TableMap>(&ev.body)) {
      table_map(ev, *tm, ctx);
      return;
    }
    if (const auto* q = std::get_if<binlog::Query>(&ev.body)) {
      if (is_begin(q->query) || is_commit_or_rollback(q->query)) return;
      throw Error(ErrorCode::kUnsupportedFormat,
                  "this statement cannot be undone (DDL or statement-format change: "
                  "undo SQL needs row events): " +
                      std::string(q->query.substr(0, 80)),
                  ev.pos);
    }
    const auto* rows = std::get_if<binlog::Rows>(&ev.body);
    if (rows == nullptr) return;
    const SqlTable* found = tables_.find(rows->table_id);
    if (found == nullptr)
      throw Error(ErrorCode::kMissingTableMap, "rows event without its table map", ev.pos);
    binlog::Bytes images = rows->rows;
    if (rows->compressed) {
      scratch_.clear();
      binlog::maria_uncompress_append(rows->rows, scratch_, ev.pos);
      images = binlog::Bytes(scratch_.data(), scratch_.size());
    }
    const SqlTable& table = *found;
    // A table with triggers (known from --schema and the log's DDL) is undone by inverted
    // events: plain SQL would fire its triggers, whose own changes the log undoes already.
    if (table.columns.size() >= rows->column_count && !table.columns.empty() &&
        !table.has_triggers) {
      const std::size_t first = ends_.size();
      append_rows_undo(statements_, ends_, *rows, images, table, ev.pos);
      if (table.client_alters_names) prepare_from_hex(first);
    } else
      binlog_undo(ev, *rows, images, table, ctx);  // no column names: the inverse event
    if (statements_.size() >= kChunk) {
      if (!chunked_) {
        add_block("COMMIT;\n");
        chunked_ = true;
      }
      add_reversed();
      end_block();
    }
  }

  void end_unit(const UnitInfo& u) override {
    if (!in_unit_ || (ends_.empty() && !chunked_)) return;
    if (chunked_) {
      add_reversed();
      end_block();
      header(u);
      end_block();
    } else {
      header(u);
      add_reversed();
      add_block("COMMIT;\n");
    }
    ++transactions_;
  }

  // Writes the undo, newest transaction first.
  void write(Output& out) {
    blocks_.append(std::string_view(pending_.data(), pending_.size()));
    pending_.clear();
    index_.append(std::string_view(pending_index_.data(), pending_index_.size()));
    pending_index_.clear();
    out.append(
        "# binrecover --flashback: the undo of the selected range, newest transaction first\n"
        // The session the statements are written for: rows applied as a replica applies them
        // (NO_AUTO_VALUE_ON_ZERO), every quoted name read by the mysql client as the server
        // reads it (NO_BACKSLASH_ESCAPES; no value relies on either mode), utf8mb4 names.
        "/*!\\C utf8mb4 */;\n"
        "SET @@session.sql_mode='NO_AUTO_VALUE_ON_ZERO,NO_BACKSLASH_ESCAPES', "
        "@@session.character_set_client=utf8mb4, @@session.collation_connection=utf8mb4_bin;\n");
    if (binlog_form_) {
      // Tables without column names are undone by BINLOG statements: their format first.
      out.append("BINLOG '\n");
      append_base64(out.buf(), binlog::Bytes(fde_.data(), fde_.size()));
      out.append("\n';\n");
      // The statement leaves MySQL's GTID_NEXT NOT_YET_DETERMINED: the undo transactions would
      // be ANONYMOUS, refused under GTID_MODE=ON (MariaDB skips this MySQL 5.7+ comment).
      out.append("/*!50700 SET @@SESSION.GTID_NEXT='AUTOMATIC'*/;\n");
    }
    for (std::uint64_t n = index_.size() / kRecord; n-- > 0;) {
      std::uint64_t rec[2];
      index_.read(n * kRecord, reinterpret_cast<char*>(rec), kRecord);
      fmt::memory_buffer& buf = out.buf();  // read straight into the output
      const std::size_t at = buf.size();
      buf.resize(at + rec[1]);
      blocks_.read(rec[0], buf.data() + at, rec[1]);
      out.flush_if_large();
    }
    out.flush();
  }

  std::uint64_t transactions() const { return transactions_; }

 private:
  static constexpr std::size_t kChunk = std::size_t{1} << 20;
  static constexpr std::size_t kRecord = 2 * sizeof(std::uint64_t);

  // The undo as mariadb-binlog --flashback writes it, for a table whose columns have no names:
  // its table map and the inverse rows event in one BINLOG statement.
  void binlog_undo(const Event& ev, const binlog::Rows& rows, binlog::Bytes images,
                   const SqlTable& t, const binlog::FormatContext& ctx);

  void table_map(const Event& ev, const binlog::TableMap& tm, const binlog::FormatContext& ctx) {
    tables_.update(ev, tm, ctx);
    // Its bytes without a checksum, for BINLOG statements (sealed for the undo's format).
    const std::size_t crc =
        !ev.in_payload && ctx.checksum == binlog::ChecksumAlg::kCrc32 && ev.raw.size() > 4 ? 4 : 0;
    maps_[tm.table_id].assign(ev.raw.begin(), ev.raw.end() - static_cast<std::ptrdiff_t>(crc));
  }

  // The statements from ends_[first] on name a table the mysql client would alter: each one
  // becomes a PREPARE of its hex text.
  void prepare_from_hex(std::size_t first) {
    const std::size_t from = first == 0 ? 0 : ends_[first - 1];
    const std::string text(statements_.data() + from, statements_.size() - from);
    statements_.resize(from);
    std::size_t start = 0;
    for (std::size_t n = first; n < ends_.size(); ++n) {
      const std::size_t end = ends_[n] - from;
      append_prepared(statements_, std::string_view(text).substr(start, end - start), "utf8mb4",
                      ";\n");
      start = end;
      ends_[n] = statements_.size();
    }
  }

  void header(const UnitInfo& u) {
    pending_.append(std::string_view("# undo of the transaction at "));
    append_comment_text(pending_, *u.file);
    fmt::format_to(std::back_inserter(pending_), ":{}\nBEGIN;\n", u.first_pos);
  }
  void add_block(std::string_view text) {
    pending_.append(text);
    end_block();
  }
  // Undo runs backwards: the last row of the last rows event first.
  void add_reversed() {
    for (std::size_t n = ends_.size(); n-- > 0;) {
      const char* start = statements_.data() + (n == 0 ? 0 : ends_[n - 1]);
      pending_.append(start, statements_.data() + ends_[n]);
      pending_.append(std::string_view(";\n"));
    }
    statements_.clear();
    ends_.clear();
  }
  // Everything appended since the last block is one block.
  void end_block() {
    const std::uint64_t at = blocks_.size() + block_start_;
    const std::uint64_t rec[2] = {at, pending_.size() - block_start_};
    block_start_ = pending_.size();
    const auto* r = reinterpret_cast<const char*>(rec);
    pending_index_.append(r, r + kRecord);
    if (pending_index_.size() >= kChunk) {
      index_.append(std::string_view(pending_index_.data(), pending_index_.size()));
      pending_index_.clear();
    }
    if (pending_.size() >= kChunk) {
      blocks_.append(std::string_view(pending_.data(), pending_.size()));
      pending_.clear();
      block_start_ = 0;
    }
  }

  Schema* schema_;
  TableCache tables_;
  std::map<std::uint64_t, std::vector<std::byte>> maps_;  // table maps' bytes, no checksum
  bool in_unit_ = false;
  bool chunked_ = false;
  fmt::memory_buffer statements_;  // the undo statements of one chunk, in row order
  std::vector<std::size_t> ends_;  // where each one ends
  std::vector<std::byte> scratch_;
  fmt::memory_buffer pending_;  // blocks not yet in blocks_
  fmt::memory_buffer pending_index_;
  std::size_t block_start_ = 0;  // where the current block starts in pending_
  TempFile blocks_{"--flashback"};
  TempFile index_{"--flashback"};  // u64 offset / u64 length per block
  std::uint64_t transactions_ = 0;
  std::vector<std::byte> fde_;  // the first format description, as read
  bool fde_crc_ = false;
  bool binlog_form_ = false;  // some undo is a BINLOG statement
  std::vector<std::byte> event_, map_;
};

void Flashback::binlog_undo(const Event& ev, const binlog::Rows& rows, binlog::Bytes images,
                            const SqlTable& t, const binlog::FormatContext& ctx) {
  if (fde_.empty())
    throw Error(ErrorCode::kUnsupportedFormat,
                "undo without column names needs the file's format description", ev.pos);
  binlog::inverted_rows_event(ev, rows, images, t.info.layout, ctx, event_);
  if (fde_crc_) event_.resize(event_.size() + 4);
  binlog::seal_event(event_, fde_crc_);
  const std::vector<std::byte>& map = maps_[rows.table_id];
  map_.assign(map.begin(), map.end());
  if (fde_crc_) map_.resize(map_.size() + 4);
  binlog::seal_event(map_, fde_crc_);
  statements_.append(std::string_view("BINLOG '\n"));
  append_base64(statements_, binlog::Bytes(map_.data(), map_.size()));
  statements_.push_back('\n');
  append_base64(statements_, binlog::Bytes(event_.data(), event_.size()));
  statements_.append(std::string_view("\n'"));
  ends_.push_back(statements_.size());
  binlog_form_ = true;
}

}  // namespace

RunStats run_flashback(const std::vector<InputFile>& inputs, const DecodeOptions& decode,
                       const FilterOptions& filter, Output& out, const binlog::WarningSink& warn,
                       Schema* schema) {
  Flashback fb(schema, filter.rewrite_db);
  WalkOptions wo;
  wo.decode = decode;
  wo.filter = filter;
  RunStats stats = walk(inputs, wo, fb, warn);
  fb.write(out);
  stats.transactions_written = fb.transactions();
  return stats;
}

}  // namespace binrecover::recovery
