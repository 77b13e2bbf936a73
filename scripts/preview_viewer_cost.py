#!/usr/bin/env python3
"""Where a headless Chromium viewer of the preview page spends its CPU (docs/PREVIEW.md, "Cost").

  preview_viewer_cost.py URL [--phase-seconds S] [--window W,H]
  preview_viewer_cost.py --record [--recordctl PATH] [--phase-seconds S]

With --record (the rig running: source $RK_RIG_DIR/env), it first puts the benchmark's content
on the display (ffplay testsrc2 1920x1080 full screen, the 200x200 flashing window) and starts
`recordctl record --preview --frame-rate-mode constant` for long enough, then measures its page.
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
import os
import signal
import subprocess
import sys
import tempfile
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


def record_and_measure(args):
    """Content + flasher + a recording with --preview on the rig; runs this script on its URL."""
    from benchlib import ROOT, load_rig, start_content, stop_process
    args.size, args.fps = "1920x1080", 30
    env, _ = load_rig(args)
    logdir = tempfile.mkdtemp(prefix="rk-viewer-cost-")
    content = start_content(env, args, logdir)
    testwindow = os.path.join(ROOT, ".build/release/rk-testwindow")
    flasher = subprocess.Popen([testwindow, "--size", "200x200", "--position", "40,40", "--color", "000000",
                                "--flash-every", "1", "--flash-color", "FFFFFF"], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    log = os.path.join(logdir, "recordctl.log")
    seconds = int(6 * args.phase_seconds + 30)
    with open(log, "wb") as f:
        rec = subprocess.Popen([args.recordctl, "record", "--duration", str(seconds), "--frame-rate-mode", "constant",
                                "--output", os.path.join(logdir, "cost.mp4"), "--preview"],
                               env=env, stdout=f, stderr=f, start_new_session=True)
    try:
        url, deadline = None, time.monotonic() + 30
        while url is None and time.monotonic() < deadline:
            time.sleep(0.1)
            with open(log, errors="replace") as f:
                url = next((l.split("preview: ", 1)[1].strip() for l in f if "preview: http://127.0.0.1:" in l), None)
        if url is None:
            sys.exit(f"no preview URL from recordctl (see {log})")
        viewer_env = {k: v for k, v in env.items() if k != "DISPLAY"}  # headless, off the recorded display
        r = subprocess.run([sys.executable, os.path.abspath(__file__), url, "--phase-seconds", str(args.phase_seconds),
                            "--window", args.window], env=viewer_env, capture_output=True, text=True, timeout=seconds + 60)
        sys.stderr.write(r.stderr[-2000:])
        print(r.stdout.strip())
    finally:
        rec.send_signal(signal.SIGINT)
        try:
            rec.wait(30)
        except subprocess.TimeoutExpired:
            rec.kill()
        stop_process(content, sig=signal.SIGTERM)
        stop_process(flasher, sig=signal.SIGTERM)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url", nargs="?")
    ap.add_argument("--record", action="store_true", help="make the recording to measure (see above)")
    ap.add_argument("--recordctl", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.build/release/recordctl"))
    ap.add_argument("--phase-seconds", type=float, default=8)
    ap.add_argument("--window", default="1280,900")
    args = ap.parse_args()
    if args.record:
        return record_and_measure(args)
    if not args.url:
        ap.error("a URL, or --record")
    driver = make_driver(args.window)
    out = {}
    try:
        driver.get(args.url)
        wait_playing(driver)
        # Every frame, even when Chromium falls behind: this measures what decoding them costs
        # (the page would otherwise ask for key frames only, docs/PREVIEW.md).
        driver.execute_script("window.rk.everyFrame = true")
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
