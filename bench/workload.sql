-- Benchmark workload for bench/run.sh: run once against a fresh MariaDB server with
-- binlog_format=ROW; the driver then calls bench.gen_chunk(N) until the binary log is big
-- enough. Editing this file changes the cache key, so the binlog is regenerated.
--
-- Four tables cover the column types binrecover has to decode (ints of every width, signed
-- and unsigned, DECIMAL, DOUBLE/FLOAT, BIT, YEAR, utf8mb4 VARCHAR/CHAR, TEXT/BLOB/VARBINARY,
-- ENUM/SET, JSON, DATETIME(6)/TIMESTAMP/DATE/TIME). Every transaction has tens of rows:
-- multi-row INSERT ... SELECT from the Sequence engine, UPDATEs of primary-key ranges and
-- DELETEs of the oldest rows, so each table stays at a few ten-thousand rows.

CREATE DATABASE bench DEFAULT CHARSET utf8mb4;
USE bench;

CREATE TABLE t_ints (
  id BIGINT UNSIGNED PRIMARY KEY,
  ti TINYINT, tiu TINYINT UNSIGNED,
  si SMALLINT, siu SMALLINT UNSIGNED,
  mi MEDIUMINT, miu MEDIUMINT UNSIGNED,
  i INT, iu INT UNSIGNED,
  bi BIGINT, biu BIGINT UNSIGNED,
  dec_small DECIMAL(10,2), dec_big DECIMAL(30,10) NULL,
  dbl DOUBLE, flt FLOAT NULL,
  flags BIT(12), yr YEAR
) ENGINE=InnoDB;

