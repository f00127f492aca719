#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# Loads an HTML report in headless Chromium through the DevTools protocol
# over --remote-debugging-pipe (no WebSocket, no npm package), and writes
# what the page did as JSON: console errors, uncaught exceptions, requests
# that left the file, every chart's series and points as drawn in the DOM,
# whether clicking a column title sorts a compare table, and a full-page
# screenshot. The checks themselves are made by tests/e2e/report.sh.
#
# usage: report_check.py REPORT.html RESULT.json SCREENSHOT.png
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

TIMEOUT_S = 60

PAGE_FACTS = r"""
(function () {
  function texts(nodes) {
    return Array.prototype.map.call(nodes, function (n) { return n.textContent; });
  }
  var charts = Array.prototype.map.call(document.querySelectorAll('svg.chart'), function (s) {
    var series = s.querySelectorAll('g.series');
    return {
      id: s.id,
      kind: s.getAttribute('data-kind'),
      data_series: +s.getAttribute('data-series'),
      data_points: +s.getAttribute('data-points'),
      data_categories: +s.getAttribute('data-categories'),
      series: series.length,
      points: s.querySelectorAll('circle.pt').length,
      medians: s.querySelectorAll('path.median').length,
      windows: s.querySelectorAll('path.window').length,
      series_points: Array.prototype.map.call(series, function (g) {
        return [g.getAttribute('data-label'), +g.getAttribute('data-points'),
                g.querySelectorAll('circle.pt').length];
      }),
      legend: texts(s.querySelectorAll('g.legend-item > title')),
      categories: texts(s.querySelectorAll('g.categories text')),
      title: s.querySelector('title') ? s.querySelector('title').textContent : '',
      xtitle: s.querySelector('text.xtitle') ? s.querySelector('text.xtitle').textContent : '',
      ytitle: s.querySelector('text.ytitle') ? s.querySelector('text.ytitle').textContent : ''
    };
  });
  return {
    ready: document.body.getAttribute('data-ready'),
    title: document.title,
    charts: charts,
    sortable: document.querySelectorAll('table.sortable').length,
    diff_rows: document.querySelectorAll('#env tr.diff').length,
    external: document.querySelectorAll('script[src], link[href], img[src], iframe, object, embed').length
  };
})()
"""

# Click the "%change" title of a compare table twice: ascending, then descending.
SORT_CHECK = r"""
(function () {
  var t = document.querySelector('table.compare');
  if (!t) return {found: false};
  var ths = t.tHead.rows[0].cells, col = -1, i;
  for (i = 0; i < ths.length; i++) if (ths[i].textContent === '%change') col = i;
  function column() {
    return Array.prototype.map.call(t.tBodies[0].rows, function (r) {
      var v = parseFloat(r.cells[col].getAttribute('data-v'));
      return isNaN(v) ? -Infinity : v;
    });
  }
  function sorted(a, up) {
    for (var k = 1; k < a.length; k++) if (up ? a[k] < a[k - 1] : a[k] > a[k - 1]) return false;
    return true;
  }
  var before = column();
  ths[col].click();
  var asc = column();
  ths[col].click();
  var desc = column();
  return {found: col >= 0, rows: before.length, asc: sorted(asc, true),
          desc: sorted(desc, false), moved: JSON.stringify(before) !== JSON.stringify(asc),
          aria: ths[col].getAttribute('aria-sort')};
})()
"""


