#pragma once

// Shared libraries opened on first use (recovery/libs/README.md).

// One member of a library's table (an X-macro list of its functions, `*_api.h`): the
// function's name, of its own pointer type.
#define BINRECOVER_API_MEMBER(f) decltype(&::f) f;

namespace binrecover::recovery::libs {

// Opens the library `soname` (RTLD_NOW | RTLD_LOCAL) or throws an Error naming it, the Debian
// package that holds it and what it is `needed_for`.
void* open_library(const char* soname, const char* package, const char* needed_for);

// The address of `name` in `handle`, or throws an Error naming the library and the function.
void* library_symbol(void* handle, const char* soname, const char* name);

template <class Fn>
void bind_function(void* handle, const char* soname, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(library_symbol(handle, soname, name));
}

}  // namespace binrecover::recovery::libs
