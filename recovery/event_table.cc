#include "recovery/event_table.h"

#include <algorithm>
#include <filesystem>

#include "binlog/error.h"
#include "binlog/payload.h"
#include "recovery/event_info.h"

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

std::uint64_t run_event_list(const std::vector<InputFile>& inputs, const DecodeOptions& decode,
                             const EventListOptions& opts, Output& out,
                             const binlog::WarningSink& warn) {
  auto& buf = out.buf();
  auto it = std::back_inserter(buf);
  // Column widths from what is known before reading: names, and the digits of file sizes.
  std::size_t w_name = 8, w_pos = 3, w_end = 11;
  constexpr std::size_t w_type = 18, w_server = 9;
  for (const auto& in : inputs) {
    w_name = std::max(w_name, in.display_name.size());
    std::error_code ec;
    const auto size = in.memory        ? in.memory->size()
                      : in.path == "-" ? 0
                                       : std::filesystem::file_size(in.path, ec);
    const std::size_t d = (ec || (in.path == "-" && !in.memory)) ? 10 : digits(size);
    w_pos = std::max(w_pos, d);
    w_end = std::max(w_end, d);
  }
  if (opts.format == TableFormat::kTable) {
    fmt::format_to(it, "{:<{}}  {:>{}}  {:<{}}  {:>{}}  {:>{}}  Info\n", "Log_name", w_name, "Pos",
                   w_pos, "Event_type", w_type, "Server_id", w_server, "End_log_pos", w_end);
  }
  std::uint64_t index = 0;
  std::uint64_t shown = 0;
  fmt::memory_buffer info;
  std::size_t current = 0;
  // One row; false once --limit is reached.
  // Events inside a MySQL payload show the payload's end as both Pos and End_log_pos.
  auto emit = [&](const Event& ev, std::uint64_t pos, const binlog::FormatContext& ctx) {
    const std::uint64_t end = ev.in_payload ? pos : ev.header.log_pos;
    if (index++ < opts.limit_offset) return true;
    if (opts.limit_count && shown >= *opts.limit_count) return false;
    ++shown;
    info.clear();
    append_event_info(info, ev, ctx);
    const std::string_view name = inputs[current].display_name;
    const std::string_view type = binlog::event_type_name(ev.header.type);
    const std::string_view text(info.data(), info.size());
    switch (opts.format) {
      case TableFormat::kTable:
        fmt::format_to(it, "{:<{}}  {:>{}}  {:<{}}  {:>{}}  {:>{}}  ", name, w_name, pos, w_pos,
                       type, w_type, ev.header.server_id, w_server, end, w_end);
        append_tsv_field(buf, text);
        buf.push_back('\n');
        break;
      case TableFormat::kTsv:
        append_tsv_field(buf, name);
        fmt::format_to(it, "\t{}\t", pos);
        append_tsv_field(buf, type);
        fmt::format_to(it, "\t{}\t{}\t", ev.header.server_id, end);
        append_tsv_field(buf, text);
        buf.push_back('\n');
        break;
      case TableFormat::kJson:
        append(buf, "{\"log_name\":");
        append_json_string(buf, name);
        fmt::format_to(it, ",\"pos\":{},\"event_type\":", pos);
        append_json_string(buf, type);
        fmt::format_to(it, ",\"server_id\":{},\"end_log_pos\":{},\"info\":", ev.header.server_id,
                       end);
        append_json_string(buf, text);
        append(buf, "}\n");
        break;
    }
    out.flush_if_large();
    return true;
  };
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    current = i;
    const std::unique_ptr<binlog::Source> source = open_input(inputs[i]);
    binlog::EventReader reader(*source, decode.reader, warn);
    bool seeked = !(i == 0 && opts.from && *opts.from > 4);
    for (;;) {
      std::optional<Event> ev;
      try {
        ev = reader.next();
      } catch (Error& e) {
        if (!(reader.in_use() && e.code() == ErrorCode::kTruncated)) {
          out.flush();
          throw;
        }
        if (warn)
          warn(e.describe() + " (the file was not closed by its server: listing stops here)");
        break;
      }
      if (!ev) break;
      if (!seeked) {
        seeked = true;
        if (reader.seen_format()) {
          reader.seek(*opts.from);
          continue;
        }
      }
      if (!emit(*ev, ev->pos, reader.format())) break;
      if (const auto* tp = std::get_if<binlog::TransactionPayload>(&ev->body)) {
        // MySQL lists the events inside a payload after it, at the payload's end position.
        const std::uint64_t at = ev->end_pos();
        binlog::PayloadSource inner_source(*tp, ev->pos, inputs[i].display_name);
        const binlog::FormatContext inner_ctx = binlog::payload_context(reader.format());
        binlog::EventReader inner(inner_source, decode.reader, warn, inner_ctx);
        bool more = true;
        while (more) {
          std::optional<Event> iev = inner.next();
          if (!iev) break;
          more = emit(*iev, at, inner_ctx);
        }
        if (!more) break;
      }
    }
    if (opts.limit_count && shown >= *opts.limit_count) break;
  }
  out.flush();
  return shown;
}

}  // namespace binrecover::recovery
