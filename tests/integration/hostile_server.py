#!/usr/bin/env python3
"""A hostile MySQL/MariaDB server for binrecover's tests (Python 3 standard library only).

It speaks just enough of the client/server protocol for libmariadb (what binrecover links) to
connect, run binrecover's queries (SHOW BINARY LOGS, SELECT @@..., SET @master_...) and read a
binlog stream over COM_BINLOG_DUMP, whose content the test chooses: real v4 events (19-byte
headers, true sizes and log_pos, CRC32 checksums; the format description has MariaDB 10.11's
layout, from testdata/row/mysql-bin.000001, or MySQL 8.0's with --flavor mysql). Any user and
password are accepted. It prints "ready PORT" once listening (--port 0: a free port) and serves
connections until killed, one thread each (binrecover connects once per file it reads).

Scenarios (--scenario):
  names             SHOW BINARY LOGS lists the --log NAME / --log-hex HEX names, in order; each
                    file is a format description, a Query event and a Rotate to the next (not
                    the last one). Try a/b, .., names with control bytes, binrecover-manifest.json.
  escape-rotate     names with mysql-bin.000001 and ../escaped.000002: the first file's Rotate
                    names a file outside the reader's folder, served too when asked for. With
                    --unlisted, SHOW BINARY LOGS lists mysql-bin.000001 alone (the name comes
                    from the Rotate only).
  silent            queries are answered; after COM_BINLOG_DUMP the artificial Rotate and the
                    format description, then nothing, ever (the socket stays open).
  silent-handshake  accepts the TCP connection and never sends the greeting.
  garbage           after the artificial Rotate and the format description, a broken packet
                    (--variant N, see GARBAGE), then the EOF packet (non-blocking reads), then
                    it waits for the client to close.
With --infile PATH (any scenario), a query matching --infile-on (a regular expression; default:
any) is answered with a LOAD DATA LOCAL request for PATH instead, as a hostile server or target
would send; the bytes the client then sends are counted into --received FILE (one line per
request: "PATH BYTES") and the query gets an OK. With --cut-on REGEX, a matching query gets the
columns of a result and the connection is closed before its rows: a result lost on its way.
At the end of the last file: the EOF packet when the dump asked for BINLOG_DUMP_NON_BLOCK, else
the connection stays open and silent (no heartbeats), as a server with nothing new to send.

  python3 tests/integration/hostile_server.py --scenario names --log mysql-bin.000001 \
      --log mysql-bin.000002 --port 0 &      # prints "ready 41234"
  build/binrecover events -R -h 127.0.0.1 -P 41234 -u root --no-defaults mysql-bin.000001
"""

import argparse
import os
import random
import re
import socket
import struct
import sys
import threading
import zlib

TS = 1700000000  # the events' timestamp (2023-11-14 22:13:20 UTC), + the file's index
SERVER_ID = 1
QUERY, ROTATE, FORMAT_DESC = 2, 4, 15
ARTIFICIAL_F = 0x20
# The post-header lengths in the format descriptions: MariaDB 10.11's, byte for byte as in
# testdata/row/mysql-bin.000001 (event types 1..171), and MySQL 8.0's (types 1..41).
MARIADB_POST_HEADERS = (bytes.fromhex("380d000800120004040404120000e400041a080000000808080200"
                                      "00000a0a0a0000000000000a0a0a") + bytes(119) +
                        bytes.fromhex("041304000d0808080a0a0a"))
MYSQL_POST_HEADERS = bytes.fromhex("000d0008000000000400040000006200041a0800000008080802000000"
                                   "0a0a0a2a2a001234000a2800")
assert len(MARIADB_POST_HEADERS) == 171 and len(MYSQL_POST_HEADERS) == 41

GARBAGE = {
    0: "an event whose length field says 100 bytes more than its packet holds",
    1: "a packet of 10 bytes after the OK byte (shorter than an event header)",
    2: "a packet whose first byte is 0x42, not the OK byte 0x00",
    3: "an event whose log_pos (10) is smaller than its size",
    4: "an event with a wrong CRC32",
    5: "a packet header promising 1000 bytes, 10 sent, then the connection closed",
    6: "a Query event whose database length runs past its end (size and CRC32 right)",
    7: "a Rotate event in the file too short to hold a name (it names '')",
    8: "a packet with a wrong sequence number",
    9: "an empty packet (length 0)",
}

