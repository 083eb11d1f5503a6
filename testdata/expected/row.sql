/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/;
/*!40019 SET @@session.max_delayed_threads=0*/;
/*!50003 SET @OLD_COMPLETION_TYPE=@@COMPLETION_TYPE,COMPLETION_TYPE=0*/;
DELIMITER /*!*/;
# at 4
#261129 22:58:15 server id 1  end_log_pos 256 CRC32 0xc37455f9 	Start: binlog v 4, server v 10.11.19-MariaDB-0+deb12u1-log created 261129 22:58:15 at startup
ROLLBACK/*!*/;
BINLOG '
B64Maw8BAAAA/AAAAAABAAAAAAQAMTAuMTEuMTktTWFyaWFEQi0wK2RlYjEydTEtbG9nAAAAAAAA
AAAAAAAAAAAAAAAAAAAHrgxrEzgNAAgAEgAEBAQEEgAA5AAEGggAAAAICAgCAAAACgoKAAAAAAAA
CgoKAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
AAAAAAAAAAAEEwQADQgICAoKCgH5VXTD
'/*!*/;
# at 256
#261129 22:58:15 server id 1  end_log_pos 285 CRC32 0x339901e3 	Gtid list []
# at 285
#261129 22:58:15 server id 1  end_log_pos 328 CRC32 0x714ba5e0 	Binlog checkpoint mysql-bin.000001
# at 328
#261129 22:58:15 server id 1  end_log_pos 370 CRC32 0x61bde91e 	GTID 0-1-1 ddl
/*M!100101 SET @@session.skip_parallel_replication=0*//*!*/;
/*M!100001 SET @@session.gtid_domain_id=0*//*!*/;
/*M!100001 SET @@session.server_id=1*//*!*/;
/*M!100001 SET @@session.gtid_seq_no=1*//*!*/;
# at 370
#261129 22:58:15 server id 1  end_log_pos 463 CRC32 0x4ff1c28e 	Query	thread_id=5	exec_time=0	error_code=0	xid=0
SET TIMESTAMP=1795993095/*!*/;
SET @@session.pseudo_thread_id=5/*!*/;
SET @@session.foreign_key_checks=1, @@session.sql_auto_is_null=0, @@session.unique_checks=1, @@session.autocommit=1, @@session.check_constraint_checks=1, @@session.sql_if_exists=0, @@session.explicit_defaults_for_timestamp=1, @@session.system_versioning_insert_history=0/*!*/;
SET @@session.sql_mode=1411383296/*!*/;
SET @@session.auto_increment_increment=1, @@session.auto_increment_offset=1/*!*/;
/*!\C utf8mb4 *//*!*/;
SET @@session.character_set_client=utf8mb4,@@session.collation_connection=45,@@session.collation_server=45/*!*/;
SET @@session.lc_time_names=0/*!*/;
SET @@session.collation_database=DEFAULT/*!*/;
CREATE DATABASE zyyshop
/*!*/;
# at 463
#261129 22:58:15 server id 1  end_log_pos 505 CRC32 0x76277be0 	GTID 0-1-2 ddl
/*M!100001 SET @@session.gtid_seq_no=2*//*!*/;
# at 505
#261129 22:58:15 server id 1  end_log_pos 590 CRC32 0x0facfc55 	Query	thread_id=5	exec_time=0	error_code=0	xid=0
SET TIMESTAMP=1795993095/*!*/;
CREATE DATABASE crm
/*!*/;
# at 590
#261129 22:58:15 server id 1  end_log_pos 632 CRC32 0xf17af32d 	GTID 0-1-3 ddl
/*M!100001 SET @@session.gtid_seq_no=3*//*!*/;
# at 632
#261129 22:58:15 server id 1  end_log_pos 888 CRC32 0x888c2122 	Query	thread_id=5	exec_time=0	error_code=0	xid=7
use `zyyshop`/*!*/;
SET TIMESTAMP=1795993095/*!*/;
CREATE TABLE tt (id INT UNSIGNED AUTO_INCREMENT PRIMARY KEY, name VARCHAR(16), sex ENUM('m','w'),
                 age TINYINT UNSIGNED, classid CHAR(6)) DEFAULT CHARSET=utf8mb4
