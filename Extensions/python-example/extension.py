#!/usr/bin/env python3
"""A RecordKit upload extension in Python 3, standard library only.

It implements the extension protocol of docs/EXTENSIONS.md by hand (no SDK): the handshake,
the five handler calls answered with "done", shared memory through memfd regions, and releases.
What it does with the broadcast: it writes one JSON line per call to the file named by the setup
key "log" (started with its setup and streams, every sample with its stream, time, size and the
first bytes of its payload, paused, resumed, finished with counts), and publishes the log's path.

Install: copy this directory to ~/.local/share/recordkit/extensions/python-example/ (or pass
--extensions-dir), then: recordctl record --extension python-example --setup log=/tmp/calls.jsonl
"""

import json
import mmap
import os
import socket
import sys

PROTOCOL = 2
MAX_MESSAGE = 65536


class Extension:
    def __init__(self, sock):
        self.sock = sock
        self.regions = {}   # region id -> mmap
        self.formats = {}   # format id -> description
        self.log = None
        self.counts = {}

    # -- transport --------------------------------------------------------------------------

    def send(self, message):
        self.sock.send(json.dumps(message, separators=(",", ":")).encode())

    def receive(self):
        """One message and the descriptor that came with it (or None); None at end of stream."""
        data, fds, flags, _ = socket.recv_fds(self.sock, MAX_MESSAGE + 1, 1)
        if not data:
            return None, None
        if len(data) > MAX_MESSAGE or flags & socket.MSG_TRUNC:
            raise ValueError("message too long")
        return json.loads(data), (fds[0] if fds else None)

    # -- the handler ------------------------------------------------------------------------

    def write(self, record):
        if self.log:
            self.log.write(json.dumps(record, separators=(",", ":")) + "\n")

    def started(self, setup, streams):
        # streams: every stream this extension receives, with the id of its format (announced
        # before "started"), so the formats are known before any sample.
        path = os.path.abspath(setup.get("log") or "python-example.jsonl")
        self.log = open(path, "w", buffering=1)
        self.write({"call": "started", "setup": setup, "streams": sorted(streams),
                    "formats": {name: self.formats[fid]["kind"] for name, fid in streams.items()}})
        self.send({"type": "publish", "info": {"path": path}})

    def sample(self, m):
        stream = m["stream"]
        self.counts[stream] = self.counts.get(stream, 0) + 1
        region = self.regions[m["region"]]
        start, length = m["offset"], m["length"]
        head = region[start:start + min(length, 8)].hex()
        value, scale = m["pts"]
        self.write({"call": "sample", "stream": stream, "pts": value / scale, "bytes": length, "head": head,
                    "format": self.formats[m["format"]]["kind"]})

    def finished(self, discarding):
        self.write({"call": "finished", "discarding": discarding, "counts": self.counts})
        if self.log:
            self.log.close()

    # -- the protocol -----------------------------------------------------------------------

    def run(self):
        hello, _ = self.receive()
        if not hello or hello.get("type") != "hello" or PROTOCOL not in hello.get("protocols", []):
            print("python-example: the host does not speak protocol 2", file=sys.stderr)
            return 70
        self.send({"type": "hello", "protocol": PROTOCOL, "features": []})
        while True:
            m, fd = self.receive()
            if m is None:
                return 0  # the recorder went away
            kind = m["type"]
            if kind == "region":
                self.regions[m["region"]] = mmap.mmap(fd, m["size"], mmap.MAP_SHARED, mmap.PROT_READ)
                os.close(fd)
            elif kind == "format":
                self.formats[m["format"]] = m["description"]
            elif kind == "started":
                self.started(m["setup"], m["streams"])
                self.send({"type": "done"})
            elif kind == "sample":
                self.sample(m)
                self.send({"type": "done", "released": [m["ref"]]})
            elif kind in ("paused", "resumed"):
                self.write({"call": kind})
                self.send({"type": "done"})
            elif kind == "finished":
                self.finished(m.get("discarding", False))
                self.send({"type": "done"})
                return 0


def main():
    fd = os.environ.get("RECORDKIT_EXTENSION_FD")
    if fd is None:
        print("python-example: run me through recordctl (--extension python-example)", file=sys.stderr)
        return 64
    sock = socket.socket(fileno=int(fd))
    return Extension(sock).run()


if __name__ == "__main__":
    sys.exit(main())
