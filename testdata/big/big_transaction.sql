-- One very large transaction (scripts/gen_big_transaction.sh; tests/integration/big_transaction.sh
-- runs the same statements to know what the table must hold). @rows is set by the caller.
CREATE DATABASE IF NOT EXISTS big;
USE big;
CREATE TABLE big.t (id INT PRIMARY KEY, n BIGINT NOT NULL, d DECIMAL(12,2), s VARCHAR(200),
  ts DATETIME(6), j JSON, e ENUM('a','b','c')) ENGINE=InnoDB;
CREATE TABLE big.small (id INT PRIMARY KEY, v VARCHAR(20));
INSERT INTO big.small VALUES (1, 'before');
INSERT INTO big.t SELECT seq, seq * 7919, seq / 100, CONCAT(REPEAT('x', seq % 90), ' row ', seq,
  ' ', SHA2(seq, 256)), '2026-11-29 10:00:00' + INTERVAL seq SECOND,
  JSON_OBJECT('k', seq, 'v', 'value'), ELT(1 + seq % 3, 'a', 'b', 'c') FROM seq_1_to_ROWS;
INSERT INTO big.small VALUES (2, 'after');