/*!*/;
# at 888
#261129 22:58:15 server id 1  end_log_pos 930 CRC32 0x559933b4 	GTID 0-1-4 trans
/*M!100001 SET @@session.gtid_seq_no=4*//*!*/;
START TRANSACTION
/*!*/;
# at 930
#261129 22:58:15 server id 1  end_log_pos 1026 CRC32 0x969ba0d5 	Annotate_rows:
#Q> INSERT INTO tt (name, sex, age, classid) VALUES ('张三', 'm', 20, 'c1')
# at 1026
#261129 22:58:15 server id 1  end_log_pos 1084 CRC32 0x6ddf257f 	Table_map: `zyyshop`.`tt` mapped to number 18
# at 1084
#261129 22:58:15 server id 1  end_log_pos 1134 CRC32 0x95bfbbed 	Write_rows: table id 18 flags: STMT_END_F

BINLOG '
B64MaxMBAAAAOgAAADwEAAAAABIAAAAAAAEAB3p5eXNob3AAAnR0AAUDD/4B/gZAAPcB/hgefyXf
bQ==
B64MaxcBAAAAMgAAAG4EAAAAABIAAAAAAAEABR/gAQAAAAblvKDkuIkBFAJjMe27v5U=
'/*!*/;
# at 1134
#261129 22:58:15 server id 1  end_log_pos 1165 CRC32 0x13b420fd 	Xid = 8
COMMIT/*!*/;
# at 1165
#261129 22:58:15 server id 1  end_log_pos 1207 CRC32 0xb5427900 	GTID 0-1-5 trans
/*M!100001 SET @@session.gtid_seq_no=5*//*!*/;
START TRANSACTION
/*!*/;
# at 1207
#261129 22:58:15 server id 1  end_log_pos 1326 CRC32 0x1910ff5b 	Annotate_rows:
#Q> INSERT INTO tt (name, sex, age, classid) VALUES ('bob', 'm', 21, 'c2'), ('carol', 'w', 22, 'c3')
# at 1326
#261129 22:58:15 server id 1  end_log_pos 1384 CRC32 0x3e632707 	Table_map: `zyyshop`.`tt` mapped to number 18
# at 1384
#261129 22:58:15 server id 1  end_log_pos 1447 CRC32 0x749a63f2 	Write_rows: table id 18 flags: STMT_END_F

BINLOG '
B64MaxMBAAAAOgAAAGgFAAAAABIAAAAAAAEAB3p5eXNob3AAAnR0AAUDD/4B/gZAAPcB/hgeBydj
Pg==
B64MaxcBAAAAPwAAAKcFAAAAABIAAAAAAAEABR/gAgAAAANib2IBFQJjMuADAAAABWNhcm9sAhYC
YzPyY5p0
'/*!*/;
# at 1447
#261129 22:58:15 server id 1  end_log_pos 1478 CRC32 0x0c0935fa 	Xid = 9
COMMIT/*!*/;
# at 1478
#261129 22:58:15 server id 1  end_log_pos 1520 CRC32 0x7fc9ebe4 	GTID 0-1-6 ddl
/*M!100001 SET @@session.gtid_seq_no=6*//*!*/;
# at 1520
#261129 22:58:15 server id 1  end_log_pos 1658 CRC32 0x78ea1c7c 	Query	thread_id=5	exec_time=0	error_code=0	xid=10
SET TIMESTAMP=1795993095/*!*/;
CREATE TABLE crm.tags (id INT PRIMARY KEY, tag VARCHAR(32))
/*!*/;
# at 1658
#261129 22:58:15 server id 1  end_log_pos 1700 CRC32 0x753722c3 	GTID 0-1-7 trans
/*M!100001 SET @@session.gtid_seq_no=7*//*!*/;
START TRANSACTION
/*!*/;
# at 1700
#261129 22:58:15 server id 1  end_log_pos 1786 CRC32 0x01953cf8 	Annotate_rows:
#Q> INSERT INTO crm.tags VALUES (1, 'vip'), (2, 'it''s "quoted"\\')
# at 1786
#261129 22:58:15 server id 1  end_log_pos 1835 CRC32 0x0b0139af 	Table_map: `crm`.`tags` mapped to number 22
# at 1835
#261129 22:58:15 server id 1  end_log_pos 1897 CRC32 0x325b11ff 	Write_rows: table id 22 flags: STMT_END_F

