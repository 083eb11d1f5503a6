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
# at 888
#261129 22:58:18 server id 1  end_log_pos 930 CRC32 0x34c0c98b 	GTID 0-1-4 trans
/*M!100101 SET @@session.skip_parallel_replication=0*//*!*/;
/*M!100001 SET @@session.gtid_domain_id=0*//*!*/;
/*M!100001 SET @@session.server_id=1*//*!*/;
/*M!100001 SET @@session.gtid_seq_no=4*//*!*/;
START TRANSACTION
/*!*/;
# at 930
#261129 22:58:18 server id 1  end_log_pos 962 CRC32 0x58fbf338 	Intvar
SET INSERT_ID=1/*!*/;
# at 962
#261129 22:58:18 server id 1  end_log_pos 1105 CRC32 0x56eeeabc 	Query	thread_id=5	exec_time=0	error_code=0	xid=0
use `zyyshop`/*!*/;
SET TIMESTAMP=1795993098/*!*/;
SET @@session.pseudo_thread_id=5/*!*/;
SET @@session.foreign_key_checks=1, @@session.sql_auto_is_null=0, @@session.unique_checks=1, @@session.autocommit=1, @@session.check_constraint_checks=1, @@session.sql_if_exists=0, @@session.explicit_defaults_for_timestamp=1, @@session.system_versioning_insert_history=0/*!*/;
SET @@session.sql_mode=1411383296/*!*/;
SET @@session.auto_increment_increment=1, @@session.auto_increment_offset=1/*!*/;
/*!\C utf8mb4 *//*!*/;
SET @@session.character_set_client=utf8mb4,@@session.collation_connection=45,@@session.collation_server=45/*!*/;
SET @@session.lc_time_names=0/*!*/;
SET @@session.collation_database=DEFAULT/*!*/;
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
DELIMITER ;
# End of log file
ROLLBACK /* added by binrecover */;
/*!50003 SET COMPLETION_TYPE=@OLD_COMPLETION_TYPE*/;
/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=0*/;
