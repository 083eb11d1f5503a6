#include "recovery/reading/walker.h"

#include <algorithm>
#include <cstdio>
#include <deque>

#include "binlog/error.h"
#include "binlog/event_type.h"
#include "binlog/payload.h"
#include "recovery/reading/event_stream.h"
#include "recovery/reading/gtid_order.h"
#include "recovery/reading/one_history.h"
#include "recovery/reading/start_position.h"
#include "recovery/reading/targets.h"
#include "recovery/reading/temp_file.h"

namespace binrecover::recovery {

using binlog::Event;
using binlog::EventType;

std::unique_ptr<binlog::Source> open_input(const InputFile& in) {
  if (in.open) return in.open();
  if (in.memory) return std::make_unique<binlog::MemorySource>(*in.memory, in.display_name);
  return std::make_unique<binlog::FdSource>(in.path, error_name(in));
}

namespace {

bool is_format_event(EventType t) {
  return t == EventType::kFormatDescription || t == EventType::kStartV3;
}

class Walker {
 public:
  Walker(const std::vector<InputFile>& inputs, const WalkOptions& opts, WalkConsumer& consumer,
         const binlog::WarningSink& warn, const ProgressFn& progress);

  RunStats run();

 private:
  struct Unit {
    bool open = false;
    UnitInfo info;
    const binlog::FormatContext* ctx = nullptr;
    std::vector<Event> held;  // while not streamed
    std::size_t held_bytes = 0;
    bool skip_hit = false;
    bool damaged = false;             // --force-read: an event of it did not decode
    std::unique_ptr<TempFile> spill;  // a streamed unit of a pipe: its outer events
    // A unit that starts inside a payload (after another transaction in it): the payload event
    // and the events of it before the unit's first.
    bool in_payload = false;
    binlog::Bytes payload_raw;
    std::uint64_t payload_skip = 0;
  };

  // One input, event by event: positioned at the start, stopped at a stop position or time.
  void read_file(std::size_t i);

  // Every file but the last ends where its server closed it; without its Rotate (or Stop)
  // event the rest of the file is missing, and the next file does not continue it.
  // (At a failover the old primary's last file ends where it stopped: the next server's files
  // go on from what it holds, OneHistory::begin_file checks that.)
  void check_file_end(std::size_t i, EventStream& stream, std::uint64_t pos_done,
                      EventType last_outer, bool clean_end);

  // Arena memory is given back between units, never while a held unit or a payload whose bytes
  // are in it is still being read.
  void maybe_reset_arena(EventStream& stream, bool at_end = false);

  // Each event read: a meta event is a unit of its own, others open, join or close the unit.
  void feed(const Event& ev, EventStream& stream, bool in_arena);
  void meta(const Event& ev, EventStream& stream);
  void open_unit(const Event& ev, EventStream& stream, bool in_arena);
  // An event of the open unit: held, or streamed once the unit is too large to hold.
  void add(const Event& ev);

  // From here on the unit's events are not held: it will be read a second time (a pipe's
  // bytes are kept in a temporary file for that, from the unit's first outer event on).
  void start_streaming();
  void start_streaming_held();
  bool reread_possible() const { return file_->memory || file_->path != "-"; }

  // The unit ends (`complete`: at its COMMIT/XID; else cut by the end of the input or damage):
  // filtered, then delivered to the consumer or left out.
  void close_unit(bool complete, EventStream& stream);
  void deliver(EventStream& stream);
  bool keep_gtid_order_and_domain(const UnitInfo& u);

  // The second reading of a streamed unit, from the file again or from its spill.
  void reread(EventStream& stream, const std::vector<std::uint8_t>& marks);

