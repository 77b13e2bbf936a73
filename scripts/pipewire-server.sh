#!/usr/bin/env bash
# A private PipeWire audio server speaking the PulseAudio protocol (pipewire-pulse), for the tests
# that show RecordKit's PulseAudio code works the same on PipeWire (docs/ARCHITECTURE.md).
#
#   scripts/pipewire-server.sh start DIR   start pipewire + wireplumber + pipewire-pulse under DIR,
#                                          wait until `pactl info` says "PulseAudio (on PipeWire ...)",
#                                          create null sinks app_sink (default) and mic_sink;
#                                          prints the PULSE_SERVER value (unix:DIR/pulse.sock)
#   scripts/pipewire-server.sh stop DIR    stop what `start DIR` started (TERM, then KILL after 5 s)
#   scripts/pipewire-server.sh status DIR  exit 0 if the server answers
#
# Everything lives in DIR (config, runtime dir, logs, pids, the socket); nothing needs D-Bus or
# systemd and nothing touches the rig's PulseAudio (scripts/rig.sh). Works as root in a container:
#   - every process runs with a scrubbed environment (no DISPLAY, no session bus);
#   - pipewire and pipewire-pulse run from copies of Debian's configs with module-rt removed
#     (no realtime threads or negative nice level on a shared machine) and the pulse server
#     address set to DIR/pulse.sock;
#   - WirePlumber (0.4) runs from a copy of its config without the parts that need D-Bus and
#     abort it without a bus: the Flatpak portal permission store, the ALSA monitor's device
#     reservation, V4L2/libcamera, Bluetooth (logind). What remains is the policy that links streams to sinks and the default nodes.
# DIR must be short enough for a unix socket path (< 100 characters with /pulse.sock).
set -euo pipefail

die() { printf 'pipewire-server: error: %s\n' "$*" >&2; exit 1; }
log() { printf 'pipewire-server: %s\n' "$*" >&2; }

CMD=${1:-}
DIR=${2:-}
[ -n "$CMD" ] && [ -n "$DIR" ] || { echo "usage: $0 start|stop|status DIR" >&2; exit 64; }
DIR=$(realpath -m -- "$DIR")
SOCK=$DIR/pulse.sock
RUNTIME=$DIR/runtime
CONF=$DIR/config
PIDS=$DIR/pids
LOGS=$DIR/logs
COMPONENTS=(pipewire wireplumber pipewire-pulse)

# The environment every process of the server runs with (a command prefix).
SERVER_ENV=(env -i PATH="$PATH" HOME="$DIR/home" XDG_RUNTIME_DIR="$RUNTIME" PIPEWIRE_RUNTIME_DIR="$RUNTIME"
  XDG_CONFIG_HOME="$CONF" XDG_STATE_HOME="$DIR/state" PIPEWIRE_CONFIG_DIR="$CONF/pipewire"
  WIREPLUMBER_CONFIG_DIR="$CONF/wireplumber" DISABLE_RTKIT=1 DBUS_SESSION_BUS_ADDRESS=disabled:
  PIPEWIRE_LOG_SYSTEMD=false)
pactl_pw() {
  env -u DISPLAY PULSE_SERVER="unix:$SOCK" PULSE_CLIENTCONFIG=/dev/null PULSE_COOKIE="$DIR/cookie" \
    timeout 5 pactl "$@"
}
answers() { pactl_pw info 2>/dev/null | grep -q '^Server Name: PulseAudio (on PipeWire '; }

has_sinks() { local s; s=$(pactl_pw list short sinks) && grep -qw app_sink <<<"$s" && grep -qw mic_sink <<<"$s"; }
default_is_app_sink() { pactl_pw info | grep -qx 'Default Sink: app_sink'; }

