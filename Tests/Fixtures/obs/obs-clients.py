#!/usr/bin/env python3
"""Third-party obs-websocket 5 clients against recordd (ObsWebSocketTests).

  obs-clients.py record  PORT PASSWORD DIR   obsws-python (request + event client, JSON): a full
                                             start/pause/resume/chapter/split/stop cycle
  obs-clients.py msgpack PORT PASSWORD       websocket-client + msgpack: replay buffer cycle
  obs-clients.py badauth PORT                a wrong password: the close code
  obs-clients.py storm   PORT PASSWORD       malformed frames on many connections
  obs-clients.py mute    PORT PASSWORD DIR   obsws-python: input list, Mic/Aux and Desktop Audio
                                             muted and unmuted during a recording, the
                                             InputMuteStateChanged events (inputs vs outputs subs)
  obs-clients.py shot    PORT PASSWORD DIR   obsws-python: GetSourceScreenshot PNG and JPEG saved
                                             as DIR/shot.png, DIR/shot.jpg
  obs-clients.py outputs PORT PASSWORD DIR   obsws-python: StartReplayBuffer, StartRecord and
                                             StartStream independently on one capture, the
                                             record paused alone, each stopped on its own

Prints one JSON object with what happened; every step is bounded in time.
"""
import base64, hashlib, json, sys, time, threading

def auth_string(password, salt, challenge):
    secret = base64.b64encode(hashlib.sha256((password + salt).encode()).digest()).decode()
    return base64.b64encode(hashlib.sha256((secret + challenge).encode()).digest()).decode()

def record(port, password, directory):
    import obsws_python as obs
    events, lock = [], threading.Lock()
    ev = obs.EventClient(host="127.0.0.1", port=port, password=password, timeout=10)
    def on_record_state_changed(data):
        with lock: events.append(("RecordStateChanged", data.output_state, getattr(data, "output_path", None)))
    def on_record_file_changed(data):
        with lock: events.append(("RecordFileChanged", data.new_output_path, None))
    ev.callback.register([on_record_state_changed, on_record_file_changed])
    rq = obs.ReqClient(host="127.0.0.1", port=port, password=password, timeout=30)
    out = {}
    v = rq.get_version()
    out["availableRequests"] = v.available_requests
    out["rpc"] = v.rpc_version
    rq.set_record_directory(directory)
    out["directory"] = rq.get_record_directory().record_directory
    out["scenes"] = rq.get_scene_list().scenes
    t0 = time.time()
    rq.start_record()
    time.sleep(2.5)
    s = rq.get_record_status()
    out["status_running"] = {"output_active": s.output_active, "output_paused": s.output_paused, "output_duration": s.output_duration}
    rq.pause_record()
    time.sleep(1)
    out["paused"] = rq.get_record_status().output_paused
    rq.resume_record()
    time.sleep(1)
    rq.create_record_chapter("Chapter A")
    rq.split_record_file()
    time.sleep(2)
    try:
        rq.start_record()
        out["second_start"] = "accepted"
    except obs.error.OBSSDKRequestError as e:
        out["second_start"] = e.code
    stopped = rq.stop_record()
    out["wall"] = time.time() - t0
    out["outputPath"] = stopped.output_path
    try:
        rq.send("NoSuchRequest")
        out["unknown"] = "accepted"
    except obs.error.OBSSDKRequestError as e:
        out["unknown"] = e.code
    deadline = time.time() + 10
    while time.time() < deadline:
        with lock:
            if any(e[1] == "OBS_WEBSOCKET_OUTPUT_STOPPED" for e in events): break
        time.sleep(0.1)
    with lock: out["events"] = list(events)
    ev.disconnect(); rq.disconnect()
    return out

def outputs(port, password, directory):
    import obsws_python as obs
    events, lock = [], threading.Lock()
    ev = obs.EventClient(host="127.0.0.1", port=port, password=password, timeout=10)
    def on_record_state_changed(data):
        with lock: events.append(("Record", data.output_state, getattr(data, "output_path", None)))
    def on_replay_buffer_state_changed(data):
        with lock: events.append(("ReplayBuffer", data.output_state, None))
    def on_stream_state_changed(data):
        with lock: events.append(("Stream", data.output_state, None))
    ev.callback.register([on_record_state_changed, on_replay_buffer_state_changed, on_stream_state_changed])
    rq = obs.ReqClient(host="127.0.0.1", port=port, password=password, timeout=30)
    def active():
        return {"record": rq.get_record_status().output_active, "replay": rq.get_replay_buffer_status().output_active,
                "stream": rq.get_stream_status().output_active}
    out = {}
    rq.set_record_directory(directory)
    rq.start_replay_buffer()
    time.sleep(2)
    t0 = time.time()
    rq.start_record()
    rq.start_stream()
    time.sleep(3)
    out["all"] = active()
    rq.pause_record()
    time.sleep(1.5)
    out["record_paused"] = rq.get_record_status().output_paused
    rq.resume_record()
    time.sleep(1.5)
    stopped = rq.stop_record()
    out["record_wall"] = time.time() - t0
    out["outputPath"] = stopped.output_path
    out["after_record"] = active()
    time.sleep(1)
    rq.stop_stream()
    out["after_stream"] = active()
    rq.save_replay_buffer()
    out["replay"] = rq.get_last_replay_buffer_replay().saved_replay_path
    rq.stop_replay_buffer()
    out["after_all"] = active()
    deadline = time.time() + 10
    while time.time() < deadline:
        with lock:
            if any(e[0] == "ReplayBuffer" and e[1] == "OBS_WEBSOCKET_OUTPUT_STOPPED" for e in events): break
        time.sleep(0.1)
    with lock: out["events"] = list(events)
    ev.disconnect(); rq.disconnect()
    return out

