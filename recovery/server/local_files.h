#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <string_view>

struct st_mysql;

namespace binrecover::recovery {

// The one folder a server may read local files from: LOAD DATA LOCAL INFILE, which replay sends
// for the LOAD files the SQL writer makes. A request names a file; the client library would open
// any file this user can read, and the request comes from the server, not from our statement, so
// a hostile target (or a log's own statement) could read this machine's files. The folder is
// asked for at each request (the SQL writer makes it on first use); empty: nothing is allowed.
using LocalFileFolder = std::function<std::string()>;

// A folder known once it is made (by one thread), asked for by sessions on others.
class SharedFolder {
 public:
  void set(const std::string& folder) {
    std::lock_guard<std::mutex> lock(mu_);
    folder_ = folder;
  }
  std::string get() const {
    std::lock_guard<std::mutex> lock(mu_);
    return folder_;
  }
  LocalFileFolder reader() const {
    return [this] { return get(); };
  }

 private:
  mutable std::mutex mu_;
  std::string folder_;
};

// Whether `path` names a file directly inside `folder` (FOLDER/NAME, NAME without a '/', not
// "." or ".."): the lexical check a request must pass before the file is opened, without
// following a link, as a regular file.
bool local_file_allowed(std::string_view folder, std::string_view path);

// Makes the session answer LOAD DATA LOCAL requests through `folder` (which must outlive the
// session): a file outside it is refused, the statement then fails with the client's error
// 2068 naming the file. Null: every request refused.
void install_local_file_handler(st_mysql* mysql, const LocalFileFolder* folder);

}  // namespace binrecover::recovery
