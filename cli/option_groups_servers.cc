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
                   "applied alone; one session in the log's order for the first half second, "
                   "where the log chains them or where that is measured faster)")
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
