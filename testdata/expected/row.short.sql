/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/;
/*!40019 SET @@session.max_delayed_threads=0*/;
/*!50003 SET @OLD_COMPLETION_TYPE=@@COMPLETION_TYPE,COMPLETION_TYPE=0*/;
DELIMITER /*!*/;
ROLLBACK/*!*/;
/*M!100101 SET @@session.skip_parallel_replication=0*//*!*/;
/*M!100001 SET @@session.gtid_domain_id=0*//*!*/;
/*M!100001 SET @@session.server_id=1*//*!*/;
/*M!100001 SET @@session.gtid_seq_no=1*//*!*/;
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
/*M!100001 SET @@session.gtid_seq_no=3*//*!*/;
use `zyyshop`/*!*/;
SET TIMESTAMP=1795993095/*!*/;
CREATE TABLE tt (id INT UNSIGNED AUTO_INCREMENT PRIMARY KEY, name VARCHAR(16), sex ENUM('m','w'),
                 age TINYINT UNSIGNED, classid CHAR(6)) DEFAULT CHARSET=utf8mb4
/*!*/;
/*M!100001 SET @@session.gtid_seq_no=4*//*!*/;
START TRANSACTION
/*!*/;
COMMIT/*!*/;
/*M!100001 SET @@session.gtid_seq_no=5*//*!*/;
START TRANSACTION
/*!*/;
COMMIT/*!*/;
/*M!100001 SET @@session.gtid_seq_no=8*//*!*/;
START TRANSACTION
/*!*/;
COMMIT/*!*/;
/*M!100001 SET @@session.gtid_seq_no=9*//*!*/;
START TRANSACTION
/*!*/;
COMMIT/*!*/;
/*M!100001 SET @@session.gtid_seq_no=10*//*!*/;
START TRANSACTION
/*!*/;
COMMIT/*!*/;
/*M!100001 SET @@session.gtid_seq_no=11*//*!*/;
START TRANSACTION
/*!*/;
COMMIT/*!*/;
/*M!100001 SET @@session.gtid_seq_no=13*//*!*/;
SET TIMESTAMP=1795993095/*!*/;
ALTER TABLE tt ADD COLUMN note TEXT
/*!*/;
/*M!100001 SET @@session.gtid_seq_no=15*//*!*/;
SET TIMESTAMP=1795993095/*!*/;
DROP DATABASE zyyshop
/*!*/;
DELIMITER ;
# End of log file
ROLLBACK /* added by binrecover */;
/*!50003 SET COMPLETION_TYPE=@OLD_COMPLETION_TYPE*/;
/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=0*/;