# Capability flags (mariadb_com.h): LONG_PASSWORD (CLIENT_MYSQL: no MariaDB extended ones),
# FOUND_ROWS, LONG_FLAG, CONNECT_WITH_DB, LOCAL_FILES, PROTOCOL_41, TRANSACTIONS,
# SECURE_CONNECTION, MULTI_STATEMENTS, MULTI_RESULTS, PS_MULTI_RESULTS, PLUGIN_AUTH,
# CONNECT_ATTRS, PLUGIN_AUTH_LENENC_CLIENT_DATA, DEPRECATE_EOF. No SSL, no compression.
CLIENT_DEPRECATE_EOF = 1 << 24
SERVER_CAPS = (0x1 | 0x2 | 0x4 | 0x8 | 0x80 | 0x200 | 0x2000 | 0x8000 | 1 << 16 | 1 << 17 |
               1 << 18 | 1 << 19 | 1 << 20 | 1 << 21 | CLIENT_DEPRECATE_EOF)
STATUS_AUTOCOMMIT = 2


def log(msg):
    if not ARGS.quiet:
        print(f"hostile_server: {msg}", file=sys.stderr, flush=True)


def lenenc_int(n):
    if n < 251:
        return bytes([n])
    if n < 1 << 16:
        return b"\xfc" + struct.pack("<H", n)
    if n < 1 << 24:
        return b"\xfd" + struct.pack("<I", n)[:3]
    return b"\xfe" + struct.pack("<Q", n)


def lenenc_str(b):
    b = b if isinstance(b, bytes) else str(b).encode()
    return lenenc_int(len(b)) + b


# ---- binlog events ----

def seal(raw):
    """The event with its CRC32 (of everything before it) in its last 4 bytes."""
    return raw[:-4] + struct.pack("<I", zlib.crc32(raw[:-4]))


def event(etype, body, log_pos, ts=TS, flags=0):
    size = 19 + len(body) + 4
    return seal(struct.pack("<IBIIIH", ts, etype, SERVER_ID, size, log_pos, flags) + body + bytes(4))


def fde_body(ts):
    mysql = ARGS.flavor == "mysql"
    version = (b"8.0.36" if mysql else b"10.11.6-MariaDB-hostile-log").ljust(50, b"\0")
    lengths = MYSQL_POST_HEADERS if mysql else MARIADB_POST_HEADERS
    return struct.pack("<H", 4) + version + struct.pack("<IB", ts, 19) + lengths + b"\x01"  # CRC32


def query_body(db, sql):
    cs = 255 if ARGS.flavor == "mysql" else 45  # utf8mb4_0900_ai_ci / utf8mb4_general_ci
    status = (b"\x00" + struct.pack("<I", 0) + b"\x01" + struct.pack("<Q", 0x54200000) +
              b"\x06\x03std" + b"\x04" + struct.pack("<HHH", cs, cs, cs))
    return struct.pack("<IIBHH", 5, 0, len(db), 0, len(status)) + status + db + b"\0" + sql


def rotate_body(name, pos=4):
    return struct.pack("<Q", pos) + name


class BinlogFile:
    """One binlog: a format description, a Query event, a Rotate naming the next file."""

    def __init__(self, index, name, next_name):
        self.name, self.ts = name, TS + index
        self.events = []  # (offset, bytes)
        self.add(FORMAT_DESC, fde_body(self.ts))
        self.add(QUERY, query_body(b"hostile", b"CREATE TABLE t%d (id INT)" % (index + 1)))
        if next_name is not None:
            self.add(ROTATE, rotate_body(next_name))

    @property
    def size(self):
        return self.events[-1][0] + len(self.events[-1][1]) if self.events else 4

    def add(self, etype, body):
        at = self.size
        self.events.append((at, event(etype, body, at + 19 + len(body) + 4, self.ts)))


# ---- the server ----

class Closed(Exception):
    pass