BINLOG '
B64MaxMBAAAAMQAAACsHAAAAABYAAAAAAAEAA2NybQAEdGFncwACAw8CgAACrzkBCw==
B64MaxcBAAAAPgAAAGkHAAAAABYAAAAAAAEAAgP8AQAAAAN2aXD8AgAAAA5pdCdzICJxdW90ZWQi
XP8RWzI=
'/*!*/;
# at 1897
#261129 22:58:15 server id 1  end_log_pos 1928 CRC32 0xa45225bd 	Xid = 11
COMMIT/*!*/;
# at 1928
#261129 22:58:15 server id 1  end_log_pos 1970 CRC32 0x84419ae2 	GTID 0-1-8 trans
/*M!100001 SET @@session.gtid_seq_no=8*//*!*/;
START TRANSACTION
/*!*/;
# at 1970
#261129 22:58:15 server id 1  end_log_pos 2062 CRC32 0xc0654af9 	Annotate_rows:
#Q> INSERT INTO tt (name, sex, age, classid) VALUES (@who, 'm', 23, 'c4')
# at 2062
#261129 22:58:15 server id 1  end_log_pos 2120 CRC32 0x8e370750 	Table_map: `zyyshop`.`tt` mapped to number 18
# at 2120
#261129 22:58:15 server id 1  end_log_pos 2168 CRC32 0x4d4fdf9a 	Write_rows: table id 18 flags: STMT_END_F

BINLOG '
B64MaxMBAAAAOgAAAEgIAAAAABIAAAAAAAEAB3p5eXNob3AAAnR0AAUDD/4B/gZAAPcB/hgeUAc3
jg==
B64MaxcBAAAAMAAAAHgIAAAAABIAAAAAAAEABR/gBAAAAARkYXZlARcCYzSa309N
'/*!*/;
# at 2168
#261129 22:58:15 server id 1  end_log_pos 2199 CRC32 0x756b7195 	Xid = 13
COMMIT/*!*/;
# at 2199
#261129 22:58:15 server id 1  end_log_pos 2241 CRC32 0xd64f556b 	GTID 0-1-9 trans
/*M!100001 SET @@session.gtid_seq_no=9*//*!*/;
START TRANSACTION
/*!*/;
# at 2241
#261129 22:58:15 server id 1  end_log_pos 2362 CRC32 0x988c8868 	Annotate_rows:
#Q> INSERT INTO tt (name, sex, age, classid) VALUES (CONCAT('r', FLOOR(RAND() * 1000)), 'w', 24, 'c5')
# at 2362
#261129 22:58:15 server id 1  end_log_pos 2420 CRC32 0xf5a40f35 	Table_map: `zyyshop`.`tt` mapped to number 18
# at 2420
#261129 22:58:15 server id 1  end_log_pos 2467 CRC32 0x2e851234 	Write_rows: table id 18 flags: STMT_END_F

BINLOG '
B64MaxMBAAAAOgAAAHQJAAAAABIAAAAAAAEAB3p5eXNob3AAAnR0AAUDD/4B/gZAAPcB/hgeNQ+k
9Q==
B64MaxcBAAAALwAAAKMJAAAAABIAAAAAAAEABR/gBQAAAANyNTUCGAJjNTQShS4=
'/*!*/;
# at 2467
#261129 22:58:15 server id 1  end_log_pos 2498 CRC32 0x85da0a03 	Xid = 14
COMMIT/*!*/;
# at 2498
#261129 22:58:15 server id 1  end_log_pos 2540 CRC32 0x362fb17b 	GTID 0-1-10 trans
/*M!100001 SET @@session.gtid_seq_no=10*//*!*/;
START TRANSACTION
/*!*/;
# at 2540
#261129 22:58:15 server id 1  end_log_pos 2605 CRC32 0x58f8599f 	Annotate_rows:
#Q> UPDATE tt SET name = '李四' WHERE id = 4
# at 2605
#261129 22:58:15 server id 1  end_log_pos 2663 CRC32 0x66a03007 	Table_map: `zyyshop`.`tt` mapped to number 18
# at 2663
#261129 22:58:15 server id 1  end_log_pos 2729 CRC32 0xdfe8e7f3 	Update_rows: table id 18 flags: STMT_END_F

