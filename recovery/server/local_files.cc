#include "recovery/server/local_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "recovery/libs/mariadb_api.h"
#include "recovery/text/escape.h"

namespace binrecover::recovery {

bool local_file_allowed(std::string_view folder, std::string_view path) {
  if (folder.empty() || folder.back() == '/' || path.size() <= folder.size() + 1) return false;
  if (path.substr(0, folder.size()) != folder || path[folder.size()] != '/') return false;
  const std::string_view name = path.substr(folder.size() + 1);
  return name.find('/') == std::string_view::npos && name != "." && name != ".." &&
         name.find('\0') == std::string_view::npos;
}

namespace {

constexpr unsigned kRefused = 2068;  // CR_LOAD_DATA_LOCAL_INFILE_REJECTED

struct Request {
  int fd = -1;
  unsigned code = 0;
  std::string message;
};

int request_init(void** ptr, const char* filename, void* userdata) {
  auto r = std::make_unique<Request>();
  const auto* folder = static_cast<const LocalFileFolder*>(userdata);
  const std::string allowed = folder != nullptr && *folder ? (*folder)() : std::string();
  const std::string_view path = filename != nullptr ? filename : "";
  if (!local_file_allowed(allowed, path)) {
    r->code = kRefused;
    r->message = "the server asked for the local file '" + terminal_text(path) +
                 "', which is not one binrecover wrote for LOAD DATA (refused)";
  } else {
    r->fd = ::open(filename, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    struct stat st {};
    if (r->fd < 0 || ::fstat(r->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      r->code = kRefused;
      r->message = "cannot read the LOAD DATA file '" + terminal_text(path) +
                   "': " + (r->fd < 0 ? std::strerror(errno) : "not a regular file");
    }
  }
  const bool ok = r->code == 0;
  *ptr = r.release();
  return ok ? 0 : 1;
}

int request_read(void* ptr, char* buf, unsigned int size) {
  auto* r = static_cast<Request*>(ptr);
  for (;;) {
    const ssize_t n = ::read(r->fd, buf, size);
    if (n >= 0) return static_cast<int>(n);
    if (errno == EINTR) continue;
    r->code = kRefused;
    r->message = std::string("reading a LOAD DATA file: ") + std::strerror(errno);
    return -1;
  }
}

void request_end(void* ptr) {
  auto* r = static_cast<Request*>(ptr);
  if (r == nullptr) return;
  if (r->fd >= 0) ::close(r->fd);
  delete r;
}

int request_error(void* ptr, char* buf, unsigned int size) {
  const auto* r = static_cast<const Request*>(ptr);
  // (The client library takes the text as a printf format: a '%' from the server's file name
  // is doubled, and never cut in half.)
  const std::string_view text =
      r != nullptr ? std::string_view(r->message) : "LOAD DATA LOCAL refused";
  std::size_t n = 0;
  for (const char c : text) {
    const std::size_t need = c == '%' ? 2 : 1;
    if (n + need + 1 > size) break;
    buf[n++] = c;
    if (c == '%') buf[n++] = '%';
  }
  if (size > 0) buf[n] = '\0';
  return static_cast<int>(r != nullptr && r->code != 0 ? r->code : kRefused);
}

}  // namespace

void install_local_file_handler(st_mysql* mysql, const LocalFileFolder* folder) {
  libs::mariadb().mysql_set_local_infile_handler(mysql, request_init, request_read, request_end,
                                                 request_error,
                                                 const_cast<LocalFileFolder*>(folder));
}

}  // namespace binrecover::recovery
