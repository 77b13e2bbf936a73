#!/usr/bin/env python3
"""What the loopback web surface costs recordd, in process (docs/WEB.md, "In process or not").

  scripts/benchmark-web.py [--seconds 10] [--rounds 2] [--viewers 1,20]

Against the rig's display (a 640x480 rk-testwindow with a moving square, 30 fps constant), a
service of its own records to a file with no preview (A), then with --preview and N raw WebSocket
viewers reading /live (B), alternating A B A B. For each run: recordd's CPU seconds per second over
the measured window (after 2 s of warm-up), its resident memory and thread count, and the bytes each
viewer received. Viewers are raw sockets (no browser), so only the server side is measured.
Wrap in `flock -o /work/coord/bench.lock` on a shared machine and quote ratios from one run.
"""
import argparse, base64, json, os, shutil, socket, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from benchlib import load_rig, proc_cpu_seconds  # noqa: E402


def status_of(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def viewer(port, token, seconds, counter, index):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET /live?token={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    end = time.monotonic() + seconds
    total = 0
    s.settimeout(0.5)
    while time.monotonic() < end:
        try:
            data = s.recv(65536)
        except socket.timeout:
            continue
        if not data:
            break
        total += len(data)
    counter[index] = total
    s.close()


def run(env, bin_dir, viewers, seconds, work):
    runtime = tempfile.mkdtemp(prefix="rk-web-bench-", dir="/tmp")
    os.chmod(runtime, 0o700)
    e = dict(env, XDG_RUNTIME_DIR=runtime, XDG_STATE_HOME=os.path.join(work, "state"))
    ctl = os.path.join(bin_dir, "recordctl")
    window = subprocess.Popen([os.path.join(bin_dir, "rk-testwindow"), "--size", "640x480", "--position", "0,0",
                               "--color", "203040", "--name", "web-bench", "--square-every", "0.1"], env=e,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    wid = window.stdout.readline().split()[-1]
    args = [ctl, "start", "--window", wid, "--frame-rate-mode", "constant", "--no-mic", "--output", os.path.join(work, f"out-{time.monotonic_ns()}.mp4")]
    if viewers is not None:
        args.insert(2, "--preview")
    out = subprocess.run(args, env=e, capture_output=True, text=True, timeout=60).stdout
    pid = int(json.loads(subprocess.run([ctl, "status", "--json"], env=e, capture_output=True, text=True, timeout=30).stdout)["service"]["pid"])
    counts = []
    threads = []
    if viewers:
        line = next(l for l in out.splitlines() if l.startswith("preview: "))
        port = int(line.split(":")[3].split("/")[0])
        token = line.split("token=")[1]
        counts = [0] * viewers
        for i in range(viewers):
            t = threading.Thread(target=viewer, args=(port, token, seconds + 3, counts, i))
            t.start()
            threads.append(t)
    time.sleep(2)
    c0, t0 = proc_cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    cpu = (proc_cpu_seconds(pid) - c0) / (time.monotonic() - t0)
    rss = status_of(pid, "VmRSS") / 1024
    nthreads = status_of(pid, "Threads")
    for t in threads:
        t.join()
    subprocess.run([ctl, "stop"], env=e, capture_output=True, timeout=60)
    subprocess.run([ctl, "service", "stop"], env=e, capture_output=True, timeout=60)
    window.terminate()
    window.wait(timeout=10)
    shutil.rmtree(runtime, ignore_errors=True)
    return {"viewers": viewers, "cpu": cpu, "rss_mib": rss, "threads": nthreads,
            "viewer_kib_s": [round(c / 1024 / (seconds + 3), 1) for c in counts]}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seconds", type=float, default=10)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--viewers", default="1,20")
    a = p.parse_args()
    env, _ = load_rig(a)
    bin_dir = os.path.join(ROOT, ".build", "debug")
    work = tempfile.mkdtemp(prefix="rk-web-bench-work-")
    print("load before:", open("/proc/loadavg").read().split()[:3], file=sys.stderr)
    results = []
    for r in range(a.rounds):
        for n in [None] + [int(v) for v in a.viewers.split(",")]:
            res = run(env, bin_dir, n, a.seconds, work)
            res["round"] = r + 1
            print(json.dumps(res), flush=True)
            results.append(res)
    print("load after:", open("/proc/loadavg").read().split()[:3], file=sys.stderr)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
