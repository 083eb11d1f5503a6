#include "recovery/emit/event_list.h"

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "binlog/error.h"
#include "binlog/payload.h"
#include "recovery/sql/event_info.h"

namespace binrecover::recovery {

using binlog::Event;

namespace {

std::size_t digits(std::uint64_t v) {
  std::size_t n = 1;
  while (v >= 10) {
    v /= 10;
    ++n;
  }
  return n;
}

// `v` right-aligned in `width` characters (wider when it needs more), as fmt's {:>{}} writes it.
void put_right(fmt::memory_buffer& out, std::uint64_t v, std::size_t width) {
  char d[24];
  const std::size_t n = static_cast<std::size_t>(std::to_chars(d, d + sizeof d, v).ptr - d);
  for (std::size_t i = n; i < width; ++i) out.push_back(' ');
  out.append(d, d + n);
}

// ASCII text `s` left-aligned in `width` characters, as fmt's {:<{}} writes it.
void put_left(fmt::memory_buffer& out, std::string_view s, std::size_t width) {
  out.append(s.data(), s.data() + s.size());
  for (std::size_t i = s.size(); i < width; ++i) out.push_back(' ');
}

}  // namespace

namespace {

class EventList : public WalkConsumer {
 public:
  EventList(const std::vector<InputFile>& inputs, const EventListOptions& opts, Output& out)
      : opts_(opts), out_(out), buf_(out.buf()) {
    // Column widths from what is known before reading: names, and the digits of file sizes.
    for (const auto& in : inputs) {
      w_name_ = std::max(w_name_, in.display_name.size());
      std::error_code ec;
      const auto size = in.memory        ? in.memory->size()
                        : in.size        ? *in.size
                        : in.path == "-" ? 0
                                         : std::filesystem::file_size(in.path, ec);
      const std::size_t d = (ec || (in.path == "-" && !in.memory)) ? 10 : digits(size);
      w_pos_ = std::max(w_pos_, d);
      w_end_ = std::max(w_end_, d);
    }
    if (opts_.format == TableFormat::kTable) {
      fmt::format_to(std::back_inserter(buf_), "{:<{}}  {:>{}}  {:<{}}  {:>{}}  {:>{}}  Info\n",
                     "Log_name", w_name_, "Pos", w_pos_, "Event_type", kWidthType, "Server_id",
                     kWidthServer, "End_log_pos", w_end_);
    }
  }

  void begin_unit(const UnitInfo& u, const binlog::FormatContext& /*ctx*/) override {
    file_ = u.file;
  }

  void event(const Event& ev, std::uint8_t /*marks*/, const binlog::FormatContext& ctx) override {
    // MySQL lists the events inside a payload after it, at the payload's end position, as both
    // Pos and End_log_pos.
    if (!ev.in_payload && ev.type() == binlog::EventType::kTransactionPayload)
      payload_end_ = ev.end_pos();
    if (done()) return;
    if (index_++ < opts_.limit_offset) return;
    ++shown_;
    if (ev.in_payload) {
      const binlog::FormatContext inner = binlog::payload_context(ctx);
      row(ev, payload_end_, payload_end_, inner);
    } else {
      row(ev, ev.pos, ev.header.log_pos, ctx);
    }
    if (opts_.flush_each)
      out_.flush();
    else
      out_.flush_if_large();
  }

  bool done() const override { return opts_.limit_count && shown_ >= *opts_.limit_count; }
  std::uint64_t shown() const { return shown_; }

 private:
  static constexpr std::size_t kWidthType = 18, kWidthServer = 9;

  void row(const Event& ev, std::uint64_t pos, std::uint64_t end,
           const binlog::FormatContext& ctx) {
    auto it = std::back_inserter(buf_);
    info_.clear();
    append_event_info(info_, ev, ctx);
    const std::string_view name = *file_;
    const std::string_view type = binlog::event_type_name(ev.header.type);
    const std::string_view text(info_.data(), info_.size());
    switch (opts_.format) {
      case TableFormat::kTable:
        // For a person: the name and the text as terminal text (no escape sequence or line
        // break from the log reaches the terminal), the text's tabs and line breaks as \t \n.
        if (name != name_of_) {  // (the name's column once per file: fmt measures its width)
          name_of_.assign(name);
          field_.clear();
          append_terminal_text(field_, name);
          name_column_.clear();
          fmt::format_to(std::back_inserter(name_column_), "{:<{}}  ",
                         std::string_view(field_.data(), field_.size()), w_name_);
        }
        buf_.append(name_column_.data(), name_column_.data() + name_column_.size());
        put_right(buf_, pos, w_pos_);
        append(buf_, "  ");
        put_left(buf_, type, kWidthType);
        append(buf_, "  ");
        put_right(buf_, ev.header.server_id, kWidthServer);
        append(buf_, "  ");
        put_right(buf_, end, w_end_);
        append(buf_, "  ");
        if (is_plain_text(text)) {  // (most Info texts: nothing to escape either way)
          append(buf_, text);
        } else {
          field_.clear();
          append_tsv_field(field_, text);
          append_terminal_text(buf_, std::string_view(field_.data(), field_.size()));
        }
        buf_.push_back('\n');
        break;
      case TableFormat::kTsv:
        append_tsv_field(buf_, name);
        buf_.push_back('\t');
        put_right(buf_, pos, 0);
        buf_.push_back('\t');
        append_tsv_field(buf_, type);
        buf_.push_back('\t');
        put_right(buf_, ev.header.server_id, 0);
        buf_.push_back('\t');
        put_right(buf_, end, 0);
        buf_.push_back('\t');
        append_tsv_field(buf_, text);
        buf_.push_back('\n');
        break;
      case TableFormat::kJson:
        append(buf_, "{\"log_name\":");
        append_json_string(buf_, name);
        fmt::format_to(it, ",\"pos\":{},\"event_type\":", pos);
        append_json_string(buf_, type);
        fmt::format_to(it, ",\"server_id\":{},\"end_log_pos\":{},\"info\":", ev.header.server_id,
                       end);
        append_json_string(buf_, text);
        append(buf_, "}\n");
        break;
    }
  }

  const EventListOptions& opts_;
  Output& out_;
  fmt::memory_buffer& buf_;
  std::size_t w_name_ = 8, w_pos_ = 3, w_end_ = 11;
  const std::string* file_ = nullptr;
  std::uint64_t payload_end_ = 0;
  fmt::memory_buffer field_;  // (kTable: a field escaped for the terminal)
  std::string name_of_;       // (kTable: the file name_column_ was made for)
  fmt::memory_buffer name_column_;
  std::uint64_t index_ = 0;
  std::uint64_t shown_ = 0;
  fmt::memory_buffer info_;
};

}  // namespace

std::uint64_t run_event_list(const std::vector<InputFile>& inputs, const DecodeOptions& decode,
                             const FilterOptions& filter, const EventListOptions& opts, Output& out,
                             const binlog::WarningSink& warn) {
  EventList list(inputs, opts, out);
  WalkOptions wo;
  wo.decode = decode;
  wo.filter = filter;
  wo.incomplete_units = true;
  wo.start_anywhere = true;
  try {
    walk(inputs, wo, list, warn);
  } catch (...) {
    out.flush();
    throw;
  }
  out.flush();
  return list.shown();
}

}  // namespace binrecover::recovery