def mute(port, password, directory):
    import obsws_python as obs
    events, lock = [], threading.Lock()
    ev = obs.EventClient(host="127.0.0.1", port=port, password=password, timeout=10)  # low-volume: inputs too
    quiet = obs.EventClient(host="127.0.0.1", port=port, password=password, timeout=10, subs=obs.Subs.OUTPUTS)
    quiet_events = []
    def on_input_mute_state_changed(data):
        with lock: events.append((data.input_name, data.input_muted))
    def on_record_state_changed(data):
        with lock: events.append(("record", data.output_state))
    ev.callback.register([on_input_mute_state_changed])
    def quiet_mute(data):
        with lock: quiet_events.append((data.input_name, data.input_muted))
    quiet_mute.__name__ = "on_input_mute_state_changed"
    quiet.callback.register([quiet_mute, on_record_state_changed])
    rq = obs.ReqClient(host="127.0.0.1", port=port, password=password, timeout=30)
    out = {"inputs": [(i["inputName"], i["inputKind"]) for i in rq.get_input_list().inputs]}
    try:
        rq.set_input_mute("Mic/Aux", False)
        out["idle_unmute"] = "accepted"
    except obs.error.OBSSDKRequestError as e:
        out["idle_unmute"] = e.code
    rq.set_record_directory(directory)
    rq.start_record()
    time.sleep(2)
    out["mic_before"] = rq.get_input_mute("Mic/Aux").input_muted
    rq.set_input_mute("Mic/Aux", True)
    out["mic_muted"] = rq.get_input_mute("Mic/Aux").input_muted
    time.sleep(1.5)
    rq.set_input_mute("Desktop Audio", True)
    time.sleep(1.5)
    out["toggled"] = rq.toggle_input_mute("Mic/Aux").input_muted
    time.sleep(1.5)
    rq.set_input_mute("Desktop Audio", False)
    out["desktop_after"] = rq.get_input_mute("Desktop Audio").input_muted
    time.sleep(1.5)
    try:
        rq.get_input_mute("Nope")
        out["unknown_input"] = "accepted"
    except obs.error.OBSSDKRequestError as e:
        out["unknown_input"] = e.code
    out["outputPath"] = rq.stop_record().output_path
    deadline = time.time() + 10
    while time.time() < deadline:
        with lock:
            if len(events) >= 4 and any(e == ("record", "OBS_WEBSOCKET_OUTPUT_STOPPED") for e in events): break
        time.sleep(0.1)
    with lock:
        out["events"] = [e for e in events if e[0] != "record"]
        out["quiet_events"] = list(quiet_events)
        out["quiet_saw_stop"] = any(e == ("record", "OBS_WEBSOCKET_OUTPUT_STOPPED") for e in events)
    ev.disconnect(); quiet.disconnect(); rq.disconnect()
    return out

def shot(port, password, directory):
    import obsws_python as obs
    rq = obs.ReqClient(host="127.0.0.1", port=port, password=password, timeout=30)
    out = {"formats": rq.get_version().supported_image_formats}
    rq.set_record_directory(directory)
    rq.start_record()
    time.sleep(1.5)
    for fmt, w, h, q in [("png", 320, None, -1), ("jpg", None, 120, 90)]:
        args = {"name": "Screen", "img_format": fmt, "width": w, "height": h, "quality": q}
        data = rq.get_source_screenshot(**args).image_data
        out[fmt + "_prefix"] = data[:30]
        with open(f"{directory}/shot.{fmt}", "wb") as f: f.write(base64.b64decode(data.split(",", 1)[1]))
    saved = f"{directory}/saved.png"
    rq.save_source_screenshot("Screen", "png", saved, 64, 64, -1)
    out["saved"] = saved
    try:
        rq.get_source_screenshot("Screen", "bmp-nope", None, None, -1)
        out["bad_format"] = "accepted"
    except obs.error.OBSSDKRequestError as e:
        out["bad_format"] = e.code
    rq.stop_record()
    rq.disconnect()
    return out

def ws_connect(port, subprotocol):
    import websocket
    ws = websocket.WebSocket()
    ws.connect(f"ws://127.0.0.1:{port}/", timeout=15, subprotocols=[subprotocol] if subprotocol else None)
    return ws

