// binrecover_docgen: writes the manual page or the bash completion from the option table the
// parser uses (a build step; not installed).
//   binrecover_docgen man DATE > binrecover.1
//   binrecover_docgen bash-completion > binrecover
#include <cstdio>
#include <string>

#include "cli/manual.h"
#include "version.h"

int main(int argc, char** argv) {
  using namespace binrecover::cli;
  const std::string what = argc > 1 ? argv[1] : "";
  std::string text;
  if (what == "man" && argc == 3)
    text = man_page(command_table(), BINRECOVER_VERSION, argv[2]);
  else if (what == "bash-completion" && argc == 2)
    text = bash_completion(command_table());
  else {
    std::fputs("usage: binrecover_docgen man DATE | bash-completion\n", stderr);
    return 2;
  }
  return std::fwrite(text.data(), 1, text.size(), stdout) == text.size() ? 0 : 3;
}
