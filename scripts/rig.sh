#!/usr/bin/env bash
# RecordKit test rig: a real X display, a real PulseAudio server and an RTMP server, all local.
#
#   scripts/rig.sh start    start whatever is not running yet (idempotent), wait until each answers
#   scripts/rig.sh stop     stop everything this rig dir started (bounded: TERM, then KILL)
#   scripts/rig.sh status   one line per server; exit 0 only if all are up and answering
#   scripts/rig.sh env      print the environment file (eval "$(scripts/rig.sh env)")
#   scripts/rig.sh check    functional self-test (MIT-SHM, WM, tones, RTMP publish/auth/record)
#   scripts/rig.sh nginx-stop / nginx-start   stop or (re)start the RTMP server alone (reconnect tests)
#   scripts/rig.sh x-stop / x-start, pulse-stop / pulse-start   the X or the audio server alone (availability tests)
#
# What runs (see docs/TESTING.md, "The rig"):
#   Xvfb :99 (or the next free display) 1920x1080x24, -nolisten tcp, MIT-SHM on, black root
#   openbox (EWMH window manager; undecorated windows, so geometry is exact)
#   pulseaudio -n, native protocol on $RIG/pulse.sock only, null sinks app_sink and mic_sink (48 kHz),
#       default sink app_sink, default source mic_sink.monitor
#   two ffmpeg tone players: 440 Hz -> app_sink, 1000 Hz -> mic_sink (low-latency pulse clients)
#   nginx + RTMP module: rtmp://127.0.0.1:19350/live (publish from 127.0.0.1 only, key must start
#       with "testkey", everything recorded into $RIG/rtmp-rec); http://127.0.0.1:19380/{auth,stat}
#   stunnel4: TLS in front of that nginx-rtmp (Debian's nginx-light has no stream module), with
#       certificates the rig makes itself in $RIG/tls (openssl; the test CA is tls/ca.crt):
#       rtmps://127.0.0.1:19360/live  certificate for 127.0.0.1 and localhost, signed by the test CA
#       rtmps://127.0.0.1:19361/live  a self-signed certificate for 127.0.0.1 and localhost
#       rtmps://127.0.0.1:19362/live  a certificate signed by the test CA for another host only
#
# Everything lives in the rig dir: RK_RIG_DIR, default $PWD/rig-run. (Exceptions the X server
# imposes: its socket and lock in /tmp/.X11-unix and /tmp/.X<n>-lock.)
# Tunables: RK_DISPLAY_NUM (first display number tried, default 99), RK_RTMP_PORT (19350),
# RK_HTTP_PORT (19380), RK_RTMPS_PORT (19360), RK_RTMPS_SELFSIGNED_PORT (19361),
# RK_RTMPS_WRONGHOST_PORT (19362), RK_SCREEN (1920x1080x24), RK_APP_TONE_HZ (440), RK_MIC_TONE_HZ (1000).
set -euo pipefail

RIG=${RK_RIG_DIR:-$PWD/rig-run}
RIG=$(realpath -m -- "$RIG")
RTMP_PORT=${RK_RTMP_PORT:-19350}
HTTP_PORT=${RK_HTTP_PORT:-19380}
RTMPS_PORT=${RK_RTMPS_PORT:-19360}
RTMPS_SELFSIGNED_PORT=${RK_RTMPS_SELFSIGNED_PORT:-19361}
RTMPS_WRONGHOST_PORT=${RK_RTMPS_WRONGHOST_PORT:-19362}
SCREEN_GEOM=${RK_SCREEN:-1920x1080x24}
APP_HZ=${RK_APP_TONE_HZ:-440}
MIC_HZ=${RK_MIC_TONE_HZ:-1000}
FIRST_DISPLAY=${RK_DISPLAY_NUM:-99}

PIDS=$RIG/pids
LOGS=$RIG/logs
PULSE_SOCK=$RIG/pulse.sock
PULSE_DIR=$RIG/pulse
REC_DIR=$RIG/rtmp-rec
NGX=$RIG/nginx
TLS=$RIG/tls
# The only host the wrong-host certificate names (a reserved name that never resolves).
WRONG_HOST=rtmps.wrong-host.invalid

# Order matters: start in this order, stop in reverse.
COMPONENTS=(xvfb openbox pulse tone-app tone-mic nginx stunnel)

log() { printf 'rig: %s\n' "$*" >&2; }
die() { printf 'rig: error: %s\n' "$*" >&2; exit 1; }