def msgpack_cycle(port, password):
    import msgpack, websocket
    ws = ws_connect(port, "obswebsocket.msgpack")
    out = {"subprotocol": ws.getsubprotocol()}
    opcode, data = ws.recv_data()
    out["hello_binary"] = opcode == websocket.ABNF.OPCODE_BINARY
    hello = msgpack.unpackb(data)
    a = hello["d"]["authentication"]
    ws.send_binary(msgpack.packb({"op": 1, "d": {"rpcVersion": 1, "authentication": auth_string(password, a["salt"], a["challenge"]),
                                                 "eventSubscriptions": 64}}))
    out["identified"] = msgpack.unpackb(ws.recv_data()[1])["op"]
    events = []
    def request(kind, rid, data=None):
        msg = {"op": 6, "d": {"requestType": kind, "requestId": rid}}
        if data is not None: msg["d"]["requestData"] = data
        ws.send_binary(msgpack.packb(msg))
        while True:
            m = msgpack.unpackb(ws.recv_data()[1])
            if m["op"] == 5: events.append(m["d"]); continue
            return m["d"]
    out["start"] = request("StartReplayBuffer", "1")["requestStatus"]
    time.sleep(3)
    out["status"] = request("GetReplayBufferStatus", "2").get("responseData")
    out["save"] = request("SaveReplayBuffer", "3")["requestStatus"]
    out["last"] = request("GetLastReplayBufferReplay", "4").get("responseData")
    batch = {"op": 8, "d": {"requestId": "B", "haltOnFailure": True, "requests": [
        {"requestType": "GetRecordStatus", "requestId": "b1"}, {"requestType": "Sleep", "requestData": {"sleepMillis": 100}},
        {"requestType": "StopReplayBuffer", "requestId": "b2"}]}}
    ws.send_binary(msgpack.packb(batch))
    while True:
        m = msgpack.unpackb(ws.recv_data()[1])
        if m["op"] == 9: out["batch"] = [r["requestStatus"]["code"] for r in m["d"]["results"]]; break
        if m["op"] == 5: events.append(m["d"])
    ws.settimeout(1)
    deadline = time.time() + 8
    while time.time() < deadline and not any(e.get("eventData", {}).get("outputState") == "OBS_WEBSOCKET_OUTPUT_STOPPED" for e in events):
        try:
            m = msgpack.unpackb(ws.recv_data()[1])
            if m["op"] == 5: events.append(m["d"])
        except websocket.WebSocketTimeoutException:
            pass
    out["events"] = [(e["eventType"], e.get("eventData", {}).get("outputState") or e.get("eventData", {}).get("savedReplayPath")) for e in events]
    ws.close()
    return out

def close_code(ws):
    import websocket
    try:
        while True:
            opcode, data = ws.recv_data(control_frame=True)
            if opcode == websocket.ABNF.OPCODE_CLOSE:
                return int.from_bytes(data[:2], "big") if len(data) >= 2 else None
    except Exception as e:
        return f"no close frame: {type(e).__name__}"

def badauth(port):
    ws = ws_connect(port, None)
    json.loads(ws.recv())
    ws.send(json.dumps({"op": 1, "d": {"rpcVersion": 1, "authentication": "d3JvbmcgcGFzc3dvcmQ="}}))
    return {"close": close_code(ws)}

def storm(port, password):
    import random
    rng = random.Random(22)
    codes = {}
    payloads = ["{", "null", "[]", '{"op":"x"}', '{"op":6,"d":{}}', '{"op":1}', '{"op":99,"d":{}}', "\u0000" * 10]
    for i in range(60):
        ws = ws_connect(port, "obswebsocket.json" if i % 2 == 0 else "obswebsocket.msgpack")
        ws.recv_data()
        if i % 3 == 0:
            ws.send_binary(bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 64))))
        elif i % 3 == 1:
            ws.send(payloads[i % len(payloads)])
        else:
            ws.send_binary(bytes([0xDF, 0xFF, 0xFF, 0xFF, 0xFF]))
        c = close_code(ws)
        codes[str(c)] = codes.get(str(c), 0) + 1
        ws.close()
    return {"closes": codes}

if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "record": result = record(int(sys.argv[2]), sys.argv[3], sys.argv[4])
    elif mode == "msgpack": result = msgpack_cycle(int(sys.argv[2]), sys.argv[3])
    elif mode == "badauth": result = badauth(int(sys.argv[2]))
    elif mode == "mute": result = mute(int(sys.argv[2]), sys.argv[3], sys.argv[4])
    elif mode == "outputs": result = outputs(int(sys.argv[2]), sys.argv[3], sys.argv[4])
    elif mode == "shot": result = shot(int(sys.argv[2]), sys.argv[3], sys.argv[4])
    elif mode == "storm": result = storm(int(sys.argv[2]), sys.argv[3])
    else: sys.exit(64)
    print(json.dumps(result, default=str))
