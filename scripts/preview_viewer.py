#!/usr/bin/env python3
"""One headless viewer of a RecordKit preview page, for scripts/benchmark.py.

  preview_viewer.py URL --seconds S [--probe X,Y] [--window W,H]

Opens URL in Debian's headless Chromium (Selenium, from PyPI: scripts/install-deps.sh), waits
until the live video plays, then for S seconds timestamps every presented frame whose pixel at
(X, Y) (video pixels; default 140,140) turns white: a window flashing there (rk-testwindow
--flash-every) gives the glass-to-glass delay. The probe is cheap: per presented frame
(requestVideoFrameCallback) it reads a 2x2 block of luma from the decoded frame (VideoFrame.copyTo
with a rect), never converting or drawing a whole frame.

Prints one JSON object: `seen` (CLOCK_MONOTONIC seconds of each white onset), `presented` and
`dropped` (the video's playback quality counters), `played_s` (how far currentTime advanced),
`probe_errors` (frames the probe could not read), `keyframe_requests` and `keyframe_only_s` (how
often and how long the page, being behind, asked for key frames only),
`chromium_cpu` (Chromium's CPU seconds over the S seconds, per process type, chromium_cpu.py)
and `seconds`. Bounded: page load 30 s, playback start 30 s.

Priority: it runs at whatever priority it was started with; scripts/benchmark.py starts it the
way `recordctl preview --open` starts a browser (its own session, autogroup and nice 10).
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium_cpu import diff, tree_cpu  # noqa: E402

# Selenium must not send usage statistics anywhere (network only to 127.0.0.1), and with the
# driver's path given it never downloads one.
os.environ["SE_AVOID_STATS"] = "true"

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402

# Per presented frame (requestVideoFrameCallback), the 2x2 luma block at the probe point is read
# straight from the decoded frame (WebCodecs VideoFrame.copyTo with a rect: no colour conversion,
# no canvas); a white onset is timestamped. `window.flashProbeStop = true` ends it.
# (The first probe drew the frame into a 1x1 canvas: Chromium converts the whole 1080p frame to
# RGB for that, 0.12 CPU-s/s at 30 fps; docs/PREVIEW.md.)
FLASH_PROBE_JS = """
    const v = document.getElementById('video'); window.flashSeen = []; let white = false;
    window.startTime = v.currentTime; window.flashProbeStop = false; window.flashProbeErrors = 0;
    const px = %d & ~1, py = %d & ~1; const buf = new Uint8Array(16);
    const tick = async () => { if (window.flashProbeStop) return;
      let f = null;
      try { f = new VideoFrame(v); await f.copyTo(buf, { rect: { x: px, y: py, width: 2, height: 2 } });
            const now = buf[0] > 180; if (now && !white) window.flashSeen.push(Date.now()); white = now; }
      catch (e) { window.flashProbeErrors++; }
      finally { if (f) f.close(); }
      v.requestVideoFrameCallback(tick); };
    v.requestVideoFrameCallback(tick);"""


def make_driver(window="1280,900"):
    """Headless Chromium as the benchmark runs it: software rendering (--disable-gpu: there is
    no GPU here), muted, no traffic beyond 127.0.0.1."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--mute-audio",
                "--autoplay-policy=no-user-gesture-required", f"--window-size={window}",
                # No traffic beyond the page on 127.0.0.1: no updates, sync, metrics or safe-browsing lists.
                "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-domain-reliability", "--disable-client-side-phishing-detection", "--metrics-recording-only"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(30)
    return driver


def wait_playing(driver, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not driver.execute_script(
            "return document.getElementById('video').currentTime > 0"):
        time.sleep(0.05)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--probe", default="140,140")
    ap.add_argument("--window", default="1280,900")
    args = ap.parse_args()
    x, y = (int(v) for v in args.probe.split(","))
    driver = make_driver(args.window)
    try:
        driver.get(args.url)
        wait_playing(driver)
        driver.execute_script(FLASH_PROBE_JS % (x, y))
        cpu_before, t0 = tree_cpu(driver.service.process.pid), time.monotonic()
        time.sleep(args.seconds)
        cpu = diff(tree_cpu(driver.service.process.pid), cpu_before)
        seconds = time.monotonic() - t0
        before = time.monotonic()
        page_ms = driver.execute_script("return Date.now()")
        offset = (before + time.monotonic()) / 2 - page_ms / 1000.0
        result = driver.execute_script("""
            const v = document.getElementById('video'); const q = v.getVideoPlaybackQuality();
            return {seen: window.flashSeen, presented: q.totalVideoFrames, dropped: q.droppedVideoFrames,
                    played: v.currentTime - window.startTime, probeErrors: window.flashProbeErrors,
                    keyOnly: window.rk.keyFrameOnlySeconds || 0, keyRequests: window.rk.keyFrameRequests || 0};""")
        print(json.dumps({"seen": [t / 1000.0 + offset for t in result["seen"]], "presented": result["presented"],
                          "dropped": result["dropped"], "played_s": result["played"],
                          "probe_errors": result["probeErrors"], "keyframe_only_s": result["keyOnly"],
                          "keyframe_requests": result["keyRequests"], "chromium_cpu": cpu, "seconds": round(seconds, 3)}))
    finally:
        driver.quit()


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as error:  # one line the benchmark can show (Selenium's own is a stack of addresses)
        message = str(error).strip().splitlines()
        sys.exit(f"preview_viewer: {type(error).__name__}: {message[0] if message else ''}")
