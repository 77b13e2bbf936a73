"""CPU seconds of a Chromium process tree, by process type (a preview viewer's cost, docs/PREVIEW.md).

  tree_cpu(root_pid) -> {"browser": s, "renderer": s, "gpu-process": s, "utility": s, ..., "driver": s}

Walks /proc for every descendant of `root_pid` (chromedriver's pid: chromium and all its
helpers are below it) and sums utime+stime per Chromium `--type=` (no `--type` is the browser
process; chromedriver itself is `driver`). A process that exited between two samples loses the
CPU it had: sample often enough (a helper lives as long as the page). Linux only, standard library.
"""
import os

_TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid):
    with open(f"/proc/{pid}/stat", "rb") as f:
        raw = f.read().decode(errors="replace")
    rest = raw[raw.rfind(")") + 2:].split()
    return int(rest[1]), (int(rest[11]) + int(rest[12])) / _TICK  # ppid, utime+stime (s)


def _kind(pid, is_root):
    if is_root:
        return "driver"
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            # Chromium rewrites its helpers' titles: the arguments may be one space-separated string.
            args = f.read().replace(b"\0", b" ").split()
    except OSError:
        return "other"
    for a in args:
        if a.startswith(b"--type="):
            return a[7:].decode(errors="replace")
    return "browser" if args and b"chrom" in args[0] else "other"  # e.g. the chromium wrapper script


def tree_cpu(root_pid):
    """{kind: CPU seconds} over `root_pid` and every descendant alive now."""
    parent, cpu = {}, {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            ppid, s = _stat(int(name))
        except (OSError, ValueError, IndexError):
            continue
        parent[int(name)], cpu[int(name)] = ppid, s
    out = {}
    for pid in cpu:
        p, depth = pid, 0
        while p in parent and p != root_pid and depth < 64:
            p, depth = parent[p], depth + 1
        if p != root_pid:
            continue
        kind = _kind(pid, pid == root_pid)
        out[kind] = out.get(kind, 0.0) + cpu[pid]
    return out


def diff(after, before):
    """Per-kind CPU seconds spent between two tree_cpu() samples, and their total under "total"."""
    # A process that exited in between takes its CPU with it: never below zero.
    d = {k: round(max(0.0, after.get(k, 0.0) - before.get(k, 0.0)), 3) for k in set(after) | set(before)}
    d["total"] = round(sum(d.values()), 3)
    return d
