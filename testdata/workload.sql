-- The workload behind testdata/{row,stmt}/: replayed by scripts/gen_testdata.sh on a real
-- MariaDB server. Kept small; touches every event kind a plain server writes.
CREATE DATABASE zyyshop;
CREATE DATABASE crm;
USE zyyshop;
CREATE TABLE tt (id INT UNSIGNED AUTO_INCREMENT PRIMARY KEY, name VARCHAR(16), sex ENUM('m','w'),
                 age TINYINT UNSIGNED, classid CHAR(6)) DEFAULT CHARSET=utf8mb4;
INSERT INTO tt (name, sex, age, classid) VALUES ('张三', 'm', 20, 'c1');
INSERT INTO tt (name, sex, age, classid) VALUES ('bob', 'm', 21, 'c2'), ('carol', 'w', 22, 'c3');
CREATE TABLE crm.tags (id INT PRIMARY KEY, tag VARCHAR(32));
INSERT INTO crm.tags VALUES (1, 'vip'), (2, 'it''s "quoted"\\');
SET @who = 'dave';
INSERT INTO tt (name, sex, age, classid) VALUES (@who, 'm', 23, 'c4');
INSERT INTO tt (name, sex, age, classid) VALUES (CONCAT('r', FLOOR(RAND() * 1000)), 'w', 24, 'c5');
BEGIN;
UPDATE tt SET name = '李四' WHERE id = 4;
UPDATE tt SET name = '小二' WHERE id = 2;
DELETE FROM crm.tags WHERE id = 1;
COMMIT;
USE crm;
UPDATE zyyshop.tt SET age = age + 1 WHERE id = 1;
USE zyyshop;
INSERT INTO crm.tags VALUES (3, LAST_INSERT_ID());
ALTER TABLE tt ADD COLUMN note TEXT;
DROP TABLE crm.tags;
DROP DATABASE zyyshop;
