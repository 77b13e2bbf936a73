#!/usr/bin/env bash
# RecordKit's Wayland test rig: a headless Wayland session with the ScreenCast portal, all local.
#
#   scripts/wayland-rig.sh start   install what is missing, build the portal backend once, start
#                                  whatever is not running yet (idempotent), wait until each answers
#   scripts/wayland-rig.sh stop    stop everything this rig started (TERM, then KILL after 5 s)
#   scripts/wayland-rig.sh status  one line per component; exit 0 only if all answer
#   scripts/wayland-rig.sh env     print the environment file (KEY=VALUE lines; see below)
#   scripts/wayland-rig.sh run CMD...      run CMD as the rig's user inside the session
#   scripts/wayland-rig.sh bg '#RRGGBB'    set the output's solid background colour
#   scripts/wayland-rig.sh portal-output NAME   cast output NAME without a dialog (restarts the backend)
#   scripts/wayland-rig.sh stop-portal-backend  stop xdg-desktop-portal-wlr (a cast ends; `start` brings it back)
#   scripts/wayland-rig.sh camera-start [FORMAT [WxH]]  a test camera (after `start`): the PipeWire node
#                                          rk-test-camera, media.class Video/Source, media.role Camera, fed by
#                                          GStreamer's videotestsrc: SMPTE colour bars at 30 fps, WxH (default
#                                          320x240), in FORMAT: GStreamer's raw names BGRx (the default), BGRA,
#                                          RGBx, RGBA, YUY2, NV12, I420, or MJPEG (jpegenc: image/jpeg, as USB
#                                          cameras send 720p and 1080p), or MJPEG-CUT (JPEGs cut short: see
#                                          below); a running camera is stopped first. RK_CAMERA_PATTERN
#                                          (raw formats only) replaces "pattern=smpte" with other
#                                          videotestsrc properties, for benchmarks
#   scripts/wayland-rig.sh camera-stop     stop the test camera (its node goes away)
#   scripts/wayland-rig.sh casts-ended     wait (up to 15 s) until the portal backend's last screen cast
#                                          (its node, named after the backend) is gone from PipeWire,
#                                          about 5 s after its session closed: a still screen's cast
#                                          started before that may get no first picture
#                                          (docs/WAYLAND.md, "No first frame")
#
# Run as root (it installs packages and makes the user); everything of the session runs as the
# unprivileged user `rkwayland` (sway refuses root, and that user's session bus refuses root
# clients, so the recorder under test runs as that user too: `run`). See docs/WAYLAND.md
# ("The test rig") for why each piece is there.
#
# What runs, in this order (stopped in reverse):
#   dbus-daemon --session (private bus at $WL/run/bus)
#   pipewire, wireplumber (without WirePlumber no stream is linked and no frame arrives)
#   sway 1.7, headless, pixman renderer: one 1920x1080@60 output HEADLESS-1, solid background
#       #3366CC, no Xwayland; every window floats at 0,0
#   xdg-desktop-portal-wlr 0.7.0, built from Debian's source package with
#       scripts/wayland/xdpw-0.7.0-gpuless.patch (cached: the second start builds nothing);
#       no chooser (output HEADLESS-1), at most 30 fps, restore tokens on (XDPW_PERSIST_MODE)
#   xdg-desktop-portal-gtk 1.14, for its Access backend only (portals/gtk-access.portal): without
#       an Access backend xdg-desktop-portal 1.16 does not offer the Camera portal. The permission
#       store says "yes" for table devices, id camera, app "" (an unsandboxed app): what the
#       user's "Allow" in the Access dialog stores, so AccessCamera answers without a dialog
#   /usr/libexec/xdg-desktop-portal 1.16 (XDG_CURRENT_DESKTOP=sway picks the wlr backend; the
#       Camera portal through the gtk Access backend)
#
# Everything lives in $RK_RIG_DIR/wayland (RK_RIG_DIR defaults to ./rig-run), or in
# /tmp/rk-wayland-<hash> when the rig's user cannot reach that directory (a checkout under
# /root); `env` says where (RK_WAYLAND_DIR). The environment file ($RK_RIG_DIR/wayland.env)
# holds XDG_RUNTIME_DIR, WAYLAND_DISPLAY, DBUS_SESSION_BUS_ADDRESS, SWAYSOCK, HOME, the XDG
# directories, RK_WAYLAND_USER/UID/GID and RK_WAYLAND_DIR.
# First start on a fresh machine: packages (~1-2 min) + portal build (~15 s); later starts ~2 s.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RIG=$(realpath -m -- "${RK_RIG_DIR:-$PWD/rig-run}")
USER_NAME=${RK_WAYLAND_USER:-rkwayland}
ENV_FILE=$RIG/wayland.env
PATCH=$ROOT/scripts/wayland/xdpw-0.7.0-gpuless.patch
XDPW_VERSION=0.7.0
COMPONENTS=(dbus pipewire wireplumber sway xdpw access portal)
BACKGROUND=${RK_WAYLAND_BG:-#3366CC}

log() { printf 'wayland-rig: %s\n' "$*" >&2; }
die() { printf 'wayland-rig: error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (it starts the session as the user $USER_NAME)"

# ---------------------------------------------------------------------------------------------
# Packages and the user.
PKGS=(sway xdg-desktop-portal pipewire pipewire-bin wireplumber dbus dbus-bin weston grim
  gstreamer1.0-tools gstreamer1.0-pipewire gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-ugly gstreamer1.0-plugins-bad python3-dbus python3-gi time bc util-linux procps
  dpkg-dev meson ninja-build pkg-config gcc patch libdrm-dev libinih-dev libgbm-dev libpipewire-0.3-dev
  libwayland-dev wayland-protocols libsystemd-dev xdg-desktop-portal-gtk)

install_packages() {
  local missing=() p
  for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} = 0 ] && return 0
  log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

ensure_user() {
  id -u "$USER_NAME" >/dev/null 2>&1 ||
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$USER_NAME"
  UID_N=$(id -u "$USER_NAME")
  GID_N=$(id -g "$USER_NAME")
}

as_user() { setpriv --reuid="$UID_N" --regid="$GID_N" --clear-groups "$@"; }

# The session's directory: under the rig dir when the user can reach it, else under /tmp.
choose_dir() {
  local wl=$RIG/wayland
  mkdir -p "$wl"
  chown "$UID_N:$GID_N" "$wl"
  if ! as_user test -w "$wl" 2>/dev/null; then
    wl=/tmp/rk-wayland-$(printf '%s' "$RIG" | md5sum | cut -c1-10)
    mkdir -p "$wl"
    chown "$UID_N:$GID_N" "$wl"
  fi
  WL=$wl
}

load_dir() {
  if [ -s "$ENV_FILE" ]; then
    WL=$(sed -n 's/^RK_WAYLAND_DIR=//p' "$ENV_FILE")
  else
    WL=$RIG/wayland
  fi
  ensure_user
}

setup_paths() {
  RUN=$WL/run
  PIDS=$WL/pids
  LOGS=$WL/logs
  BUS=$RUN/bus
  SESSION_ENV=(env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$WL/home" USER="$USER_NAME" LOGNAME="$USER_NAME"
    XDG_RUNTIME_DIR="$RUN" XDG_CONFIG_HOME="$WL/config" XDG_DATA_HOME="$WL/data" XDG_CACHE_HOME="$WL/cache"
    XDG_STATE_HOME="$WL/state" DBUS_SESSION_BUS_ADDRESS="unix:path=$BUS" XDG_CURRENT_DESKTOP=sway
    XDG_SESSION_TYPE=wayland XDG_DESKTOP_PORTAL_DIR="$WL/portals" LANG=C.UTF-8)
}

# ---------------------------------------------------------------------------------------------
# Processes: each in its own session, as the user, pid in pids/NAME.pid, output in logs/NAME.log.
exe_of() {
  case $1 in
    dbus) echo dbus-daemon ;; pipewire) echo pipewire ;; wireplumber) echo wireplumber ;;
    sway) echo sway ;; xdpw|access|portal) echo xdg-desktop-por ;; camera) echo gst-launch-1.0 ;;
  esac
}
pid_of() { [ -s "$PIDS/$1.pid" ] && cat "$PIDS/$1.pid" || true; }
alive() {
  local pid comm stat
  pid=$(pid_of "$1")
  [ -n "$pid" ] || return 1
  comm=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
  [ "$comm" = "$(exe_of "$1")" ] || return 1
  stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}