BINLOG '
B64MaxMBAAAAOgAAAGcKAAAAABIAAAAAAAEAB3p5eXNob3AAAnR0AAUDD/4B/gZAAPcB/hgeBzCg
Zg==
B64MaxgBAAAAQgAAAKkKAAAAABIAAAAAAAEABR8f4AQAAAAEZGF2ZQEXAmM04AQAAAAG5p2O5Zub
ARcCYzTz5+jf
'/*!*/;
# at 2729
#261129 22:58:15 server id 1  end_log_pos 2794 CRC32 0x04ced39f 	Annotate_rows:
#Q> UPDATE tt SET name = '小二' WHERE id = 2
# at 2794
#261129 22:58:15 server id 1  end_log_pos 2852 CRC32 0x9a18f3c3 	Table_map: `zyyshop`.`tt` mapped to number 18
# at 2852
#261129 22:58:15 server id 1  end_log_pos 2917 CRC32 0x0b6c3cd8 	Update_rows: table id 18 flags: STMT_END_F

BINLOG '
B64MaxMBAAAAOgAAACQLAAAAABIAAAAAAAEAB3p5eXNob3AAAnR0AAUDD/4B/gZAAPcB/hgew/MY
mg==
B64MaxgBAAAAQQAAAGULAAAAABIAAAAAAAEABR8f4AIAAAADYm9iARUCYzLgAgAAAAblsI/kuowB
FQJjMtg8bAs=
'/*!*/;
# at 2917
#261129 22:58:15 server id 1  end_log_pos 2973 CRC32 0x8cd28a90 	Annotate_rows:
#Q> DELETE FROM crm.tags WHERE id = 1
# at 2973
#261129 22:58:15 server id 1  end_log_pos 3022 CRC32 0x62edd2dd 	Table_map: `crm`.`tags` mapped to number 22
# at 3022
#261129 22:58:15 server id 1  end_log_pos 3064 CRC32 0x23cf3410 	Delete_rows: table id 22 flags: STMT_END_F

BINLOG '
B64MaxMBAAAAMQAAAM4LAAAAABYAAAAAAAEAA2NybQAEdGFncwACAw8CgAAC3dLtYg==
B64MaxkBAAAAKgAAAPgLAAAAABYAAAAAAAEAAgP8AQAAAAN2aXAQNM8j
'/*!*/;
# at 3064
#261129 22:58:15 server id 1  end_log_pos 3095 CRC32 0xd11fd01b 	Xid = 16
COMMIT/*!*/;
# at 3095
#261129 22:58:15 server id 1  end_log_pos 3137 CRC32 0x66d7fc76 	GTID 0-1-11 trans
/*M!100001 SET @@session.gtid_seq_no=11*//*!*/;
START TRANSACTION
/*!*/;
# at 3137
#261129 22:58:15 server id 1  end_log_pos 3208 CRC32 0x5b219872 	Annotate_rows:
#Q> UPDATE zyyshop.tt SET age = age + 1 WHERE id = 1
# at 3208
#261129 22:58:15 server id 1  end_log_pos 3266 CRC32 0xc28a3583 	Table_map: `zyyshop`.`tt` mapped to number 18
# at 3266
#261129 22:58:15 server id 1  end_log_pos 3334 CRC32 0x9dbeeca3 	Update_rows: table id 18 flags: STMT_END_F

BINLOG '
B64MaxMBAAAAOgAAAMIMAAAAABIAAAAAAAEAB3p5eXNob3AAAnR0AAUDD/4B/gZAAPcB/hgegzWK
wg==
B64MaxgBAAAARAAAAAYNAAAAABIAAAAAAAEABR8f4AEAAAAG5byg5LiJARQCYzHgAQAAAAblvKDk
uIkBFQJjMaPsvp0=
'/*!*/;
# at 3334
#261129 22:58:15 server id 1  end_log_pos 3365 CRC32 0x805e8000 	Xid = 22
COMMIT/*!*/;
# at 3365
#261129 22:58:15 server id 1  end_log_pos 3407 CRC32 0xea1ced0b 	GTID 0-1-12 trans
/*M!100001 SET @@session.gtid_seq_no=12*//*!*/;
START TRANSACTION
/*!*/;
# at 3407
#261129 22:58:15 server id 1  end_log_pos 3479 CRC32 0x3fb8fdbf 	Annotate_rows:
#Q> INSERT INTO crm.tags VALUES (3, LAST_INSERT_ID())
# at 3479
#261129 22:58:15 server id 1  end_log_pos 3528 CRC32 0x0df2b704 	Table_map: `crm`.`tags` mapped to number 22
# at 3528
#261129 22:58:15 server id 1  end_log_pos 3568 CRC32 0xcfa37f35 	Write_rows: table id 22 flags: STMT_END_F

