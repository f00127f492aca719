#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# Writes the fixture result documents of the report tests (docs/results.md):
# three labels, a tcp_stream matrix (msg x rcvbuf; rmsg follows msg) and a
# tcp_rr axis (resp) with latency histograms. Every value is computed, none
# drawn at random, so the files (and the Markdown made from them) are the same
# on every run. Run it from anywhere; it rewrites the .jsonl files beside it.
import hashlib
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# label, file, kernel, throughput factor per msg, latency factor per resp
LABELS = [
    ("v6.1", "base.jsonl", "6.1.0-base", {}, {}),
    # 15% less throughput with 1K writes, 10% more latency with 1K replies
    ("v6.2-rc1", "rc1.jsonl", "6.2.0-rc1", {1024: 0.85}, {1024: 1.10}),
    # a label people name with markup characters: escaped everywhere
    # and 6% more throughput with 64K writes
    ('rc2 <b>&"x"|y', "rc2.jsonl", "6.2.0-rc2", {65536: 1.06}, {}),
]
NOISE = [0.0, 0.004, -0.003, 0.002, -0.005]  # per repetition, rotated per label


def wobble(k, rep):
    """A metric's own small noise, so that no two metrics tie in the order
    of the compare table (by effect over noise)."""
    return 1 + 0.0011 * (k + 1) * (((rep * (k + 2)) % 5) - 2)
MSGS = [1024, 65536, 262144]
RCVBUFS = ["65536", "auto"]
RESPS = [64, 1024]
BASE_NS = 1767225600 * 10**9  # 2026-01-01T00:00:00Z


def hist_index(v):
    if v < 256:
        return v
    shift = v.bit_length() - 1 - 7
    return shift * 128 + (v >> shift)


def bucket(i):
    if i < 256:
        return i, 1
    s = i // 128 - 1
    return (i - 128 * s) << s, 1 << s


def quantile(counts, n, vmin, vmax, q):
    rank = max(1, math.ceil(q * n - q * n * 1e-12))
    seen = 0
    for i in sorted(counts):
        seen += counts[i]
        if seen >= rank:
            low, width = bucket(i)
            return min(max(low + (width - 1) / 2.0, vmin), vmax)
    return vmax


def fingerprint(*parts):
    return hashlib.md5("/".join(parts).encode()).hexdigest()[:16]


def env(kernel, label):
    side = {
        "kernel": kernel,
        "kernel_version": "#1 SMP PREEMPT_DYNAMIC",
        "machine": "x86_64",
        "hostname": "lab1",
        "cpu_model": "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz",
        "online_cpus": "8",
        "mem_total_kb": "65842100",
        "cpu_governor": "performance",
        "clocksource": "tsc",
    }
    client = dict(side, env_fingerprint=fingerprint(label, "client"))
    server = dict(side, env_fingerprint=fingerprint(label, "server"))
    return {"client": client, "server": server}


def sysenv(kernel, label):
    entries = {
        "kernel.release": kernel,
        "cpu.model": "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz",
        "cpu.online": "0-7",
        "sysctl.net.core.default_qdisc": "fq_codel",
        "sysctl.net.core.rmem_max": "4194304" if "rc" in kernel else "212992",
        "sysctl.net.ipv4.tcp_rmem": "4096 131072 6291456",
        # changes at every boot by itself: never listed as a difference
        "sysctl.net.core.netdev_rss_key": hashlib.sha256(kernel.encode()).hexdigest()[:16],
        "if.lo.mtu": "65536",
    }
    return {side: {"fingerprint": fingerprint(label, side), "entries": entries}
            for side in ("client", "server")}


def metric(value, unit, better):
    return {"value": value, "unit": unit, "better": better}


