/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/;
/*!40019 SET @@session.max_delayed_threads=0*/;
/*!50003 SET @OLD_COMPLETION_TYPE=@@COMPLETION_TYPE,COMPLETION_TYPE=0*/;
DELIMITER /*!*/;
# at 4
# Position  Timestamp   Type   Source ID        Size      Source Pos    Flags
#        4 07 ae 0c 6b   0f   01 00 00 00   fc 00 00 00   00 01 00 00   00 00 
#       17 04 00 31 30 2e 31 31 2e  31 39 2d 4d 61 72 69 61 |..10.11.19-Maria|
#       27 44 42 2d 30 2b 64 65 62  31 32 75 31 2d 6c 6f 67 |DB-0+deb12u1-log|
#       37 00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00 |................|
#       47 00 00 00 00 07 ae 0c 6b  13 38 0d 00 08 00 12 00 |.......k.8......|
#       57 04 04 04 04 12 00 00 e4  00 04 1a 08 00 00 00 08 |................|
#       67 08 08 02 00 00 00 0a 0a  0a 00 00 00 00 00 00 0a |................|
#       77 0a 0a 00 00 00 00 00 00  00 00 00 00 00 00 00 00 |................|
#       87 00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00 |................|
#       97 00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00 |................|
#       a7 00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00 |................|
#       b7 00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00 |................|
#       c7 00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00 |................|
#       d7 00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00 |................|
#       e7 00 00 00 00 00 00 00 00  00 04 13 04 00 0d 08 08 |................|
#       f7 08 0a 0a 0a 01 f9 55 74  c3                      |......Ut.|
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
# Position  Timestamp   Type   Source ID        Size      Source Pos    Flags
#      100 07 ae 0c 6b   a3   01 00 00 00   1d 00 00 00   1d 01 00 00   00 00 
#      113 00 00 00 00 00 00 e3 01  99 33                   |.........3|
#261129 22:58:15 server id 1  end_log_pos 285 CRC32 0x339901e3 	Gtid list []
# at 285
# Position  Timestamp   Type   Source ID        Size      Source Pos    Flags
#      11d 07 ae 0c 6b   a1   01 00 00 00   2b 00 00 00   48 01 00 00   00 00 
#      130 10 00 00 00 6d 79 73 71  6c 2d 62 69 6e 2e 30 30 |....mysql-bin.00|
#      140 30 30 30 31 e0 a5 4b 71                          |0001..Kq|
#261129 22:58:15 server id 1  end_log_pos 328 CRC32 0x714ba5e0 	Binlog checkpoint mysql-bin.000001
# at 328
# Position  Timestamp   Type   Source ID        Size      Source Pos    Flags
#      148 07 ae 0c 6b   a2   01 00 00 00   2a 00 00 00   72 01 00 00   08 00 
#      15b 01 00 00 00 00 00 00 00  00 00 00 00 29 00 00 00 |............)...|
#      16b 00 00 00 1e e9 bd 61                             |......a|
#261129 22:58:15 server id 1  end_log_pos 370 CRC32 0x61bde91e 	GTID 0-1-1 ddl
/*M!100101 SET @@session.skip_parallel_replication=0*//*!*/;
/*M!100001 SET @@session.gtid_domain_id=0*//*!*/;
/*M!100001 SET @@session.server_id=1*//*!*/;
/*M!100001 SET @@session.gtid_seq_no=1*//*!*/;
# at 370
# Position  Timestamp   Type   Source ID        Size      Source Pos    Flags
#      172 07 ae 0c 6b   02   01 00 00 00   5d 00 00 00   cf 01 00 00   08 00 
#      185 05 00 00 00 00 00 00 00  07 00 00 1a 00 00 00 00 |................|
#      195 00 01 01 00 00 20 54 00  00 00 00 06 03 73 74 64 |..... T......std|
#      1a5 04 2d 00 2d 00 2d 00 7a  79 79 73 68 6f 70 00 43 |.-.-.-.zyyshop.C|
#      1b5 52 45 41 54 45 20 44 41  54 41 42 41 53 45 20 7a |REATE DATABASE z|
#      1c5 79 79 73 68 6f 70 8e c2  f1 4f                   |yyshop...O|
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
# Position  Timestamp   Type   Source ID        Size      Source Pos    Flags
#      1cf 07 ae 0c 6b   a2   01 00 00 00   2a 00 00 00   f9 01 00 00   08 00 
#      1e2 02 00 00 00 00 00 00 00  00 00 00 00 29 00 00 00 |............)...|
#      1f2 00 00 00 e0 7b 27 76                             |....{'v|
#261129 22:58:15 server id 1  end_log_pos 505 CRC32 0x76277be0 	GTID 0-1-2 ddl
/*M!100001 SET @@session.gtid_seq_no=2*//*!*/;
# at 505
# Position  Timestamp   Type   Source ID        Size      Source Pos    Flags
#      1f9 07 ae 0c 6b   02   01 00 00 00   55 00 00 00   4e 02 00 00   08 00 
#      20c 05 00 00 00 00 00 00 00  03 00 00 1a 00 00 00 00 |................|
#      21c 00 01 01 00 00 20 54 00  00 00 00 06 03 73 74 64 |..... T......std|
#      22c 04 2d 00 2d 00 2d 00 63  72 6d 00 43 52 45 41 54 |.-.-.-.crm.CREAT|
#      23c 45 20 44 41 54 41 42 41  53 45 20 63 72 6d 55 fc |E DATABASE crmU.|
#      24c ac 0f                                            |..|
#261129 22:58:15 server id 1  end_log_pos 590 CRC32 0x0facfc55 	Query	thread_id=5	exec_time=0	error_code=0	xid=0
SET TIMESTAMP=1795993095/*!*/;
CREATE DATABASE crm
/*!*/;
# at 590
# Position  Timestamp   Type   Source ID        Size      Source Pos    Flags
#      24e 07 ae 0c 6b   a2   01 00 00 00   2a 00 00 00   78 02 00 00   08 00 
#      261 03 00 00 00 00 00 00 00  00 00 00 00 29 00 00 00 |............)...|
#      271 00 00 00 2d f3 7a f1                             |...-.z.|
#261129 22:58:15 server id 1  end_log_pos 632 CRC32 0xf17af32d 	GTID 0-1-3 ddl
/*M!100001 SET @@session.gtid_seq_no=3*//*!*/;
# at 632
# Position  Timestamp   Type   Source ID        Size      Source Pos    Flags
#      278 07 ae 0c 6b   02   01 00 00 00   00 01 00 00   78 03 00 00   00 00 
#      28b 05 00 00 00 00 00 00 00  07 00 00 23 00 00 00 00 |...........#....|
#      29b 00 01 01 00 00 20 54 00  00 00 00 06 03 73 74 64 |..... T......std|
#      2ab 04 2d 00 2d 00 2d 00 81  07 00 00 00 00 00 00 00 |.-.-.-..........|
#      2bb 7a 79 79 73 68 6f 70 00  43 52 45 41 54 45 20 54 |zyyshop.CREATE T|
#      2cb 41 42 4c 45 20 74 74 20  28 69 64 20 49 4e 54 20 |ABLE tt (id INT |
#      2db 55 4e 53 49 47 4e 45 44  20 41 55 54 4f 5f 49 4e |UNSIGNED AUTO_IN|
#      2eb 43 52 45 4d 45 4e 54 20  50 52 49 4d 41 52 59 20 |CREMENT PRIMARY |
#      2fb 4b 45 59 2c 20 6e 61 6d  65 20 56 41 52 43 48 41 |KEY, name VARCHA|
#      30b 52 28 31 36 29 2c 20 73  65 78 20 45 4e 55 4d 28 |R(16), sex ENUM(|
#      31b 27 6d 27 2c 27 77 27 29  2c 0a 20 20 20 20 20 20 |'m','w'),.      |
#      32b 20 20 20 20 20 20 20 20  20 20 20 61 67 65 20 54 |           age T|
#      33b 49 4e 59 49 4e 54 20 55  4e 53 49 47 4e 45 44 2c |INYINT UNSIGNED,|
#      34b 20 63 6c 61 73 73 69 64  20 43 48 41 52 28 36 29 | classid CHAR(6)|
#      35b 29 20 44 45 46 41 55 4c  54 20 43 48 41 52 53 45 |) DEFAULT CHARSE|
#      36b 54 3d 75 74 66 38 6d 62  34 22 21 8c 88          |T=utf8mb4"!..|
#261129 22:58:15 server id 1  end_log_pos 888 CRC32 0x888c2122 	Query	thread_id=5	exec_time=0	error_code=0	xid=7
use `zyyshop`/*!*/;
SET TIMESTAMP=1795993095/*!*/;
CREATE TABLE tt (id INT UNSIGNED AUTO_INCREMENT PRIMARY KEY, name VARCHAR(16), sex ENUM('m','w'),
                 age TINYINT UNSIGNED, classid CHAR(6)) DEFAULT CHARSET=utf8mb4
