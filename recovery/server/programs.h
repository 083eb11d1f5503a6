#pragma once

// The server's own programs run as child processes (the mariadb/mysql client, mariadb-dump /
// mysqldump, mariadbd for a drill): found on PATH, started with their standard streams given,
// waited for.

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

namespace binrecover::recovery {

// The first of `names` found executable on PATH or in the usual sbin/bin folders ("": none).
std::string find_program(const std::vector<std::string>& names);
// Runs argv (argv[0] a path) with the given stdin/stdout/stderr descriptors (-1: /dev/null),
// every signal unblocked; returns the pid. Throws Error(kIo) when it cannot fork.
pid_t spawn(const std::vector<std::string>& argv, int in, int out, int err);
// Its exit status (128 + the signal when one ended it).
int wait_exit(pid_t pid);
// A file's text (its last `max` bytes); "" when it cannot be read.
std::string read_text_file(const std::string& path, std::size_t max = std::size_t{1} << 20);
// The last `n` lines of a text (a program's messages).
std::string last_lines(std::string text, int n);

}  // namespace binrecover::recovery
