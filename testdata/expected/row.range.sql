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
# at 888
#261129 22:58:15 server id 1  end_log_pos 930 CRC32 0x559933b4 	GTID 0-1-4 trans
/*M!100101 SET @@session.skip_parallel_replication=0*//*!*/;
/*M!100001 SET @@session.gtid_domain_id=0*//*!*/;
/*M!100001 SET @@session.server_id=1*//*!*/;
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
use `zyyshop`/*!*/;
SET TIMESTAMP=1795993095/*!*/;
SET @@session.pseudo_thread_id=5/*!*/;
SET @@session.foreign_key_checks=1, @@session.sql_auto_is_null=0, @@session.unique_checks=1, @@session.autocommit=1, @@session.check_constraint_checks=1, @@session.sql_if_exists=0, @@session.explicit_defaults_for_timestamp=1, @@session.system_versioning_insert_history=0/*!*/;
SET @@session.sql_mode=1411383296/*!*/;
SET @@session.auto_increment_increment=1, @@session.auto_increment_offset=1/*!*/;
/*!\C utf8mb4 *//*!*/;
SET @@session.character_set_client=utf8mb4,@@session.collation_connection=45,@@session.collation_server=45/*!*/;
SET @@session.lc_time_names=0/*!*/;
SET @@session.collation_database=DEFAULT/*!*/;
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
# transaction at mysql-bin.000001:1928 crosses the stop point: not emitted
DELIMITER ;
# End of log file
ROLLBACK /* added by binrecover */;
/*!50003 SET COMPLETION_TYPE=@OLD_COMPLETION_TYPE*/;
/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=0*/;
