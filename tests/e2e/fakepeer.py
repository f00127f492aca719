#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# A misbehaving control-channel peer for the robustness tests. Talks only to
# 127.0.0.1 / ::1. Usage: fakepeer.py MODE PORT
import json, socket, struct, sys, time

PROTO = 2  # the protocol version netregress speaks (src/proto/frame.h)

# a valid tcp_stream configuration, as a client sends it in setup
CFG = {"test": "tcp_stream", "dir": "send", "streams": 1, "threads": 1,
       "msg": 1024, "sndbuf": 0, "rcvbuf": 0, "remote_sndbuf": 0,
       "remote_rcvbuf": 0, "nodelay": False, "ipv": 4, "cc": "",
       "batch": 1, "cpus": "", "remote_cpus": "",
       "duration_ns": 1000000000, "warmup_ns": 0, "interval_ns": 0,
       "req": 0, "resp": 0, "burst": 0, "rate": 0,
       "rr_timeout_ns": 200000000, "rmsg": 0, "topology": "loopback",
       "mtu": 0, "gro": -1, "gso": -1, "tso": -1, "tbf_rate": 0,
       "cpu_quota": 0}

def frame(obj, version=PROTO, flags=0):
    body = json.dumps(obj).encode()
    return b"NR" + bytes([version, flags]) + struct.pack(">I", len(body)) + body

def recv_frame(s):
    hdr = b""
    while len(hdr) < 8:
        c = s.recv(8 - len(hdr))
        if not c:
            return None
        hdr += c
    n = struct.unpack(">I", hdr[4:])[0]
    body = b""
    while len(body) < n:
        c = s.recv(n - len(body))
        if not c:
            return None
        body += c
    return json.loads(body)

def client(mode, port):
    s = socket.create_connection(("127.0.0.1", port), timeout=15)
    if mode == "garbage":
        s.sendall(b"GET / HTTP/1.0\r\n\r\n" * 10)
    elif mode == "huge":
        s.sendall(b"NR\x02\x00\xff\xff\xff\xff")
    elif mode == "badjson":
        s.sendall(b"NR\x02\x00\x00\x00\x00\x05{oops")
    elif mode == "badversion":
        s.sendall(frame({"type": "hello", "version": PROTO}, version=9))
    elif mode == "wrongorder":
        s.sendall(frame({"type": "stop"}))
    elif mode == "badsetup":
        s.sendall(frame({"type": "hello", "version": PROTO, "tool": "x", "env": {}}))
        recv_frame(s)
        s.sendall(frame({"type": "setup", "config": {"test": "tcp_stream", "streams": "many"}}))
    elif mode == "forged":
        # a message type that carries a log line of its own, and a setup
        # key with an escape sequence: both must reach the log escaped
        s.sendall(frame({"type": "stop\nFORGED by a client"}))
        s.close()
        s = socket.create_connection(("127.0.0.1", port), timeout=15)
        s.sendall(frame({"type": "hello", "version": PROTO, "tool": "x", "env": {}}))
        recv_frame(s)
        s.sendall(frame({"type": "setup", "config": {"test": "tcp_stream", "\x1b[2Jstreams": 1}}))
        print(json.dumps(recv_frame(s)))
    elif mode == "halfframe":
        s.sendall(b"NR\x02\x00\x00\x00\x10\x00{")
        time.sleep(0.2)
    elif mode in ("badcollect", "badspeed"):
        # a valid setup but for a collect.overhead (collect.speed) that is
        # not a boolean
        key = "overhead" if mode == "badcollect" else "speed"
        s.sendall(frame({"type": "hello", "version": PROTO, "tool": "x", "env": {}}))
        recv_frame(s)
        s.sendall(frame({"type": "setup", "config": CFG, "udp_ports": [],
                         "collect": {"counters": False, "perf": False,
                                     "profile": False, key: "yes"}}))
        print(json.dumps(recv_frame(s)))
    elif mode == "vanish":
        # a valid setup, then the client goes away before its data
        # connections: the server must end the session at once
        s.sendall(frame({"type": "hello", "version": PROTO, "tool": "x", "env": {}}))
        recv_frame(s)
        s.sendall(frame({"type": "setup", "config": CFG, "udp_ports": []}))
        print(json.dumps(recv_frame(s)))
    elif mode == "foreign":
        # a valid setup, then a data connection from another source address
        s.sendall(frame({"type": "hello", "version": PROTO, "tool": "x", "env": {}}))
        recv_frame(s)
        s.sendall(frame({"type": "setup", "config": CFG, "udp_ports": []}))
        ok = recv_frame(s)
        d = socket.socket()
        d.bind(("127.0.0.2", 0))
        d.connect(("127.0.0.1", ok["data_port"]))
        hdr = b"NRD1" + struct.pack(">I", 0) + struct.pack(">Q", ok["cookie"])
        d.sendall(hdr)
        s.sendall(frame({"type": "connected"}))
        reply = recv_frame(s)
        print(json.dumps(reply))
        d.close()
    s.close()

def server(mode, port):
    # a server that speaks another protocol version, or never answers
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", port))
    ls.listen(4)
    print("ready", flush=True)
    c, _ = ls.accept()
    if mode == "srv-version":
        recv_frame(c)
        c.sendall(frame({"type": "hello_ok", "version": PROTO + 1}, version=PROTO + 1))
    time.sleep(30)

if __name__ == "__main__":
    mode, port = sys.argv[1], int(sys.argv[2])
    (server if mode.startswith("srv-") else client)(mode, port)
