// The tables of recovery/libs: each library opened by the SONAME the build found
// (BINRECOVER_SONAME_*, BINRECOVER_PACKAGE_*: CMakeLists.txt), once, on first use.
#include "recovery/libs/crypto_api.h"
#include "recovery/libs/curl_api.h"
#include "recovery/libs/lazy_library.h"
#include "recovery/libs/mariadb_api.h"

namespace binrecover::recovery::libs {
namespace {

// The table of `Api`, filled by `bind(handle, soname, table)` the first time (thread-safe: a
// function-local static per table type); a failure is thrown and tried again next time.
template <class Api, class Bind>
const Api& loaded(const char* soname, const char* package, const char* needed_for, Bind bind) {
  static const Api table = [&] {
    Api api{};
    bind(open_library(soname, package, needed_for), soname, api);
    return api;
  }();
  return table;
}

#define BINRECOVER_BIND(f) bind_function(h, soname, #f, api.f);

}  // namespace

const MariadbApi& mariadb() {
  return loaded<MariadbApi>(BINRECOVER_SONAME_MARIADB, BINRECOVER_PACKAGE_MARIADB,
                            "a connection to a server",
                            [](void* h, const char* soname, MariadbApi& api) {
                              BINRECOVER_MARIADB_FUNCTIONS(BINRECOVER_BIND)
                            });
}

const CurlApi& curl() {
  return loaded<CurlApi>(BINRECOVER_SONAME_CURL, BINRECOVER_PACKAGE_CURL, "S3 requests",
                         [](void* h, const char* soname, CurlApi& api) {
                           BINRECOVER_CURL_FUNCTIONS(BINRECOVER_BIND)
                           api.curl_global_init(CURL_GLOBAL_DEFAULT);  // before any other use
                         });
}

const ExpatApi& expat() {
  return loaded<ExpatApi>(BINRECOVER_SONAME_EXPAT, BINRECOVER_PACKAGE_EXPAT, "reading S3 answers",
                          [](void* h, const char* soname, ExpatApi& api) {
                            BINRECOVER_EXPAT_FUNCTIONS(BINRECOVER_BIND)
                          });
}

const CryptoApi& crypto() {
  return loaded<CryptoApi>(BINRECOVER_SONAME_CRYPTO, BINRECOVER_PACKAGE_CRYPTO,
                           "digests and encryption",
                           [](void* h, const char* soname, CryptoApi& api) {
                             BINRECOVER_CRYPTO_FUNCTIONS(BINRECOVER_BIND)
                           });
}

#undef BINRECOVER_BIND

}  // namespace binrecover::recovery::libs