spawn() {
  local name=$1; shift
  local pidfile=$PIDS/$name.pid
  rm -f -- "$pidfile"
  printf '\n=== %s: %s\n' "$(date -Is)" "$*" >>"$LOGS/$name.log"
  setsid bash -c 'echo $$ >"$0" && exec "$@"' "$pidfile" \
    setpriv --reuid="$UID_N" --regid="$GID_N" --clear-groups "${SESSION_ENV[@]}" "$@" \
    </dev/null >>"$LOGS/$name.log" 2>&1 9>&- 8>&- &
  local i
  for ((i = 0; i < 50; i++)); do
    [ -s "$pidfile" ] && return 0
    sleep 0.1
  done
  die "$name: did not start (see $LOGS/$name.log)"
}

wait_until() {
  local secs=$1; shift
  local deadline=$((SECONDS + secs))
  while ((SECONDS < deadline)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  "$@" >/dev/null 2>&1
}

user_cmd() { as_user "${SESSION_ENV[@]}" WAYLAND_DISPLAY="$(wayland_display)" SWAYSOCK="$(sway_sock)" "$@"; }
bus_has() { as_user "${SESSION_ENV[@]}" timeout 5 busctl --user status "$1"; }
wayland_display() { local s; for s in "$RUN"/wayland-[0-9]*; do [ -S "$s" ] && { basename "$s"; return; }; done; }
sway_sock() { local s; for s in "$RUN"/sway-ipc.*.sock; do [ -S "$s" ] && { echo "$s"; return; }; done; }

answers() {
  case $1 in
    dbus) [ -S "$BUS" ] && bus_has org.freedesktop.DBus ;;
    pipewire) user_cmd timeout 5 pw-cli info 0 ;;
    wireplumber) user_cmd timeout 5 pw-cli ls Metadata | grep -q 'metadata.name = "default"' ;;
    sway) [ -n "$(wayland_display)" ] && [ -n "$(sway_sock)" ] && user_cmd timeout 5 swaymsg -t get_outputs | grep -q HEADLESS-1 ;;
    xdpw) bus_has org.freedesktop.impl.portal.desktop.wlr ;;
    access) bus_has org.freedesktop.impl.portal.desktop.gtk && user_cmd timeout 5 busctl --user call \
      org.freedesktop.impl.portal.PermissionStore /org/freedesktop/impl/portal/PermissionStore \
      org.freedesktop.impl.portal.PermissionStore Lookup ss devices camera | grep -q '"yes"' ;;
    camera) user_cmd timeout 5 pw-cli ls Node | grep -q 'node.name = "rk-test-camera"' ;;
    portal) bus_has org.freedesktop.portal.Desktop && user_cmd timeout 5 busctl --user get-property \
      org.freedesktop.portal.Desktop /org/freedesktop/portal/desktop org.freedesktop.portal.ScreenCast AvailableSourceTypes \
      && user_cmd timeout 5 busctl --user get-property org.freedesktop.portal.Desktop /org/freedesktop/portal/desktop \
      org.freedesktop.portal.Camera version ;;
  esac
}