class Connection:
    def __init__(self, sock, conn_id, logs):
        self.sock, self.id, self.seq, self.caps = sock, conn_id, 0, 0
        self.logs = logs  # [BinlogFile]
        self.listed = logs[:1] if ARGS.unlisted else logs  # what SHOW BINARY LOGS names
        mysql = ARGS.flavor == "mysql"
        self.version = "8.0.36" if mysql else "10.11.6-MariaDB-hostile"
        self.vars = {"version": self.version, "version_comment": "hostile test server",
                     "server_id": str(SERVER_ID), "max_allowed_packet": "16777216",
                     "binlog_checksum": "CRC32", "log_bin": "1", "binlog_format": "ROW",
                     "sql_mode": "", "time_zone": "SYSTEM", "system_time_zone": "UTC",
                     "hostname": "hostile", "read_only": "0", "lower_case_table_names": "0",
                     "character_set_server": "utf8mb4", "wait_timeout": "28800"}
        if mysql:
            self.vars.update(server_uuid="3e11fa47-71ca-11e1-9e33-c80aa9429562",
                             gtid_mode="OFF", gtid_executed="", gtid_purged="")
        else:
            self.vars.update(gtid_binlog_state="", gtid_binlog_pos="", gtid_current_pos="",
                             gtid_slave_pos="", gtid_domain_id="0")

    # -- packets --
    def recv_exact(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise Closed()
            buf += chunk
        return buf

    def recv(self):
        head = self.recv_exact(4)
        n = head[0] | head[1] << 8 | head[2] << 16
        self.seq = head[3] + 1
        return self.recv_exact(n)

    def send(self, payload):
        self.sock.sendall(struct.pack("<I", len(payload))[:3] + bytes([self.seq & 0xFF]) + payload)
        self.seq += 1

    def ok(self):
        self.send(b"\x00\x00\x00" + struct.pack("<HH", STATUS_AUTOCOMMIT, 0))

    def eof(self):
        if self.caps & CLIENT_DEPRECATE_EOF:  # an OK packet with the EOF header
            self.send(b"\xfe\x00\x00" + struct.pack("<HH", STATUS_AUTOCOMMIT, 0))
        else:
            self.send(b"\xfe" + struct.pack("<HH", 0, STATUS_AUTOCOMMIT))

    def error(self, code, state, msg):
        log(f"#{self.id} error {code}: {msg}")
        self.send(b"\xff" + struct.pack("<H", code) + b"#" + state.encode() + msg.encode())

    def result(self, columns, rows):
        self.send(lenenc_int(len(columns)))
        for c in columns:
            self.send(b"".join(lenenc_str(x) for x in (b"def", b"", b"", b"", c, c)) +
                      b"\x0c" + struct.pack("<HIBHB", 45, 1024, 0xFD, 0, 0) + b"\0\0")
        if not self.caps & CLIENT_DEPRECATE_EOF:
            self.eof()
        if rows is None:  # (its rows lost on the way)
            self.sock.shutdown(socket.SHUT_RDWR)
            raise Closed()
        for row in rows:
            self.send(b"".join(b"\xfb" if v is None else lenenc_str(v) for v in row))
        self.eof()

    def linger(self):
        """Wait, sending nothing, until the client closes the connection."""
        while self.sock.recv(4096):
            pass
        raise Closed()

    # -- the session --
    def serve(self):
        if ARGS.scenario == "silent-handshake":
            self.linger()
        self.handshake()
        while True:
            p = self.recv()
            if not p:
                return
            cmd, arg = p[0], p[1:]
            if cmd == 0x01:  # COM_QUIT
                return
            if cmd == 0x03:  # COM_QUERY
                self.query(arg.decode("utf-8", "replace"))
            elif cmd in (0x02, 0x0E, 0x15, 0x1F):  # INIT_DB, PING, REGISTER_SLAVE, RESET_CONN
                self.ok()
            elif cmd == 0x1B:  # COM_SET_OPTION
                self.eof()
            elif cmd == 0x12 and len(arg) >= 10:  # COM_BINLOG_DUMP
                pos, flags, server_id = struct.unpack_from("<IHI", arg)
                log(f"#{self.id} binlog dump {arg[10:]!r} at {pos}, flags {flags}, "
                    f"server id {server_id}")
                self.dump(arg[10:], pos, flags & 1)
                return
            else:
                self.error(1047, "08S01", f"Unknown command {cmd}")

    def handshake(self):
        scramble = bytes(random.randint(33, 126) for _ in range(20))
        self.send(b"\x0a" + self.version.encode() + b"\0" + struct.pack("<I", self.id) +
                  scramble[:8] + b"\0" + struct.pack("<H", SERVER_CAPS & 0xFFFF) +
                  bytes([255 if ARGS.flavor == "mysql" else 45]) +
                  struct.pack("<HH", STATUS_AUTOCOMMIT, SERVER_CAPS >> 16) + bytes([21]) +
                  bytes(10) + scramble[8:] + b"\0" + b"mysql_native_password\0")
        p = self.recv()
        self.caps = struct.unpack_from("<I", p)[0] if len(p) >= 4 else 0
        user = p[32:].split(b"\0", 1)[0] if len(p) > 32 else b""
        log(f"#{self.id} login as {user!r}, client capabilities {self.caps:#x}")
        self.ok()  # whatever the user, password and auth plugin

    def local_infile(self, q):
        """Asks for ARGS.infile instead of answering; counts what comes back."""
        log(f"#{self.id} asking for the local file {ARGS.infile!r} instead of answering {q!r}")
        self.send(b"\xfb" + os.fsencode(ARGS.infile))
        got = 0
        while True:
            p = self.recv()
            if not p:
                break
            got += len(p)
        with open(ARGS.received, "a") as f:
            f.write(f"{ARGS.infile} {got}\n")
        self.ok()

    def query(self, q):
        log(f"#{self.id} query {q!r}")
        if ARGS.infile and re.search(ARGS.infile_on, q, re.I):
            self.local_infile(q)
            return
        if ARGS.cut_on and re.search(ARGS.cut_on, q, re.I):
            log(f"#{self.id} a result's columns for {q!r}, then the connection closed")
            self.result([b"v"], None)
        q = q.strip().rstrip(";").strip()
        u = " ".join(q.split()).upper()
        var = re.fullmatch(r"SELECT\s+(@@(?:GLOBAL\.|SESSION\.)?(\w+))", q, re.I)
        if u.startswith("SET "):
            self.ok()
        elif u in ("SHOW BINARY LOGS", "SHOW MASTER LOGS"):
            if ARGS.flavor == "mysql":
                self.result([b"Log_name", b"File_size", b"Encrypted"],
                            [[f.name, f.size, "No"] for f in self.listed])
            else:
                self.result([b"Log_name", b"File_size"], [[f.name, f.size] for f in self.listed])
        elif var:
            value = self.vars.get(var.group(2).lower())
            if value is None:
                self.error(1193, "HY000", f"Unknown system variable '{var.group(2)}'")
            else:
                self.result([var.group(1).encode()], [[value]])
        elif u.startswith(("SELECT GET_LOCK(", "SELECT RELEASE_LOCK(")):
            self.result([b"lock"], [["1"]])
        elif u in ("SELECT VERSION()", "SELECT 1"):
            self.result([q[7:].encode()], [[self.version if "VERSION" in u else "1"]])
        else:
            log(f"#{self.id} (an unknown query: answered OK)")
            self.ok()

    def send_event(self, ev):
        self.send(b"\x00" + ev)

    def dump(self, name, pos, non_block):
        index = next((k for k, f in enumerate(self.logs) if f.name == name), None)
        if name == b"" and self.logs:
            index = 0
        if index is None:
            self.error(1236, "HY000", "Could not find first log file name in binary log index file")
            return
        while True:
            f = self.logs[index]
            # The artificial Rotate naming the file and where the read starts.
            self.send_event(event(ROTATE, rotate_body(f.name, pos), 0, ts=0, flags=ARTIFICIAL_F))
            if pos > 4:  # the format description, outside the file (log_pos 0)
                self.send_event(event(FORMAT_DESC, fde_body(f.ts), 0, f.ts))
            else:
                self.send_event(f.events[0][1])
            if ARGS.scenario == "silent":
                self.linger()
            if ARGS.scenario == "garbage":
                self.garbage(f)
                break
            for at, ev in f.events[1:]:
                if at >= pos:
                    self.send_event(ev)
            if index + 1 >= len(self.logs):
                break
            index, pos = index + 1, 4
        if non_block:
            self.eof()
        self.linger()

    def garbage(self, f):
        v = ARGS.variant
        log(f"#{self.id} garbage {v}: {GARBAGE[v]}")
        at = f.events[0][1][13:17]  # the end of the format description: the next event's start
        at = struct.unpack("<I", at)[0]
        body = query_body(b"hostile", b"CREATE TABLE garbage (id INT)")
        good = bytearray(event(QUERY, body, at + 19 + len(body) + 4, f.ts))
        if v == 0:
            struct.pack_into("<I", good, 9, len(good) + 100)
            self.send_event(seal(bytes(good)))
        elif v == 1:
            self.send_event(bytes(good[:10]))
        elif v == 2:
            self.send(b"\x42" + bytes(good))
        elif v == 3:
            struct.pack_into("<I", good, 13, 10)
            self.send_event(seal(bytes(good)))
        elif v == 4:
            good[-1] ^= 0xFF
            self.send_event(bytes(good))
        elif v == 5:
            self.sock.sendall(struct.pack("<I", 1000)[:3] + bytes([self.seq & 0xFF]) + bytes(10))
            raise Closed()
        elif v == 6:
            bad = bytearray(body)
            bad[8] = 200  # the database name's length
            self.send_event(event(QUERY, bytes(bad), at + 19 + len(bad) + 4, f.ts))
        elif v == 7:
            self.send_event(event(ROTATE, struct.pack("<Q", 4), at + 19 + 8 + 4, f.ts))
        elif v == 8:
            self.seq += 5
            self.send_event(bytes(good))
        elif v == 9:
            self.send(b"")


def handle(sock, conn_id, logs):
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        Connection(sock, conn_id, logs).serve()
    except (Closed, OSError) as e:
        if not isinstance(e, Closed):
            log(f"#{conn_id} {e}")
    finally:
        log(f"#{conn_id} closed")
        sock.close()


def build_logs():
    if ARGS.scenario == "escape-rotate":
        names = [b"mysql-bin.000001", b"../escaped.000002"]
    else:
        names = ARGS.logs or [b"mysql-bin.000001"]
    return [BinlogFile(k, n, names[k + 1] if k + 1 < len(names) else None)
            for k, n in enumerate(names)]


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenario", default="names",
                    choices=["names", "escape-rotate", "silent", "silent-handshake", "garbage"])
    ap.add_argument("--port", type=int, default=0, help="0: a free port (printed)")
    ap.add_argument("--log", dest="logs", action="append", type=os.fsencode, default=[],
                    metavar="NAME", help="a binlog name, in order (repeat)")
    ap.add_argument("--log-hex", dest="logs", action="append", type=bytes.fromhex,
                    metavar="HEX", help="a binlog name given as hex bytes (NUL and the rest)")
    ap.add_argument("--variant", type=int, default=0, choices=sorted(GARBAGE),
                    help="garbage: " + "; ".join(f"{k} {d}" for k, d in GARBAGE.items()))
    ap.add_argument("--flavor", choices=["mariadb", "mysql"], default="mariadb",
                    help="mariadb: 10.11.6-MariaDB-hostile; mysql: 8.0.36")
    ap.add_argument("--unlisted", action="store_true",
                    help="SHOW BINARY LOGS lists the first file only (the others still served)")
    ap.add_argument("--infile", metavar="PATH",
                    help="answer a query matching --infile-on with a LOAD DATA LOCAL request")
    ap.add_argument("--infile-on", default="", metavar="REGEX",
                    help="which queries get the request (default: every one)")
    ap.add_argument("--received", default=os.devnull, metavar="FILE",
                    help="where the bytes sent for each request are counted")
    ap.add_argument("--cut-on", default="", metavar="REGEX",
                    help="a matching query gets its columns, then the connection closes")
    ap.add_argument("--quiet", action="store_true", help="no log of commands on stderr")
    ARGS = ap.parse_args()
    logs = build_logs()
    srv = socket.create_server(("127.0.0.1", ARGS.port))
    print(f"ready {srv.getsockname()[1]}", flush=True)
    conn_id = 0
    while True:
        sock, _ = srv.accept()
        conn_id += 1
        threading.Thread(target=handle, args=(sock, conn_id, logs), daemon=True).start()


ARGS = None
if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
