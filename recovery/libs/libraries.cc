// The tables of recovery/libs: each library opened by the SONAME the build found
// (BINRECOVER_SONAME_*, BINRECOVER_PACKAGE_*: CMakeLists.txt), once, on first use.

#include "recovery/libs/crypto_api.h"
#include "recovery/libs/curl_api.h"
#include "recovery/libs/lazy_library.h"
#include "recovery/libs/mariadb_api.h"

namespace binrecover::recovery::libs {

#define BINRECOVER_BIND(f) bind_function(h, soname, #f, api.f);

const MariadbApi& mariadb() {
  static const MariadbApi table = [] {
    MariadbApi api{};
    const char* soname = BINRECOVER_SONAME_MARIADB;
    void* h = open_library(soname, BINRECOVER_PACKAGE_MARIADB, "a connection to a server");
    BINRECOVER_MARIADB_FUNCTIONS(BINRECOVER_BIND)
    return api;
  }();
  return table;
}

const CurlApi& curl() {
  static const CurlApi table = [] {
    CurlApi api{};
    const char* soname = BINRECOVER_SONAME_CURL;
    void* h = open_library(soname, BINRECOVER_PACKAGE_CURL, "S3 requests");
    BINRECOVER_CURL_FUNCTIONS(BINRECOVER_BIND)
    api.curl_global_init(CURL_GLOBAL_DEFAULT);  // before any other thread uses it
    return api;
  }();
  return table;
}

const ExpatApi& expat() {
  static const ExpatApi table = [] {
    ExpatApi api{};
    const char* soname = BINRECOVER_SONAME_EXPAT;
    void* h = open_library(soname, BINRECOVER_PACKAGE_EXPAT, "reading S3 answers");
    BINRECOVER_EXPAT_FUNCTIONS(BINRECOVER_BIND)
    return api;
  }();
  return table;
}

const CryptoApi& crypto() {
  static const CryptoApi table = [] {
    CryptoApi api{};
    const char* soname = BINRECOVER_SONAME_CRYPTO;
    void* h = open_library(soname, BINRECOVER_PACKAGE_CRYPTO, "digests and encryption");
    BINRECOVER_CRYPTO_FUNCTIONS(BINRECOVER_BIND)
    return api;
  }();
  return table;
}

#undef BINRECOVER_BIND

}  // namespace binrecover::recovery::libs
