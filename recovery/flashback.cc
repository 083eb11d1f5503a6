#include "recovery/flashback.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>

#include "binlog/error.h"
#include "binlog/maria_compression.h"
#include "binlog/payload.h"
#include "binlog/row_values.h"
#include "recovery/row_sql.h"
#include "recovery/walk.h"

namespace binrecover::recovery {

using binlog::Event;

namespace {

// A spill file: created unlinked (nothing is left behind), written in blocks of about 1 MiB
// and read back with pread straight into the output, so the text is copied once each way.
class SpillFile {
 public:
  SpillFile() {
    std::FILE* f = std::tmpfile();
    if (f == nullptr)
      throw Error(ErrorCode::kIo, std::string("cannot create a temporary file for --flashback: ") +
                                      std::strerror(errno));
    file_ = f;
    fd_ = fileno(f);
  }
  ~SpillFile() { std::fclose(file_); }
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  // Where the next byte appended goes.
  std::uint64_t size() const { return written_ + pending_.size(); }
  fmt::memory_buffer& pending() { return pending_; }
  // Writes what is pending once there is enough of it (always with `all`).
  void write_pending(bool all) {
    if (pending_.size() < kBlock && !(all && pending_.size() > 0)) return;
    const char* p = pending_.data();
    std::size_t left = pending_.size();
    while (left > 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        throw Error(ErrorCode::kIo, std::string("cannot write the --flashback spill file: ") +
                                        std::strerror(errno));
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    written_ += pending_.size();
    pending_.clear();
  }

  void read(std::uint64_t offset, char* to, std::size_t n) const {
    while (n > 0) {
      const ssize_t r = ::pread(fd_, to, n, static_cast<off_t>(offset));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) throw Error(ErrorCode::kIo, "cannot read the --flashback spill file back");
      to += r;
      n -= static_cast<std::size_t>(r);
      offset += static_cast<std::uint64_t>(r);
    }
  }

