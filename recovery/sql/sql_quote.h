#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>

namespace binrecover::recovery {

// Names and strings in the SQL binrecover writes: the one place that quotes them.

// `name`, a backtick doubled: any byte of a name stays inside the quotes.
void append_quoted_ident(fmt::memory_buffer& out, std::string_view name);
std::string quoted_ident(std::string_view name);

// 'text' with the quote and the backslash escaped (the server's default sql_mode), for the
// statements binrecover sends of its own (a drill's checks, session settings).
void append_quoted_string(fmt::memory_buffer& out, std::string_view text);
std::string quoted_string(std::string_view text);

}  // namespace binrecover::recovery