CREATE TABLE t_text (
  id INT UNSIGNED PRIMARY KEY,
  name VARCHAR(100) NOT NULL,
  code CHAR(12),
  note TEXT NULL,
  payload BLOB NULL,
  raw VARBINARY(40),
  status ENUM('new','paid','shipped','cancelled','refunded') NOT NULL,
  tags SET('red','green','blue','vip','b2b','gift') NOT NULL,
  doc JSON NULL,
  KEY (name(16))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE t_time (
  id INT UNSIGNED PRIMARY KEY,
  created DATETIME(6) NOT NULL,
  modified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  ts3 TIMESTAMP(3) NULL,
  day DATE,
  tod TIME,
  tod6 TIME(6) NULL,
  dt DATETIME NULL
) ENGINE=InnoDB;

-- A wide "orders" row mixing everything, as an application table would.
CREATE TABLE t_orders (
  id BIGINT PRIMARY KEY,
  customer_id INT UNSIGNED NOT NULL,
  qty SMALLINT UNSIGNED NOT NULL,
  price DECIMAL(12,4) NOT NULL,
  total DOUBLE,
  currency CHAR(3) CHARACTER SET ascii NOT NULL,
  status ENUM('open','closed','void') NOT NULL,
  comment VARCHAR(255) NULL,
  meta JSON,
  placed_at DATETIME(6) NOT NULL,
  ship_date DATE NULL,
  KEY (customer_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

DELIMITER //

-- Inserts n rows into table tbl (1..4) with ids from first_id.
CREATE PROCEDURE ins(IN tbl INT, IN first_id BIGINT, IN n INT)
BEGIN
  CASE tbl
  WHEN 1 THEN
    INSERT INTO t_ints
    SELECT first_id + seq,
           FLOOR(RAND() * 256) - 128, FLOOR(RAND() * 256),
           FLOOR(RAND() * 65536) - 32768, FLOOR(RAND() * 65536),
           FLOOR(RAND() * 16777216) - 8388608, FLOOR(RAND() * 16777216),
           FLOOR(RAND() * 4294967296) - 2147483648, FLOOR(RAND() * 4294967296),
           CAST((RAND() - 0.5) * 9.2e18 AS SIGNED), CAST(RAND() * 1.8e19 AS UNSIGNED),
           ROUND((RAND() - 0.5) * 1e8, 2),
           IF(seq % 7 = 0, NULL, CAST((RAND() - 0.5) * 1e19 AS DECIMAL(30,10))),
           (RAND() - 0.5) * POW(10, FLOOR(RAND() * 30) - 10),
           IF(seq % 5 = 0, NULL, RAND() * 1000),
           FLOOR(RAND() * 4096), 1901 + FLOOR(RAND() * 254)
    FROM seq_0_to_999 WHERE seq < n;
  WHEN 2 THEN
    INSERT INTO t_text
    SELECT first_id + seq,
           CONCAT(ELT(1 + seq % 6, 'Müller', 'Ødegård', '张三', 'Σωκράτης', 'O''Brien', 'emoji😀'),
                  '-', first_id + seq, '-', REPEAT('x', FLOOR(RAND() * 40))),
           LEFT(MD5(RAND()), 1 + seq % 12),
           IF(seq % 4 = 0, NULL,
              CONCAT('line one\nline "two"\t', REPEAT(MD5(seq), 1 + FLOOR(RAND() * 12)))),
           IF(seq % 3 = 0, NULL, UNHEX(REPEAT(SHA1(RAND()), 1 + FLOOR(RAND() * 10)))),
           UNHEX(LEFT(SHA1(seq + first_id), 2 * (1 + seq % 20))),
           1 + FLOOR(RAND() * 5),
           FLOOR(RAND() * 64),
           IF(seq % 9 = 0, NULL,
              JSON_OBJECT('id', first_id + seq, 'score', RAND(), 'ok', seq % 2 = 1,
                          'items', JSON_ARRAY(seq, 'a"b', NULL, 1.5),
                          'addr', JSON_OBJECT('city', 'Zürich', 'zip', LPAD(seq, 5, '0'))))
    FROM seq_0_to_999 WHERE seq < n;
  WHEN 3 THEN
    INSERT INTO t_time
    SELECT first_id + seq,
           TIMESTAMP('2001-01-01') + INTERVAL FLOOR(RAND() * 7e8) SECOND
             + INTERVAL FLOOR(RAND() * 1000000) MICROSECOND,
           FROM_UNIXTIME(946684800 + FLOOR(RAND() * 1.1e9)),
           IF(seq % 6 = 0, NULL, FROM_UNIXTIME(946684800 + RAND() * 1e9, '%Y-%m-%d %H:%i:%s.%f')),
           DATE('1000-01-01') + INTERVAL FLOOR(RAND() * 3000000) DAY,
           SEC_TO_TIME(FLOOR(RAND() * 6000000) - 3000000),
           IF(seq % 4 = 0, NULL, SEC_TO_TIME(RAND() * 172800 - 86400)),
           IF(seq % 5 = 0, NULL, TIMESTAMP('1970-01-01') + INTERVAL FLOOR(RAND() * 2e9) SECOND)
    FROM seq_0_to_999 WHERE seq < n;
  ELSE
    INSERT INTO t_orders
    SELECT first_id + seq,
           FLOOR(RAND() * 100000), 1 + FLOOR(RAND() * 50),
           ROUND(RAND() * 1000, 4), NULL,
           ELT(1 + FLOOR(RAND() * 4), 'EUR', 'USD', 'CHF', 'JPY'),
           1 + FLOOR(RAND() * 3),
           IF(seq % 3 = 0, NULL, CONCAT('Bitte an der Tür abgeben – ', REPEAT('ok ', seq % 30))),
           JSON_OBJECT('src', 'web', 'ab', seq % 2, 'lines', JSON_ARRAY(RAND(), RAND())),
           NOW(6) - INTERVAL FLOOR(RAND() * 1e8) SECOND,
           IF(seq % 2 = 0, NULL, CURDATE() + INTERVAL seq DAY)
    FROM seq_0_to_999 WHERE seq < n;
    UPDATE t_orders SET total = qty * price WHERE id BETWEEN first_id AND first_id + n - 1;
  END CASE;
END //

-- Updates the primary-key range [lo, lo + n) of table tbl.
CREATE PROCEDURE upd(IN tbl INT, IN lo BIGINT, IN n INT)
BEGIN
  CASE tbl
  WHEN 1 THEN
    UPDATE t_ints SET i = FLOOR(RAND() * 4294967296) - 2147483648, ti = IF(ti = -128, 127, -ti),
           dec_small = dec_small / 2, dbl = dbl * 1.5, flags = flags ^ 5, flt = NULL
    WHERE id >= lo AND id < lo + n;
  WHEN 2 THEN
    UPDATE t_text SET status = 1 + (status % 5), tags = tags | 8,
           note = IF(note IS NULL, 'was null', CONCAT(LEFT(note, 100), ' (edited)')),
           doc = JSON_SET(COALESCE(doc, '{}'), '$.edited', TRUE)
    WHERE id >= lo AND id < lo + n;
  WHEN 3 THEN
    UPDATE t_time SET created = created + INTERVAL 1 SECOND + INTERVAL 250 MICROSECOND,
           tod = NULL, day = day + INTERVAL 1 DAY
    WHERE id >= lo AND id < lo + n;
  ELSE
    UPDATE t_orders SET qty = qty + 1, total = (qty + 1) * price, status = 'closed',
           comment = LEFT(CONCAT(COALESCE(comment, ''), ' ✓'), 250)
    WHERE id >= lo AND id < lo + n;
  END CASE;
END //

-- The live primary-key range of table tbl.
CREATE PROCEDURE bounds(IN tbl INT, OUT lo BIGINT, OUT hi BIGINT)
BEGIN
  CASE tbl
    WHEN 1 THEN SELECT COALESCE(MIN(id), 1), COALESCE(MAX(id), 0) INTO lo, hi FROM t_ints;
    WHEN 2 THEN SELECT COALESCE(MIN(id), 1), COALESCE(MAX(id), 0) INTO lo, hi FROM t_text;
    WHEN 3 THEN SELECT COALESCE(MIN(id), 1), COALESCE(MAX(id), 0) INTO lo, hi FROM t_time;
    ELSE SELECT COALESCE(MIN(id), 1), COALESCE(MAX(id), 0) INTO lo, hi FROM t_orders;
  END CASE;
END //

-- Runs n transactions of 10..50 rows each: ~45% inserts, ~35% updates (a third of them
-- touching a second table too), ~20% deletes of the oldest rows (sometimes with an insert).
CREATE PROCEDURE gen_chunk(IN n INT)
BEGIN
  DECLARE k INT DEFAULT 0;
  DECLARE tbl, tbl2, rows_n, op INT;
  DECLARE lo, hi, lo2, hi2 BIGINT;
  WHILE k < n DO
    SET tbl = 1 + FLOOR(RAND() * 4);
    SET rows_n = 10 + FLOOR(RAND() * 41);
    SET op = FLOOR(RAND() * 20);
    CALL bounds(tbl, lo, hi);
    START TRANSACTION;
    IF hi - lo > 20000 OR (op >= 16 AND hi - lo > 500) THEN
      CASE tbl
        WHEN 1 THEN DELETE FROM t_ints WHERE id < lo + rows_n;
        WHEN 2 THEN DELETE FROM t_text WHERE id < lo + rows_n;
        WHEN 3 THEN DELETE FROM t_time WHERE id < lo + rows_n;
        ELSE DELETE FROM t_orders WHERE id < lo + rows_n;
      END CASE;
      IF op % 2 = 0 THEN CALL ins(tbl, hi + 1, rows_n); END IF;
    ELSEIF op >= 9 AND hi - lo > 100 THEN
      CALL upd(tbl, lo + FLOOR(RAND() * (hi - lo - rows_n)), rows_n);
      IF op % 3 = 0 THEN
        SET tbl2 = 1 + tbl % 4;
        CALL bounds(tbl2, lo2, hi2);
        IF hi2 - lo2 > 100 THEN CALL upd(tbl2, lo2 + FLOOR(RAND() * (hi2 - lo2 - 20)), 20); END IF;
      END IF;
    ELSE
      CALL ins(tbl, hi + 1, rows_n);
    END IF;
    COMMIT;
    SET k = k + 1;
  END WHILE;
END //

DELIMITER ;