 private:
  static constexpr std::size_t kBlock = 1 << 20;
  std::FILE* file_ = nullptr;
  int fd_ = -1;
  std::uint64_t written_ = 0;
  fmt::memory_buffer pending_;
};

}  // namespace

RunStats run_flashback(const std::vector<InputFile>& inputs, const DecodeOptions& decode,
                       const FilterOptions& fopts, Output& out, const binlog::WarningSink& warn,
                       Schema* schema) {
  RunStats stats;
  ContentFilter filter(fopts);
  SpillFile blocks;
  SpillFile index;  // u64 offset / u64 length per undone transaction
  std::uint64_t count = 0;
  // Decoded table maps by table id, rebuilt only when a map's bytes or the schema change.
  struct CachedTable {
    SqlTable table;
    std::string sig;
    std::uint64_t generation = 0;
  };
  std::map<std::uint64_t, CachedTable> tables;
  fmt::memory_buffer statements;  // the undo statements of one transaction, in row order
  std::vector<std::size_t> ends;  // where each one ends
  std::vector<char> keep;
  std::vector<std::byte> scratch;

  WalkRange range;
  range.start_position = fopts.start_position;
  range.stop_position = fopts.stop_position;
  range.stop_datetime = fopts.stop_datetime;
  walk_units(inputs, decode, range, warn, [&](const std::string& file, const Transaction& t) {
    stats.events += t.events.size();
    if (t.kind != UnitKind::kTransaction || !t.complete) return true;
    if (schema != nullptr) schema->observe(t);
    const Event& head = t.events.front();
    if (fopts.server_id && head.header.server_id != *fopts.server_id) return true;
    if (fopts.start_datetime && head.header.timestamp < *fopts.start_datetime) return true;
    if (!filter.select(t, keep)) return true;
    statements.clear();
    ends.clear();
    for (std::size_t k = 0; k < t.events.size(); ++k) {
      const Event& ev = t.events[k];
      if (const auto* tm = std::get_if<binlog::TableMap>(&ev.body)) {
        CachedTable& c = tables[tm->table_id];
        const std::uint64_t gen = schema != nullptr ? schema->generation() : 0;
        // The map's names and column descriptions (not its header or checksum, which differ
        // every time): from the database name to the end of the last field.
        const auto* from = reinterpret_cast<const char*>(tm->db.data());
        const auto* to = reinterpret_cast<const char*>(tm->null_bits.data() + tm->null_bits.size());
        if (!tm->optional_metadata.empty())
          to = reinterpret_cast<const char*>(tm->optional_metadata.data() +
                                             tm->optional_metadata.size());
        const std::string_view body =
            to > from ? std::string_view(from, static_cast<std::size_t>(to - from))
                      : std::string_view();
        if (c.sig != body || c.generation != gen || c.table.info.layout.empty()) {
          c.table.info = binlog::table_info(*tm);
          if (schema != nullptr) schema->complete(c.table.info, ev.pos, false);
          c.table.prepare();
          c.sig.assign(body);
          c.generation = gen;
        }
        continue;
      }
      if (!keep[k]) continue;
      if (const auto* q = std::get_if<binlog::Query>(&ev.body)) {
        if (is_begin(q->query) || is_commit_or_rollback(q->query)) continue;
        throw Error(ErrorCode::kUnsupportedFormat,
                    "this statement cannot be undone (DDL or statement-format change: "
                    "undo SQL needs row events): " +
                        std::string(q->query.substr(0, 80)),
                    ev.pos);
      }
      const auto* rows = std::get_if<binlog::Rows>(&ev.body);
      if (rows == nullptr) continue;
      const auto it = tables.find(rows->table_id);
      if (it == tables.end())
        throw Error(ErrorCode::kMissingTableMap, "rows event without its table map", ev.pos);
      binlog::Bytes images = rows->rows;
      if (rows->compressed) {
        scratch.clear();
        binlog::maria_uncompress_append(rows->rows, scratch, ev.pos);
        images = binlog::Bytes(scratch.data(), scratch.size());
      }
      append_rows_undo(statements, ends, *rows, images, it->second.table, ev.pos);
    }
    if (ends.empty()) return true;
    // Undo runs backwards: the last row of the last rows event first.
    fmt::memory_buffer& block = blocks.pending();
    const std::uint64_t at = blocks.size();
    const std::size_t from = block.size();
    fmt::format_to(std::back_inserter(block), "# undo of the transaction at {}:{}\nBEGIN;\n", file,
                   t.first_pos());
    for (std::size_t n = ends.size(); n-- > 0;) {
      const char* start = statements.data() + (n == 0 ? 0 : ends[n - 1]);
      block.append(start, statements.data() + ends[n]);
      block.append(std::string_view(";\n"));
    }
    block.append(std::string_view("COMMIT;\n"));
    const std::uint64_t rec[2] = {at, block.size() - from};
    blocks.write_pending(false);
    const auto* r = reinterpret_cast<const char*>(rec);
    index.pending().append(r, r + sizeof rec);
    index.write_pending(false);
    ++count;
    ++stats.transactions_written;
    return true;
  });

  blocks.write_pending(true);
  index.write_pending(true);
  // Newest transaction first: walk the index backwards.
  out.append(
      "# binrecover --flashback: the undo of the selected range, newest transaction first\n");
  for (std::uint64_t n = count; n-- > 0;) {
    std::uint64_t rec[2];
    index.read(n * sizeof rec, reinterpret_cast<char*>(rec), sizeof rec);
    fmt::memory_buffer& buf = out.buf();  // read straight into the output
    const std::size_t at = buf.size();
    buf.resize(at + rec[1]);
    blocks.read(rec[0], buf.data() + at, rec[1]);
    out.flush_if_large();
  }
  out.flush();
  return stats;
}

}  // namespace binrecover::recovery
