#!/usr/bin/env python3
"""Upload benchmark (docs/UPLOADS.md; numbers in docs/BENCHMARKS.md, "Uploads").

1. A file (default 1 GiB) to the same local S3 server (SeaweedFS of scripts/upload-servers.sh),
   alternating A B A B for --rounds rounds:
     A  ours  recordctl upload FILE --to s3://recordings/bench/... (a fresh recordd per run)
     B  aws   aws s3 cp FILE s3://recordings/bench/...
   For each: wall time -> throughput; CPU seconds of the client (ours: recordd + recordctl from
   /proc; aws: the process and its children, from wait4) per GiB; peak RSS (ours: recordd's
   VmHWM, aws: ru_maxrss). Every object is checked with boto3 (size, SHA-256 once).
2. --with-recording: a 1080p30 `recordctl start` of --rec-seconds alone, then the same with the
   upload running beside it: frames in the file (ffprobe -count_frames) against 30 x seconds, and
   the recording's CPU, A B A B for --rec-rounds. --rec-mode foreground (default): the recording
   is `recordctl record` in its own process (CPU from wait4, nothing of the upload's in it), the
   upload runs in recordd; --rec-mode service: `start` in the same recordd as the upload (CPU of
   its threads other than rk-uploads and NIO's event loops; the busiest threads are printed).
   --pattern: an rk-testwindow --counter 30 of --pattern-size (default the whole screen) at 0,0,
   so every frame changes.

  flock -o /work/coord/bench.lock scripts/benchmark-upload.py --size-mib 1024 --rounds 2 --with-recording
Needs the rig (scripts/rig.sh start; source rig-run/env) and a release build (swift build -c release).
"""
import argparse, hashlib, json, os, resource, shutil, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KEY, SECRET = "rktestkey", "rktestsecret0123456789"
TICK = os.sysconf("SC_CLK_TCK")


def sh(cmd, env=None, timeout=900, check=True):
    r = subprocess.run(cmd, env=env, timeout=timeout, capture_output=True, text=True)
    if check and r.returncode != 0:
        sys.exit(f"benchmark-upload: {' '.join(cmd)} failed ({r.returncode}): {r.stderr[-2000:]}")
    return r


def proc_cpu(pid, skip_threads=()):
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                s = f.read()
            name = s[s.index("(") + 1:s.rindex(")")]
            if any(name.startswith(p) for p in skip_threads):
                continue
            fields = s[s.rindex(")") + 2:].split()
            total += int(fields[11]) + int(fields[12])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total / TICK


def hwm(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


class Service:
    def __init__(self, bin_dir, work):
        self.bin = bin_dir
        self.env = dict(os.environ, XDG_RUNTIME_DIR=tempfile.mkdtemp(prefix="rk-bu-"), XDG_STATE_HOME=work + "/state",
                        AWS_ACCESS_KEY_ID=KEY, AWS_SECRET_ACCESS_KEY=SECRET, AWS_SHARED_CREDENTIALS_FILE="/nonexistent")
        os.chmod(self.env["XDG_RUNTIME_DIR"], 0o700)
        sh([self.ctl, "status", "--json"], env=self.env)
        self.pid = json.loads(sh([self.ctl, "status", "--json"], env=self.env).stdout)["service"]["pid"]

    @property
    def ctl(self):
        return os.path.join(self.bin, "recordctl")

    def stop(self):
        sh([self.ctl, "service", "stop"], env=self.env, check=False)
        for _ in range(50):
            if not os.path.exists(f"/proc/{self.pid}"):
                break
            time.sleep(0.1)
        shutil.rmtree(self.env["XDG_RUNTIME_DIR"], ignore_errors=True)


def check_object(endpoint, key, size):
    r = sh(["python3", os.path.join(ROOT, "Tests/Fixtures/uploads/s3tool.py"), "object", endpoint, "recordings", key],
           env=dict(os.environ, RK_S3_KEY=KEY, RK_S3_SECRET=SECRET))
    got = r.stdout.split()
    if int(got[0]) != size:
        sys.exit(f"benchmark-upload: {key} has {got[0]} bytes, expected {size}")
    return got[1]


def run_ours(bin_dir, work, file, endpoint, size, key):
    svc = Service(bin_dir, work)
    try:
        idle = hwm(svc.pid)
        cpu0 = proc_cpu(svc.pid)
        t0 = time.monotonic()
        r = subprocess.run([svc.ctl, "upload", file, "--to", "s3://recordings/bench", "--upload-endpoint", endpoint,
                            "--upload-name", key, "--json"], env=svc.env, capture_output=True, text=True, timeout=1800)
        wall = time.monotonic() - t0
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        if r.returncode != 0:
            sys.exit(f"benchmark-upload: recordctl upload failed: {r.stderr}")
        cpu = proc_cpu(svc.pid) - cpu0
        return {"wall": wall, "cpu": cpu, "peak": hwm(svc.pid), "idle": idle, "key": "bench/" + key}
    finally:
        svc.stop()


def run_aws(file, endpoint, key):
    env = dict(os.environ, AWS_ACCESS_KEY_ID=KEY, AWS_SECRET_ACCESS_KEY=SECRET, AWS_DEFAULT_REGION="us-east-1")
    t0 = time.monotonic()
    p = subprocess.Popen(["aws", "--endpoint-url", endpoint, "s3", "cp", "--only-show-errors", file, f"s3://recordings/bench/{key}"], env=env)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if status != 0:
        sys.exit("benchmark-upload: aws s3 cp failed")
    return {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "peak": ru.ru_maxrss * 1024, "key": "bench/" + key}


def frames(path):
    r = sh(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries", "stream=nb_read_frames",
            "-of", "csv=p=0", path])
    return int(r.stdout.strip() or 0)