  std::deque<InputFile> inputs_;  // (a followed server adds its next files as they come)
  const WalkOptions& opts_;
  const FilterOptions& filter_;
  OneHistory history_;
  WalkConsumer& consumer_;
  binlog::WarningSink user_warn_;
  binlog::WarningSink warn_;
  const ProgressFn& progress_;
  UnitSelector selector_;
  UnitTracker tracker_;
  binlog::EventArena arena_;
  bool arena_dirty_ = false;
  bool payload_in_arena_ = false;
  Unit unit_;
  const InputFile* file_ = nullptr;
  std::size_t file_index_ = 0;
  bool last_file_ = false;
  bool stopped_ = false;
  bool need_gtid_ = false;
  RangeTargets targets_;
  GtidOrder order_;  // --gtid-strict-mode
  std::uint64_t skip_left_ = 0;
  RunStats stats_;
};

Walker::Walker(const std::vector<InputFile>& inputs, const WalkOptions& opts,
               WalkConsumer& consumer, const binlog::WarningSink& warn, const ProgressFn& progress)
    : inputs_(inputs.begin(), inputs.end()),
      opts_(opts),
      filter_(opts.filter),
      history_(inputs_, opts.decode.reader, opts.filter.start_position),
      consumer_(consumer),
      user_warn_(warn),
      progress_(progress),
      selector_(opts.filter),
      targets_(opts.filter),
      skip_left_(opts.decode.skip_events) {
  warn_ = [this](const std::string& msg) {
    ++stats_.warnings;
    if (user_warn_) user_warn_(msg);
  };
  need_gtid_ = consumer_.wants_gtid() || filter_.stop_gtid || !filter_.skip_gtids.empty() ||
               !filter_.applied_gtids.empty() || filter_.include_gtids ||
               !filter_.exclude_gtids.empty() || history_.active() || filter_.domain_rules() ||
               filter_.gtid_strict;
  // (mariadb-binlog seeds the order from no Gtid_list when it starts past a file's start)
  if (filter_.start_position && *filter_.start_position > 4) order_.no_seed();
}

RunStats Walker::run() {
  targets_.check_inputs(inputs_, !inputs_.empty() && static_cast<bool>(inputs_.back().next));
  for (std::size_t i = 0; i < inputs_.size() && !stopped_ && !consumer_.done(); ++i) {
    try {
      read_file(i);
    } catch (Error& e) {
      e.with_file(error_name(inputs_[i]));
      throw;
    }
    // A followed server: the file it went on with, once this one ended (--stop-never).
    if (i + 1 == inputs_.size() && inputs_[i].next)
      if (std::optional<InputFile> more = inputs_[i].next()) inputs_.push_back(std::move(*more));
  }
  if (!consumer_.done()) targets_.at_end(stopped_);
  for (const std::string& note : history_.at_end()) warn_(note);
  return stats_;
}

void Walker::read_file(std::size_t i) {
  const InputFile& in = inputs_[i];
  file_ = &in;
  file_index_ = i;
  history_.begin_file(i);
  last_file_ = i + 1 == inputs_.size() && !in.next;
  EventStream stream(open_input(in), opts_.decode.reader, warn_);
  const bool seekable = in.memory || in.open || (in.path != "-" && stream.source().size());
  bool seeked = !(i == 0 && filter_.start_position && *filter_.start_position > 4);
  std::uint64_t pos_done = 4;
  EventType last_outer = EventType::kUnknown;
  bool clean_end = true;
  std::optional<Event> pending;  // the event found at the start position (in the arena)
  bool first = true;
  for (;;) {
    std::optional<Event> ev;
    bool in_arena = true;
    if (pending) {
      ev = std::move(pending);
      pending.reset();
    } else {
      // Events are copied to the arena while they may be held; a streamed unit's are not.
      in_arena = !(unit_.open && unit_.info.streamed);
      if (in_arena) maybe_reset_arena(stream);
      const bool outer = !stream.in_payload();
      try {
        ev = stream.next(in_arena ? &arena_ : nullptr);
      } catch (Error& e) {
        // A torn last event in a file the server had not closed is where the server stopped
        // writing: decode up to it, warn, and treat the file as ended.
        if (!(outer && stream.reader().in_use() && e.code() == ErrorCode::kTruncated)) {
          // A listing shows what could be read of the transaction the damage is in.
          if (unit_.open && opts_.incomplete_units) close_unit(false, stream);
          throw;
        }
        warn_(e.describe() +
              " (the file was not closed by its server: treating this as its end; an "
              "unfinished transaction is rolled back)");
        clean_end = false;
        break;
      }
    }
    if (!ev) break;
    ++stats_.events;
    if (!ev->in_payload) {
      pos_done = ev->end_pos();
      last_outer = ev->type();
    }
    if (progress_ && (stats_.events & 0x3fff) == 0)
      progress_(in.display_name, pos_done, stream.source().size());
    const EventType t = ev->type();
    if (first) {
      first = false;
      if (opts_.decode.refuse_open_files && stream.reader().in_use())
        throw Error(ErrorCode::kBadEvent,
                    "the file was not closed by its server (it is still being written, or the "
                    "server crashed): --skip-force-if-open refuses it",
                    ev->pos)
            .with_event(std::string(binlog::event_type_name(ev->header.type)));
      if (!seeked) {
        // Position the stream once the format description is known (mysqlbinlog does the
        // same): the format description is written, then the range starts.
        if (!opts_.start_anywhere) feed(*ev, stream, in_arena);
        seeked = true;
        arena_dirty_ = true;
        StartAt at{*filter_.start_position, ev->end_pos(),       seekable,
                   opts_.start_anywhere,    file_->display_name, nullptr};
        if (consumer_.learns_before_start())
          at.before = [this](const Event& e) { consumer_.learn(e); };
        pending = seek_start(stream, arena_, at, warn_);
        if (!pending) {  // started at the file's end: nothing of it read, nothing to check
          pos_done = *filter_.start_position;
          clean_end = false;
          break;
        }
        continue;
      }
    }
    if (!ev->in_payload && targets_.watches_events())
      targets_.before_event(*ev, in.display_name, last_file_);
    if (last_file_ && filter_.stop_position && ev->pos >= *filter_.stop_position) {
      stopped_ = true;
      break;
    }
    if (!is_format_event(t)) {
      if (skip_left_ > 0) {
        --skip_left_;
        continue;
      }
      if (filter_.stop_datetime && t != EventType::kRotate &&
          ev->header.timestamp >= *filter_.stop_datetime) {
        stopped_ = true;
        break;
      }
    }
    feed(*ev, stream, in_arena);
    if (!ev->in_payload && targets_.any_positions_left())
      targets_.after_event(*ev, in.display_name);
    if (stopped_ || consumer_.done()) break;
  }
  if (unit_.open) close_unit(false, stream);
  if (!stopped_ && !consumer_.done()) targets_.at_file_end(in.display_name, pos_done, last_file_);
  tracker_.reset();
  maybe_reset_arena(stream, true);
  stats_.bytes_read += pos_done;
  if (progress_) progress_(in.display_name, pos_done, stream.source().size());
  check_file_end(i, stream, pos_done, last_outer, clean_end);
}

void Walker::check_file_end(std::size_t i, EventStream& stream, std::uint64_t pos_done,
                            EventType last_outer, bool clean_end) {
  const InputFile& in = inputs_[i];
  if (!last_file_ && !stopped_ && clean_end && !consumer_.done() &&
      last_outer != EventType::kRotate && last_outer != EventType::kStop &&
      history_.server_ends(i)) {
    warn_(in.display_name + " ends at " + std::to_string(pos_done) +
          " without a Rotate: its server stopped there; the history goes on in " +
          inputs_[i + 1].display_name + " (another server's)");
  } else if (!last_file_ && !stopped_ && clean_end && !consumer_.done() &&
             last_outer != EventType::kRotate && last_outer != EventType::kStop &&
             !stream.reader().in_use()) {
    Error e(ErrorCode::kTruncated,
            "the file ends at " + std::to_string(pos_done) + " after a " +
                std::string(binlog::event_type_name(static_cast<std::uint8_t>(last_outer))) +
                " event, without the Rotate or Stop event its server writes when it moves on to "
                "the next file (" +
                (i + 1 < inputs_.size() ? inputs_[i + 1].display_name : "the server's next") +
                "): the rest of this file is missing");
    e.with_file(error_name(in));
    if (!opts_.decode.reader.force_read) throw e;
    warn_(e.describe() + "; continuing with the next file (--force-read)");
  }
}

void Walker::maybe_reset_arena(EventStream& stream, bool at_end) {
  if (unit_.open) return;
  // (a MySQL compressed transaction ends at its payload's last event: without looking whether
  // one is left, the arena was never given back in a log of such transactions)
  if (!at_end && stream.in_payload() && payload_in_arena_ && !stream.leave_exhausted_payload())
    return;
  if (arena_dirty_) {
    arena_.reset();
    arena_dirty_ = false;
  }
  payload_in_arena_ = false;
}

void Walker::feed(const Event& ev, EventStream& stream, bool in_arena) {
  if (in_arena) {
    arena_dirty_ = true;
    if (ev.type() == EventType::kTransactionPayload) payload_in_arena_ = true;
  }
  const UnitTracker::Step step = tracker_.push(ev);
  if (step.interrupts && unit_.open) close_unit(false, stream);
  if (step.meta) {
    meta(ev, stream);
    return;
  }
  if (step.starts) open_unit(ev, stream, in_arena);
  if (!unit_.open) return;  // after the stop GTID
  add(ev);
  if (step.closes) {
    unit_.info.xid = ev.type() == EventType::kXid;
    close_unit(true, stream);
  }
}

void Walker::meta(const Event& ev, EventStream& stream) {
  if (ev.damaged) return;  // warned by the reader (--force-read)
  const bool format = is_format_event(ev.type());
  if (!format && ev.type() != EventType::kRotate && !filter_.keep_server(ev.header.server_id))
    return;
  if (filter_.gtid_strict)
    if (const auto* list = std::get_if<binlog::MariaGtidList>(&ev.body)) order_.seed(*list);
  UnitInfo info;
  info.file = &file_->display_name;
  info.kind = UnitKind::kMeta;
  info.first_pos = ev.pos;
  info.end_pos = ev.end_pos();
  info.events = 1;
  info.head = ev.header;
  consumer_.begin_unit(info, stream.reader().format());
  try {
    consumer_.event(ev, kMarkKeep, stream.reader().format());
    consumer_.end_unit(info);
  } catch (...) {
    consumer_.abort_unit(info);
    throw;
  }
}

void Walker::open_unit(const Event& ev, EventStream& stream, bool in_arena) {
  unit_.open = true;
  unit_.info = UnitInfo{};
  unit_.info.file = &file_->display_name;
  unit_.info.kind = UnitKind::kTransaction;
  unit_.info.first_pos = ev.pos;
  unit_.info.head = ev.header;
  unit_.ctx = &stream.reader().format();
  unit_.held.clear();
  unit_.held_bytes = 0;
  unit_.skip_hit = false;
  unit_.damaged = false;
  unit_.spill.reset();
  unit_.in_payload = ev.in_payload;
  if (ev.in_payload) {
    unit_.payload_raw = stream.payload_raw();
    unit_.payload_skip = stream.inner_index() - 1;
  }
  selector_.begin_unit();
  // An event read while a streamed unit was open is not in the arena: its unit is streamed too.
  if (!in_arena) start_streaming();
}

void Walker::add(const Event& ev) {
  UnitInfo& u = unit_.info;
  ++u.events;
  if (!ev.in_payload) u.end_pos = ev.end_pos();
  if (need_gtid_ && u.gtid.empty() && is_gtid_event(ev.type())) {
    u.gtid = event_gtid(ev);
    targets_.gtid_read(u.gtid, ev, file_->display_name);
    if (filter_.stop_gtid && u.gtid == *filter_.stop_gtid) {
      // Stop before this transaction.
      targets_.stop_gtid_met();
      stopped_ = true;
      unit_.open = false;
      unit_.spill.reset();
      return;
    }
  }
  consumer_.observe(ev);
  selector_.push(ev);
  unit_.damaged = unit_.damaged || ev.damaged;
  if (!filter_.skip_positions.empty() && targets_.skip_position_hit(ev, file_->display_name))
    unit_.skip_hit = true;
  if (u.streamed) {
    if (unit_.spill && !ev.in_payload) unit_.spill->append(ev.raw);
    return;
  }
  unit_.held.push_back(ev);
  unit_.held_bytes += ev.raw.size();
  if (unit_.held_bytes > opts_.decode.max_unit_memory) start_streaming_held();
}

void Walker::start_streaming() {
  unit_.info.streamed = true;
  if (reread_possible()) return;
  unit_.spill = std::make_unique<TempFile>("a large transaction of " + file_->display_name);
  if (unit_.in_payload) unit_.spill->append(unit_.payload_raw);
}

void Walker::start_streaming_held() {
  start_streaming();
  if (unit_.spill)
    for (const Event& e : unit_.held)
      if (!e.in_payload) unit_.spill->append(e.raw);
  unit_.held.clear();
  unit_.held.shrink_to_fit();
  unit_.held_bytes = 0;
  // Nothing points into the arena any more (unless a payload being unpacked lives there).
  if (!payload_in_arena_) {
    arena_.reset();
    arena_dirty_ = false;
  }
}

void Walker::close_unit(bool complete, EventStream& stream) {
  UnitInfo& u = unit_.info;
  u.complete = complete;
  const bool any = selector_.finish_unit();
  const auto done = [this] {
    unit_.open = false;
    unit_.held.clear();
    unit_.spill.reset();
  };
  if (unit_.damaged) {
    // Whole transactions only: one that lost an event is not written at all.
    consumer_.left_out(u, LeftOut::kDamaged);
    warn_("transaction at " + file_->display_name + ":" + std::to_string(u.first_pos) +
          " left out: it holds a damaged event (--force-read)");
    return done();
  }
  u.crosses_stop = !complete && stopped_;
  if (!complete && !opts_.incomplete_units) {
    ++stats_.transactions_dropped_incomplete;
    if (stopped_) {
      consumer_.left_out(u, LeftOut::kCrossesStop);
    } else {
      consumer_.left_out(u, LeftOut::kIncomplete);
      warn_("incomplete transaction at " + file_->display_name + ":" + std::to_string(u.first_pos) +
            " not emitted");
    }
    done();
    return;
  }
  if (complete) {
    if (!keep_gtid_order_and_domain(u)) return done();
    if (!filter_.keep_server(u.head.server_id)) return done();
    if (filter_.start_datetime && u.head.timestamp < *filter_.start_datetime) return done();
    bool skip = unit_.skip_hit;
    if (!u.gtid.empty() && targets_.skip_gtid_hit(u.gtid)) skip = true;
    if (skip) {
      consumer_.left_out(u, LeftOut::kSkipEvent);
      return done();
    }
    if (u.kind != UnitKind::kMeta &&
        ((filter_.include_gtids && !filter_.include_gtids->contains(u.gtid)) ||
         filter_.exclude_gtids.contains(u.gtid))) {
      consumer_.left_out(u, LeftOut::kGtidSet);
      return done();
    }
    if (u.kind != UnitKind::kMeta && !u.gtid.empty() && history_.active()) {
      const auto verdict = history_.transaction(
          file_index_, u.gtid, file_->display_name + ":" + std::to_string(u.first_pos));
      if (verdict != OneHistory::Verdict::kRead) {
        consumer_.left_out(u, verdict == OneHistory::Verdict::kReadBefore ? LeftOut::kReadBefore
                                                                          : LeftOut::kSetAside);
        return done();
      }
    }
    if (!filter_.applied_gtids.empty() && filter_.applied_gtids.contains(u.gtid)) {
      ++stats_.transactions_already_applied;
      consumer_.left_out(u, LeftOut::kAlreadyApplied);
      return done();
    }
  }
  if (!any) return done();
  u.filtered = selector_.active();
  deliver(stream);
  if (complete) ++stats_.transactions_written;
  done();
}

// --do-domain-ids / --ignore-domain-ids, then --gtid-strict-mode for the transactions that
// domain and GTID rules keep (as mariadb-binlog: server id rules come after).
bool Walker::keep_gtid_order_and_domain(const UnitInfo& u) {
  if (u.kind == UnitKind::kMeta || u.gtid.empty() || u.gtid.find(':') != std::string::npos)
    return true;  // (no MariaDB GTID)
  unsigned long domain = 0, server = 0;
  unsigned long long seq = 0;
  if (std::sscanf(u.gtid.c_str(), "%lu-%lu-%llu", &domain, &server, &seq) != 3) return true;
  if (!filter_.keep_domain(static_cast<std::uint32_t>(domain))) return false;
  if (!filter_.gtid_strict || filter_.exclude_gtids.contains(u.gtid) ||
      (filter_.include_gtids && !filter_.include_gtids->contains(u.gtid)))
    return true;
  if (auto bad = order_.record(static_cast<std::uint32_t>(domain),
                               static_cast<std::uint32_t>(server), seq))
    throw Error(ErrorCode::kBadEvent,
                "--gtid-strict-mode: out of order GTID " + *bad +
                    " (the server wrote it without gtid_strict_mode; read without "
                    "--gtid-strict-mode to take the log as it is)",
                u.first_pos)
        .with_event("Gtid");
  return true;
}

void Walker::deliver(EventStream& stream) {
  const UnitInfo& u = unit_.info;
  const std::vector<std::uint8_t>& marks = selector_.marks();
  consumer_.begin_unit(u, *unit_.ctx);
  try {
    if (!u.streamed) {
      for (std::size_t k = 0; k < unit_.held.size(); ++k)
        if (marks[k] & kMarkKeep) consumer_.event(unit_.held[k], marks[k], *unit_.ctx);
    } else {
      reread(stream, marks);
    }
    consumer_.end_unit(u);
  } catch (...) {
    consumer_.abort_unit(u);
    throw;
  }
}

void Walker::reread(EventStream& stream, const std::vector<std::uint8_t>& marks) {
  const UnitInfo& u = unit_.info;
  std::unique_ptr<binlog::Source> source;
  if (unit_.spill) {
    source = unit_.spill->source(file_->display_name, u.first_pos);
  } else {
    source = open_input(*file_);
    source->seek(u.first_pos);
  }
  EventStream again(std::move(source), opts_.decode.reader, {}, *unit_.ctx);
  (void)stream;
  if (unit_.in_payload) {
    // The payload event, then its events before the unit's first.
    std::optional<Event> p = again.next(nullptr);
    for (std::uint64_t k = 0; p && k < unit_.payload_skip; ++k) p = again.next(nullptr);
    if (!p)
      throw Error(ErrorCode::kTruncated,
                  "the payload at " + std::to_string(u.first_pos) + " is not there any more",
                  u.first_pos);
  }
  for (std::uint64_t k = 0; k < u.events; ++k) {
    std::optional<Event> ev = again.next(nullptr);
    if (!ev || (k == 0 && ev->pos != u.first_pos))
      throw Error(ErrorCode::kTruncated,
                  "the transaction at " + std::to_string(u.first_pos) +
                      " is not there any more when read a second time: the file changed "
                      "while binrecover read it",
                  u.first_pos);
    if (k < marks.size() ? (marks[k] & kMarkKeep) : !selector_.active())
      consumer_.event(*ev, k < marks.size() ? marks[k] : kMarkKeep, again.reader().format());
  }
}

}  // namespace

RunStats walk(const std::vector<InputFile>& inputs, const WalkOptions& opts, WalkConsumer& consumer,
              const binlog::WarningSink& warn, const ProgressFn& progress) {
  Walker w(inputs, opts, consumer, warn, progress);
  return w.run();
}

}  // namespace binrecover::recovery