# Expected executable name per component, so a recycled pid is never mistaken for ours.
exe_of() {
  case $1 in
    xvfb) echo Xvfb ;; openbox) echo openbox ;; pulse) echo pulseaudio ;;
    tone-app|tone-mic) echo ffmpeg ;; nginx) echo nginx ;; stunnel) echo stunnel4 ;;
  esac
}

pid_of() { [ -s "$PIDS/$1.pid" ] && cat "$PIDS/$1.pid" || true; }

# alive NAME: the recorded pid exists and still runs the expected program.
alive() {
  local pid exe
  pid=$(pid_of "$1")
  [ -n "$pid" ] || return 1
  # comm, not cmdline: nginx rewrites its argv ("nginx: master process ...").
  exe=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
  [ "$exe" = "$(exe_of "$1")" ] || return 1
  # A zombie is not alive.
  local stat
  stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}

# spawn NAME CMD...: start CMD in its own session (it survives this script; its pid is its process
# group id), stdin from /dev/null, output appended to logs/NAME.log, pid into pids/NAME.pid.
# fd 9 (the rig lock) is closed in the child so a long-lived server never holds the lock.
spawn() {
  local name=$1; shift
  local pidfile=$PIDS/$name.pid
  rm -f -- "$pidfile"
  printf '\n=== %s: %s\n' "$(date -Is)" "$*" >>"$LOGS/$name.log"
  setsid bash -c 'echo $$ >"$0.tmp" && mv -f "$0.tmp" "$0" && exec "$@"' "$pidfile" "$@" \
    </dev/null >>"$LOGS/$name.log" 2>&1 9>&- &
  local i
  for ((i = 0; i < 50; i++)); do
    [ -s "$pidfile" ] && return 0
    sleep 0.1
  done
  die "$name: did not start (see $LOGS/$name.log)"
}

# wait_until SECONDS DESCRIPTION CMD...: poll CMD every 0.1 s until it succeeds.
wait_until() {
  local secs=$1 what=$2; shift 2
  local deadline=$((SECONDS + secs))
  while ((SECONDS < deadline)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  "$@" >/dev/null 2>&1 && return 0
  return 1
}

display() { cat "$RIG/display" 2>/dev/null || true; }

# Environment for PulseAudio clients (pactl, the tone players): the rig's server, no autospawn,
# the cookie inside the rig dir (libpulse would otherwise create ~/.config/pulse/cookie).
PULSE_CLIENT_ENV=(PULSE_SERVER="unix:$PULSE_SOCK" PULSE_CLIENTCONFIG="$PULSE_DIR/client.conf"
  PULSE_COOKIE="$PULSE_DIR/cookie")
pactl_rig() { env -u DISPLAY "${PULSE_CLIENT_ENV[@]}" timeout 5 pactl "$@"; }

x_answers() { [ -n "$(display)" ] && DISPLAY=$(display) timeout 5 xdpyinfo >/dev/null 2>&1; }
wm_answers() {
  [ -n "$(display)" ] || return 1
  DISPLAY=$(display) timeout 5 xprop -root _NET_SUPPORTING_WM_CHECK 2>/dev/null | grep 'window id' >/dev/null
}
pulse_answers() { pactl_rig info >/dev/null 2>&1; }
tone_answers() {   # the tone's sink input exists on the server
  local sink=$1
  pactl_rig list sink-inputs 2>/dev/null | grep "media.name = \"rk-tone-$sink\"" >/dev/null
}
port_answers() { timeout 3 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }
nginx_answers() {
  port_answers "$RTMP_PORT" && timeout 5 curl -fsS -o /dev/null "http://127.0.0.1:$HTTP_PORT/stat"
}
# tls_answers PORT: a TLS handshake on PORT completes (the certificate is not checked here;
# `check` does).
tls_answers() {
  timeout 5 openssl s_client -connect "127.0.0.1:$1" </dev/null 2>/dev/null |
    grep -q '^-----BEGIN CERTIFICATE-----'
}
stunnel_answers() {
  tls_answers "$RTMPS_PORT" && tls_answers "$RTMPS_SELFSIGNED_PORT" && tls_answers "$RTMPS_WRONGHOST_PORT"
}

answers() {
  case $1 in
    xvfb) x_answers ;; openbox) wm_answers ;; pulse) pulse_answers ;;
    tone-app) tone_answers app_sink ;; tone-mic) tone_answers mic_sink ;;
    nginx) nginx_answers ;; stunnel) stunnel_answers ;;
  esac
}

