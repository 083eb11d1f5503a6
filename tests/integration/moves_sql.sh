# shellcheck shell=bash
# The collation moves, shared by tests/integration/parallel_schemas.sh and bench/workloads_lib.sh
# (`moves`): values of unique keys under case- and accent-insensitive collations moved from row to
# row, each move two transactions: the value leaves its row, then a new row takes it in another
# spelling (two units with no row in common, ordered by the unique key alone: wrongly told apart,
# the second runs first and meets a 1062).
#   moves_collations FLAVOR        the collations moved under (mysql or mariadb)
#   moves_schema COLLATION...      a table w.tN per collation, three rows in it
#   moves_sql ROUNDS COLLATION...  the moves, 3 a round per collation

moves_collations() {
  if [ "$1" = mysql ]; then
    echo "utf8mb4_general_ci utf8mb4_0900_ai_ci utf8mb4_unicode_ci"
  else
    echo "utf8mb4_general_ci utf8mb4_unicode_ci utf8mb4_uca1400_ai_ci latin1_swedish_ci"
  fi
}

moves_variants() {  # COLLATION: lines of values it takes for one key
  case $1 in
    utf8mb4_general_ci)
      printf '%s\n' "bâton|BATON |Bâton" "Straße|STRASE|strase  " "😀x|😁X|🐬x" "çà|CA|ca " ;;
    latin1_swedish_ci) printf '%s\n' "Ab|aB |AB" "x{y|X[Y|x{Y " ;;
    *) printf '%s\n' "résumé|RESUME|Résumé " "Straße|STRASSE|strasse" "Ωmega|ωMEGA|ωmega " ;;
  esac
}

moves_schema() {
  local n=0 c
  for c in "$@"; do
    n=$((n + 1))
    echo "CREATE TABLE w.t$n (id INT PRIMARY KEY, name VARCHAR(20) CHARACTER SET ${c%%_*} COLLATE $c,"
    echo "  UNIQUE KEY (name)) ENGINE=InnoDB;"
    echo "INSERT INTO w.t$n VALUES (1, 'x1'), (2, 'x2'), (3, 'x3');"
  done
}

moves_sql() {
  local rounds=$1 n=0 c at i k to sets v
  shift
  for c in "$@"; do
    n=$((n + 1))
    mapfile -t sets < <(moves_variants "$c")
    at=1  # (the row holding the value moved)
    for ((i = 1; i <= rounds; i++)); do
      IFS='|' read -r -a v <<< "${sets[$((i % ${#sets[@]}))]}"
      for k in 0 1 2; do
        to=$((i * 10 + k + 10))
        echo "UPDATE w.t$n SET name = 'f$to' WHERE id = $at;"
        echo "INSERT INTO w.t$n VALUES ($to, '${v[$k]}');"
        at=$to
      done
    done
  done
}
