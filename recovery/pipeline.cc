#include "recovery/pipeline.h"

#include <memory>

#include "binlog/error.h"
#include "binlog/payload.h"

namespace binrecover::recovery {

using binlog::Event;
using binlog::EventType;

namespace {

bool is_format_event(EventType t) {
  return t == EventType::kFormatDescription || t == EventType::kStartV3;
}

// A torn last event in a file the server had not closed is where the server stopped writing:
// decode up to it, warn, and treat the file as ended.
bool torn_tail_of_open_file(const Error& e, const binlog::EventReader& reader) {
  return reader.in_use() && e.code() == ErrorCode::kTruncated;
}

}  // namespace

std::unique_ptr<binlog::Source> open_input(const InputFile& in) {
  if (in.memory) return std::make_unique<binlog::MemorySource>(*in.memory, in.display_name);
  return std::make_unique<binlog::FdSource>(in.path, in.display_name);
}

RunStats run_sql(const std::vector<InputFile>& inputs, const DecodeOptions& decode,
                 const FilterOptions& fopts, SqlSink& sink, const binlog::WarningSink& warn,
                 const ProgressFn& progress, const UnitHook& on_unit) {
  RunStats stats;
  ContentFilter filter(fopts);
  TransactionAssembler assembler;
  std::vector<Transaction*> ready;
  std::vector<char> keep;
  std::uint64_t skip_left = decode.skip_events;
  bool stopped = false;

  auto warn_count = [&](const std::string& msg) {
    ++stats.warnings;
    if (warn) warn(msg);
  };

  sink.begin();
  try {
    for (std::size_t i = 0; i < inputs.size() && !stopped; ++i) try {
        const bool first = i == 0;
        const bool last = i + 1 == inputs.size();
        const std::unique_ptr<binlog::Source> source_ptr = open_input(inputs[i]);
        binlog::Source& source = *source_ptr;
        binlog::EventReader reader(source, decode.reader, warn_count);
        bool seeked = !(first && fopts.start_position && *fopts.start_position > 4);
        std::uint64_t pos_done = 4;

        auto handle_units = [&](const binlog::FormatContext& ctx) {
          for (Transaction* unit : ready) {
            if (unit->kind == UnitKind::kMeta) {
              const Event& ev = unit->events.front();
              if (is_format_event(ev.type()) ||
                  (!fopts.server_id || ev.header.server_id == *fopts.server_id)) {
                sink.write_meta(ev, ctx);
                if (on_unit) on_unit(inputs[i].display_name, *unit);
              }
              continue;
            }
            if (!unit->complete) {
              ++stats.transactions_dropped_incomplete;
              const std::string where =
                  inputs[i].display_name + ":" + std::to_string(unit->first_pos());
              if (stopped) {
                // The stop position or time falls inside this transaction: whole transactions
                // only, so it is left out, as the user asked to stop before it.
                sink.comment("transaction at " + where + " crosses the stop point: not emitted");
              } else {
                const std::string msg = "incomplete transaction at " + where + " not emitted";
                sink.comment(msg);
                warn_count(msg);
              }
              continue;
            }
            if (fopts.stop_gtid && transaction_gtid(*unit) == *fopts.stop_gtid) {
              stopped = true;  // the target: everything before this transaction
              break;
            }
            sink.observe(*unit);  // DDL keeps the schema current, whatever the filters say
            const Event& head = unit->events.front();
            if (fopts.server_id && head.header.server_id != *fopts.server_id) continue;
            if (fopts.start_datetime && head.header.timestamp < *fopts.start_datetime) continue;
            if ((!fopts.skip_positions.empty() || !fopts.skip_gtids.empty()) &&
                skip_requested(fopts, *unit, inputs[i].display_name)) {
              sink.comment("transaction at " + inputs[i].display_name + ":" +
                           std::to_string(unit->first_pos()) + " skipped (--skip-event)");
              continue;
            }
            if (!fopts.applied_gtids.empty() &&
                fopts.applied_gtids.contains(transaction_gtid(*unit))) {
              sink.comment("transaction " + transaction_gtid(*unit) +
                           " skipped: the server has applied it (--gtids=skip-applied)");
              continue;
            }
            if (!filter.select(*unit, keep)) continue;
            sink.write_transaction(*unit, keep, ctx);
            ++stats.transactions_written;
            if (on_unit) on_unit(inputs[i].display_name, *unit);
          }
          ready.clear();
          assembler.recycle();
        };

        for (;;) {
          std::optional<Event> ev;
          try {
            ev = reader.next(&assembler.arena());
          } catch (Error& e) {
            if (!torn_tail_of_open_file(e, reader)) throw;
            warn_count(e.describe() +
                       " (the file was not closed by its server: treating this as "
                       "its end; an unfinished transaction is rolled back)");
            break;
          }
          if (!ev) break;
          ++stats.events;
          pos_done = ev->end_pos();
          if (progress && (stats.events & 0x3fff) == 0)
            progress(inputs[i].display_name, pos_done, source.size());
          const EventType t = ev->type();
          if (!seeked && reader.seen_format()) {
            // Position the stream once the format description is known (mysqlbinlog does the
            // same); --start-position must be an event boundary.
            assembler.push(*ev, ready);
            handle_units(reader.format());
            reader.seek(*fopts.start_position);
            seeked = true;
            continue;
          }
          if (last && fopts.stop_position && ev->pos >= *fopts.stop_position) {
            stopped = true;
            break;
          }
          if (!is_format_event(t)) {
            if (skip_left > 0) {
              --skip_left;
              continue;
            }
            if (fopts.stop_datetime && t != EventType::kRotate &&
                ev->header.timestamp >= *fopts.stop_datetime) {
              stopped = true;
              break;
            }
          }
          assembler.push(*ev, ready);
          if (!ready.empty()) handle_units(reader.format());
          if (stopped) break;
          if (const auto* tp = std::get_if<binlog::TransactionPayload>(&ev->body)) {
            // The transaction's events, unpacked into the arena after the payload event.
            const ArenaPin pin(assembler);  // the payload's bytes are in the arena
            binlog::PayloadSource inner_source(*tp, ev->pos, inputs[i].display_name);
            binlog::EventReader inner(inner_source, decode.reader, warn_count,
                                      binlog::payload_context(reader.format()));
            while (std::optional<Event> iev = inner.next(&assembler.arena())) {
              ++stats.events;
              assembler.push(*iev, ready);
              if (!ready.empty()) handle_units(reader.format());
              if (stopped) break;
            }
            if (stopped) break;
          }
        }
        if (Transaction* open = assembler.finish()) {
          ready.push_back(open);
          handle_units(reader.format());
        }
        stats.bytes_read += pos_done;
        if (progress) progress(inputs[i].display_name, pos_done, source.size());
      } catch (Error& e) {
        e.with_file(inputs[i].display_name);
        throw;
      }
  } catch (...) {
    sink.finish();
    throw;
  }
  sink.finish();
  return stats;
}

}  // namespace binrecover::recovery