pid_of() { [ -s "$PIDS/$1.pid" ] && cat "$PIDS/$1.pid" || true; }
alive() {
  local pid; pid=$(pid_of "$1")
  [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$1" ]
}

spawn() {   # spawn NAME CMD...: own session, output to logs/NAME.log, pid to pids/NAME.pid
  local name=$1; shift
  local pidfile=$PIDS/$name.pid i
  setsid bash -c 'echo $$ >"$0" && exec "$@"' "$pidfile" "$@" </dev/null >>"$LOGS/$name.log" 2>&1 8>&- 9>&- &
  for ((i = 0; i < 50; i++)); do [ -s "$pidfile" ] && return 0; sleep 0.1; done
  die "$name did not start (see $LOGS/$name.log)"
}

wait_until() {   # wait_until SECONDS CMD...
  local deadline=$((SECONDS + $1)); shift
  while ((SECONDS < deadline)); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  "$@" >/dev/null 2>&1
}

write_config() {
  mkdir -p "$CONF/pipewire" "$CONF/wireplumber" "$DIR/home" "$DIR/state" "$RUNTIME" "$PIDS" "$LOGS"
  chmod 0700 "$RUNTIME"
  # Disable module-rt: renamed to a module that does not exist, its `ifexists nofail` flags skip it.
  local no_rt='s/name = libpipewire-module-rt$/name = libpipewire-module-rt-disabled-by-recordkit/'
  sed -e "$no_rt" /usr/share/pipewire/pipewire.conf >"$CONF/pipewire/pipewire.conf"
  sed -e "$no_rt" -e "s|\"unix:native\"|\"unix:$SOCK\"|" /usr/share/pipewire/pipewire-pulse.conf \
    >"$CONF/pipewire/pipewire-pulse.conf"
  sed -e "$no_rt" /usr/share/pipewire/client.conf >"$CONF/pipewire/client.conf"
  grep -q "unix:$SOCK" "$CONF/pipewire/pipewire-pulse.conf" || die "could not set the pulse socket in pipewire-pulse.conf"
  ! grep -q 'module-rt$' "$CONF"/pipewire/*.conf || die "could not disable module-rt in the pipewire configs"
  cp -r /usr/share/wireplumber/. "$CONF/wireplumber/"
  sed -i -e "$no_rt" -e '/bluetooth.lua/d' "$CONF/wireplumber/wireplumber.conf"
  ! grep -q 'module-rt$\|bluetooth.lua' "$CONF/wireplumber/wireplumber.conf" || die "could not edit wireplumber.conf"
  cat >"$CONF/wireplumber/main.lua.d/90-enable-all.lua" <<'EOF'
-- RecordKit's private PipeWire (scripts/pipewire-server.sh): no hardware monitors (ALSA's device
-- reservation needs D-Bus), no Flatpak portal (D-Bus too), only access, defaults and the policy
-- that links streams to sinks.
load_module("metadata")
default_access.properties["enable-flatpak-portal"] = false
default_access.enable()
device_defaults.enable()
stream_defaults.enable()
load_script("intended-roles.lua")
EOF
}

cmd_start() {
  if alive pipewire && alive pipewire-pulse && alive wireplumber && answers; then echo "unix:$SOCK"; return 0; fi
  for c in pipewire pipewire-pulse wireplumber; do
    command -v "$c" >/dev/null || die "$c is not installed (scripts/install-deps.sh installs pipewire, pipewire-pulse, wireplumber)"
  done
  ((${#SOCK} < 100)) || die "directory path too long for a unix socket: $SOCK"
  cmd_stop 2>/dev/null || true
  write_config
  rm -f -- "$SOCK" "$RUNTIME"/pipewire-0 "$RUNTIME"/pipewire-0.lock
  log "starting PipeWire in $DIR"
  spawn pipewire "${SERVER_ENV[@]}" pipewire
  wait_until 10 test -S "$RUNTIME/pipewire-0" || die "pipewire did not create its socket (see $LOGS/pipewire.log)"
  spawn wireplumber "${SERVER_ENV[@]}" wireplumber
  spawn pipewire-pulse "${SERVER_ENV[@]}" pipewire-pulse
  wait_until 15 answers || die "pipewire-pulse does not answer on $SOCK (see $LOGS/*.log)"
  sleep 0.5
  alive wireplumber || die "wireplumber exited (see $LOGS/wireplumber.log)"
  pactl_pw load-module module-null-sink sink_name=app_sink rate=48000 channels=2 \
    sink_properties=device.description=app_sink >/dev/null || die "cannot create app_sink"
  pactl_pw load-module module-null-sink sink_name=mic_sink rate=48000 channels=2 \
    sink_properties=device.description=mic_sink >/dev/null || die "cannot create mic_sink"
  wait_until 10 has_sinks ||
    die "null sinks did not appear"
  pactl_pw set-default-sink app_sink
  pactl_pw set-default-source mic_sink.monitor
  wait_until 10 default_is_app_sink ||
    die "default sink is not app_sink: $(pactl_pw info | grep Default)"
  log "up: $(pactl_pw info | grep '^Server Name'), PULSE_SERVER=unix:$SOCK"
  echo "unix:$SOCK"
}

group_running() {
  cat /proc/[0-9]*/stat 2>/dev/null |
    awk -v pg="$1" '{ sub(/^.*\) /, ""); if ($3 == pg && $1 != "Z") found = 1 } END { exit !found }'
}

cmd_stop() {
  [ -d "$PIDS" ] || return 0
  local c pid pgs=() i
  for c in pipewire-pulse wireplumber pipewire; do
    pid=$(pid_of "$c")
    if [ -n "$pid" ] && alive "$c"; then kill -TERM -- "-$pid" 2>/dev/null || true; pgs+=("$pid"); fi
  done
  for ((i = 0; i < 50 && ${#pgs[@]} > 0; i++)); do
    local left=()
    for pid in "${pgs[@]}"; do group_running "$pid" && left+=("$pid"); done
    pgs=(${left[@]+"${left[@]}"})
    ((${#pgs[@]} > 0)) && sleep 0.1
  done
  for pid in ${pgs[@]+"${pgs[@]}"}; do log "$pid ignored SIGTERM for 5 s; killing"; kill -KILL -- "-$pid" 2>/dev/null || true; done
  for c in "${COMPONENTS[@]}"; do rm -f -- "$PIDS/$c.pid"; done
  rm -f -- "$SOCK"
}

case $CMD in
  start) cmd_start ;;
  stop) cmd_stop; log "stopped" ;;
  status) answers ;;
  *) echo "usage: $0 start|stop|status DIR" >&2; exit 64 ;;
esac
