#pragma once

// The commands' table: their names, forms and examples, and the help and errors that name them
// (cli/command_table.cc).

#include <optional>
#include <string>

#include "cli/options.h"

namespace binrecover::cli {

// The command a word names (the SQL output's is no word).
std::optional<Command> command_named(const std::string& a);
// A word that is no command and no file but one or two letters off a command's name (`plna`):
// that command's name, for "did you mean".
std::optional<std::string> command_near(const std::string& word);
// The command's word ("" for SQL output).
const char* command_word(Command c);
// "binrecover plan", "SQL output": the command as messages name it.
std::string command_label(Command c);
// Which commands know an option (by its long name), for the message when one does not.
std::string commands_with(const std::string& name);
// The usage error for an option the command does not take: where it belongs, or the nearest
// option the command has.
[[noreturn]] void unknown_option(Command c, std::string opt);
// `binrecover COMMAND --help`.
std::string help_text(Command c);

}  // namespace binrecover::cli