def thread_cpu(pid):
    """CPU seconds per thread name of pid (names with digits folded: NIO-ELT-0-#3 -> NIO-ELT-#)."""
    by = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                s = f.read()
        except (FileNotFoundError, ProcessLookupError):
            continue
        name = "".join("#" if c.isdigit() else c for c in s[s.index("(") + 1:s.rindex(")")])
        fields = s[s.rindex(")") + 2:].split()
        by[name] = by.get(name, 0) + (int(fields[11]) + int(fields[12])) / TICK
    return by


def start_upload(svc, upload_file, endpoint, tag):
    up = sh([svc.ctl, "upload", upload_file, "--to", "s3://recordings/bench", "--upload-endpoint", endpoint,
             "--upload-name", f"rec-{tag}-{{upload}}", "--no-wait"], env=svc.env, timeout=120)
    uid = up.stdout.strip()
    for _ in range(100):  # running, with bytes sent, before the recording starts
        u = [x for x in json.loads(sh([svc.ctl, "uploads", "--json"], env=svc.env).stdout) if x["id"] == uid][0]
        if u["bytesDone"] > 0:
            break
        time.sleep(0.1)
    return uid


def upload_state(svc, uid):
    u = [x for x in json.loads(sh([svc.ctl, "uploads", "--json"], env=svc.env).stdout) if x["id"] == uid][0]
    return u["state"], u["bytesDone"], u["bytesTotal"]