# ---------------------------------------------------------------------------------------------
start_xvfb() {
  if alive xvfb && x_answers; then return 0; fi
  alive xvfb && stop_one xvfb
  local n=$FIRST_DISPLAY lockpid
  while :; do
    if [ -e "/tmp/.X$n-lock" ]; then
      lockpid=$(tr -dc '0-9' <"/tmp/.X$n-lock" 2>/dev/null || true)
      if [ -n "$lockpid" ] && kill -0 "$lockpid" 2>/dev/null; then n=$((n + 1)); continue; fi
      # A stale lock (its server is gone): Xvfb replaces it itself.
    elif [ -S "/tmp/.X11-unix/X$n" ] && DISPLAY=:$n timeout 2 xdpyinfo >/dev/null 2>&1; then
      n=$((n + 1)); continue
    fi
    break
  done
  ((n < FIRST_DISPLAY + 100)) || die "no free X display from :$FIRST_DISPLAY"
  echo ":$n" >"$RIG/display"
  log "starting Xvfb :$n ($SCREEN_GEOM)"
  spawn xvfb Xvfb ":$n" -screen 0 "$SCREEN_GEOM" -nolisten tcp +extension MIT-SHM \
    -noreset -br -dpi 96
  wait_until 15 "X display" x_answers || die "Xvfb :$n does not answer (see $LOGS/xvfb.log)"
  DISPLAY=:$n timeout 5 xdpyinfo -queryExtensions | grep 'MIT-SHM' >/dev/null ||
    die "Xvfb :$n has no MIT-SHM"
  # No screen saver by itself after 10 idle minutes (every recording would pause as "screen
  # locked"); tests still activate it on purpose with `xset s activate`.
  DISPLAY=:$n timeout 5 xset s off -dpms || true
}

start_openbox() {
  if alive openbox && wm_answers; then return 0; fi
  alive openbox && stop_one openbox
  mkdir -p "$RIG/openbox" "$RIG/home" "$RIG/xdg-config" "$RIG/xdg-cache" "$RIG/xdg-data"
  # Minimal config: no session, no autostart, one desktop, every window undecorated and without
  # a border so a window's content is exactly where its geometry says.
  cat >"$RIG/openbox/rc.xml" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<openbox_config xmlns="http://openbox.org/3.4/rc">
  <resistance><strength>0</strength><screen_edge_strength>0</screen_edge_strength></resistance>
  <focus><focusNew>yes</focusNew><followMouse>no</followMouse></focus>
  <placement><policy>Smart</policy><center>no</center></placement>
  <theme><keepBorder>no</keepBorder><animateIconify>no</animateIconify></theme>
  <desktops><number>1</number></desktops>
  <margins><top>0</top><bottom>0</bottom><left>0</left><right>0</right></margins>
  <keyboard></keyboard>
  <mouse></mouse>
  <applications>
    <application class="*"><decor>no</decor></application>
  </applications>
</openbox_config>
EOF
  log "starting openbox on $(display)"
  spawn openbox env DISPLAY="$(display)" HOME="$RIG/home" XDG_CONFIG_HOME="$RIG/xdg-config" \
    XDG_CACHE_HOME="$RIG/xdg-cache" XDG_DATA_HOME="$RIG/xdg-data" DBUS_SESSION_BUS_ADDRESS=disabled: \
    openbox --sm-disable --config-file "$RIG/openbox/rc.xml"
  wait_until 15 "window manager" wm_answers || die "openbox did not set _NET_SUPPORTING_WM_CHECK (see $LOGS/openbox.log)"
}

