#include "recovery/flashback.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>

#include "binlog/error.h"
#include "binlog/maria_compression.h"
#include "binlog/payload.h"
#include "binlog/row_values.h"
#include "recovery/row_sql.h"

namespace binrecover::recovery {

using binlog::Event;

namespace {

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f != nullptr) std::fclose(f);
  }
};
using TempFile = std::unique_ptr<std::FILE, FileCloser>;

TempFile temp_file() {
  std::FILE* f = std::tmpfile();  // unlinked at once: nothing is left behind
  if (f == nullptr)
    throw Error(ErrorCode::kIo, std::string("cannot create a temporary file for --flashback: ") +
                                    std::strerror(errno));
  return TempFile(f);
}

void write_all(std::FILE* f, const void* p, std::size_t n) {
  if (n != 0 && std::fwrite(p, 1, n, f) != n)
    throw Error(ErrorCode::kIo,
                std::string("cannot write the --flashback spill file: ") + std::strerror(errno));
}

}  // namespace

RunStats run_flashback(const std::vector<InputFile>& inputs, const DecodeOptions& decode,
                       const FilterOptions& fopts, Output& out, const binlog::WarningSink& warn) {
  RunStats stats;
  ContentFilter filter(fopts);
  TempFile blocks = temp_file();
  TempFile index = temp_file();  // u64 offset / u64 length per undone transaction
  std::uint64_t written = 0, count = 0;
  std::map<std::uint64_t, binlog::TableInfo> tables;
  std::vector<std::string> statements;
  std::vector<char> keep;
  std::vector<std::byte> scratch;
  fmt::memory_buffer block;

  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const InputFile& in = inputs[i];
    try {
      const std::unique_ptr<binlog::Source> source = open_input(in);
      binlog::EventReader reader(*source, decode.reader, warn);
      TransactionAssembler assembler;
      std::vector<Transaction*> ready;
      bool seeked = !(i == 0 && fopts.start_position && *fopts.start_position > 4);
      bool stopped = false;
      auto consume = [&]() {
        for (Transaction* t : ready) {
          if (t->kind != UnitKind::kTransaction || !t->complete) continue;
          const Event& head = t->events.front();
          if (fopts.server_id && head.header.server_id != *fopts.server_id) continue;
          if (fopts.start_datetime && head.header.timestamp < *fopts.start_datetime) continue;
          if (!filter.select(*t, keep)) continue;
          statements.clear();
          for (std::size_t k = 0; k < t->events.size(); ++k) {
            const Event& ev = t->events[k];
            if (const auto* tm = std::get_if<binlog::TableMap>(&ev.body)) {
              tables[tm->table_id] = binlog::table_info(*tm);
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
            append_rows_undo(statements, *rows, images, it->second, ev.pos);
          }
          if (statements.empty()) continue;
          // Rows events are undone last first: reverse event by event (each event's rows are
          // already reversed) by writing the statements backwards.
          block.clear();
          fmt::format_to(std::back_inserter(block), "# undo of the transaction at {}:{}\nBEGIN;\n",
                         in.display_name, t->first_pos());
          for (auto s = statements.rbegin(); s != statements.rend(); ++s) {
            block.append(s->data(), s->data() + s->size());
            block.append(std::string_view(";\n"));
          }
          block.append(std::string_view("COMMIT;\n"));
          write_all(blocks.get(), block.data(), block.size());
          const std::uint64_t rec[2] = {written, block.size()};
          write_all(index.get(), rec, sizeof rec);
          written += block.size();
          ++count;
          ++stats.transactions_written;
        }
        ready.clear();
        assembler.recycle();
      };
      for (;;) {
        std::optional<Event> ev = reader.next(&assembler.arena());
        if (!ev) break;
        ++stats.events;
        if (!seeked && reader.seen_format()) {
          reader.seek(*fopts.start_position);
          seeked = true;
          continue;
        }
        if (i + 1 == inputs.size() && fopts.stop_position && ev->pos >= *fopts.stop_position) {
          stopped = true;
          break;
        }
        if (fopts.stop_datetime && ev->type() != binlog::EventType::kFormatDescription &&
            ev->header.timestamp >= *fopts.stop_datetime) {
          stopped = true;
          break;
        }
        assembler.push(*ev, ready);
        if (const auto* tp = std::get_if<binlog::TransactionPayload>(&ev->body)) {
          binlog::PayloadSource inner_source(*tp, ev->pos, in.display_name);
          binlog::EventReader inner(inner_source, decode.reader, warn,
                                    binlog::payload_context(reader.format()));
          while (std::optional<Event> iev = inner.next(&assembler.arena())) {
            assembler.push(*iev, ready);
            if (!ready.empty()) consume();
          }
        }
        if (!ready.empty()) consume();
      }
      if (assembler.finish() != nullptr) assembler.recycle();
      if (stopped) break;
    } catch (Error& e) {
      e.with_file(in.display_name);
      throw;
    }
  }

  // Newest transaction first: walk the index backwards.
  out.append(
      "# binrecover --flashback: the undo of the selected range, newest transaction first\n");
  std::vector<char> copy;
  for (std::uint64_t n = count; n-- > 0;) {
    std::uint64_t rec[2];
    if (std::fseek(index.get(), static_cast<long>(n * sizeof rec), SEEK_SET) != 0 ||
        std::fread(rec, sizeof rec, 1, index.get()) != 1 ||
        std::fseek(blocks.get(), static_cast<long>(rec[0]), SEEK_SET) != 0)
      throw Error(ErrorCode::kIo, "cannot read the --flashback spill file back");
    copy.resize(rec[1]);
    if (rec[1] != 0 && std::fread(copy.data(), 1, rec[1], blocks.get()) != rec[1])
      throw Error(ErrorCode::kIo, "cannot read the --flashback spill file back");
    out.append(std::string_view(copy.data(), copy.size()));
    out.flush_if_large();
  }
  out.flush();
  return stats;
}

}  // namespace binrecover::recovery
