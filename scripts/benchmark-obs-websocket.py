#!/usr/bin/env python3
"""obs-websocket latency while recording (the bound in docs/OBS-WEBSOCKET.md, "Latency":
GetRecordStatus under 5 ms at the 99th percentile on loopback while recording 1080p30).
A benchmark, not a test.

  source rig-run/env; python3 scripts/benchmark-obs-websocket.py [--requests 2000] [--port 19904]

Runs a private recordd (its own runtime, state and config directories under a temporary
directory), enables obs-websocket on 127.0.0.1:PORT, starts a whole-screen recording of the
rig's 1920x1080 display at 30 fps, sends GetRecordStatus requests one after the other from a
websocket-client connection, and prints p50, p90, p99 and max in milliseconds with the load average.
"""
import argparse, base64, hashlib, json, os, shutil, subprocess, sys, tempfile, time

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--port", type=int, default=19904)
    ap.add_argument("--recordctl", default=os.environ.get("RECORDCTL", ".build/debug/recordctl"))
    a = ap.parse_args()
    import websocket
    tmp = tempfile.mkdtemp(prefix="rk-obs-bench-")
    env = dict(os.environ, XDG_RUNTIME_DIR=f"{tmp}/run", XDG_STATE_HOME=f"{tmp}/state", XDG_CONFIG_HOME=f"{tmp}/config", XDG_VIDEOS_DIR=tmp)
    os.makedirs(f"{tmp}/run", mode=0o700)
    def ctl(*args):
        return subprocess.run([a.recordctl, *args], env=env, capture_output=True, text=True, timeout=60, check=True).stdout
    ctl("obs-websocket", "enable", "--port", str(a.port))
    password = json.loads(ctl("obs-websocket", "--json"))["password"]
    ctl("start", "--fps", "30", "--frame-rate-mode", "constant", "--output", f"{tmp}/bench.mp4")
    try:
        time.sleep(3)
        ws = websocket.WebSocket()
        ws.connect(f"ws://127.0.0.1:{a.port}/", timeout=10)
        auth = json.loads(ws.recv())["d"]["authentication"]
        secret = base64.b64encode(hashlib.sha256((password + auth["salt"]).encode()).digest()).decode()
        answer = base64.b64encode(hashlib.sha256((secret + auth["challenge"]).encode()).digest()).decode()
        ws.send(json.dumps({"op": 1, "d": {"rpcVersion": 1, "authentication": answer, "eventSubscriptions": 0}}))
        ws.recv()
        times = []
        for i in range(a.requests):
            t0 = time.perf_counter()
            ws.send(json.dumps({"op": 6, "d": {"requestType": "GetRecordStatus", "requestId": str(i)}}))
            reply = json.loads(ws.recv())
            times.append((time.perf_counter() - t0) * 1000)
            assert reply["d"]["requestStatus"]["code"] == 100 and reply["d"]["responseData"]["outputActive"]
        ws.close()
    finally:
        ctl("stop")
        ctl("service", "stop")
        shutil.rmtree(tmp, ignore_errors=True)
    times.sort()
    q = lambda p: times[min(len(times) - 1, int(p * len(times)))]
    print(json.dumps({"requests": len(times), "p50_ms": round(q(0.5), 3), "p90_ms": round(q(0.9), 3), "p99_ms": round(q(0.99), 3),
                      "max_ms": round(times[-1], 3), "loadavg": os.getloadavg()}))

if __name__ == "__main__":
    sys.exit(main())