def record(bin_dir, work, seconds, upload_file, endpoint, tag, mode, extra=()):
    """One recording of `seconds` (30 fps, constant frame rate), with or without the upload
    running beside it. mode "foreground": `recordctl record` in its own process, its CPU from
    wait4 (the whole recording process, nothing of the upload's); mode "service": `start` in the
    recordd that also uploads, CPU of its threads other than rk-uploads and NIO's event loops."""
    svc = Service(bin_dir, work)
    try:
        out = os.path.join(work, f"rec-{tag}.mp4")
        uid = start_upload(svc, upload_file, endpoint, tag) if upload_file else None
        summary = ""
        if mode == "foreground":
            p = subprocess.Popen([svc.ctl, "record", "--duration", str(seconds), "--output", out, "--frame-rate-mode", "constant",
                                  "--no-upload", *extra], env=svc.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            _, status, ru = os.wait4(p.pid, 0)
            err = p.stderr.read()
            if status != 0:
                sys.exit(f"benchmark-upload: record failed: {err[-2000:]}")
            cpu = ru.ru_utime + ru.ru_stime
            summary = next((l[l.index("recorded "):] for l in err.splitlines() if "recorded " in l), "")
            threads = {}
        else:
            sh([svc.ctl, "start", "--output", out, "--frame-rate-mode", "constant", "--no-upload", *extra], env=svc.env)
            before = thread_cpu(svc.pid)
            time.sleep(seconds)
            after = thread_cpu(svc.pid)
            threads = {k: after.get(k, 0) - before.get(k, 0) for k in after}
            cpu = sum(v for k, v in threads.items() if not (k.startswith("rk-uploads") or k.startswith("NIO-ELT")))
            sh([svc.ctl, "stop"], env=svc.env, timeout=120)
        state = upload_state(svc, uid) if uid else None
        if uid:
            sh([svc.ctl, "uploads", "wait"], env=svc.env, timeout=1800)
        return {"frames": frames(out), "expected": 30 * seconds, "cpu": cpu, "summary": summary, "upload_at_end": state,
                "threads": threads}
    finally:
        svc.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size-mib", type=int, default=1024)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--endpoint", default=f"http://127.0.0.1:{int(os.environ.get('RK_UPLOAD_PORT_BASE', '19500')) + 2}")
    ap.add_argument("--bin", default=os.path.join(ROOT, ".build/release"))
    ap.add_argument("--with-recording", action="store_true")
    ap.add_argument("--rec-seconds", type=int, default=20)
    ap.add_argument("--rec-rounds", type=int, default=2, help="recording rounds, each alone then with the upload (A B A B)")
    ap.add_argument("--rec-mode", choices=("foreground", "service"), default="foreground")
    ap.add_argument("--no-throughput", action="store_true", help="skip the comparison with aws s3 cp")
    ap.add_argument("--pattern", action="store_true", help="an rk-testwindow --counter 30 at 0,0 (every frame changes)")
    ap.add_argument("--pattern-size", default="1920x1080", help="its size (default: the whole 1080p screen)")
    ap.add_argument("--rec-args", default="", help="more options for the recording, e.g. \"--preset ultrafast\"")
    a = ap.parse_args()
    if not a.no_throughput and shutil.which("aws") is None:
        # The peer users own; scripts/install-deps.sh does not install it (the tests need only boto3).
        sys.exit("benchmark-upload: the comparison runs `aws s3 cp`, and no `aws` is on PATH: "
                 "python3 -m pip install awscli, or pass --no-throughput")
    sh([os.path.join(ROOT, "scripts/upload-servers.sh"), "start", os.environ.get("RK_UPLOAD_DIR", os.path.join(ROOT, "rig-run/uploads")), "seaweedfs"])
    work = tempfile.mkdtemp(prefix="rk-bench-upload-", dir=os.environ.get("RK_RIG_DIR", "/tmp"))
    file = os.path.join(work, "payload.bin")
    with open(file, "wb") as f:
        for _ in range(a.size_mib):
            f.write(os.urandom(1 << 20))
    size = a.size_mib << 20
    print(f"load before: {os.getloadavg()}")
    rows = []
    for i in range(0 if a.no_throughput else a.rounds):
        for name in ("ours", "aws"):
            key = f"{name}-{i}-{int(time.time())}.bin"
            r = run_ours(a.bin, work, file, a.endpoint, size, key) if name == "ours" else run_aws(file, a.endpoint, key)
            check_object(a.endpoint, r["key"], size)
            r.update(name=name, mibps=a.size_mib / r["wall"], cpu_per_gib=r["cpu"] / (a.size_mib / 1024))
            rows.append(r)
            print(f"{name:5} round {i}: {r['mibps']:7.1f} MiB/s  CPU {r['cpu_per_gib']:6.2f} s/GiB  peak {r['peak'] / 2**20:7.1f} MiB", flush=True)
    def mean(n, k):
        v = [r[k] for r in rows if r["name"] == n]
        return sum(v) / len(v)
    if rows:
        print(f"ratios ours/aws: throughput {mean('ours', 'mibps') / mean('aws', 'mibps'):.2f}x, "
              f"CPU per GiB {mean('ours', 'cpu_per_gib') / mean('aws', 'cpu_per_gib'):.2f}x; "
              f"ours peak {max(r['peak'] for r in rows if r['name'] == 'ours') / 2**20:.1f} MiB, "
              f"{max(r['peak'] - r['idle'] for r in rows if r['name'] == 'ours') / 2**20:.1f} MiB over the idle service's peak "
              f"(bound: 16 MiB x 4 in flight + 32 MiB = 96 MiB)")
    if a.with_recording:
        pattern = None
        if a.pattern:
            pattern = subprocess.Popen([os.path.join(a.bin, "rk-testwindow"), "--size", a.pattern_size, "--position", "0,0",
                                        "--counter", "30", "--name", "rk-bench-pattern"], stdout=subprocess.DEVNULL)
            time.sleep(1)
        try:
            runs = []
            for i in range(a.rec_rounds):
                for n in ("alone", "with upload"):
                    r = record(a.bin, work, a.rec_seconds, file if n == "with upload" else None, a.endpoint, f"{n[:5]}-{i}", a.rec_mode, a.rec_args.split())
                    r["name"] = n
                    runs.append(r)
                    up = f"; upload at the recording's end: {r['upload_at_end'][0]} {r['upload_at_end'][1] >> 20}/{r['upload_at_end'][2] >> 20} MiB" \
                        if r["upload_at_end"] else ""
                    print(f"recording {n:12} round {i}: {r['frames']} frames of {r['expected']}, recording CPU {r['cpu']:.2f} s "
                          f"[{r['summary']}]{up}", flush=True)
                    if r["threads"]:
                        top = sorted(r["threads"].items(), key=lambda kv: -kv[1])[:8]
                        print("   threads: " + ", ".join(f"{k} {v:.2f}" for k, v in top), flush=True)
        finally:
            if pattern:
                pattern.kill()
        for i in range(a.rec_rounds):
            alone, beside = runs[2 * i], runs[2 * i + 1]
            print(f"round {i}: recording CPU with upload / alone: {beside['cpu'] / max(alone['cpu'], 1e-9):.3f}x")
        tot = lambda n: sum(r["cpu"] for r in runs if r["name"] == n)
        print(f"all rounds: recording CPU with upload / alone: {tot('with upload') / max(tot('alone'), 1e-9):.3f}x; "
              f"frames: {[r['frames'] for r in runs]} (expected {30 * a.rec_seconds} each)")
    print(f"load after: {os.getloadavg()}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
