#!/usr/bin/python3
"""Runs a command on a ScreenCast portal stream: `portal-cast.py CMD ARGS...`, where `{fd}` and
`{node}` in the arguments become the PipeWire remote's descriptor and the stream's node id.

The benchmark (scripts/benchmark-wayland.sh) uses it to give GStreamer's `pipewiresrc` the same
portal node RecordKit records: `pipewiresrc fd={fd} path={node}`. The portal session stays open
(this process keeps its D-Bus connection) until the command exits; exit status is the command's.
Run inside the Wayland session (scripts/wayland-rig.sh run ...). Debian: python3-dbus, python3-gi.
"""
import os
import subprocess
import sys

import dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
portal = bus.get_object("org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop")
screencast = dbus.Interface(portal, "org.freedesktop.portal.ScreenCast")
sender = bus.get_unique_name()[1:].replace(".", "_")
loop = GLib.MainLoop()
state = {"n": 0}


def request(method, *args, options):
    """Calls a portal method and returns its Response results (exits on refusal)."""
    state["n"] += 1
    token = "bench%d_%d" % (os.getpid(), state["n"])
    path = "/org/freedesktop/portal/desktop/request/%s/%s" % (sender, token)
    answer = {}

    def on_response(code, results):
        answer["code"], answer["results"] = code, results
        loop.quit()

    match = bus.add_signal_receiver(on_response, "Response", "org.freedesktop.portal.Request", path=path)
    options = dict(options, handle_token=token)
    getattr(screencast, method)(*args, options)
    GLib.timeout_add_seconds(30, loop.quit)
    loop.run()
    match.remove()
    if answer.get("code") != 0:
        sys.exit("portal-cast: %s refused (%s)" % (method, answer.get("code", "no answer")))
    return answer["results"]


session = request("CreateSession", options={"session_handle_token": "benchsession%d" % os.getpid()})["session_handle"]
request("SelectSources", session, options={"types": dbus.UInt32(1), "cursor_mode": dbus.UInt32(1), "persist_mode": dbus.UInt32(0)})
streams = request("Start", session, "", options={})["streams"]
node = int(streams[0][0])
fd = screencast.OpenPipeWireRemote(session, {}).take()
os.set_inheritable(fd, True)
command = [a.replace("{fd}", str(fd)).replace("{node}", str(node)) for a in sys.argv[1:]]
status = subprocess.call(command, pass_fds=(fd,))
sys.exit(status)
