#pragma once

// libmariadb (MariaDB Connector/C), loaded at the first connection to a server.
#include <mysql.h>

#include "recovery/libs/lazy_library.h"

namespace binrecover::recovery::libs {

// clang-format off
#define BINRECOVER_MARIADB_FUNCTIONS(X) \
  X(mariadb_get_infov) \
  X(mysql_close) \
  X(mysql_errno) \
  X(mysql_error) \
  X(mysql_fetch_fields) \
  X(mysql_fetch_lengths) \
  X(mysql_fetch_row) \
  X(mysql_field_count) \
  X(mysql_free_result) \
  X(mysql_get_server_info) \
  X(mysql_init) \
  X(mysql_net_read_packet) \
  X(mysql_next_result) \
  X(mysql_num_fields) \
  X(mysql_options) \
  X(mysql_real_connect) \
  X(mysql_read_query_result) \
  X(mysql_real_query) \
  X(mysql_send_query) \
  X(mysql_set_character_set) \
  X(mysql_set_local_infile_handler) \
  X(mysql_set_server_option) \
  X(mysql_sqlstate) \
  X(mysql_store_result)
// clang-format on

struct MariadbApi {
  BINRECOVER_MARIADB_FUNCTIONS(BINRECOVER_API_MEMBER)
};

// Loads the library on the first call (thread-safe); throws an Error if it cannot.
const MariadbApi& mariadb();

}  // namespace binrecover::recovery::libs
