#include "recovery/walk.h"

#include <memory>

#include "binlog/error.h"
#include "binlog/payload.h"

namespace binrecover::recovery {

using binlog::Event;

void walk_units(const std::vector<InputFile>& inputs, const DecodeOptions& decode,
                const WalkRange& range, const binlog::WarningSink& warn, const UnitFn& fn) {
  TransactionAssembler assembler;
  std::vector<Transaction*> ready;
  bool stopped = false;
  for (std::size_t i = 0; i < inputs.size() && !stopped; ++i) {
    const InputFile& in = inputs[i];
    const bool last = i + 1 == inputs.size();
    try {
      const std::unique_ptr<binlog::Source> source = open_input(in);
      binlog::EventReader reader(*source, decode.reader, warn);
      bool seeked = i != 0 || !range.start_position || *range.start_position <= 4;
      auto consume = [&]() {
        for (Transaction* t : ready)
          if (!stopped && !fn(in.display_name, *t)) stopped = true;
        ready.clear();
        assembler.recycle();
      };
      while (!stopped) {
        std::optional<Event> ev = reader.next(&assembler.arena());
        if (!ev) break;
        if (!seeked && reader.seen_format()) {
          if (source->size() && *range.start_position > *source->size())
            throw Error(ErrorCode::kUsage, "the start position " +
                                               std::to_string(*range.start_position) +
                                               " is past the end of " + in.display_name);
          reader.seek(*range.start_position);
          seeked = true;
          continue;
        }
        if ((last && range.stop_position && ev->pos >= *range.stop_position) ||
            (range.stop_datetime && ev->type() != binlog::EventType::kFormatDescription &&
             ev->header.timestamp >= *range.stop_datetime)) {
          stopped = true;
          break;
        }
        assembler.push(*ev, ready);
        if (const auto* tp = std::get_if<binlog::TransactionPayload>(&ev->body)) {
          const ArenaPin pin(assembler);  // the payload's bytes are in the arena
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
      if (Transaction* open = assembler.finish()) {
        if (!stopped) fn(in.display_name, *open);
        ready.clear();
        assembler.recycle();
      }
    } catch (Error& e) {
      e.with_file(in.display_name);
      throw;
    }
  }
}

}  // namespace binrecover::recovery
