#pragma once

// libcurl and expat (S3 requests and their XML answers), loaded at the first request.
// (curl's type-checking macros would take the table's members for calls of the functions.)
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#include <expat.h>

#include "recovery/libs/lazy_library.h"

namespace binrecover::recovery::libs {

// clang-format off
#define BINRECOVER_CURL_FUNCTIONS(X) \
  X(curl_easy_cleanup) \
  X(curl_easy_getinfo) \
  X(curl_easy_init) \
  X(curl_easy_perform) \
  X(curl_easy_reset) \
  X(curl_easy_setopt) \
  X(curl_easy_strerror) \
  X(curl_global_init) \
  X(curl_slist_append) \
  X(curl_slist_free_all)
// clang-format on

// clang-format off
#define BINRECOVER_EXPAT_FUNCTIONS(X) \
  X(XML_Parse) \
  X(XML_ParserCreate) \
  X(XML_ParserFree) \
  X(XML_SetCharacterDataHandler) \
  X(XML_SetElementHandler) \
  X(XML_SetUserData)
// clang-format on

struct CurlApi {
  BINRECOVER_CURL_FUNCTIONS(BINRECOVER_API_MEMBER)
};
struct ExpatApi {
  BINRECOVER_EXPAT_FUNCTIONS(BINRECOVER_API_MEMBER)
};

// Each loads its library on the first call (thread-safe; curl_global_init done once) and
// throws an Error if it cannot.
const CurlApi& curl();
const ExpatApi& expat();

}  // namespace binrecover::recovery::libs
