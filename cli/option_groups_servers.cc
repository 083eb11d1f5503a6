#include "cli/option_groups_servers.h"

#include <string>

namespace binrecover::cli {

// --parallel and --no-preserve-commit-order, of replay and drill (`dflt`: the default).
void add_parallel_options(po::options_description& g, const char* dflt) {
  g.add_options()("parallel", po::value<std::string>(),
                  (std::string("N sessions applying transactions that cannot conflict at the same "
                               "time (default ") +
                   dflt +
                   "; DDL, statement-format changes and tables the target has no keys for are "
                   "applied alone)")
                      .c_str())(
      "no-preserve-commit-order",
      "with --parallel: let transactions commit as they finish, not in the log's order (a reader "
      "of the target may then see a state the source never had)")(
      "merge-transactions", po::value<std::string>(),
      "up to N consecutive small transactions of row changes (InnoDB DML; of one GTID domain) "
      "applied as one transaction on the target, which then commits N times less often "
      "(default 1: each as it is). The target's own binlog then has the merged transactions, "
      "under the last one's GTID; not with a MySQL target that keeps the log's GTIDs (give "
      "--gtids=strip there), nor --no-preserve-commit-order");
}

Group backup_group() {
  Group grp("Backup");
  po::options_description& g = grp.d;
  g.add_options()("dir", po::value<std::string>(),
                  "the archive folder (as archive --dir makes it): the backup goes to "
                  "DIR/backups/ID/")(
      "to", po::value<std::string>(),
      "the bucket instead: s3://BUCKET/PREFIX/, into the server's folder PREFIX/SERVER/backups/ID/ "
      "(SERVER as archive --to names it: server_uuid, or server-ID)")(
      "s3-folder", po::value<std::string>(), "with --to: the server's folder under PREFIX")(
      "database,d", po::value<std::vector<std::string>>(),
      "back up this database (repeatable; default: every database but mysql, sys, "
      "information_schema and performance_schema)")(
      "dump-tool", po::value<std::string>(),
      "the dump program to run (default: mariadb-dump for MariaDB, mysqldump for MySQL, from "
      "PATH)")("compress-level", po::value<std::string>(),
               "zstd level of the stored dump, 1 (fastest) to 19 (default 3)")(
      "list",
      "list the backups of an archive instead: LOCATION is its folder or s3://BUCKET/PREFIX/ "
      "(every server's folder below it)")("format", po::value<std::string>(),
                                          "with --list: table (default) or json");
  return grp;
}

Group restore_group() {
  Group grp("Restore");
  po::options_description& g = grp.d;
  g.add_options()("from", po::value<std::string>(),
                  "the archive: its folder (as archive --dir and backup --dir make it), or "
                  "s3://BUCKET/PREFIX/ (every server's folder below it, read as one history "
                  "across failovers)")(
      "server", po::value<std::string>(),
      "only the backups of this server: its folder's name in the bucket (server-ID, "
      "server_uuid, --s3-folder) or its host name")(
      "backup", po::value<std::string>(), "this backup (its ID, as backup --list shows it)")(
      "to-time", po::value<std::string>(),
      "the point: the state just before 'YYYY-MM-DD HH:MM:SS' (local time, see --timezone; or "
      "with a zone): replayed up to the first event at or after it, from the newest backup "
      "whose content is all before it")(
      "before-incident",
      "the point: just before the incident (the latest certain loss since the oldest backup, "
      "as plan chooses it; --incident and --allow choose otherwise), from the newest backup "
      "before it")("to-end", "the point: the end of the archive's binlogs")(
      "stop-position", po::value<std::string>(),
      "the point: this position of the last binlog (an event's start)")(
      "stop-gtid", po::value<std::string>(),
      "the point: just before the transaction with this GTID")(
      "timezone", po::value<std::string>(),
      "time zone of --to-time and of printed times: UTC, +HH:MM, Europe/Berlin, SYSTEM")(
      "incident", po::value<std::string>(),
      "with --before-incident: the event to recover to just before: N (its number in plan's "
      "list), a GTID, or FILE:POS")(
      "allow", po::value<std::vector<std::string>>(),
      "a known job, never taken for the incident (as plan's --allow; repeatable)")(
      "rows-threshold", po::value<std::string>(),
      "row format: a transaction deleting or updating this many rows of a table is a suspect "
      "(default 1000)")("report", po::value<std::string>(), "write a JSON report here")(
      "expect", po::value<std::string>(),
      "compare the restored tables with this file of 'db.table<TAB>rows<TAB>checksum' lines")(
      "write-expect", po::value<std::string>(), "write the verified tables in that form")(
      "result-file,r", po::value<std::string>(), "write the summary to this file");
  add_parallel_options(g, "4");
  g.add_options()("server-applier",
                  "MariaDB: the target applies the binlogs with its own (parallel) replication "
                  "applier, binrecover serving them as its replication source");
  return grp;
}

Group connection_group(ConnectionFor what) {
  Group grp(what == ConnectionFor::kDrill     ? "A server of your own instead of a throwaway one"
            : what == ConnectionFor::kReplay  ? "The server to apply to"
            : what == ConnectionFor::kBackup  ? "The server to back up"
            : what == ConnectionFor::kRestore ? "The server to restore into (its data is replaced)"
                                              : "The server to read from (-R)");
  po::options_description& g = grp.d;
  g.add_options()("host,h", po::value<std::string>(), "server host (default: localhost)")(
      "port,P", po::value<std::string>(), "server TCP port")(
      "user,u", po::value<std::string>(), "user name (default: your login name)")(
      "password,p", po::value<std::string>()->implicit_value(""),
      "password; -p alone asks for it on the terminal. -pSECRET is wiped from the process's "
      "arguments once read, but stays in your shell history: safer are the prompt, or "
      "password= in [client] or [binrecover] of an option file (0600)")(
      "socket,S", po::value<std::string>(), "Unix socket for localhost")(
      "ssl-mode", po::value<std::string>(),
      "TLS: DISABLED, PREFERRED (the default), REQUIRED (encrypted, the certificate not "
      "checked), VERIFY_CA or VERIFY_IDENTITY (the certificate checked against --ssl-ca, and "
      "the host name)")("ssl", "the same as --ssl-mode=REQUIRED (the mariadb client's name)")(
      "ssl-ca", po::value<std::string>(), "TLS: the CA certificate file")(
      "ssl-capath", po::value<std::string>(), "TLS: a folder of CA certificates")(
      "ssl-cert", po::value<std::string>(), "TLS: the client certificate")(
      "ssl-key", po::value<std::string>(), "TLS: the client key")(
      "ssl-cipher", po::value<std::string>(), "TLS: the ciphers allowed")(
      "ssl-verify-server-cert", "the same as --ssl-mode=VERIFY_IDENTITY")(
      "ssl-crl", po::value<std::string>(), "TLS: a certificate revocation list file")(
      "ssl-crlpath", po::value<std::string>(), "TLS: a folder of certificate revocation lists")(
      "tls-version", po::value<std::string>(),
      "TLS: the protocol versions allowed, e.g. TLSv1.2,TLSv1.3")(
      "compress,C", "the same as --compression-algorithms=zlib (mysqlbinlog's older name)")(
      "protocol", po::value<std::string>(),
      "TCP or SOCKET (PIPE and MEMORY are Windows-only: refused); default: a socket for "
      "localhost, else TCP")("bind-address", po::value<std::string>(),
                             "the local address (of this machine) to connect from")(
      "compression-algorithms", po::value<std::string>(),
      "compress the client/server protocol: zlib, or uncompressed (the default); zstd is "
      "refused (the client library has zlib only)")(
      "zstd-compression-level", po::value<std::string>(),
      "1..22, for --compression-algorithms=zstd: refused, as zstd is");
  return grp;
}

// Reading a server's binary logs over the replication protocol (mysqlbinlog's names).
Group remote_group(bool source_options) {
  Group grp("Reading from a server (-R)");
  po::options_description& g = grp.d;
  if (source_options)  // -h -P -u -p -S name the target here: the source has options of its own
    g.add_options()("source-host", po::value<std::string>(),
                    "with -R: the host whose binlogs are read")(
        "source-port", po::value<std::string>(), "with -R: its TCP port")(
        "source-user", po::value<std::string>(), "with -R: the user to read as")(
        "source-password", po::value<std::string>()->implicit_value(""),
        "with -R: its password (alone: asked on the terminal; or from the option files)")(
        "source-socket", po::value<std::string>(), "with -R: its Unix socket");
  g.add_options()(
      "read-from-remote-server,R",
      "read the binlogs from the server (-h -P -u -p -S, option files) over the replication "
      "protocol, as a replica does (needs REPLICATION SLAVE); FILE arguments name the server's "
      "binlogs (default: all of them)")(
      "read-from-remote-source", po::value<std::string>(),
      "BINLOG-DUMP-NON-GTID (the same as -R), or BINLOG-DUMP-GTID: from the first binlog that "
      "holds a transaction --exclude-gtids (MySQL) or a GTID --start-position (MariaDB) does "
      "not name, those named left out")(
      "to-last-log,t", "with -R: from the first FILE named on to the server's last binlog")(
      "read-from-remote-master", po::value<std::string>(),
      "the older name of --read-from-remote-source")("stop-never-slave-server-id",
                                                     po::value<std::string>(),
                                                     "the older name of --connection-server-id")(
      "connection-server-id", po::value<std::string>(),
      "with -R: the server id binrecover reads as (default 0: no replica of that id is "
      "displaced)")(
      "net-read-timeout", po::value<std::string>(),
      "with -R and archive: seconds to wait for the server's next bytes (default 60, a "
      "replica's slave_net_timeout): then exit 6; with --stop-never, a heartbeat missed twice "
      "(2 x --heartbeat-period) makes it connect again instead");
  return grp;
}

Group replay_group() {
  Group grp("Replay");
  po::options_description& g = grp.d;
  add_parallel_options(g, "1");
  g.add_options()("report", po::value<std::string>(),
                  "write a JSON summary here: transactions, workers, units applied alone, "
                  "units that held a table whole, retries, transactions merged, seconds")(
      "server-applier",
      "MariaDB targets: apply with the target's own replication applier (with --parallel N "
      "its parallel applier, slave_parallel_threads=N), binrecover serving the kept "
      "transactions as its replication source; exactly once by the target's gtid_slave_pos")(
      "listen", po::value<std::string>(),
      "with --server-applier: HOST[:PORT] of this machine that the target connects to "
      "(default 127.0.0.1 and a free port, for a target on this machine)")(
      "window", po::value<std::string>(),
      "with --server-applier: MiB sent ahead of what the target has applied (default 64; "
      "its relay log holds about this much)");
  g.add_options()("state-file", po::value<std::string>(),
                  "where the end of the last applied transaction is kept (default "
                  "./binrecover-replay.state; beside it F.journal, its durable copy, and "
                  "F.lock)")("resume",
                             "continue after the state file's position; nothing is applied twice")(
      "progress-table", po::value<std::string>(),
      "what records on the target, atomically with each transaction, how far the replay got: "
      "auto (default): the target's own GTIDs when it records those of the replay (GTIDs kept, "
      "binary log on for MariaDB, gtid_mode=ON for MySQL), else the table "
      "binrecover.replay_progress; DB.TABLE: that table; none: only the state file, synced "
      "after every transaction")(
      "in-doubt", po::value<std::string>(),
      "with --resume, for a DDL or other non-transactional statement that was running when the "
      "replay stopped and that the target's GTIDs cannot settle: applied (go on after it) or "
      "not-applied (apply it)")(

      "gtids", po::value<std::string>(),
      "keep (default): apply with the original GTIDs; skip-applied: also leave out the "
      "transactions the server already has; strip: new GTIDs, as --skip-gtids")(
      "disable-log-bin,D", "SET sql_log_bin=0 in the session: the replay is not binlogged")(
      "skip-gtids", "apply without the GTIDs (as --gtids=strip)")(
      "rows-as-sql", "apply row events as INSERT/UPDATE/DELETE instead of BINLOG statements")(
      "idempotent",
      "MySQL targets: row events apply over what is there (an insert of a key that exists "
      "overwrites the row, an update or delete of a missing row is skipped; each session's "
      "rbr_exec_mode=IDEMPOTENT); refused for a MariaDB target (it has no such session "
      "setting) and with --rows-as-sql")(
      "trigger-tables", po::value<std::string>(),
      "with --rows-as-sql: sql (default, warned) or binlog: the rows of tables with triggers "
      "as BINLOG statements, which fire no trigger again")(
      "schema", po::value<std::string>(),
      "a dump's CREATE TABLE statements naming the columns for --rows-as-sql")(
      "local-load,l", po::value<std::string>(),
      "where the data of LOAD DATA statements waits while it is applied");
  return grp;
}

Group archive_group() {
  Group grp("Archive");
  po::options_description& g = grp.d;
  g.add_options()("dir", po::value<std::string>(),
                  "the folder the binlogs are copied to (continued where it ends when it holds "
                  "an archive already)")(
      "stop-never", "follow the server: wait for new events, reconnect after any loss")(
      "fsync-interval", po::value<std::string>(),
      "fsync the file being written at most every N seconds (default 1; each file is fsynced "
      "when the server rotates)")(
      "heartbeat-period", po::value<std::string>(),
      "with --stop-never: the server sends a heartbeat after N quiet seconds (default 30); "
      "two missed (no byte for 2 x N seconds) and binrecover connects again")(
      "status-file", po::value<std::string>(),
      "rewrite this one-line JSON status (file, position, events, time) as the archive grows")(
      "verify",
      "check an archive instead: FILE is its folder or .index (or s3://... of either); every "
      "file there, every event's checksum, the chain of Rotate events, in a bucket each "
      "object against the manifest (exit 4 naming file and offset)")(
      "to", po::value<std::string>(),
      "into object storage instead of --dir: s3://BUCKET/PREFIX/ (each server in its own "
      "folder PREFIX/SERVER/, by its server_uuid or server-ID)")(
      "s3-folder", po::value<std::string>(),
      "with --to: the server's folder under PREFIX (default: its server_uuid, or server-ID)")(
      "upload-interval", po::value<std::string>(),
      "with --to: the file being written is stored at least every N seconds (default 5): "
      "at most that much is at risk")(
      "part-size", po::value<std::string>(),
      "with --to: MiB per sealed piece and multipart part, 5 to 1024 (default 16; memory "
      "holds up to this much)")(
      "status",
      "list the servers archived under s3://BUCKET/[PREFIX/]: last file and position, last "
      "event time, lag, gaps, size")(
      "retain", po::value<std::string>(),
      "keep the newest N base backups (binrecover backup) and delete older ones and the "
      "binlogs only they need; the newest backup, and every binlog from the oldest kept "
      "backup's on, always stay. With --dir/--to the archiver applies it as it goes; alone, "
      "to the archive named (DIR, or s3://BUCKET/PREFIX/SERVER/)")(
      "retain-days", po::value<std::string>(),
      "also keep every backup begun in the last D days (with --retain: a backup either keeps "
      "stays)")("dry-run", "with --retain: say what would be deleted, delete nothing")(
      "zstd",
      "with --to: store each piece zstd-compressed (a complete file is then kept as its "
      "pieces, not one object; every reader reads it as before)")(
      "zstd-level", po::value<std::string>(), "with --zstd: the level, 1 to 19 (default 3)")(
      "format", po::value<std::string>(), "with --status: table (default) or json");
  return grp;
}

Group s3_group() {
  Group grp("Object storage (s3:// files, archive --to)");
  po::options_description& g = grp.d;
  g.add_options()("s3-endpoint", po::value<std::string>(),
                  "the S3 store, http(s)://HOST[:PORT] (default: AWS_ENDPOINT_URL_S3, "
                  "AWS_ENDPOINT_URL, the profile's endpoint_url, else AWS in the region)")(
      "s3-region", po::value<std::string>(),
      "the region requests are signed for (default: AWS_REGION, the profile's, us-east-1)")(
      "s3-profile", po::value<std::string>(),
      "the profile of ~/.aws/credentials and ~/.aws/config (default: AWS_PROFILE, default); "
      "keys come from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY first")(
      "s3-addressing", po::value<std::string>(),
      "path (https://HOST/BUCKET/KEY), virtual (https://BUCKET.HOST/KEY) or auto (default: "
      "virtual for AWS, path for other stores)")(
      "s3-streams", po::value<std::string>(),
      "requests at once in one transfer, each on a connection of its own: a backup's parts "
      "uploaded, a backup or archived binlog read ahead (default 4; memory up to N parts or "
      "pieces; archive takes it with --verify only)")(
      "encryption-key-file", po::value<std::string>(),
      "the key (32 bytes, or 64 hex digits; a file only its owner reads) of an encrypted "
      "archive or backup: archive --to and backup store with it (AES-256-GCM), every reader "
      "reads with it (default: BINRECOVER_ENCRYPTION_KEY_FILE)");
  return grp;
}

}  // namespace binrecover::cli
