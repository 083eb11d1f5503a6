#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "binlog/reader.h"
#include "recovery/reading/filter.h"
#include "recovery/reading/transaction.h"

namespace binrecover::recovery {

// One input: the path to open ("-" = stdin) and the name shown in messages and listings.
struct InputFile {
  std::string path;
  std::string display_name;             // Log_name: the file's base name
  std::optional<binlog::Bytes> memory;  // read these bytes instead of `path` (fuzzing, tests)
  // Opens the input's source instead of `path` (a server's binlog read over the replication
  // protocol: recovery/server/remote_source.h).
  std::function<std::unique_ptr<binlog::Source>()> open;
  // For the last input of a followed server (-R --stop-never): once it has been read to its
  // end, the input the server went on with (nullopt: none).
  std::function<std::optional<InputFile>()> next;
  // The input's size when known without opening it (an object of a store), for column widths.
  std::optional<std::uint64_t> size;
};

// How errors name an input: its path as given (standard input by its display name).
inline const std::string& error_name(const InputFile& in) {
  return in.path.empty() || in.path == "-" ? in.display_name : in.path;
}

// Opens the source an input names.
std::unique_ptr<binlog::Source> open_input(const InputFile& in);

struct DecodeOptions {
  binlog::ReaderOptions reader;
  std::uint64_t skip_events = 0;  // --offset: events skipped after the format description
  // A transaction whose events take more than this many bytes is not held in memory: it is
  // read once to decide (complete? kept by the filters?) and once more to be used (regular
  // files are read again; a pipe's bytes go to an unlinked temporary file).
  std::size_t max_unit_memory = std::size_t{8} << 20;
  // --skip-force-if-open: a file its server had not closed (LOG_EVENT_BINLOG_IN_USE_F) is an
  // error instead of being read up to its last whole event.
  bool refuse_open_files = false;
};

struct RunStats {
  std::uint64_t events = 0;
  std::uint64_t transactions_written = 0;          // handed to the consumer
  std::uint64_t transactions_already_applied = 0;  // replay --gtids=skip-applied left them out
  std::uint64_t transactions_dropped_incomplete = 0;
  std::uint64_t bytes_read = 0;
  std::uint64_t warnings = 0;
};

// Optional hook called now and then with the file, the position reached and the file's size,
// for progress reports.
using ProgressFn = std::function<void(const std::string& file, std::uint64_t pos,
                                      std::optional<std::uint64_t> size)>;

// What a consumer is told about a unit before and after its events.
struct UnitInfo {
  const std::string* file = nullptr;  // the input's display name
  UnitKind kind = UnitKind::kMeta;
  bool complete = true;
  bool streamed = false;        // the events are read a second time, not held in memory
  std::uint64_t first_pos = 0;  // the first event's position
  std::uint64_t end_pos = 0;    // where the unit ends in its file (known at end_unit)
  std::uint64_t events = 0;     // events in the unit, kept or not (known at end_unit)
  binlog::EventHeader head;     // the first event's header
  std::string gtid;  // "" when the unit has none (or no one asked: see WalkConsumer::wants_gtid)
  bool filtered = false;      // the content filters dropped some of its events
  bool crosses_stop = false;  // incomplete because the stop position or time is inside it
  // It ends with an Xid event: the source committed it as a transaction (known at begin_unit,
  // also for a streamed unit, which is delivered once it was read to its end).
  bool xid = false;
};

// Why a transaction the range covers is not handed to the consumer.
enum class LeftOut : std::uint8_t {
  kIncomplete,      // interrupted, or the input ended inside it (a warning)
  kCrossesStop,     // the stop position or time falls inside it
  kSkipEvent,       // --skip-event named it
  kAlreadyApplied,  // replay --gtids=skip-applied: the server has its GTID
  kGtidSet,         // --include-gtids / --exclude-gtids
  kDamaged,         // --force-read: one of its events did not decode
  kReadBefore,      // another server's file had it before (OneHistory)
  kSetAside,        // the server whose files follow never had it (OneHistory)
};

// The other end of the reading path. Every command is one of these.
class WalkConsumer {
 public:
  virtual ~WalkConsumer() = default;
  // Every event of the range, before the filters, as it is read (the schema follows the DDL).
  virtual void observe(const binlog::Event& /*ev*/) {}
  // The first file's events before --start-position, for consumers whose schema follows the
  // log's DDL (undo and plain SQL need to know which columns are generated): read only when
  // learns_before_start() says so (the start is then found by reading, not by a seek).
  virtual bool learns_before_start() const { return false; }
  virtual void learn(const binlog::Event& /*ev*/) {}
  // A unit the range and filters keep: begin, its kept events in order, end. A meta unit (an
  // event outside transactions) has exactly one event.
  virtual void begin_unit(const UnitInfo& /*u*/, const binlog::FormatContext& /*ctx*/) {}
  virtual void event(const binlog::Event& ev, std::uint8_t marks,
                     const binlog::FormatContext& ctx) = 0;
  virtual void end_unit(const UnitInfo& /*u*/) {}
  // The consumer threw, or the walk failed, between begin_unit and end_unit.
  virtual void abort_unit(const UnitInfo& /*u*/) {}
  virtual void left_out(const UnitInfo& /*u*/, LeftOut /*why*/) {}
  // Polled after each unit: true ends the walk early (events --limit).
  virtual bool done() const { return false; }
  // Whether UnitInfo::gtid is wanted (the text is made per transaction only then, or when a
  // filter needs it).
  virtual bool wants_gtid() const { return false; }
};

// Hands one walk to several consumers in turn (plan with its timeline, stats with its
// markers): one reading path, read once.
class TeeConsumer : public WalkConsumer {
 public:
  explicit TeeConsumer(std::vector<WalkConsumer*> to) : to_(std::move(to)) {}
  void observe(const binlog::Event& ev) override {
    for (auto* c : to_) c->observe(ev);
  }
  bool learns_before_start() const override {
    for (auto* c : to_)
      if (c->learns_before_start()) return true;
    return false;
  }
  void learn(const binlog::Event& ev) override {
    for (auto* c : to_) c->learn(ev);
  }
  void begin_unit(const UnitInfo& u, const binlog::FormatContext& ctx) override {
    for (auto* c : to_) c->begin_unit(u, ctx);
  }
  void event(const binlog::Event& ev, std::uint8_t marks,
             const binlog::FormatContext& ctx) override {
    for (auto* c : to_) c->event(ev, marks, ctx);
  }
  void end_unit(const UnitInfo& u) override {
    for (auto* c : to_) c->end_unit(u);
  }
  void abort_unit(const UnitInfo& u) override {
    for (auto* c : to_) c->abort_unit(u);
  }
  void left_out(const UnitInfo& u, LeftOut why) override {
    for (auto* c : to_) c->left_out(u, why);
  }
  bool done() const override {
    for (auto* c : to_)
      if (c->done()) return true;
    return false;
  }
  bool wants_gtid() const override {
    for (auto* c : to_)
      if (c->wants_gtid()) return true;
    return false;
  }

 private:
  std::vector<WalkConsumer*> to_;
};

struct WalkOptions {
  DecodeOptions decode;
  FilterOptions filter;
  // Units the input cuts or the stop point crosses are handed over too, with complete = false
  // (`binrecover events` lists them, `stats` counts their events).
  bool incomplete_units = false;
  // The start position may be any event boundary, not only the start of a unit, and the format
  // description before it is not handed over (`binrecover events`, as SHOW BINLOG EVENTS FROM).
  bool start_anywhere = false;
};

// The one reading loop of every command: opens the inputs in order, positions the first after
// its format description, stops at the stop position / time / GTID, unpacks MySQL transaction
// payloads, groups events into units, applies every filter and hands each unit to `consumer`.
// A torn last event of a file its server had not closed ends that file with a warning. Throws
// binrecover::Error with the file's name; a --skip-event or --stop-gtid that names nothing in the
// range is an error at the end (after everything before it was handed over).
RunStats walk(const std::vector<InputFile>& inputs, const WalkOptions& opts, WalkConsumer& consumer,
              const binlog::WarningSink& warn, const ProgressFn& progress = {});

}  // namespace binrecover::recovery
