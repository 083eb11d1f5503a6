#!/usr/bin/env bash
# Throwaway S3 server for tests: Ceph's RADOS Gateway (Debian's ceph-mon, ceph-osd, radosgw) with
# one monitor and one BlueStore OSD on a sparse file under DIR, loopback only, cephx on, no mgr.
#   scripts/rgw_server.sh start DIR PORT     S3 on http://127.0.0.1:PORT, and over TLS on
#                                            https://localhost:PORT+9 (a certificate of a CA
#                                            made for this start: DIR/ca.pem); monitor on
#                                            PORT+1, OSD on PORT+2..PORT+8
# The gateway's DNS name is localhost: virtual-hosted requests (http://BUCKET.localhost:PORT/)
# work as well as path-style ones.
#   scripts/rgw_server.sh restart-rgw DIR    the gateway alone again (after stop-rgw or kill -9)
#   scripts/rgw_server.sh stop-rgw DIR       the gateway alone
#   scripts/rgw_server.sh stop DIR
#   scripts/rgw_server.sh discard DIR        SIGKILL to every daemon: for a test's end
# After start, DIR/s3.env holds the test user's keys (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
# AWS_ENDPOINT_URL_S3, AWS_REGION) for `source`, and DIR/s3cmd.cfg the same for s3cmd -c; the
# keys are random per start, both files 0600.
set -euo pipefail
cmd=${1:?usage: rgw_server.sh start|restart-rgw|stop-rgw|stop|discard DIR [PORT]}
dir=${2:?directory}

conf() { echo "$dir/ceph.conf"; }
ceph_cmd() { timeout 60 ceph -c "$dir/ceph.conf" -n client.admin "$@"; }

wait_http() {  # the gateway answers an anonymous request (403 or 200) on its port
  local port=$1 pid=$2
  for _ in $(seq 1 300); do
    if curl -s -o /dev/null -m 2 "http://127.0.0.1:$port/"; then return 0; fi
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

start_rgw() {
  local port
  port=$(cat "$dir/port")
  radosgw -c "$dir/ceph.conf" -n client.rgw.a --foreground >>"$dir/log/rgw.stdout" 2>&1 &
  echo $! >"$dir/run/rgw.pid"
  if ! wait_http "$port" "$!"; then
    echo "rgw_server.sh: radosgw in $dir did not start; its log:" >&2
    tail -30 "$dir/log/client.rgw.a.log" "$dir/log/rgw.stdout" >&2 || true
    exit 1
  fi
}

stop_pidfile() {
  local f=$1
  [ -f "$f" ] || return 0
  local pid
  pid=$(cat "$f")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$f"
}

case "$cmd" in
start)
  port=${3:?port}
  for b in ceph-mon ceph-osd radosgw ceph-authtool monmaptool radosgw-admin ceph; do
    command -v "$b" >/dev/null || { echo "rgw_server.sh: $b not found (scripts/test.sh installs ceph-mon ceph-osd radosgw ceph-common)" >&2; exit 1; }
  done
  [ -d "$dir" ] && "$0" stop "$dir" 2>/dev/null || true
  rm -rf "$dir"
  mkdir -p "$dir"/{mon,osd/0,run,log,rgw}
  chmod 700 "$dir"
  echo "$port" >"$dir/port"
  fsid=$(cat /proc/sys/kernel/random/uuid)
  mon_port=$((port + 1))
  cat >"$dir/ceph.conf" <<EOF
