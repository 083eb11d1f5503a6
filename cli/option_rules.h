#pragma once

// How options go together, declared once as data: an option that needs another one (or one of
// several), an option that cannot be given with another. parse_options checks every rule
// before the readers run (cli/option_readers.h); the readers check what depends on values.

#include <cstdint>
#include <vector>

#include "cli/option_values.h"
#include "cli/options.h"

namespace binrecover::cli {

struct OptionRule {
  enum class Kind : std::uint8_t {
    kNeeds,     // `option` needs one of `others`
    kConflicts  // `option` cannot be given with any of `others`
  };
  const char* option;
  Kind kind;
  std::vector<const char*> others;
  std::vector<Command> commands;  // where the rule holds (empty: every command)
  const char* message;            // the usage error (exit 2) when it is broken
};

// Every rule, in the order they are checked.
const std::vector<OptionRule>& option_rules();

// Throws the usage error of the first rule the options given to `cmd` break.
void check_option_rules(const Given& g, Command cmd);

}  // namespace binrecover::cli