# ---------------------------------------------------------------------------------------------
# The portal backend: Debian's 0.7.0 source with the two fixes, built once and cached.
build_xdpw() {
  local hash bin b
  hash=$(sha256sum "$PATCH" | cut -c1-12)
  bin=$WL/cache-build/xdg-desktop-portal-wlr-$XDPW_VERSION-$hash
  XDPW_BIN=$bin
  [ -x "$bin" ] && return 0
  log "building xdg-desktop-portal-wlr $XDPW_VERSION from Debian's source package (once)"
  b=$WL/xdpw-build
  rm -rf "$b"
  mkdir -p "$b/apt/lists/partial" "$b/apt/cache/archives/partial" "$b/apt/parts"
  # A private deb-src list: the system's apt configuration stays untouched.
  local src
  for src in /etc/apt/sources.list.d/*.sources; do
    [ -e "$src" ] && sed 's/^Types: deb$/Types: deb-src/' "$src" >"$b/apt/parts/$(basename "$src")"
  done
  if [ -f /etc/apt/sources.list ]; then sed -n 's/^deb /deb-src /p' /etc/apt/sources.list >"$b/apt/parts/main.list"; fi
  local apt_opts=(-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$b/apt/parts"
    -o Dir::State::Lists="$b/apt/lists" -o Dir::Cache="$b/apt/cache" -o APT::Sandbox::User=root)
  apt-get "${apt_opts[@]}" update -qq >"$b/apt.log" 2>&1 || die "apt-get update (deb-src) failed: see $b/apt.log"
  (cd "$b" && apt-get "${apt_opts[@]}" source --download-only "xdg-desktop-portal-wlr=$XDPW_VERSION-1" >>"$b/apt.log" 2>&1) ||
    die "apt-get source xdg-desktop-portal-wlr failed: see $b/apt.log"
  (cd "$b" && dpkg-source -x --skip-patches ./*.dsc src >>"$b/apt.log" 2>&1) || die "dpkg-source failed: see $b/apt.log"
  (cd "$b/src" && patch -p1 --forward <"$PATCH" >>"$b/apt.log") || die "the patch does not apply: see $b/apt.log"
  (cd "$b/src" && meson setup build -Dman-pages=disabled -Dsystemd=disabled >>"$b/build.log" 2>&1 &&
    ninja -C build >>"$b/build.log" 2>&1) || die "building xdg-desktop-portal-wlr failed: see $b/build.log"
  mkdir -p "$(dirname "$bin")"
  rm -f "$(dirname "$bin")"/xdg-desktop-portal-wlr-*  # builds of an older patch
  install -m 0755 "$b/src/build/xdg-desktop-portal-wlr" "$bin"
  rm -rf "$b"
}

write_configs() {
  mkdir -p "$WL/home" "$WL/config/sway" "$WL/config/xdg-desktop-portal-wlr" "$WL/data" "$WL/cache" "$WL/state" "$WL/portals"
  cat >"$WL/config/sway/config" <<EOF
xwayland disable
output HEADLESS-1 mode 1920x1080@60Hz position 0 0 bg $BACKGROUND solid_color
default_border none
default_floating_border none
for_window [title=".*"] floating enable, move position 0 0
EOF
  cat >"$WL/config/xdg-desktop-portal-wlr/config" <<'EOF'
[screencast]
output_name=HEADLESS-1
chooser_type=none
max_fps=30
EOF
  cat >"$WL/portals/wlr.portal" <<'EOF'
[portal]
DBusName=org.freedesktop.impl.portal.desktop.wlr
Interfaces=org.freedesktop.impl.portal.Screenshot;org.freedesktop.impl.portal.ScreenCast;
UseIn=wlroots;sway;
EOF
  cat >"$WL/portals/gtk-access.portal" <<'EOF'
[portal]
DBusName=org.freedesktop.impl.portal.desktop.gtk
Interfaces=org.freedesktop.impl.portal.Access;
UseIn=wlroots;sway;
EOF
  chown -R "$UID_N:$GID_N" "$WL/home" "$WL/config" "$WL/data" "$WL/cache" "$WL/state" "$WL/portals"
}

write_env() {
  {
    echo "RK_WAYLAND_DIR=$WL"
    echo "RK_WAYLAND_USER=$USER_NAME"
    echo "RK_WAYLAND_UID=$UID_N"
    echo "RK_WAYLAND_GID=$GID_N"
    local kv
    for kv in "${SESSION_ENV[@]:2}"; do echo "$kv"; done
    echo "WAYLAND_DISPLAY=$(wayland_display)"
    echo "SWAYSOCK=$(sway_sock)"
  } >"$ENV_FILE.tmp"
  mv -f "$ENV_FILE.tmp" "$ENV_FILE"
}

# ---------------------------------------------------------------------------------------------
start_one() {
  local name=$1
  if alive "$name" && answers "$name" >/dev/null 2>&1; then return 0; fi
  alive "$name" && stop_one "$name"
  case $name in
    dbus)
      rm -f "$BUS"
      spawn dbus dbus-daemon --session --nofork --nopidfile --address="unix:path=$BUS" ;;
    pipewire) spawn pipewire pipewire ;;
    wireplumber) spawn wireplumber wireplumber ;;
    sway)
      rm -f "$RUN"/sway-ipc.*.sock
      spawn sway env WLR_BACKENDS=headless WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1 \
        sway -c "$WL/config/sway/config" ;;
    xdpw)
      spawn xdpw env WAYLAND_DISPLAY="$(wayland_display)" XDPW_PERSIST_MODE=permanent "$XDPW_BIN" -l INFO ;;
    access)
      spawn access env WAYLAND_DISPLAY="$(wayland_display)" /usr/libexec/xdg-desktop-portal-gtk -r
      # An unsandboxed app allowed to use the camera (the permission store, D-Bus activated).
      wait_until 10 bus_has org.freedesktop.impl.portal.desktop.gtk || true
      user_cmd timeout 10 busctl --user call org.freedesktop.impl.portal.PermissionStore \
        /org/freedesktop/impl/portal/PermissionStore org.freedesktop.impl.portal.PermissionStore \
        SetPermission sbssas devices true camera "" 1 yes >/dev/null ;;
    portal)
      spawn portal env WAYLAND_DISPLAY="$(wayland_display)" /usr/libexec/xdg-desktop-portal ;;
    camera)
      # The test camera: a PipeWire video source node with the camera role and a known picture
      # (SMPTE bars: 75 % white, yellow, cyan, green, magenta, red, blue from left to right).
      local size=${CAMERA_SIZE:-320x240} pipeline=()
      local raw="video/x-raw,width=${size%x*},height=${size#*x},framerate=30/1"
      if [ "${CAMERA_FORMAT:-BGRx}" = MJPEG ]; then
        # MJPEG: the bars as I420, each picture a JPEG (jpegenc's default quality 85), caps
        # image/jpeg. One still picture repeated (imagefreeze), so every JPEG has the same size:
        # pipewiresink 0.3.65 sizes its buffers by the first JPEG and cuts longer ones short
        # (RecordKit skips and counts those, as it would a camera's broken pictures).
        pipeline=(videotestsrc pattern=smpte num-buffers=1 ! "$raw,format=I420" ! imagefreeze is-live=true
                  ! jpegenc ! "image/jpeg,${raw#video/x-raw,}")
      elif [ "${CAMERA_FORMAT:-BGRx}" = MJPEG-CUT ]; then
        # A camera that sends broken JPEGs: the moving bars (each JPEG a little longer or shorter
        # than the one before) into that same pipewiresink, which cuts every JPEG longer than
        # its first short (no end marker, as lost USB packets leave a picture).
        pipeline=(videotestsrc pattern=smpte is-live=true ! "$raw,format=I420" ! jpegenc ! "image/jpeg,${raw#video/x-raw,}")
      else
        local pattern  # RK_CAMERA_PATTERN (see the header), split on spaces, never globbed
        read -ra pattern <<<"${RK_CAMERA_PATTERN:-pattern=smpte}"
        pipeline=(videotestsrc "${pattern[@]}" is-live=true ! "$raw,format=${CAMERA_FORMAT:-BGRx}")
      fi
      spawn camera gst-launch-1.0 -q "${pipeline[@]}" ! pipewiresink mode=provide \
        'stream-properties=props,media.class=Video/Source,media.role=Camera,node.name=rk-test-camera,node.description=RecordKit-test-camera' ;;
  esac
  wait_until 20 answers "$name" || die "$name does not answer (see $LOGS/$name.log)"
  log "$name up"
}

stop_one() {
  local name=$1 pid i
  pid=$(pid_of "$name")
  if [ -n "$pid" ] && alive "$name"; then
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do alive "$name" || break; sleep 0.1; done
    alive "$name" && { kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true; }
  fi
  rm -f "$PIDS/$name.pid"
}

cmd_start() {
  local t0=$SECONDS
  install_packages
  ensure_user
  choose_dir
  setup_paths
  mkdir -p "$PIDS" "$LOGS" "$RUN"
  chown "$UID_N:$GID_N" "$RUN"
  chmod 0700 "$RUN"
  build_xdpw
  write_configs
  local c
  for c in "${COMPONENTS[@]}"; do start_one "$c"; done
  write_env
  log "up in $((SECONDS - t0)) s: $ENV_FILE (WAYLAND_DISPLAY=$(wayland_display))"
}

cmd_stop() {
  load_dir
  setup_paths
  local i
  stop_one camera
  for ((i = ${#COMPONENTS[@]} - 1; i >= 0; i--)); do stop_one "${COMPONENTS[$i]}"; done
  # Whatever `run` left behind in the session (a stray test client) belongs to the user.
  log "stopped"
}

cmd_status() {
  load_dir
  setup_paths
  local c ok=0
  for c in "${COMPONENTS[@]}"; do
    if alive "$c" && answers "$c" >/dev/null 2>&1; then echo "$c: up (pid $(pid_of "$c"))"; else echo "$c: down"; ok=1; fi
  done
  return $ok
}

cmd_run() {
  load_dir
  setup_paths
  [ -s "$ENV_FILE" ] || die "the rig is not running: scripts/wayland-rig.sh start"
  user_cmd "$@"
}

# portal-output NAME: the output the portal backend casts without a dialog; restarts the backend.
# A name no output has makes every new selection fail, so only a restore token still casts
# (the restore-token test). HEADLESS-1 is the default.
cmd_portal_output() {
  load_dir
  setup_paths
  sed -i "s/^output_name=.*/output_name=$1/" "$WL/config/xdg-desktop-portal-wlr/config"
  stop_one xdpw
  build_xdpw
  start_one xdpw
}

