#include "recovery/reading/start_position.h"

#include <string>

#include "binlog/error.h"
#include "binlog/event_type.h"
#include "recovery/reading/transaction.h"

namespace binrecover::recovery {

using binlog::Event;

namespace {

// Events that can only be the first of a unit, wherever they are.
bool starts_unit_alone(const Event& ev, bool listing) {
  if (listing) return true;
  // (an event of an unknown type may be inside a transaction: UnitTracker::push)
  if (is_gtid_event(ev.type()) ||
      (is_meta_event(ev.type()) && binlog::is_known_event_type(ev.header.type)))
    return true;
  const auto* q = std::get_if<binlog::Query>(&ev.body);
  return q != nullptr && is_begin(q->query);
}

}  // namespace

// (a unit boundary: at an event that can only start a unit it goes straight there, else the
// file is read from its start up to the position)
std::optional<Event> seek_start(EventStream& stream, binlog::EventArena& arena, const StartAt& at,
                                const binlog::WarningSink& warn) {
  const std::uint64_t pos = at.pos, after_fde = at.after_format;
  const bool seekable = at.seekable;
  const auto size = stream.source().size();
  if (size && pos > *size)
    throw Error(ErrorCode::kUsage, "the start position " + std::to_string(pos) +
                                       " is past the end of " + at.file + " (" +
                                       std::to_string(*size) + " bytes)");
  if (pos < after_fde)
    throw Error(ErrorCode::kUsage, "the start position " + std::to_string(pos) +
                                       " is inside the format description event of " + at.file +
                                       " (it ends at " + std::to_string(after_fde) + ")");
  arena.reset();
  if (seekable && !at.before) {
    stream.seek(pos);
    if (size && pos == *size) return std::nullopt;
    try {
      std::optional<Event> ev = stream.next(&arena);
      if (ev && starts_unit_alone(*ev, at.anywhere)) return ev;
    } catch (const Error&) {
      // not an event boundary, or a damaged event: the scan below tells which
    }
    arena.reset();
    stream.seek(after_fde);
  }
  // Read from the first event after the format description up to the position.
  UnitTracker tracker;
  std::uint64_t unit_start = 0;
  bool only_gtids = true;
  std::uint64_t prev_pos = 0, prev_end = after_fde;
  std::string prev_type = "Format_desc";
  for (;;) {
    arena.reset();
    std::optional<Event> ev;
    try {
      ev = stream.next(&arena);
    } catch (Error& e) {
      if (e.has_offset() && e.offset() < pos) {
        // Damage before the start: the check cannot be made, the position is taken as given.
        warn("cannot check that --start-position " + std::to_string(pos) +
             " is the start of a transaction: " + e.describe());
        arena.reset();
        stream.seek(pos);
        return stream.next(&arena);
      }
      if (!e.has_offset() || e.offset() == pos) throw;
      ev.reset();  // the event after the position's does not frame: pos is inside an event
    }
    if (ev && at.before && ev->pos < pos) at.before(*ev);
    if (ev && ev->in_payload) {
      tracker.push(*ev);
      only_gtids = false;
      continue;
    }
    if (!ev || ev->pos > pos) {
      if (!ev && prev_end == pos) return std::nullopt;
      std::string msg = "--start-position " + std::to_string(pos) + " is inside the " + prev_type +
                        " event at " + std::to_string(prev_pos) + " (it ends at " +
                        std::to_string(prev_end) + ")";
      if (tracker.in_unit() && !at.anywhere)
        msg += ", in the transaction that starts at " + std::to_string(unit_start);
      throw Error(ErrorCode::kUsage,
                  msg +
                      ": start at an event boundary (SHOW BINLOG EVENTS / binrecover events "
                      "list them)");
    }
    if (ev->pos == pos) {
      if (at.anywhere || !tracker.in_unit() || only_gtids) return ev;
      throw Error(ErrorCode::kUsage, "--start-position " + std::to_string(pos) + " is a " +
                                         std::string(binlog::event_type_name(ev->header.type)) +
                                         " event inside the transaction that starts at " +
                                         std::to_string(unit_start) +
                                         ": start there (at its GTID or BEGIN), or at "
                                         "the start of the next transaction");
    }
    const UnitTracker::Step step = tracker.push(*ev);
    if (step.starts) {
      unit_start = ev->pos;
      only_gtids = is_gtid_event(ev->type());
    } else if (!step.meta) {
      only_gtids = only_gtids && is_gtid_event(ev->type());
    }
    prev_pos = ev->pos;
    prev_end = ev->end_pos();
    prev_type = std::string(binlog::event_type_name(ev->header.type));
  }
}

}  // namespace binrecover::recovery
