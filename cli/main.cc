#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "binlog/error.h"
#include "cli/options.h"
#include "recovery/event_table.h"
#include "recovery/output.h"
#include "recovery/pipeline.h"
#include "recovery/sql_sink.h"

namespace {

using binrecover::Error;
using binrecover::ErrorCode;

void warn(const std::string& msg) {
  std::fprintf(stderr, "binrecover: warning: %s\n", msg.c_str());
}

int run(const std::vector<std::string>& args) {
  using namespace binrecover;
  cli::Options o = cli::parse_options(args, ::isatty(STDIN_FILENO) != 0);
  switch (o.command) {
    case cli::Command::kHelp:
      std::fputs(o.help_text.c_str(), stdout);
      return 0;
    case cli::Command::kVersion:
      std::printf("binrecover %s\n", BINRECOVER_VERSION);
      return 0;
    default:
      break;
  }
  const int fd = o.result_file ? recovery::Output::open_file(*o.result_file) : STDOUT_FILENO;
  recovery::Output out(fd, o.result_file.value_or("standard output"));
  if (o.command == cli::Command::kEvents) {
    recovery::run_event_list(o.inputs, o.decode, o.events, out, warn);
    out.flush();
    return 0;
  }
  const bool tty = o.progress && ::isatty(STDERR_FILENO) != 0;
  recovery::ProgressFn progress;
  if (tty) {
    progress = [](const std::string& file, std::uint64_t pos, std::optional<std::uint64_t> size) {
      if (size && *size > 0)
        std::fprintf(stderr, "\rbinrecover: %s %llu/%llu bytes (%3.0f%%)   ", file.c_str(),
                     static_cast<unsigned long long>(pos), static_cast<unsigned long long>(*size),
                     100.0 * static_cast<double>(pos) / static_cast<double>(*size));
    };
  }
  recovery::SqlSink sink(out, o.sql);
  try {
    recovery::run_sql(o.inputs, o.decode, o.filter, sink, warn, progress);
  } catch (...) {
    if (tty) std::fputs("\n", stderr);
    try {
      out.flush();  // whole transactions and the footer: the output stays replayable
    } catch (...) {
    }
    throw;
  }
  if (tty) std::fputs("\n", stderr);
  out.flush();
  if (o.result_file) ::close(fd);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    return run(args);
  } catch (const Error& e) {
    std::fprintf(stderr, "binrecover: %s\n", e.describe().c_str());
    return binrecover::exit_status(e.code());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "binrecover: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "binrecover: internal error: %s\n", e.what());
    return 1;
  }
}