/*!*/;
# at 888
# Position  Timestamp   Type   Source ID        Size      Source Pos    Flags
#      378 07 ae 0c 6b   a2   01 00 00 00   2a 00 00 00   a2 03 00 00   08 00 
#      38b 04 00 00 00 00 00 00 00  00 00 00 00 0c 00 00 00 |................|
#      39b 00 00 00 b4 33 99 55                             |....3.U|
#261129 22:58:15 server id 1  end_log_pos 930 CRC32 0x559933b4 	GTID 0-1-4 trans
/*M!100001 SET @@session.gtid_seq_no=4*//*!*/;
START TRANSACTION
/*!*/;
# at 930
# Position  Timestamp   Type   Source ID        Size      Source Pos    Flags
#      3a2 07 ae 0c 6b   a0   01 00 00 00   60 00 00 00   02 04 00 00   00 00 
#      3b5 49 4e 53 45 52 54 20 49  4e 54 4f 20 74 74 20 28 |INSERT INTO tt (|
#      3c5 6e 61 6d 65 2c 20 73 65  78 2c 20 61 67 65 2c 20 |name, sex, age, |
#      3d5 63 6c 61 73 73 69 64 29  20 56 41 4c 55 45 53 20 |classid) VALUES |
#      3e5 28 27 e5 bc a0 e4 b8 89  27 2c 20 27 6d 27 2c 20 |('......', 'm', |
#      3f5 32 30 2c 20 27 63 31 27  29 d5 a0 9b 96          |20, 'c1')....|
#261129 22:58:15 server id 1  end_log_pos 1026 CRC32 0x969ba0d5 	Annotate_rows:
#Q> INSERT INTO tt (name, sex, age, classid) VALUES ('张三', 'm', 20, 'c1')
# at 1026
# Position  Timestamp   Type   Source ID        Size      Source Pos    Flags
#      402 07 ae 0c 6b   13   01 00 00 00   3a 00 00 00   3c 04 00 00   00 00 
#      415 12 00 00 00 00 00 01 00  07 7a 79 79 73 68 6f 70 |.........zyyshop|
#      425 00 02 74 74 00 05 03 0f  fe 01 fe 06 40 00 f7 01 |..tt........@...|
#      435 fe 18 1e 7f 25 df 6d                             |....%.m|
#261129 22:58:15 server id 1  end_log_pos 1084 CRC32 0x6ddf257f 	Table_map: `zyyshop`.`tt` mapped to number 18
# at 1084
# Position  Timestamp   Type   Source ID        Size      Source Pos    Flags
#      43c 07 ae 0c 6b   17   01 00 00 00   32 00 00 00   6e 04 00 00   00 00 
#      44f 12 00 00 00 00 00 01 00  05 1f e0 01 00 00 00 06 |................|
#      45f e5 bc a0 e4 b8 89 01 14  02 63 31 ed bb bf 95    |.........c1....|
#261129 22:58:15 server id 1  end_log_pos 1134 CRC32 0x95bfbbed 	Write_rows: table id 18 flags: STMT_END_F

BINLOG '
B64MaxMBAAAAOgAAADwEAAAAABIAAAAAAAEAB3p5eXNob3AAAnR0AAUDD/4B/gZAAPcB/hgefyXf
bQ==
B64MaxcBAAAAMgAAAG4EAAAAABIAAAAAAAEABR/gAQAAAAblvKDkuIkBFAJjMe27v5U=
'/*!*/;
# at 1134
# Position  Timestamp   Type   Source ID        Size      Source Pos    Flags
#      46e 07 ae 0c 6b   10   01 00 00 00   1f 00 00 00   8d 04 00 00   00 00 
#      481 08 00 00 00 00 00 00 00  fd 20 b4 13             |......... ..|
#261129 22:58:15 server id 1  end_log_pos 1165 CRC32 0x13b420fd 	Xid = 8
COMMIT/*!*/;
# transaction at mysql-bin.000001:1165 crosses the stop point: not emitted
DELIMITER ;
# End of log file
ROLLBACK /* added by binrecover */;
/*!50003 SET COMPLETION_TYPE=@OLD_COMPLETION_TYPE*/;
/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=0*/;
