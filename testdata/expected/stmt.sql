/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/;
/*!40019 SET @@session.max_delayed_threads=0*/;
/*!50003 SET @OLD_COMPLETION_TYPE=@@COMPLETION_TYPE,COMPLETION_TYPE=0*/;
DELIMITER /*!*/;
# at 4
#261129 22:58:18 server id 1  end_log_pos 256 CRC32 0xf11fd297 	Start: binlog v 4, server v 10.11.19-MariaDB-0+deb12u1-log created 261129 22:58:18 at startup
ROLLBACK/*!*/;
BINLOG '
Cq4Maw8BAAAA/AAAAAABAAAAAAQAMTAuMTEuMTktTWFyaWFEQi0wK2RlYjEydTEtbG9nAAAAAAAA
AAAAAAAAAAAAAAAAAAAKrgxrEzgNAAgAEgAEBAQEEgAA5AAEGggAAAAICAgCAAAACgoKAAAAAAAA
CgoKAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
AAAAAAAAAAAEEwQADQgICAoKCgGX0h/x
'/*!*/;
# at 256
#261129 22:58:18 server id 1  end_log_pos 285 CRC32 0x41a448a1 	Gtid list []
# at 285
#261129 22:58:18 server id 1  end_log_pos 328 CRC32 0xc74cd127 	Binlog checkpoint mysql-bin.000001
# at 328
#261129 22:58:18 server id 1  end_log_pos 370 CRC32 0x00e41321 	GTID 0-1-1 ddl
/*M!100101 SET @@session.skip_parallel_replication=0*//*!*/;
/*M!100001 SET @@session.gtid_domain_id=0*//*!*/;
/*M!100001 SET @@session.server_id=1*//*!*/;
/*M!100001 SET @@session.gtid_seq_no=1*//*!*/;
# at 370
#261129 22:58:18 server id 1  end_log_pos 463 CRC32 0xf74c7fa5 	Query	thread_id=5	exec_time=0	error_code=0	xid=0
SET TIMESTAMP=1795993098/*!*/;
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
#261129 22:58:18 server id 1  end_log_pos 505 CRC32 0x177e81df 	GTID 0-1-2 ddl
/*M!100001 SET @@session.gtid_seq_no=2*//*!*/;
# at 505
#261129 22:58:18 server id 1  end_log_pos 590 CRC32 0xd6f723b1 	Query	thread_id=5	exec_time=0	error_code=0	xid=0
SET TIMESTAMP=1795993098/*!*/;
CREATE DATABASE crm
/*!*/;
# at 590
#261129 22:58:18 server id 1  end_log_pos 632 CRC32 0x90230912 	GTID 0-1-3 ddl
/*M!100001 SET @@session.gtid_seq_no=3*//*!*/;
# at 632
#261129 22:58:18 server id 1  end_log_pos 888 CRC32 0x9b5dfbd5 	Query	thread_id=5	exec_time=0	error_code=0	xid=7
use `zyyshop`/*!*/;
SET TIMESTAMP=1795993098/*!*/;
CREATE TABLE tt (id INT UNSIGNED AUTO_INCREMENT PRIMARY KEY, name VARCHAR(16), sex ENUM('m','w'),
                 age TINYINT UNSIGNED, classid CHAR(6)) DEFAULT CHARSET=utf8mb4
