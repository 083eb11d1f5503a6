#include "recovery/libs/lazy_library.h"

#include <dlfcn.h>

#include <string>

#include "binlog/error.h"

namespace binrecover::recovery::libs {

void* open_library(const char* soname, const char* package, const char* needed_for) {
  void* h = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (h != nullptr) return h;
  const char* why = ::dlerror();
  std::string msg = std::string("cannot load ") + soname + ", needed for " + needed_for;
  if (package != nullptr && *package != '\0')
    msg += " (Debian package " + std::string(package) + ")";
  if (why != nullptr) msg += ": " + std::string(why);
  throw Error(ErrorCode::kIo, msg);
}

void* library_symbol(void* handle, const char* soname, const char* name) {
  ::dlerror();
  void* p = ::dlsym(handle, name);
  if (p == nullptr)
    throw Error(ErrorCode::kIo, std::string(soname) + " has no function " + name +
                                    ": not the version binrecover was built with");
  return p;
}

}  // namespace binrecover::recovery::libs
