#!/usr/bin/env python3
"""One headless viewer of a RecordKit preview page, for scripts/benchmark.py (issue 9).

  preview_viewer.py URL --seconds S [--probe X,Y]

Opens URL in Debian's headless Chromium (Selenium, from PyPI: scripts/install-deps.sh), waits
until the live video plays, then for S seconds timestamps every presented frame whose pixel at
(X, Y) (video pixels; default 140,140) turns white: a window flashing there (rk-testwindow
--flash-every) gives the glass-to-glass delay. Prints one JSON object: `seen` (CLOCK_MONOTONIC
seconds of each white onset), `presented` and `dropped` (the video's playback quality counters),
`played_s` (how far currentTime advanced). Bounded: page load 30 s, playback start 30 s.
"""
import argparse
import json
import sys
import time

import os

# Selenium must not send usage statistics anywhere (network only to 127.0.0.1), and with the
# driver's path given it never downloads one.
os.environ["SE_AVOID_STATS"] = "true"

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--probe", default="140,140")
    args = ap.parse_args()
    x, y = (int(v) for v in args.probe.split(","))
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--mute-audio",
                "--autoplay-policy=no-user-gesture-required", "--window-size=1280,900",
                # No traffic beyond the page on 127.0.0.1: no updates, sync, metrics or safe-browsing lists.
                "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-domain-reliability", "--disable-client-side-phishing-detection", "--metrics-recording-only"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    try:
        driver.set_page_load_timeout(30)
        driver.get(args.url)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not driver.execute_script(
                "return document.getElementById('video').currentTime > 0"):
            time.sleep(0.05)
        driver.execute_script(f"""
            const v = document.getElementById('video'); const c = document.createElement('canvas'); c.width = 1; c.height = 1;
            const g = c.getContext('2d', {{ willReadFrequently: true }}); window.flashSeen = []; let white = false;
            window.startTime = v.currentTime;
            const tick = () => {{ g.drawImage(v, {x}, {y}, 1, 1, 0, 0, 1, 1); const d = g.getImageData(0, 0, 1, 1).data;
              const now = d[0] > 200 && d[1] > 200 && d[2] > 200; if (now && !white) window.flashSeen.push(Date.now()); white = now;
              v.requestVideoFrameCallback(tick); }};
            v.requestVideoFrameCallback(tick);""")
        time.sleep(args.seconds)
        before = time.monotonic()
        page_ms = driver.execute_script("return Date.now()")
        offset = (before + time.monotonic()) / 2 - page_ms / 1000.0
        result = driver.execute_script("""
            const v = document.getElementById('video'); const q = v.getVideoPlaybackQuality();
            return {seen: window.flashSeen, presented: q.totalVideoFrames, dropped: q.droppedVideoFrames,
                    played: v.currentTime - window.startTime};""")
        print(json.dumps({"seen": [t / 1000.0 + offset for t in result["seen"]], "presented": result["presented"],
                          "dropped": result["dropped"], "played_s": result["played"]}))
    finally:
        driver.quit()


if __name__ == "__main__":
    sys.exit(main())