BINLOG '
B64MaxMBAAAAMQAAAMgNAAAAABYAAAAAAAEAA2NybQAEdGFncwACAw8CgAACBLfyDQ==
B64MaxcBAAAAKAAAAPANAAAAABYAAAAAAAEAAgP8AwAAAAE1NX+jzw==
'/*!*/;
# at 3568
#261129 22:58:15 server id 1  end_log_pos 3599 CRC32 0xfbe75c21 	Xid = 25
COMMIT/*!*/;
# at 3599
#261129 22:58:15 server id 1  end_log_pos 3641 CRC32 0xc0aa4cad 	GTID 0-1-13 ddl
/*M!100001 SET @@session.gtid_seq_no=13*//*!*/;
# at 3641
#261129 22:58:15 server id 1  end_log_pos 3755 CRC32 0xc54719e4 	Query	thread_id=5	exec_time=0	error_code=0	xid=26
SET TIMESTAMP=1795993095/*!*/;
ALTER TABLE tt ADD COLUMN note TEXT
/*!*/;
# at 3755
#261129 22:58:15 server id 1  end_log_pos 3797 CRC32 0x1263f7de 	GTID 0-1-14 ddl
/*M!100001 SET @@session.gtid_seq_no=14*//*!*/;
# at 3797
#261129 22:58:15 server id 1  end_log_pos 3925 CRC32 0x7bf8f1ff 	Query	thread_id=5	exec_time=0	error_code=0	xid=27
SET TIMESTAMP=1795993095/*!*/;
DROP TABLE `crm`.`tags` /* generated by server */
/*!*/;
# at 3925
#261129 22:58:15 server id 1  end_log_pos 3967 CRC32 0xe5cdd824 	GTID 0-1-15 ddl
/*M!100001 SET @@session.gtid_seq_no=15*//*!*/;
# at 3967
#261129 22:58:15 server id 1  end_log_pos 4067 CRC32 0xdd0554bc 	Query	thread_id=5	exec_time=0	error_code=0	xid=28
SET TIMESTAMP=1795993095/*!*/;
DROP DATABASE zyyshop
/*!*/;
# at 4067
#261129 22:58:15 server id 1  end_log_pos 4114 CRC32 0x046604e4 	Rotate to mysql-bin.000002  pos: 4
# at 4
#261129 22:58:15 server id 1  end_log_pos 256 CRC32 0x6b286f11 	Start: binlog v 4, server v 10.11.19-MariaDB-0+deb12u1-log created 261129 22:58:15
BINLOG '
B64Maw8BAAAA/AAAAAABAAAAAAQAMTAuMTEuMTktTWFyaWFEQi0wK2RlYjEydTEtbG9nAAAAAAAA
AAAAAAAAAAAAAAAAAAAAAAAAEzgNAAgAEgAEBAQEEgAA5AAEGggAAAAICAgCAAAACgoKAAAAAAAA
CgoKAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
AAAAAAAAAAAEEwQADQgICAoKCgERbyhr
'/*!*/;
# at 256
#261129 22:58:15 server id 1  end_log_pos 299 CRC32 0x1ad12d09 	Gtid list [0-1-15]
# at 299
#261129 22:58:15 server id 1  end_log_pos 342 CRC32 0xb1ee0e95 	Binlog checkpoint mysql-bin.000001
# at 342
#261129 22:58:15 server id 1  end_log_pos 385 CRC32 0xcc69d055 	Binlog checkpoint mysql-bin.000002
# at 385
#261129 22:58:15 server id 1  end_log_pos 408 CRC32 0x09e16c77 	Stop
DELIMITER ;
# End of log file
ROLLBACK /* added by binrecover */;
/*!50003 SET COMPLETION_TYPE=@OLD_COMPLETION_TYPE*/;
/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=0*/;