[global]
fsid = $fsid
mon host = v1:127.0.0.1:$mon_port
mon initial members = a
public addr = 127.0.0.1
ms bind msgr2 = false
ms bind port min = $((port + 2))
ms bind port max = $((port + 8))
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
keyring = $dir/\$name.keyring
run dir = $dir/run
admin socket = $dir/run/\$name.asok
log file = $dir/log/\$name.log
log to stderr = false
err to stderr = false
mon cluster log file = $dir/log/cluster.log
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd crush chooseleaf type = 0
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000
[mon]
mon data = $dir/mon/\$cluster-\$id
paxos propose interval = 0.1
mon osd full ratio = 0.99
mon osd nearfull ratio = 0.98
[osd]
osd data = $dir/osd/\$id
osd objectstore = bluestore
bluestore block path = $dir/osd/block.\$id
bluestore block create = true
bluestore block size = 21474836480
bluestore fsck on mkfs = false
bluestore cache autotune = false
bluestore cache size = 67108864
osd memory target = 402653184
osd op num shards = 1
osd op num threads per shard = 2
[client.rgw.a]
rgw frontends = beast endpoint=127.0.0.1:$port ssl_endpoint=127.0.0.1:$((port + 9)) ssl_certificate=$dir/tls/server.pem ssl_private_key=$dir/tls/server.key
rgw dns name = localhost
rgw data = $dir/rgw
rgw thread pool size = 32
rgw dynamic resharding = false
rgw enable usage log = false
EOF
  # A CA of this start's own and the gateway's certificate for localhost and 127.0.0.1.
  mkdir -p "$dir/tls"
  (
    cd "$dir/tls"
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=binrecover test CA" \
      -keyout ca.key -out ca.pem >/dev/null 2>&1
    openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout server.key \
      -out server.csr >/dev/null 2>&1
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >ext.cnf
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
      -extfile ext.cnf -out server.pem >/dev/null 2>&1
  ) || { echo "rgw_server.sh: cannot make the test certificate" >&2; exit 1; }
  cp "$dir/tls/ca.pem" "$dir/ca.pem"
  ceph-authtool --create-keyring "$dir/mon.keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  ceph-authtool --create-keyring "$dir/client.admin.keyring" --gen-key -n client.admin \
    --cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' >/dev/null
  ceph-authtool "$dir/mon.keyring" --import-keyring "$dir/client.admin.keyring" >/dev/null
  monmaptool --create --add a "v1:127.0.0.1:$mon_port" --fsid "$fsid" "$dir/monmap" >/dev/null
  ceph-mon -c "$dir/ceph.conf" -i a --mkfs --monmap "$dir/monmap" --keyring "$dir/mon.keyring" \
    >"$dir/log/mkfs.log" 2>&1 || { cat "$dir/log/mkfs.log" >&2; exit 1; }
  ceph-mon -c "$dir/ceph.conf" -i a --pid-file "$dir/run/mon.pid" >>"$dir/log/mon.stdout" 2>&1
  osd_uuid=$(cat /proc/sys/kernel/random/uuid)
  osd_key=$(ceph-authtool --gen-print-key)
  printf '{"cephx_secret": "%s"}' "$osd_key" >"$dir/osd-secret.json"
  osd_id=$(ceph_cmd osd new "$osd_uuid" -i "$dir/osd-secret.json")
  rm -f "$dir/osd-secret.json"
  [ "$osd_id" = 0 ] || { echo "rgw_server.sh: unexpected OSD id '$osd_id'" >&2; exit 1; }
  ceph-authtool --create-keyring "$dir/osd.0.keyring" --name osd.0 --add-key "$osd_key" >/dev/null
  ceph-osd -c "$dir/ceph.conf" -i 0 --mkfs --osd-uuid "$osd_uuid" >>"$dir/log/mkfs.log" 2>&1 ||
    { cat "$dir/log/mkfs.log" >&2; exit 1; }
  ceph-osd -c "$dir/ceph.conf" -i 0 --pid-file "$dir/run/osd.pid" >>"$dir/log/osd.stdout" 2>&1
  # The gateway's pools made here (small, size 1) rather than by its first start, and its key:
  # one run of the ceph tool reading its commands from stdin (each run costs a third of a CPU
  # second: a Python start and a monitor session).
  for pool in .rgw.root default.rgw.control default.rgw.meta default.rgw.log \
    default.rgw.buckets.index default.rgw.buckets.data default.rgw.buckets.non-ec; do
    echo "osd pool create $pool 8 8"
    echo "osd pool application enable $pool rgw"
  done | ceph_cmd >/dev/null 2>&1
  ceph_cmd auth get-or-create client.rgw.a mon 'allow rw' osd 'allow rwx' \
    -o "$dir/client.rgw.a.keyring" >/dev/null
  start_rgw
  access=$(head -c 15 /dev/urandom | od -An -tx1 | tr -d ' \n' | tr a-f A-F | head -c 20)
  secret=$(head -c 30 /dev/urandom | base64 | tr -d '/+=\n' | head -c 40)
  timeout 60 radosgw-admin -c "$dir/ceph.conf" -n client.admin user create --uid=binrecover \
    --display-name=binrecover --access-key="$access" --secret-key="$secret" >/dev/null
  (
    umask 077
    cat >"$dir/s3.env" <<EOF
export AWS_ACCESS_KEY_ID=$access
export AWS_SECRET_ACCESS_KEY=$secret
export AWS_ENDPOINT_URL_S3=http://127.0.0.1:$port
export AWS_REGION=us-east-1
EOF
    cat >"$dir/s3cmd.cfg" <<EOF
[default]
access_key = $access
secret_key = $secret
host_base = 127.0.0.1:$port
host_bucket = 127.0.0.1:$port
use_https = False
signature_v2 = False
EOF
  )
  ;;
restart-rgw)
  stop_pidfile "$dir/run/rgw.pid"
  start_rgw
  ;;
stop-rgw)
  stop_pidfile "$dir/run/rgw.pid"
  ;;
stop)
  stop_pidfile "$dir/run/rgw.pid"
  stop_pidfile "$dir/run/osd.pid"
  stop_pidfile "$dir/run/mon.pid"
  ;;
discard)  # a test's end: every daemon killed at once (its folder is deleted next)
  source "$(dirname "$0")/kill_now.sh"
  for f in rgw osd mon; do
    pid=$(cat "$dir/run/$f.pid" 2>/dev/null || true)
    case "$pid" in '' | *[!0-9]*) continue ;; esac
    kill_now "$pid"
    rm -f "$dir/run/$f.pid"
  done
  ;;
*) echo "usage: rgw_server.sh start|restart-rgw|stop-rgw|stop|discard DIR [PORT]" >&2; exit 2 ;;
esac