/*!*/;
# at 888
#261129 22:58:18 server id 1  end_log_pos 930 CRC32 0x34c0c98b 	GTID 0-1-4 trans
/*M!100001 SET @@session.gtid_seq_no=4*//*!*/;
START TRANSACTION
/*!*/;
# at 930
#261129 22:58:18 server id 1  end_log_pos 962 CRC32 0x58fbf338 	Intvar
SET INSERT_ID=1/*!*/;
# at 962
#261129 22:58:18 server id 1  end_log_pos 1105 CRC32 0x56eeeabc 	Query	thread_id=5	exec_time=0	error_code=0	xid=0
SET TIMESTAMP=1795993098/*!*/;
INSERT INTO tt (name, sex, age, classid) VALUES ('张三', 'm', 20, 'c1')
/*!*/;
# at 1105
#261129 22:58:18 server id 1  end_log_pos 1136 CRC32 0x001daa8f 	Xid = 8
COMMIT/*!*/;
# at 1136
#261129 22:58:18 server id 1  end_log_pos 1178 CRC32 0x160884a1 	GTID 0-1-5 trans
/*M!100001 SET @@session.gtid_seq_no=5*//*!*/;
START TRANSACTION
/*!*/;
# at 1178
#261129 22:58:18 server id 1  end_log_pos 1210 CRC32 0x7a6c4830 	Intvar
SET INSERT_ID=2/*!*/;
# at 1210
#261129 22:58:18 server id 1  end_log_pos 1376 CRC32 0x4af21574 	Query	thread_id=5	exec_time=0	error_code=0	xid=0
SET TIMESTAMP=1795993098/*!*/;
INSERT INTO tt (name, sex, age, classid) VALUES ('bob', 'm', 21, 'c2'), ('carol', 'w', 22, 'c3')
/*!*/;
# at 1376
#261129 22:58:18 server id 1  end_log_pos 1407 CRC32 0x47b5c762 	Xid = 9
COMMIT/*!*/;
# at 1407
#261129 22:58:18 server id 1  end_log_pos 1449 CRC32 0x742aaef5 	GTID 0-1-6 ddl
/*M!100001 SET @@session.gtid_seq_no=6*//*!*/;
# at 1449
#261129 22:58:18 server id 1  end_log_pos 1587 CRC32 0xd53c63a8 	Query	thread_id=5	exec_time=0	error_code=0	xid=10
SET TIMESTAMP=1795993098/*!*/;
CREATE TABLE crm.tags (id INT PRIMARY KEY, tag VARCHAR(32))
/*!*/;
# at 1587
#261129 22:58:18 server id 1  end_log_pos 1629 CRC32 0x63d018bd 	GTID 0-1-7 trans
/*M!100001 SET @@session.gtid_seq_no=7*//*!*/;
START TRANSACTION
/*!*/;
# at 1629
#261129 22:58:18 server id 1  end_log_pos 1762 CRC32 0xfcb6de5c 	Query	thread_id=5	exec_time=0	error_code=0	xid=0
SET TIMESTAMP=1795993098/*!*/;
INSERT INTO crm.tags VALUES (1, 'vip'), (2, 'it''s "quoted"\\')
/*!*/;
# at 1762
#261129 22:58:18 server id 1  end_log_pos 1793 CRC32 0x44389391 	Xid = 11
COMMIT/*!*/;
# at 1793
#261129 22:58:18 server id 1  end_log_pos 1835 CRC32 0x99a575b9 	GTID 0-1-8 trans
/*M!100001 SET @@session.gtid_seq_no=8*//*!*/;
START TRANSACTION
/*!*/;
# at 1835
#261129 22:58:18 server id 1  end_log_pos 1867 CRC32 0x31429593 	Intvar
SET INSERT_ID=4/*!*/;
# at 1867
#261129 22:58:18 server id 1  end_log_pos 1911 CRC32 0x00a2b7f4 	User_var
SET @`who`:=_utf8mb4 X'64617665' COLLATE `utf8mb4_general_ci`/*!*/;
# at 1911
#261129 22:58:18 server id 1  end_log_pos 2050 CRC32 0xbad966ce 	Query	thread_id=5	exec_time=0	error_code=0	xid=0
SET TIMESTAMP=1795993098/*!*/;
INSERT INTO tt (name, sex, age, classid) VALUES (@who, 'm', 23, 'c4')
/*!*/;
# at 2050
#261129 22:58:18 server id 1  end_log_pos 2081 CRC32 0x684337fb 	Xid = 13
COMMIT/*!*/;
# at 2081
#261129 22:58:18 server id 1  end_log_pos 2123 CRC32 0xa6512b0d 	GTID 0-1-9 trans
/*M!100001 SET @@session.gtid_seq_no=9*//*!*/;
START TRANSACTION
/*!*/;
# at 2123
#261129 22:58:18 server id 1  end_log_pos 2155 CRC32 0x23b91f65 	Intvar
SET INSERT_ID=5/*!*/;
# at 2155
#261129 22:58:18 server id 1  end_log_pos 2194 CRC32 0xe2f09388 	Rand
SET @@RAND_SEED1=245118351, @@RAND_SEED2=801191037/*!*/;
# at 2194
#261129 22:58:18 server id 1  end_log_pos 2362 CRC32 0x7029e41e 	Query	thread_id=5	exec_time=0	error_code=0	xid=0
SET TIMESTAMP=1795993098/*!*/;
INSERT INTO tt (name, sex, age, classid) VALUES (CONCAT('r', FLOOR(RAND() * 1000)), 'w', 24, 'c5')
/*!*/;
# at 2362
#261129 22:58:18 server id 1  end_log_pos 2393 CRC32 0xe26c44ee 	Xid = 14
COMMIT/*!*/;
# at 2393
#261129 22:58:18 server id 1  end_log_pos 2435 CRC32 0xbe2ef17e 	GTID 0-1-10 trans
/*M!100001 SET @@session.gtid_seq_no=10*//*!*/;
START TRANSACTION
/*!*/;
# at 2435
#261129 22:58:18 server id 1  end_log_pos 2547 CRC32 0xac267b4b 	Query	thread_id=5	exec_time=0	error_code=0	xid=0
SET TIMESTAMP=1795993098/*!*/;
UPDATE tt SET name = '李四' WHERE id = 4
/*!*/;
# at 2547
#261129 22:58:18 server id 1  end_log_pos 2659 CRC32 0xbb45ef02 	Query	thread_id=5	exec_time=0	error_code=0	xid=0
SET TIMESTAMP=1795993098/*!*/;
UPDATE tt SET name = '小二' WHERE id = 2
/*!*/;
# at 2659
#261129 22:58:18 server id 1  end_log_pos 2762 CRC32 0x1e2a7578 	Query	thread_id=5	exec_time=0	error_code=0	xid=0
SET TIMESTAMP=1795993098/*!*/;
DELETE FROM crm.tags WHERE id = 1
/*!*/;
# at 2762
#261129 22:58:18 server id 1  end_log_pos 2793 CRC32 0x1e32a06f 	Xid = 16
COMMIT/*!*/;
# at 2793
#261129 22:58:18 server id 1  end_log_pos 2835 CRC32 0x45caabf4 	GTID 0-1-11 trans
/*M!100001 SET @@session.gtid_seq_no=11*//*!*/;
START TRANSACTION
/*!*/;
# at 2835
#261129 22:58:18 server id 1  end_log_pos 2949 CRC32 0xf14a9ef3 	Query	thread_id=5	exec_time=0	error_code=0	xid=0
use `crm`/*!*/;
SET TIMESTAMP=1795993098/*!*/;
UPDATE zyyshop.tt SET age = age + 1 WHERE id = 1
/*!*/;
# at 2949
#261129 22:58:18 server id 1  end_log_pos 2980 CRC32 0xf388f7c7 	Xid = 22
COMMIT/*!*/;
# at 2980
#261129 22:58:18 server id 1  end_log_pos 3022 CRC32 0x33d9e4d9 	GTID 0-1-12 trans
/*M!100001 SET @@session.gtid_seq_no=12*//*!*/;
START TRANSACTION
/*!*/;
# at 3022
#261129 22:58:18 server id 1  end_log_pos 3054 CRC32 0x1b55484b 	Intvar
SET LAST_INSERT_ID=5/*!*/;
# at 3054
#261129 22:58:18 server id 1  end_log_pos 3173 CRC32 0x9273759a 	Query	thread_id=5	exec_time=0	error_code=0	xid=0
use `zyyshop`/*!*/;
SET TIMESTAMP=1795993098/*!*/;
INSERT INTO crm.tags VALUES (3, LAST_INSERT_ID())
/*!*/;
# at 3173
#261129 22:58:18 server id 1  end_log_pos 3204 CRC32 0x9abf9beb 	Xid = 25
COMMIT/*!*/;
# at 3204
#261129 22:58:18 server id 1  end_log_pos 3246 CRC32 0x43a590e8 	GTID 0-1-13 ddl
/*M!100001 SET @@session.gtid_seq_no=13*//*!*/;
# at 3246
#261129 22:58:18 server id 1  end_log_pos 3360 CRC32 0x29b2be0d 	Query	thread_id=5	exec_time=0	error_code=0	xid=26
SET TIMESTAMP=1795993098/*!*/;
ALTER TABLE tt ADD COLUMN note TEXT
/*!*/;
# at 3360
#261129 22:58:18 server id 1  end_log_pos 3402 CRC32 0x3c42dd0b 	GTID 0-1-14 ddl
/*M!100001 SET @@session.gtid_seq_no=14*//*!*/;
# at 3402
#261129 22:58:18 server id 1  end_log_pos 3530 CRC32 0x18d7e777 	Query	thread_id=5	exec_time=0	error_code=0	xid=27
SET TIMESTAMP=1795993098/*!*/;
DROP TABLE `crm`.`tags` /* generated by server */
/*!*/;
# at 3530
#261129 22:58:18 server id 1  end_log_pos 3572 CRC32 0xe963fa43 	GTID 0-1-15 ddl
/*M!100001 SET @@session.gtid_seq_no=15*//*!*/;
# at 3572
#261129 22:58:18 server id 1  end_log_pos 3672 CRC32 0x576a0bb4 	Query	thread_id=5	exec_time=0	error_code=0	xid=28
SET TIMESTAMP=1795993098/*!*/;
DROP DATABASE zyyshop
/*!*/;
# at 3672
#261129 22:58:18 server id 1  end_log_pos 3719 CRC32 0xe4beb52f 	Rotate to mysql-bin.000002  pos: 4
# at 4
#261129 22:58:18 server id 1  end_log_pos 256 CRC32 0xb6c2b2aa 	Start: binlog v 4, server v 10.11.19-MariaDB-0+deb12u1-log created 261129 22:58:18
BINLOG '
Cq4Maw8BAAAA/AAAAAABAAAAAAQAMTAuMTEuMTktTWFyaWFEQi0wK2RlYjEydTEtbG9nAAAAAAAA
AAAAAAAAAAAAAAAAAAAAAAAAEzgNAAgAEgAEBAQEEgAA5AAEGggAAAAICAgCAAAACgoKAAAAAAAA
CgoKAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
AAAAAAAAAAAEEwQADQgICAoKCgGqssK2
'/*!*/;
# at 256
#261129 22:58:18 server id 1  end_log_pos 299 CRC32 0xacd659ce 	Gtid list [0-1-15]
# at 299
#261129 22:58:18 server id 1  end_log_pos 342 CRC32 0x07e97a52 	Binlog checkpoint mysql-bin.000001
# at 342
#261129 22:58:18 server id 1  end_log_pos 385 CRC32 0x7a6ea492 	Binlog checkpoint mysql-bin.000002
# at 385
#261129 22:58:18 server id 1  end_log_pos 408 CRC32 0x3ecafc48 	Stop
DELIMITER ;
# End of log file
ROLLBACK /* added by binrecover */;
/*!50003 SET COMPLETION_TYPE=@OLD_COMPLETION_TYPE*/;
/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=0*/;