def doc(label, kernel, params, metrics, seq, rep, hist=None):
    key = " ".join("%s=%s" % kv for kv in sorted(params.items()))
    ns = BASE_NS + seq * 13 * 10**9
    d = {
        "schema_version": 1,
        "tool": "netregress 0.1.0",
        "sample_id": hashlib.md5(("%s|%s|%d" % (label, key, rep)).encode()).hexdigest(),
        "label": label,
        "started_at": "2026-01-01T%02d:%02d:%02dZ" % (ns // 10**9 % 86400 // 3600,
                                                    ns // 10**9 % 3600 // 60,
                                                    ns // 10**9 % 60),
        "started_at_ns": ns,
        "config": {"key": key, "params": dict(sorted(params.items()))},
        "run": {"duration_ns": 10 * 10**9, "warmup_ns": 2 * 10**9,
                "server": "127.0.0.1:40000"},
        "env": env(kernel, label),
        "metrics": metrics,
        "flows": [],
        "sysenv": sysenv(kernel, label),
    }
    if hist:
        d["latency_histogram_ns"] = hist
    return d


def stream(label, li, kernel, factor, out, seq):
    common = {"cc": "default", "cpus": "none", "dir": "send", "ipv": "4",
              "nodelay": "0", "remote_cpus": "none", "remote_rcvbuf": "auto",
              "remote_sndbuf": "auto", "sndbuf": "auto", "streams": "1",
              "test": "tcp_stream", "threads": "1", "topology": "loopback"}
    for msg in MSGS:
        for rcvbuf in RCVBUFS:
            if li == 2 and rcvbuf != "auto":
                continue  # the third label measured autotuning only
            base = {1024: 4.0, 65536: 18.0, 262144: 22.0}[msg]
            base *= 0.8 if rcvbuf != "auto" else 1.0
            params = dict(common, msg=str(msg), rmsg=str(max(msg, 131072)),
                          rcvbuf=rcvbuf)
            for rep in range(5):
                g = base * factor.get(msg, 1.0) * (1 + NOISE[(rep + li) % 5])
                m = {
                    "throughput.gbps": metric(round(g, 6), "Gbps", "higher"),
                    "throughput.sender_gbps": metric(round(g * 1.001 * wobble(1, rep), 6), "Gbps", "higher"),
                    "throughput.msgs_per_s": metric(round(g * 1e9 / 8 / msg * wobble(2, rep), 3), "msg/s", "higher"),
                    "tcp.retransmits": metric(0, "seg", "lower"),
                    "cpu.client.busy_pct": metric(round(40 + 3 * rep + li, 3), "%", "neutral"),
                    "snmp.Tcp.OutSegs": metric(round(g * 1e6 / (1 + msg / 65536.0) * wobble(3, rep)), "count", "neutral"),
                }
                out.append(doc(label, kernel, params, m, seq[0], rep))
                seq[0] += 1


def rr(label, li, kernel, factor, out, seq):
    common = {"burst": "1", "cc": "default", "cpus": "none", "ipv": "4",
              "nodelay": "0", "rate": "0", "rcvbuf": "auto", "remote_cpus": "none",
              "remote_rcvbuf": "auto", "remote_sndbuf": "auto", "req": "64",
              "sndbuf": "auto", "streams": "1", "test": "tcp_rr", "threads": "1",
              "topology": "loopback"}
    for resp in RESPS:
        if li == 2 and resp != 64:
            continue
        params = dict(common, resp=str(resp))
        for rep in range(5):
            scale = (1 + NOISE[(rep + li) % 5]) * factor.get(resp, 1.0)
            base = (14000 if resp == 64 else 19000) * scale
            n = 2000
            # the body and the tail of the distribution move a little apart
            body, tail = wobble(1, rep), wobble(4, rep)
            vals = [int(base * (1 + 0.3 * u * body + 6 * u ** 40 * tail))
                    for u in ((j + 0.5) / n for j in range(n))]
            counts = {}
            for v in vals:
                counts[hist_index(v)] = counts.get(hist_index(v), 0) + 1
            vmin, vmax, total = min(vals), max(vals), float(sum(vals))
            hist = {"scheme": "loglin-128", "n": n, "min": vmin, "max": vmax,
                    "sum": total, "over": 0,
                    "buckets": [x for i in sorted(counts) for x in (i, counts[i])]}
            q = lambda p: round(quantile(counts, n, vmin, vmax, p) / 1000.0, 3)
            m = {
                "transactions.per_s": metric(round(1e9 / (total / n), 3), "trans/s", "higher"),
                "latency.min_us": metric(vmin / 1000.0, "us", "lower"),
                "latency.mean_us": metric(round(total / n / 1000.0, 3), "us", "lower"),
                "latency.p50_us": metric(q(0.5), "us", "lower"),
                "latency.p90_us": metric(q(0.9), "us", "lower"),
                "latency.p99_us": metric(q(0.99), "us", "lower"),
                "latency.p999_us": metric(q(0.999), "us", "lower"),
                "latency.max_us": metric(vmax / 1000.0, "us", "lower"),
                "cpu.client.busy_pct": metric(round(30 + 2 * rep + li, 3), "%", "neutral"),
            }
            out.append(doc(label, kernel, params, m, seq[0], rep, hist))
            seq[0] += 1


def main():
    for li, (label, name, kernel, tput, lat) in enumerate(LABELS):
        docs, seq = [], [li * 1000]
        stream(label, li, kernel, tput, docs, seq)
        rr(label, li, kernel, lat, docs, seq)
        with open(os.path.join(HERE, name), "w") as f:
            for d in docs:
                f.write(json.dumps(d, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