# A cast's stream node in PipeWire is named after the portal backend's binary
# (node.name "xdg-desktop-portal-wlr-0.7.0-<patch hash>", media.class Video/Source; its stream
# name "xdpw-stream-XXXXXX" is not shown by `pw-cli ls Node`). It goes a few seconds after the
# cast's session closed.
cmd_casts_ended() {
  load_dir
  setup_paths
  [ -s "$ENV_FILE" ] || die "the rig is not running: scripts/wayland-rig.sh start"
  local deadline=$((SECONDS + 15))
  while user_cmd timeout 5 pw-cli ls Node 2>/dev/null | grep -q 'node.name = "xdg-desktop-portal-wlr-'; do
    (( SECONDS < deadline )) || die "a screen cast of the portal backend is still in PipeWire after 15 s"
    sleep 0.2
  done
}

case ${1:-} in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  env) [ -s "$ENV_FILE" ] && cat "$ENV_FILE" || die "the rig is not running: scripts/wayland-rig.sh start" ;;
  run) shift; cmd_run "$@" ;;
  bg) load_dir; setup_paths; user_cmd swaymsg output HEADLESS-1 bg "${2:?colour}" solid_color >/dev/null ;;
  portal-output) cmd_portal_output "${2:?output name}" ;;
  stop-portal-backend) load_dir; setup_paths; stop_one xdpw ;;
  camera-start)
    load_dir; setup_paths; [ -s "$ENV_FILE" ] || die "the rig is not running: scripts/wayland-rig.sh start"
    case ${2:-BGRx} in BGRx|BGRA|RGBx|RGBA|YUY2|NV12|I420|MJPEG|MJPEG-CUT) CAMERA_FORMAT=${2:-BGRx} ;;
      *) die "camera-start: format must be BGRx, BGRA, RGBx, RGBA, YUY2, NV12, I420, MJPEG or MJPEG-CUT" ;; esac
    [[ ${3:-320x240} =~ ^[1-9][0-9]*x[1-9][0-9]*$ ]] || die "camera-start: size must be WIDTHxHEIGHT, e.g. 640x480"
    CAMERA_SIZE=${3:-320x240}
    stop_one camera; start_one camera ;;
  camera-stop) load_dir; setup_paths; stop_one camera ;;
  casts-ended) cmd_casts_ended ;;
  *) echo "usage: $0 start|stop|status|env|run CMD...|bg '#RRGGBB'|portal-output NAME|stop-portal-backend|camera-start [FORMAT [WxH]]|camera-stop|casts-ended" >&2; exit 64 ;;
esac
