# Shared by the bench scripts (sourced from the repository root).

# server_with_binlog DIR PORT FILE: a throwaway MariaDB server (scripts/mariadb_server.sh) whose
# first binlog is FILE (its index names it; the server opens a new file after it at start), for
# reading FILE over the replication protocol or as a relay log.
server_with_binlog() {
  local dir=$1 port=$2 file=$3
  scripts/mariadb_server.sh start "$dir" "$port" > /dev/null
  scripts/mariadb_server.sh stop "$dir"
  rm -f "$dir/binlog/"*
  cp "$file" "$dir/binlog/mysql-bin.000001"
  echo "$dir/binlog/mysql-bin.000001" > "$dir/binlog/mysql-bin.index"
  scripts/mariadb_server.sh restart "$dir" "$port" > /dev/null
}
