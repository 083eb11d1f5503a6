#include "recovery/server/option_files.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace binrecover::recovery {

namespace {

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// Whether the file may be read: the mysql client skips a regular file anyone may write.
bool trusted(const std::string& path, const OptionFileWarning& warn) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;  // (missing: nothing to read)
  if (S_ISREG(st.st_mode) && (st.st_mode & S_IWOTH) != 0) {
    if (warn) warn("World-writable config file '" + path + "' is ignored.");
    return false;
  }
  return true;
}

void read_file(const std::string& path, std::vector<OptionLine>& out, std::string& group, int depth,
               const OptionFileWarning& warn) {
  if (depth > 8 || !trusted(path, warn)) return;
  std::ifstream in(path);
  if (!in) return;
  for (std::string raw; std::getline(in, raw);) {
    const std::string line = trimmed(raw);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.rfind("!includedir", 0) == 0) {
      const std::filesystem::path dir = trimmed(line.substr(11));
      std::error_code ec;
      std::vector<std::string> files;
      for (const auto& e : std::filesystem::directory_iterator(dir, ec))
        if (e.path().extension() == ".cnf") files.push_back(e.path().string());
      std::sort(files.begin(), files.end());
      for (const auto& f : files) {
        std::string g;  // an included file starts outside any group
        read_file(f, out, g, depth + 1, warn);
      }
      continue;
    }
    if (line.rfind("!include", 0) == 0) {
      std::string g;
      read_file(trimmed(line.substr(8)), out, g, depth + 1, warn);
      continue;
    }
    if (line[0] == '[') {
      const auto end = line.find(']');
      group = end == std::string::npos ? std::string() : trimmed(line.substr(1, end - 1));
      continue;
    }
    if (group.empty()) continue;
    OptionLine o;
    o.group = group;
    o.text = line;
    const auto eq = line.find('=');
    o.key = trimmed(line.substr(0, eq));
    std::replace(o.key.begin(), o.key.end(), '_', '-');
    if (eq != std::string::npos) {
      o.has_value = true;
      o.value = trimmed(line.substr(eq + 1));
      if (o.value.size() >= 2 && (o.value.front() == '"' || o.value.front() == '\'') &&
          o.value.back() == o.value.front())
        o.value = o.value.substr(1, o.value.size() - 2);
    }
    out.push_back(std::move(o));
  }
}

}  // namespace

std::vector<OptionLine> read_option_files(const std::vector<std::string>& files,
                                          const OptionFileWarning& warn) {
  std::vector<OptionLine> out;
  for (const auto& f : files) {
    std::string group;
    read_file(f, out, group, 0, warn);
  }
  return out;
}

bool is_connection_group(const std::string& group) {
  return group == "client" || group == "client-server" || group == "client-mariadb" ||
         group == "mariadb-client" || group == "binrecover";
}

}  // namespace binrecover::recovery
