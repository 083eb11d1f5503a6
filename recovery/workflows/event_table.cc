#include "recovery/workflows/event_table.h"

#include <algorithm>
#include <filesystem>

#include "binlog/error.h"
#include "binlog/payload.h"
#include "recovery/sql/event_info.h"

namespace binrecover::recovery {

using binlog::Event;

void append_tsv_field(fmt::memory_buffer& out, std::string_view s) {
  for (char c : s) {
    switch (c) {
      case '\\':
        append(out, "\\\\");
        break;
      case '\t':
        append(out, "\\t");
        break;
      case '\n':
        append(out, "\\n");
        break;
      case '\0':
        append(out, "\\0");
        break;
      default:
        out.push_back(c);
    }
  }
}

namespace {

// Length of the valid UTF-8 sequence at s[i], or 0.
std::size_t utf8_len(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t n = 0;
  std::uint32_t min = 0;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
    min = 0x80;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    min = 0x800;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  std::uint32_t cp = c & (0x7f >> n);
  for (std::size_t k = 1; k < n; ++k) {
    const auto d = static_cast<unsigned char>(s[i + k]);
    if ((d & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (d & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

std::size_t digits(std::uint64_t v) {
  std::size_t n = 1;
  while (v >= 10) {
    v /= 10;
    ++n;
  }
  return n;
}

}  // namespace

std::string printable(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

void append_json_string(fmt::memory_buffer& out, std::string_view s) {
  out.push_back('"');
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"':
          append(out, "\\\"");
          break;
        case '\\':
          append(out, "\\\\");
          break;
        case '\n':
          append(out, "\\n");
          break;
        case '\t':
          append(out, "\\t");
          break;
        case '\r':
          append(out, "\\r");
          break;
        default:
          if (c < 0x20)
            fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
          else
            out.push_back(static_cast<char>(c));
      }
      ++i;
      continue;
    }
    const std::size_t n = utf8_len(s, i);
    if (n == 0) {
      append(out, "\\ufffd");
      ++i;
    } else {
      append(out, s.substr(i, n));
      i += n;
    }
  }
  out.push_back('"');
}

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
        fmt::format_to(it, "{:<{}}  {:>{}}  {:<{}}  {:>{}}  {:>{}}  ", name, w_name_, pos, w_pos_,
                       type, kWidthType, ev.header.server_id, kWidthServer, end, w_end_);
        append_tsv_field(buf_, text);
        buf_.push_back('\n');
        break;
      case TableFormat::kTsv:
        append_tsv_field(buf_, name);
        fmt::format_to(it, "\t{}\t", pos);
        append_tsv_field(buf_, type);
        fmt::format_to(it, "\t{}\t{}\t", ev.header.server_id, end);
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
