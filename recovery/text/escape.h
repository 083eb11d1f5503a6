#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace binrecover::recovery {

// Text from outside (names and statements from a binlog, a server's names and messages, a
// manifest's fields) escaped for where it is written: one function per destination, used by
// every writer. SQL has its own in recovery/sql/sql_quote.h (literals, names, comment lines).

// For a person at a terminal (tables, reports, warnings and errors): UTF-8 text as it is; every
// control byte (below 0x20, 0x7f), C1 control (U+0080-U+009F), bidirectional override
// (U+202A-U+202E, U+2066-U+2069) and byte that is not UTF-8 as \xNN, so no escape sequence,
// line break or reordering reaches the terminal.
void append_terminal_text(fmt::memory_buffer& out, std::string_view s);
std::string terminal_text(std::string_view s);

// A JSON string literal with its quotes; bytes that are not UTF-8 become U+FFFD.
void append_json_string(fmt::memory_buffer& out, std::string_view s);

// Text inside an HTML element or a quoted attribute: & < > " ' as entities; control bytes other
// than tab and line feed, and bytes that are not UTF-8, as U+FFFD.
void append_html_text(fmt::memory_buffer& out, std::string_view s);

// A field of tab-separated values as the mysql client's batch mode writes it (\\, \t, \n, \0),
// so the TSV diffs against `mysql -B -N -e 'SHOW BINLOG EVENTS'`; tsv_field reads it back.
void append_tsv_field(fmt::memory_buffer& out, std::string_view s);
// Whether `s` is printable ASCII without a backslash: text that append_terminal_text and
// append_tsv_field both copy as it is (checked 16 bytes at a time).
bool is_plain_text(std::string_view s);
std::string tsv_field(std::string_view field);

// The length of the UTF-8 sequence starting at s[i] (a shortest form of a code point up to
// U+10FFFF that is not a surrogate), or 0.
std::size_t utf8_length(std::string_view s, std::size_t i);
// The code point of the well-formed UTF-8 sequence of `n` bytes at s[i] (utf8_length).
std::uint32_t utf8_code_point(std::string_view s, std::size_t i, std::size_t n);

}  // namespace binrecover::recovery
