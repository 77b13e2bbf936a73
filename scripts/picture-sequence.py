#!/usr/bin/env python3
"""Which of the benchmark player's pictures a recording holds, picture by picture.

The benchmark's moving content is ffplay playing `testsrc2` full screen (scripts/benchlib.py).
This renders the same `testsrc2` pictures with FFmpeg itself (the given crop, BT.709 limited
range, scaled to 240x135 grey), finds for every frame of each recording the reference picture
it matches best, and prints how the recording steps through the player's pictures (1 = the
next picture, 0 = the same again, 2 = one skipped) and how many frames match no picture closely
(a torn grab, half of one picture and half of the next, would). Used in docs/ENCODING.md to show
that ours and FFmpeg record the same pictures in the side-by-side size comparison.

  scripts/picture-sequence.py --crop 960:540:480:270 rig-run/bench/side-ours.mp4 rig-run/bench/side-ffmpeg.mp4

Needs numpy. Reference pictures: --seconds of the pattern (default 180), which must cover how
long the player had been playing when the recording ended.
"""
import argparse
import subprocess

import numpy as np

W, H = 240, 135


def frames(cmd):
    out = subprocess.run(cmd, capture_output=True, check=True, timeout=900).stdout
    return np.frombuffer(out, dtype=np.uint8).reshape(-1, H, W).astype(np.int16)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("recordings", nargs="+")
    ap.add_argument("--crop", default="960:540:480:270", help="w:h:x:y of the recorded region on the 1920x1080 screen")
    ap.add_argument("--seconds", type=int, default=180, help="reference pictures to render, in seconds at 30 fps")
    ap.add_argument("--tolerance", type=float, default=2.0, help="mean difference (grey levels) above which a frame matches no picture")
    args = ap.parse_args()
    ref = frames(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", f"testsrc2=size=1920x1080:rate=30,trim=end_frame={args.seconds * 30}",
                  "-vf", f"crop={args.crop},scale=flags=bilinear:out_color_matrix=bt709:out_range=tv,format=yuv420p,"
                         f"scale={W}:{H}:flags=area,format=gray", "-f", "rawvideo", "-"])
    flat = ref.reshape(len(ref), -1)
    for name in args.recordings:
        rec = frames(["ffmpeg", "-v", "error", "-i", name, "-map", "0:v:0", "-vf", f"scale={W}:{H}:flags=area,format=gray",
                      "-f", "rawvideo", "-"])
        best, unmatched, worst = [], 0, 0.0
        for f in rec:
            d = np.abs(flat - f.reshape(-1)).mean(axis=1)
            k = int(d.argmin())
            best.append(k)
            worst = max(worst, float(d[k]))
            unmatched += d[k] > args.tolerance
        steps = np.diff(best)
        print(f"{name}: {len(rec)} frames, steps {{{', '.join(f'{int(s)}: {int((steps == s).sum())}' for s in np.unique(steps))}}}, "
              f"matching no picture {unmatched}, worst mean difference {worst:.2f}")


if __name__ == "__main__":
    main()