start_pulse() {
  if alive pulse && pulse_answers; then return 0; fi
  alive pulse && stop_one pulse
  ((${#PULSE_SOCK} < 100)) || die "rig dir path too long for a unix socket: $PULSE_SOCK"
  mkdir -p "$PULSE_DIR/home" "$PULSE_DIR/runtime" "$PULSE_DIR/config/pulse"
  chmod 0700 "$PULSE_DIR/runtime"
  cat >"$PULSE_DIR/client.conf" <<EOF
autospawn = no
default-server = unix:$PULSE_SOCK
cookie-file = $PULSE_DIR/cookie
EOF
  cp "$PULSE_DIR/client.conf" "$PULSE_DIR/config/pulse/client.conf"
  cat >"$PULSE_DIR/config/pulse/daemon.conf" <<'EOF'
default-sample-rate = 48000
alternate-sample-rate = 48000
default-sample-channels = 2
flat-volumes = no
EOF
  rm -f -- "$PULSE_SOCK"
  log "starting pulseaudio on $PULSE_SOCK"
  # As root, PulseAudio tries D-Bus autolaunch if it sees DISPLAY: run it with a scrubbed
  # environment and D-Bus disabled.
  spawn pulse env -i PATH="$PATH" HOME="$PULSE_DIR/home" XDG_RUNTIME_DIR="$PULSE_DIR/runtime" \
    XDG_CONFIG_HOME="$PULSE_DIR/config" DBUS_SESSION_BUS_ADDRESS=disabled: \
    PULSE_CONFIG="$PULSE_DIR/config/pulse/daemon.conf" PULSE_CLIENTCONFIG="$PULSE_DIR/client.conf" \
    pulseaudio -n --daemonize=no --system=no --use-pid-file=no --exit-idle-time=-1 \
      --realtime=no --high-priority=no --log-target=stderr --log-level=notice \
      -L "module-native-protocol-unix auth-anonymous=1 socket=$PULSE_SOCK" \
      -L "module-null-sink sink_name=app_sink rate=48000 channels=2 sink_properties=device.description=app_sink" \
      -L "module-null-sink sink_name=mic_sink rate=48000 channels=2 sink_properties=device.description=mic_sink"
  wait_until 15 "PulseAudio" pulse_answers || die "pulseaudio does not answer (see $LOGS/pulse.log)"
  pactl_rig set-default-sink app_sink
  pactl_rig set-default-source mic_sink.monitor
  pactl_rig info | grep '^Default Sink: app_sink$' >/dev/null || die "default sink is not app_sink"
  pactl_rig info | grep '^Default Source: mic_sink.monitor$' >/dev/null || die "default source is not mic_sink.monitor"
}

start_tone() {   # start_tone NAME SINK HZ
  local name=$1 sink=$2 hz=$3
  if alive "$name" && tone_answers "$sink"; then return 0; fi
  alive "$name" && stop_one "$name"
  log "starting $hz Hz tone into $sink"
  spawn "$name" env -u DISPLAY "${PULSE_CLIENT_ENV[@]}" \
    ffmpeg -nostdin -hide_banner -loglevel warning \
      -f lavfi -i "sine=frequency=$hz:sample_rate=48000" -ac 2 \
      -f pulse -buffer_duration 40 -name rk-rig -device "$sink" "rk-tone-$sink"
  wait_until 15 "tone $hz Hz" tone_answers "$sink" || die "tone into $sink did not start (see $LOGS/$name.log)"
}

start_nginx() {
  if alive nginx && nginx_answers; then return 0; fi
  alive nginx && stop_one nginx
  port_answers "$RTMP_PORT" && die "port $RTMP_PORT is already in use by another program"
  port_answers "$HTTP_PORT" && die "port $HTTP_PORT is already in use by another program"
  mkdir -p "$NGX/tmp" "$REC_DIR"
  # The worker writes the recordings. Prefer an unprivileged worker; fall back to root only if
  # the rig dir is not reachable by it (e.g. a rig dir under /root).
  local user=root
  if [ "$(id -u)" = 0 ]; then
    if id -u www-data >/dev/null 2>&1; then
      chown www-data: "$REC_DIR" "$NGX/tmp"
      if runuser -u www-data -- test -w "$REC_DIR" 2>/dev/null; then user=www-data
      else log "www-data cannot reach $REC_DIR: nginx worker runs as root"; fi
    fi
  else
    user=$(id -un)
  fi
  local user_line="user $user;"
  [ "$(id -u)" = 0 ] || user_line="# not root: the worker runs as $(id -un)"
  cat >"$NGX/nginx.conf" <<EOF
# Generated by scripts/rig.sh. One worker: RTMP streams and /stat are per worker.
$user_line
worker_processes 1;
daemon off;
master_process on;
pid $NGX/nginx.pid;
lock_file $NGX/nginx.lock;
error_log $NGX/error.log info;
load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;

events { worker_connections 256; }

rtmp {
    server {
        listen 127.0.0.1:$RTMP_PORT;
        chunk_size 4096;
        # GET, so the http block below can read the stream key as \$arg_name.
        notify_method get;
        application live {
            live on;
            allow publish 127.0.0.1;
            deny publish all;
            allow play 127.0.0.1;
            deny play all;
            record all;
            record_path $REC_DIR;
            record_unique on;
            on_publish http://127.0.0.1:$HTTP_PORT/auth;
        }
    }
}

http {
    access_log $NGX/access.log;
    client_body_temp_path $NGX/tmp/body;
    proxy_temp_path $NGX/tmp/proxy;
    fastcgi_temp_path $NGX/tmp/fastcgi;
    uwsgi_temp_path $NGX/tmp/uwsgi;
    scgi_temp_path $NGX/tmp/scgi;
    default_type text/plain;
    map \$arg_name \$rk_publish_ok {
        default 0;
        ~^testkey 1;
    }
    server {
        listen 127.0.0.1:$HTTP_PORT;
        location = /auth {
            if (\$rk_publish_ok) { return 200 "ok\n"; }
            return 403 "forbidden\n";
        }
        location = /stat { rtmp_stat all; }
        location / { return 404; }
    }
}
EOF
  timeout 10 nginx -t -q -p "$NGX" -e "$NGX/error.log" -c "$NGX/nginx.conf" ||
    die "nginx config test failed (see $NGX/error.log)"
  log "starting nginx-rtmp on 127.0.0.1:$RTMP_PORT (http 127.0.0.1:$HTTP_PORT)"
  spawn nginx nginx -p "$NGX" -e "$NGX/error.log" -c "$NGX/nginx.conf"
  wait_until 15 "nginx" nginx_answers || die "nginx does not answer (see $NGX/error.log, $LOGS/nginx.log)"
}

# The rig's certificates, made once per rig dir (again when one expires within a day), all
# EC P-256 and valid for 10 years:
#   ca.crt/ca.key                 the test CA (what tests give to --rtmp-ca-file)
#   server.crt/server.key         127.0.0.1 and localhost (SANs), signed by the test CA
#   selfsigned.crt/selfsigned.key 127.0.0.1 and localhost (SANs), signed by itself
#   wronghost.crt/wronghost.key   only $WRONG_HOST, signed by the test CA
make_certs() {
  local f fresh=1
  for f in ca server selfsigned wronghost; do
    [ -s "$TLS/$f.crt" ] && [ -s "$TLS/$f.key" ] &&
      openssl x509 -checkend 86400 -noout -in "$TLS/$f.crt" >/dev/null 2>&1 || fresh=0
  done
  ((fresh)) && return 0
  log "making the test CA and certificates in $TLS"
  rm -rf -- "$TLS"
  mkdir -p "$TLS"
  local ossl=(openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
  "${ossl[@]}" -x509 -days 3650 -keyout "$TLS/ca.key" -out "$TLS/ca.crt" \
    -subj "/O=RecordKit test rig/CN=RecordKit test CA" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
    >>"$LOGS/tls.log" 2>&1 || die "openssl: cannot make the test CA (see $LOGS/tls.log)"
  make_leaf server "/O=RecordKit test rig/CN=127.0.0.1" "IP:127.0.0.1,DNS:localhost"
  make_leaf wronghost "/O=RecordKit test rig/CN=$WRONG_HOST" "DNS:$WRONG_HOST"
  "${ossl[@]}" -x509 -days 3650 -keyout "$TLS/selfsigned.key" -out "$TLS/selfsigned.crt" \
    -subj "/O=RecordKit test rig/CN=127.0.0.1" -addext subjectAltName=IP:127.0.0.1,DNS:localhost \
    >>"$LOGS/tls.log" 2>&1 || die "openssl: cannot make the self-signed certificate (see $LOGS/tls.log)"
  rm -f -- "$TLS"/*.csr "$TLS"/*.ext "$TLS"/*.srl
  chmod 0600 "$TLS"/*.key
  chmod 0644 "$TLS"/*.crt
}

# make_leaf NAME SUBJECT SANS: a server certificate signed by the test CA.
make_leaf() {
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$TLS/$1.key" \
    -out "$TLS/$1.csr" -subj "$2" >>"$LOGS/tls.log" 2>&1 ||
    die "openssl: cannot make the $1 key (see $LOGS/tls.log)"
  printf '%s\n' basicConstraints=critical,CA:FALSE keyUsage=critical,digitalSignature \
    extendedKeyUsage=serverAuth "subjectAltName=$3" >"$TLS/$1.ext"
  openssl x509 -req -in "$TLS/$1.csr" -CA "$TLS/ca.crt" -CAkey "$TLS/ca.key" -CAcreateserial \
    -days 3650 -extfile "$TLS/$1.ext" -out "$TLS/$1.crt" >>"$LOGS/tls.log" 2>&1 ||
    die "openssl: cannot sign the $1 certificate (see $LOGS/tls.log)"
}

# stunnel4 in the foreground (pid bookkeeping like every server): three TLS services in front of
# the rig's nginx-rtmp, one per certificate.
start_stunnel() {
  if alive stunnel && stunnel_answers; then return 0; fi
  alive stunnel && stop_one stunnel
  command -v stunnel4 >/dev/null || die "stunnel4 is not installed: run scripts/install-deps.sh"
  local p
  for p in "$RTMPS_PORT" "$RTMPS_SELFSIGNED_PORT" "$RTMPS_WRONGHOST_PORT"; do
    port_answers "$p" && die "port $p is already in use by another program"
  done
  make_certs
  cat >"$TLS/stunnel.conf" <<EOF
; Generated by scripts/rig.sh: TLS in front of the rig's nginx-rtmp (127.0.0.1:$RTMP_PORT).
foreground = yes
pid =
debug = notice
syslog = no

[rtmps]
accept = 127.0.0.1:$RTMPS_PORT
connect = 127.0.0.1:$RTMP_PORT
cert = $TLS/server.crt
key = $TLS/server.key

[rtmps-selfsigned]
accept = 127.0.0.1:$RTMPS_SELFSIGNED_PORT
connect = 127.0.0.1:$RTMP_PORT
cert = $TLS/selfsigned.crt
key = $TLS/selfsigned.key

[rtmps-wronghost]
accept = 127.0.0.1:$RTMPS_WRONGHOST_PORT
connect = 127.0.0.1:$RTMP_PORT
cert = $TLS/wronghost.crt
key = $TLS/wronghost.key
EOF
  log "starting stunnel4: rtmps on 127.0.0.1:$RTMPS_PORT (self-signed :$RTMPS_SELFSIGNED_PORT, wrong host :$RTMPS_WRONGHOST_PORT)"
  spawn stunnel stunnel4 "$TLS/stunnel.conf"
  wait_until 15 "stunnel" stunnel_answers || die "stunnel4 does not answer (see $LOGS/stunnel.log)"
}

write_env() {
  {
    echo "# RecordKit rig environment ($(date -Is)); source this file."
    printf 'export DISPLAY=%q\n' "$(display)"
    printf 'export PULSE_SERVER=%q\n' "unix:$PULSE_SOCK"
    printf 'export PULSE_CLIENTCONFIG=%q\n' "$PULSE_DIR/client.conf"
    printf 'export PULSE_COOKIE=%q\n' "$PULSE_DIR/cookie"
    printf 'export RK_RIG_DIR=%q\n' "$RIG"
    printf 'export RK_RTMP_URL=%q\n' "rtmp://127.0.0.1:$RTMP_PORT/live"
    printf 'export RK_RTMP_REC_DIR=%q\n' "$REC_DIR"
    printf 'export RK_RTMP_STAT_URL=%q\n' "http://127.0.0.1:$HTTP_PORT/stat"
    printf 'export RK_RTMPS_URL=%q\n' "rtmps://127.0.0.1:$RTMPS_PORT/live"
    printf 'export RK_RTMPS_SELFSIGNED_URL=%q\n' "rtmps://127.0.0.1:$RTMPS_SELFSIGNED_PORT/live"
    printf 'export RK_RTMPS_WRONGHOST_URL=%q\n' "rtmps://127.0.0.1:$RTMPS_WRONGHOST_PORT/live"
    printf 'export RK_RTMPS_CA_FILE=%q\n' "$TLS/ca.crt"
    printf 'export RK_XVFB_PID=%q\n' "$(pid_of xvfb)"
  } >"$RIG/env.tmp"
  mv -f "$RIG/env.tmp" "$RIG/env"
}

# group_running PGID: some process of that group still runs. Zombies do not count: they are dead,
# only waiting for a reaper (and some init processes reap slowly).
group_running() {
  cat /proc/[0-9]*/stat 2>/dev/null |
    awk -v pg="$1" '{ sub(/^.*\) /, ""); if ($3 == pg && $1 != "Z") found = 1 } END { exit !found }'
}

# stop_components NAME...: SIGTERM each component's process group (in the order given), wait up
# to 5 s for all of them together, then SIGKILL what is left.
stop_components() {
  local name pid pgs=() i
  for name in "$@"; do
    pid=$(pid_of "$name")
    if [ -n "$pid" ] && alive "$name"; then
      kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
      pgs+=("$pid:$name")
    fi
  done
  for ((i = 0; i < 50 && ${#pgs[@]} > 0; i++)); do
    local left=()
    for pid in "${pgs[@]}"; do group_running "${pid%%:*}" && left+=("$pid"); done
    pgs=(${left[@]+"${left[@]}"})
    ((${#pgs[@]} > 0)) && sleep 0.1
  done
  for pid in ${pgs[@]+"${pgs[@]}"}; do
    log "${pid#*:} (${pid%%:*}) ignored SIGTERM for 5 s; killing"
    kill -KILL -- "-${pid%%:*}" 2>/dev/null || true
  done
  for name in "$@"; do rm -f -- "$PIDS/$name.pid"; done
}
stop_one() { stop_components "$1"; }

lock() {
  mkdir -p "$RIG" "$PIDS" "$LOGS"
  exec 9>"$RIG/.lock"
  flock -w 120 9 || die "another rig.sh holds $RIG/.lock"
}

cmd_start() {
  lock
  local t0=$SECONDS
  # A restarted X server means a new display: anything attached to the old one restarts too.
  if ! { alive xvfb && x_answers; }; then stop_one openbox; fi
  start_xvfb
  start_openbox
  start_pulse
  start_tone tone-app app_sink "$APP_HZ"
  start_tone tone-mic mic_sink "$MIC_HZ"
  start_nginx
  start_stunnel
  write_env
  log "up in $((SECONDS - t0)) s: DISPLAY=$(display) PULSE_SERVER=unix:$PULSE_SOCK rtmp://127.0.0.1:$RTMP_PORT/live"
  log "env: source $RIG/env"
}

cmd_stop() {
  [ -d "$RIG" ] || { log "nothing to stop ($RIG does not exist)"; return 0; }
  lock
  local i rev=()
  for ((i = ${#COMPONENTS[@]} - 1; i >= 0; i--)); do rev+=("${COMPONENTS[i]}"); done
  stop_components "${rev[@]}"
  rm -f -- "$RIG/env" "$PULSE_SOCK"
  log "stopped"
}

cmd_status() {
  local c ok=0 pid state
  for c in "${COMPONENTS[@]}"; do
    pid=$(pid_of "$c")
    if alive "$c"; then
      if answers "$c"; then state=up; else state="running, NOT answering"; ok=1; fi
    else
      state=down; ok=1
    fi
    printf '%-9s %-8s %s\n' "$c" "${pid:--}" "$state"
  done
  [ -s "$RIG/env" ] && printf 'env       %s\n' "$RIG/env"
  return $ok
}

cmd_env() {
  [ -s "$RIG/env" ] || die "no rig environment at $RIG/env: run scripts/rig.sh start"
  cat "$RIG/env"
}

# Functional self-test of the running rig. Bounded; prints one line per check.
chk() {
  local what=$1; shift
  if "$@" >/dev/null 2>&1; then echo "ok   $what"; else echo "FAIL $what"; CHECK_FAILED=1; fi
}
check_shm() { DISPLAY=$(display) timeout 5 xdpyinfo -queryExtensions | grep MIT-SHM >/dev/null; }
check_size() { DISPLAY=$(display) timeout 5 xdpyinfo | grep -E "dimensions: +${SCREEN_GEOM%x*} pixels" >/dev/null; }
check_no_tcp() { local d=$(display); ! port_answers $((6000 + ${d#:})); }
check_default() { pactl_rig info | grep -x "Default $1: $2" >/dev/null; }
check_level() {   # the sink's monitor carries a tone: mean volume above -40 dB over 1 s
  env -u DISPLAY "${PULSE_CLIENT_ENV[@]}" timeout -k 5 15 ffmpeg -nostdin -hide_banner \
    -f pulse -i "$1.monitor" -t 1 -af volumedetect -f null - 2>&1 |
    awk '/mean_volume/ { v = $(NF-1); found = 1 } END { exit !(found && v > -40) }'
}
check_auth() {
  [ "$(timeout 5 curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$HTTP_PORT/auth?name=$1")" = "$2" ]
}
check_publish() {   # check_publish KEY: 2 s of test pattern + tone as FLV to rtmp://.../live/KEY
  timeout -k 5 30 ffmpeg -nostdin -hide_banner -loglevel error -re \
    -f lavfi -i testsrc2=size=320x240:rate=30 -f lavfi -i sine=frequency=440:sample_rate=48000 \
    -t 2 -c:v libx264 -preset ultrafast -g 30 -c:a aac -f flv "rtmp://127.0.0.1:$RTMP_PORT/live/$1"
}
check_recorded() { sleep 0.5; [ -n "$(find "$REC_DIR" -name "$1*.flv" -size +10k)" ]; }
# check_rtmps PORT KEY: 2 s published through TLS on PORT, the certificate verified against the
# rig's CA and the URL's host (FFmpeg's tls protocol: tls_verify, ca_file).
check_rtmps() {
  timeout -k 5 30 ffmpeg -nostdin -hide_banner -loglevel error -re \
    -f lavfi -i testsrc2=size=320x240:rate=30 -t 2 -c:v libx264 -preset ultrafast -g 30 \
    -f flv -tls_verify 1 -ca_file "$TLS/ca.crt" "rtmps://127.0.0.1:$1/live/$2"
}
# check_verify PORT RESULT: openssl's verdict on PORT's certificate for 127.0.0.1, with the CA.
check_verify() {
  local said
  said=$(timeout 5 openssl s_client -connect "127.0.0.1:$1" -CAfile "$TLS/ca.crt" -verify_ip 127.0.0.1 \
    -verify_return_error </dev/null 2>&1 || true)   # refusing is openssl's failure, not ours
  grep -q "$2" <<<"$said"
}
check_stat() { timeout 5 curl -fsS "http://127.0.0.1:$HTTP_PORT/stat" | grep '<rtmp>' >/dev/null; }

cmd_check() {
  cmd_status >/dev/null || die "rig is not fully up: run scripts/rig.sh start (and see status)"
  CHECK_FAILED=0
  local key=testkey-check-$$
  chk "X $(display) answers, MIT-SHM present" check_shm
  chk "X $(display) is ${SCREEN_GEOM%x*}" check_size
  chk "X $(display) does not listen on TCP" check_no_tcp
  chk "EWMH window manager (_NET_SUPPORTING_WM_CHECK)" wm_answers
  chk "PulseAudio default sink app_sink" check_default Sink app_sink
  chk "PulseAudio default source mic_sink.monitor" check_default Source mic_sink.monitor
  chk "tone audible on app_sink.monitor" check_level app_sink
  chk "tone audible on mic_sink.monitor" check_level mic_sink
  chk "RTMP port 127.0.0.1:$RTMP_PORT answers" port_answers "$RTMP_PORT"
  chk "/auth?name=testkey -> 200" check_auth testkey 200
  chk "/auth?name=testkey-2 -> 200" check_auth testkey-2 200
  chk "/auth?name=wrongkey -> 403" check_auth wrongkey 403
  chk "publish to live/$key accepted" check_publish "$key"
  chk "publish recorded into $REC_DIR" check_recorded "$key"
  chk "publish to live/wrongkey rejected" eval '! check_publish wrongkey'
  chk "/stat page" check_stat
  chk "TLS 127.0.0.1:$RTMPS_PORT: certificate verifies (test CA, 127.0.0.1)" check_verify "$RTMPS_PORT" 'Verification: OK'
  chk "TLS 127.0.0.1:$RTMPS_SELFSIGNED_PORT: self-signed certificate refused" check_verify "$RTMPS_SELFSIGNED_PORT" 'self-signed certificate'
  chk "TLS 127.0.0.1:$RTMPS_WRONGHOST_PORT: wrong-host certificate refused" check_verify "$RTMPS_WRONGHOST_PORT" 'IP address mismatch'
  chk "publish through TLS (rtmps://127.0.0.1:$RTMPS_PORT) accepted" check_rtmps "$RTMPS_PORT" "$key-tls"
  chk "publish through TLS recorded into $REC_DIR" check_recorded "$key-tls"
  find "$REC_DIR" -name "$key*" -delete 2>/dev/null || true
  return $CHECK_FAILED
}

# The RTMP server alone, for tests of a server that goes away and comes back (RTMP reconnect).
cmd_nginx_stop() {
  lock
  stop_one nginx
  log "nginx stopped"
}

cmd_nginx_start() {
  lock
  start_nginx
  log "nginx up on 127.0.0.1:$RTMP_PORT"
}

# The X server (with its window manager) or the audio server (with its tones) alone, for tests of
# availability while idle: the display keeps its number when nothing else took it.
cmd_x_stop() {
  lock
  stop_components openbox xvfb
  log "X server stopped"
}
cmd_x_start() {
  lock
  start_xvfb
  start_openbox
  write_env
  log "X server up on $(display)"
}
cmd_pulse_stop() {
  lock
  stop_components tone-mic tone-app pulse
  rm -f -- "$PULSE_SOCK"
  log "PulseAudio stopped"
}
cmd_pulse_start() {
  lock
  start_pulse
  start_tone tone-app app_sink "$APP_HZ"
  start_tone tone-mic mic_sink "$MIC_HZ"
  write_env
  log "PulseAudio up on $PULSE_SOCK"
}

case ${1:-} in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  env) cmd_env ;;
  check) cmd_check ;;
  nginx-stop) cmd_nginx_stop ;;
  nginx-start) cmd_nginx_start ;;
  x-stop) cmd_x_stop ;;
  x-start) cmd_x_start ;;
  pulse-stop) cmd_pulse_stop ;;
  pulse-start) cmd_pulse_start ;;
  *) echo "usage: $0 start|stop|status|env|check|nginx-stop|nginx-start|x-stop|x-start|pulse-stop|pulse-start   (rig dir: \${RK_RIG_DIR:-\$PWD/rig-run})" >&2; exit 64 ;;
esac