class Pipe:
    """The DevTools protocol over Chromium's fds 3 (commands) and 4 (replies)."""

    def __init__(self, wfd, rfd):
        self.wfd, self.rfd = wfd, rfd
        self.buf = b""
        self.next_id = 0
        self.events = []

    def _read_message(self, deadline):
        while b"\0" not in self.buf:
            if time.monotonic() > deadline:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self.rfd, 1 << 20)
            if not chunk:
                raise EOFError("chromium closed the DevTools pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None, deadline=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        data = json.dumps(msg).encode() + b"\0"
        while data:
            data = data[os.write(self.wfd, data):]
        deadline = deadline or time.monotonic() + TIMEOUT_S
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def wait_event(self, method, deadline):
        for e in self.events:
            if e["method"] == method:
                return e
        while True:
            m = self._read_message(deadline)
            if "method" in m:
                self.events.append(m)
                if m["method"] == method:
                    return m


def evaluate(cdp, session, expr):
    r = cdp.call("Runtime.evaluate", {"expression": expr, "returnByValue": True},
                 session)
    if "exceptionDetails" in r:
        raise RuntimeError("evaluation failed: %s" % r["exceptionDetails"])
    return r["result"].get("value")


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: report_check.py REPORT.html RESULT.json SCREENSHOT.png")
    html, result_path, shot = sys.argv[1:]
    url = "file://" + os.path.abspath(html)
    chrome = os.environ.get("CHROMIUM") or shutil.which("chromium") or "chromium"
    profile = tempfile.mkdtemp(prefix="nr-chromium-")
    cmd_r, cmd_w = os.pipe()
    res_r, res_w = os.pipe()
    args = [chrome, "--headless", "--no-sandbox", "--disable-gpu",
            "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run", "--no-default-browser-check",
            "--hide-scrollbars", "--user-data-dir=" + profile,
            "--remote-debugging-pipe", "about:blank"]
    log = open(os.path.join(profile, "chromium.log"), "w")
    # the shell puts the pipe's ends where Chromium expects them: 3 and 4
    proc = subprocess.Popen(["sh", "-c", 'exec "$@" 3<&%d 4>&%d' % (cmd_r, res_w), "sh"] + args,
                            pass_fds=(cmd_r, res_w), stdin=subprocess.DEVNULL,
                            stdout=log, stderr=log)
    os.close(cmd_r)
    os.close(res_w)
    cdp = Pipe(cmd_w, res_r)
    out = {"url": url}
    try:
        target = cdp.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = cdp.call("Target.attachToTarget",
                           {"targetId": target, "flatten": True})["sessionId"]
        for m in ("Page.enable", "Runtime.enable", "Log.enable", "Network.enable"):
            cdp.call(m, {}, session)
        cdp.call("Emulation.setDeviceMetricsOverride",
                 {"width": 1280, "height": 1000, "deviceScaleFactor": 1, "mobile": False},
                 session)
        cdp.events.clear()
        cdp.call("Page.navigate", {"url": url}, session)
        cdp.wait_event("Page.loadEventFired", time.monotonic() + TIMEOUT_S)
        out["facts"] = evaluate(cdp, session, PAGE_FACTS)
        out["sort"] = evaluate(cdp, session, SORT_CHECK)
        # the whole page in one picture (Chromium caps a texture at 16384)
        size = cdp.call("Page.getLayoutMetrics", {}, session)["cssContentSize"]
        height = int(min(max(size["height"], 600), 16384))
        cdp.call("Emulation.setDeviceMetricsOverride",
                 {"width": 1280, "height": height, "deviceScaleFactor": 1, "mobile": False},
                 session)
        png = cdp.call("Page.captureScreenshot", {"format": "png"}, session)["data"]
        with open(shot, "wb") as f:
            f.write(base64.b64decode(png))
        out["screenshot"] = {"path": os.path.abspath(shot), "bytes": os.path.getsize(shot),
                             "height": height}
        errors, console, requests = [], [], []
        for e in cdp.events:
            p = e.get("params", {})
            if e["method"] == "Runtime.consoleAPICalled":
                text = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
                console.append([p.get("type"), text])
                if p.get("type") in ("error", "assert"):
                    errors.append("console.%s: %s" % (p.get("type"), text))
            elif e["method"] == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                errors.append("uncaught: %s %s" % (d.get("text", ""),
                                                   d.get("exception", {}).get("description", "")))
            elif e["method"] == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                errors.append("log: %s" % p["entry"].get("text", ""))
            elif e["method"] == "Network.requestWillBeSent":
                requests.append(p.get("request", {}).get("url", ""))
        out["errors"] = errors
        out["console"] = console
        out["external_requests"] = [u for u in requests
                                    if not u.startswith(("file:", "data:", "about:"))]
        try:
            cdp.call("Browser.close", {}, None, time.monotonic() + 5)
        except (EOFError, TimeoutError, RuntimeError, OSError):
            pass
    finally:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        os.close(cmd_w)
        os.close(res_r)
        log.close()
        shutil.rmtree(profile, ignore_errors=True)
    with open(result_path, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
