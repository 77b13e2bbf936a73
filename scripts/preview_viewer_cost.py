#!/usr/bin/env python3
"""Where a headless Chromium viewer of the preview page spends its CPU (issue 9, docs/PREVIEW.md).

  preview_viewer_cost.py URL [--phase-seconds S] [--window W,H]

Opens URL (a live preview page) in the benchmark's headless Chromium (preview_viewer.py's
flags), waits until the picture plays, then measures Chromium's CPU per process type
(browser, renderer, gpu-process, utility, chromedriver) over consecutive phases of S seconds:

  canvas    the page as is, plus the first flash probe (a 1x1 canvas drawImage per presented frame)
  probe     the page as is, plus the benchmark's flash probe (2x2 luma read per presented frame)
  page      the page as is (probe stopped)
  hidden    the page in a background tab (document.visibilityState == "hidden")
  nopicture the page in front, its live socket closed: status polling and meters only
  blank     about:blank: Chromium idle

Prints one JSON object: {phase: {kind: CPU-s per second, "total": ...}}. Needs the recording to
last (phases x S + ~10) seconds.
"""
import argparse
import json
import sys
import time

from chromium_cpu import diff, tree_cpu
from preview_viewer import FLASH_PROBE_JS, make_driver, wait_playing

# The benchmark's first probe, kept to measure what it cost.
CANVAS_PROBE_JS = """
    const v = document.getElementById('video'); const c = document.createElement('canvas'); c.width = 1; c.height = 1;
    const g = c.getContext('2d', { willReadFrequently: true }); window.canvasSeen = 0; let white = false;
    window.canvasProbeStop = false;
    const tick = () => { if (window.canvasProbeStop) return; g.drawImage(v, %d, %d, 1, 1, 0, 0, 1, 1); const d = g.getImageData(0, 0, 1, 1).data;
      const now = d[0] > 200 && d[1] > 200 && d[2] > 200; if (now && !white) window.canvasSeen++; white = now;
      v.requestVideoFrameCallback(tick); };
    v.requestVideoFrameCallback(tick);"""


def measure(driver, seconds):
    pid = driver.service.process.pid
    before, t0 = tree_cpu(pid), time.monotonic()
    time.sleep(seconds)
    after, t1 = tree_cpu(pid), time.monotonic()
    return {k: round(v / (t1 - t0), 3) for k, v in diff(after, before).items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--phase-seconds", type=float, default=8)
    ap.add_argument("--window", default="1280,900")
    args = ap.parse_args()
    driver = make_driver(args.window)
    out = {}
    try:
        driver.get(args.url)
        wait_playing(driver)
        time.sleep(2)
        driver.execute_script(CANVAS_PROBE_JS % (140, 140))
        out["canvas"] = measure(driver, args.phase_seconds)
        driver.execute_script("window.canvasProbeStop = true")
        out["canvas_flashes"] = driver.execute_script("return window.canvasSeen")
        driver.execute_script(FLASH_PROBE_JS % (140, 140))
        out["probe"] = measure(driver, args.phase_seconds)
        driver.execute_script("window.flashProbeStop = true")
        out["probe_flashes"] = driver.execute_script("return window.flashSeen.length")
        out["probe_errors"] = driver.execute_script("return window.flashProbeErrors")
        out["page"] = measure(driver, args.phase_seconds)
        live = driver.current_window_handle
        driver.execute_script("window.visLog = []; document.addEventListener('visibilitychange', "
                              "() => window.visLog.push(document.visibilityState))")
        driver.switch_to.new_window("tab")  # the live tab goes to the background
        driver.get("about:blank")
        out["hidden"] = measure(driver, args.phase_seconds)
        driver.switch_to.window(live)
        out["hidden_states_seen"] = driver.execute_script("return window.visLog")
        # No live picture: the page would reopen its socket, so WebSocket is made unusable first.
        driver.execute_script("window.WebSocket = function () { throw new Error('no live picture'); };"
                              "window.rk.socket && window.rk.socket.close();"
                              "const v = document.getElementById('video'); v.removeAttribute('src'); v.load();")
        # Back in front: the other tab closed.
        for h in driver.window_handles:
            if h != live:
                driver.switch_to.window(h)
                driver.close()
        driver.switch_to.window(live)
        time.sleep(1)
        out["nopicture"] = measure(driver, args.phase_seconds)
        driver.get("about:blank")
        time.sleep(1)
        out["blank"] = measure(driver, args.phase_seconds)
    finally:
        driver.quit()
    print(json.dumps(out))


if __name__ == "__main__":
    sys.exit(main())
