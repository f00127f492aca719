#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The end-to-end suites' predicates and queries, by name.

python3 tests/e2e/pred.py NAME ARGS...: a predicate exits 0 when it holds
and 1 when it does not, and then says what it saw (the clause that failed
and the values in it) on the evidence stream: the file $NR_EVIDENCE names
(lib.sh's check prints it after the "not ok" line), else stderr. A query
prints its answer on stdout. Bad usage exits 2.
"""

import json
import os
import sys

MAX_LINES = 16  # evidence lines a predicate prints at most
MAX_REPR = 400  # characters of one value shown


def say(*lines):
    """Append lines to the evidence stream."""
    path = os.environ.get("NR_EVIDENCE")
    out = open(path, "a") if path else sys.stderr
    for line in lines:
        out.write(str(line) + "\n")
    if path:
        out.close()


def short(x):
    r = repr(x)
    return r if len(r) <= MAX_REPR else r[:MAX_REPR - 3] + "..."


# --- JSON documents: what an expression over d, m and v() read -----------
class Seen:
    """The values an expression read, the last read last."""

    def __init__(self):
        self.items = {}

    def note(self, key, value):
        self.items.pop(key, None)
        self.items[key] = value

    def clear(self):
        self.items.clear()


def wrap(x, path, seen):
    if isinstance(x, dict) and not isinstance(x, RDict):
        return RDict(x, path, seen)
    if isinstance(x, list) and not isinstance(x, RList):
        return RList(x, path, seen)
    return x


def _read(seen, path, x):
    if not isinstance(x, (dict, list)):
        seen.note(path, x)
    return x


class RDict(dict):
    """A dict that records the scalars read from it, by their path."""

    def __init__(self, x, path, seen):
        super().__init__(x)
        self._path, self._seen = path, seen

    def _child(self, k):
        return "%s[%s]" % (self._path, json.dumps(k))

    def __getitem__(self, k):
        try:
            x = dict.__getitem__(self, k)
        except KeyError:
            self._seen.note(self._child(k), "<missing>")
            raise
        return _read(self._seen, self._child(k), wrap(x, self._child(k), self._seen))

    def get(self, k, default=None):
        return self[k] if k in self else default

    def items(self):
        return [(k, self[k]) for k in self]

    def values(self):
        return [self[k] for k in self]


class RList(list):
    """A list that records the scalars read from it, by their path."""

    def __init__(self, x, path, seen):
        super().__init__(x)
        self._path, self._seen = path, seen

    def __getitem__(self, i):
        x = list.__getitem__(self, i)
        if isinstance(i, slice):
            return x
        p = "%s[%d]" % (self._path, i if i >= 0 else len(self) + i)
        return _read(self._seen, p, wrap(x, p, self._seen))

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]


def json_env(path):
    """The names an expression sees: d (the document), m (its metrics),
    v(name) (a metric's value), json, re and sys; and the Seen that
    records reads."""
    import re
    seen = Seen()
    with open(path) as f:
        raw = json.load(f)
    d = wrap(raw, "d", seen)
    m = wrap(raw.get("metrics", {}) if isinstance(raw, dict) else {}, "m", seen)

    def v(name):
        try:
            x = dict.__getitem__(m, name)["value"]
        except KeyError:
            seen.note('v("%s")' % name, "<missing>")
            raise
        seen.note('v("%s")' % name, x)
        return x
    return {"d": d, "m": m, "v": v, "json": json, "re": re, "sys": sys,
            "__builtins__": __builtins__}, seen


def ev(node, env):
    import ast
    """(value, exception) of an expression node."""
    try:
        code = compile(ast.fix_missing_locations(ast.Expression(node)), "<expr>", "eval")
        return eval(code, env), None
    except Exception as e:  # the evidence names it
        return None, e


def bind(target, item, env):
    import ast
    a = ast.Assign(targets=[target], value=ast.Name("__it", ast.Load()))
    env = dict(env)
    env["__it"] = item
    exec(compile(ast.fix_missing_locations(ast.Module([a], [])), "<bind>", "exec"), env)
    return env


def failing_part(node, env, src, notes):
    """Narrow node to its smallest false part: the first false clause of an
    `and`, the first element that fails an all(... for ...); notes the
    bindings on the way."""
    import ast
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        for part in node.values:
            x, e = ev(part, env)
            if e or not x:
                return failing_part(part, env, src, notes)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "all"
            and len(node.args) == 1 and isinstance(node.args[0], ast.GeneratorExp)
            and len(node.args[0].generators) == 1):
        gen = node.args[0]
        comp = gen.generators[0]
        items, e = ev(comp.iter, env)
        if e is None:
            for item in items:
                env2 = bind(comp.target, item, env)
                if not all(ev(c, env2)[0] for c in comp.ifs):
                    continue
                x, e = ev(gen.elt, env2)
                if e or not x:
                    shown = getattr(item, "_path", None) or short(item)
                    notes.append("for %s = %s" % (ast.get_source_segment(src, comp.target), shown))
                    return failing_part(gen.elt, env2, src, notes)
    return node, env


def _leaf(node):
    """A constant, a name, a subscript or v(...): its value says it all."""
    import ast
    return (isinstance(node, (ast.Constant, ast.Name, ast.Subscript))
            or (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "v"))


def explain_expr(src, env, seen):
    """Evidence lines for an expression that did not hold (ast is loaded
    only then: a check that holds starts no faster than python does)."""
    import ast
    lines, notes = [], []
    try:
        tree = ast.parse(src, mode="eval").body
    except SyntaxError as e:
        return ["syntax error in the expression: %s" % e]
    node, env = failing_part(tree, env, src, notes)
    seen.clear()
    x, e = ev(node, env)
    lines += notes
    if node is not tree or notes:
        lines.append("failing clause: %s" % ast.get_source_segment(src, node))
    lines.append("  -> %s" % (("%s: %s" % (type(e).__name__, e)) if e else short(x)))
    shown = set()
    if isinstance(node, ast.Compare):
        for part in [node.left] + node.comparators:
            if isinstance(part, ast.Constant):
                continue
            px, pe = ev(part, env)
            s = ast.get_source_segment(src, part)
            shown.add(s)
            lines.append("  %s = %s" % (s, ("%s: %s" % (type(pe).__name__, pe)) if pe else short(px)))
    elif isinstance(node, ast.BoolOp):
        for part in node.values:
            px, pe = ev(part, env)
            lines.append("  %s -> %s" % (ast.get_source_segment(src, part),
                                         type(pe).__name__ if pe else short(px)))
    if isinstance(node, ast.Compare) and all(_leaf(p) for p in [node.left] + node.comparators):
        seen.clear()  # the operands are the values read
    if isinstance(e, KeyError) and isinstance(env.get("m"), dict):
        key = str(e.args[0]) if e.args else ""
        stem = key.rsplit(".", 1)[0]
        near = [k for k in sorted(env["m"]) if k.startswith(stem)][:8]
        lines.append("  metrics like %r: %s" % (stem, ", ".join(near) or "none"))
    rest = [(k, x) for k, x in seen.items.items() if k not in shown]
    if len(rest) > MAX_LINES - len(lines):
        keep = max(MAX_LINES - len(lines) - 1, 4)
        lines.append("  (%d values read before these)" % (len(rest) - keep))
        rest = rest[-keep:]
    lines += ["  %s = %s" % (k, short(x)) for k, x in rest]
    return lines


def _json_eval(path, expr):
    env, seen = json_env(path)
    return eval(expr, env), env, seen


def jtrue(path, expr):
    """jtrue FILE EXPR: the expression over the JSON document FILE holds
    (d the document, m its metrics, v(name) a metric's value)."""
    try:
        x, env, seen = _json_eval(path, expr)
    except OSError as e:
        say("jtrue: cannot read %s: %s" % (path, e.strerror))
        return False
    except ValueError as e:
        say("jtrue: %s is not JSON: %s" % (path, e))
        return False
    except Exception:
        x = None
        env, seen = json_env(path)
    if x is True:
        return True
    say("jtrue %s:" % os.path.basename(path), *explain_expr(expr, env, seen))
    return False


def jpy(path, expr):
    """jpy FILE EXPR: prints the expression's value over the JSON document
    (true/false for a truth value)."""
    x, _, _ = _json_eval(path, expr)
    print(x if not isinstance(x, bool) else ("true" if x else "false"))
    return True


# --- numbers ----------------------------------------------------------------
def more(a, b):
    """more A B: the number A is greater than B."""
    if float(a) > float(b):
        return True
    say("more: %s is not above %s" % (a, b))
    return False


# --- the sample store ---------------------------------------------------------
def samples(db, label=None, flag=None, flag_value=None):
    """samples DB [LABEL [METRIC VALUE]]: prints how many samples DB holds
    (of LABEL; of those, with METRIC equal to VALUE). LABEL '*' is every
    label."""
    import sqlite3
    c = sqlite3.connect(db)
    q, args = "select count(*) from samples s", []
    if flag is not None:
        q += " join metrics m on m.sample_id = s.id and m.name = ? and m.value = ?"
        args += [flag, float(flag_value)]
    if label not in (None, "*"):
        q += " where s.label = ?"
        args.append(label)
    print(c.execute(q, args).fetchone()[0])
    return True


def metric_stored(db, pattern):
    """metric_stored DB PATTERN: some stored metric's name is LIKE PATTERN."""
    import sqlite3
    c = sqlite3.connect(db)
    n = c.execute("select count(*) from metrics where name like ?", (pattern,)).fetchone()[0]
    if n > 0:
        return True
    names = [r[0] for r in c.execute("select distinct name from metrics order by name")]
    stem = pattern.split("%")[0].rstrip(".").rsplit(".", 1)[0]
    near = [x for x in names if x.startswith(stem)][:12]
    say("metric_stored: no metric named like %r in %s; %d names stored, like %r: %s"
        % (pattern, os.path.basename(db), len(names), stem, ", ".join(near) or "none"))
    return False


def cells_ok(db, label, want):
    """cells_ok DB LABEL WANT: LABEL has samples, and each configuration
    at least WANT of them and at most WANT undisturbed ones."""
    import sqlite3
    want = int(want)
    rows = sqlite3.connect(db).execute("""select s.config_key, count(*),
        sum(case when m.value = 0 then 1 else 0 end)
        from samples s join metrics m on m.sample_id = s.id and m.name = 'window.disturbed'
        where s.label = ? group by s.config_key""", (label,)).fetchall()
    bad = [r for r in rows if not (r[1] >= want and r[2] <= want)]
    if rows and not bad:
        return True
    if not rows:
        say("cells_ok: no sample of label %r with window.disturbed in %s" % (label, os.path.basename(db)))
    for key, n, clean in bad[:MAX_LINES - 1]:
        say("cells_ok %s: %d samples (want >= %d), %d undisturbed (want <= %d): %s"
            % (label, n, want, clean, want, key))
    return False


def _label_metrics(db, label):
    """Each sample of LABEL as a dict of its metrics."""
    import sqlite3
    c = sqlite3.connect(db)
    return [dict(c.execute("select name, value from metrics where sample_id = ?", (sid,)))
            for (sid,) in c.execute("select id from samples where label = ?", (label,))]


def xcpu_in(db, label, want):
    """xcpu_in DB LABEL yes|no: with yes, every sample of LABEL ran the
    cross-CPU probe (a round trip, or rounds all missed) and some measured
    one; with no, no sample has a host.xcpu metric."""
    rows = _label_metrics(db, label)

    def probed(m):
        return (m.get("host.xcpu_ns", 0) > 0 or
                (m.get("host.xcpu.rounds") == 0 and m.get("host.xcpu.missed", 0) > 0))
    if want == "yes":
        ok = rows and all(probed(m) for m in rows) and any(m.get("host.xcpu_ns", 0) > 0 for m in rows)
    else:
        ok = rows and not any(k.startswith("host.xcpu") for m in rows for k in m)
    if ok:
        return True
    # the samples that make it fail first: not probed, or (no) with a probe
    bad = [i for i, m in enumerate(rows)
           if (not probed(m) if want == "yes" else any(k.startswith("host.xcpu") for k in m))]
    say("xcpu_in %s %s: %d samples, %d of them %s" % (label, want, len(rows), len(bad),
                                                      "not probed" if want == "yes" else "probed"))
    for i in (bad + [i for i in range(len(rows)) if i not in bad])[:MAX_LINES - 1]:
        m = rows[i]
        say("  sample %d: %s" % (i, " ".join("%s=%g" % (k, x) for k, x in sorted(m.items())
                                            if k.startswith("host.xcpu")) or "no host.xcpu metric"))
    return False


def _clauses(name, clauses, env):
    """Each (text, lambda) in turn while they hold; the first false or
    failing one and the values it read go to the evidence."""
    for text, f in clauses:
        try:
            x = f()
        except Exception as e:  # the evidence names it
            x, err = None, "%s: %s" % (type(e).__name__, e)
        else:
            err = None
        if not x:
            say("%s: failing clause: %s" % (name, text),
                "  -> %s" % (err or short(x)),
                *("  %s = %s" % (k, short(v)) for k, v in env(text)))
            return False
    return True


def _metric_values(m):
    """For a clause's text, the metrics it names and their values."""
    import re

    def env(text):
        names = re.findall(r'"((?:host|window)\.[a-z_.0-9-]+)"', text)
        return [(k, m.get(k, "<missing>")) for k in dict.fromkeys(names)][:MAX_LINES]
    return env


def xcpu_ok(path):
    """xcpu_ok FILE: the run's cross-CPU probe: its pairs from a client
    cpu to another, server, cpu; each pair's min <= value <= max; the round
    trip 5 ns to 50 us; rounds in half the intervals or more, fewer missed;
    the window's levels and the far share where they belong."""
    import re
    d = json.load(open(path))
    m = {k: v["value"] for k, v in d["metrics"].items()}

    def cpus(s):
        out = []
        for part in s.split(","):
            a, _, b = part.partition("-")
            out += range(int(a), int(b or a) + 1)
        return out
    p = d["config"]["params"]
    pairs = [tuple(map(int, x.groups())) for x in
             (re.match(r"^host\.xcpu\.cpu([0-9]+)-([0-9]+)$", k) for k in m) if x]
    return _clauses("xcpu_ok " + os.path.basename(path), [
        ("pairs and all(a in cpus(p[\"cpus\"]) and b in cpus(p[\"remote_cpus\"]) and a != b "
         "for a, b in pairs): pairs %s, cpus %s, remote_cpus %s"
         % (pairs, p.get("cpus"), p.get("remote_cpus")),
         lambda: pairs and all(a in cpus(p["cpus"]) and b in cpus(p["remote_cpus"]) and a != b
                               for a, b in pairs)),
        ("each pair's \"host.xcpu.cpuA-B.min\" <= value <= max: %s"
         % ["%g <= %g <= %g" % (m.get("host.xcpu.cpu%d-%d.min" % q), m.get("host.xcpu.cpu%d-%d" % q),
                                 m.get("host.xcpu.cpu%d-%d.max" % q)) for q in pairs],
         lambda: all(m["host.xcpu.cpu%d-%d.min" % q] <= m["host.xcpu.cpu%d-%d" % q]
                     <= m["host.xcpu.cpu%d-%d.max" % q] for q in pairs)),
        ('5 < m["host.xcpu_ns"] < 50000', lambda: 5 < m["host.xcpu_ns"] < 50000),
        ('m["host.xcpu.rounds"] >= 0.5 * m["window.intervals"]',
         lambda: m["host.xcpu.rounds"] >= 0.5 * m["window.intervals"]),
        ('m["host.xcpu.missed"] < m["host.xcpu.rounds"]',
         lambda: m["host.xcpu.missed"] < m["host.xcpu.rounds"]),
        ('"window.rate_xcpu_tau" in m', lambda: "window.rate_xcpu_tau" in m),
        # levels need 20 intervals with a round, as the rate's levels do
        ('m["window.intervals"] < 20 or m["window.xcpu_moved"] in (0, 1) and '
         'm["window.xcpu_lo_ns"] <= m["window.xcpu_hi_ns"]',
         lambda: (m["window.intervals"] < 20 or m["window.xcpu_moved"] in (0, 1)
                  and m["window.xcpu_lo_ns"] <= m["window.xcpu_hi_ns"])),
        # how much of a moved window sat far apart, and the rate there: a
        # moved window's alone, with ticks on both sides
        ('(m.get("window.xcpu_moved") == 1) == ("window.xcpu_far_pct" in m)',
         lambda: (m.get("window.xcpu_moved") == 1) == ("window.xcpu_far_pct" in m)),
        ('"window.xcpu_far_pct" not in m or 0 < m["window.xcpu_far_pct"] < 100',
         lambda: "window.xcpu_far_pct" not in m or 0 < m["window.xcpu_far_pct"] < 100),
        ('"window.rate_far_pct" not in m or "window.xcpu_far_pct" in m and m["window.rate_far_pct"] >= 0',
         lambda: ("window.rate_far_pct" not in m or
                  "window.xcpu_far_pct" in m and m["window.rate_far_pct"] >= 0)),
    ], _metric_values(m))


def ticks_ok(path, *keys):
    """ticks_ok FILE [xcpu_ns] [host_speed]: window_series has a figure of
    each probe named in every interval (at least the rounds not missed for
    xcpu_ns, half the intervals for host_speed), all positive, their median
    within 3x of the run's figure; and no series of a probe not named."""
    import statistics
    d = json.load(open(path))
    w, m = d["window_series"], {k: v["value"] for k, v in d["metrics"].items()}
    ok = True
    for key, metric in (("xcpu_ns", "host.xcpu_ns"), ("host_speed", "host.speed")):
        if key not in keys:
            if key in w:
                say("ticks_ok: window_series has %s, not asked for" % key)
                ok = False
            continue
        got = [x for x in w.get(key, []) if x is not None]
        least = (len(w["values"]) - m["host.xcpu.missed"] if key == "xcpu_ns"
                 else len(w["values"]) / 2)
        # a host that held a CPU through nearly every round may leave none
        # in the window's intervals (a round in the warm-up's tail counts in
        # the figure, not in an interval): then there is no median to hold
        this = (len(w.get(key, [])) == len(w["values"]) and len(got) >= least
                and all(x > 0 for x in got)
                and (not got or m[metric] / 3 <= statistics.median(got) <= m[metric] * 3))
        if not this:
            say("ticks_ok %s: %d of %d intervals, %d with a figure (want >= %g), "
                "%d not positive, median %s against %s %s"
                % (key, len(w.get(key, [])), len(w["values"]), len(got), least,
                   sum(1 for x in got if x <= 0),
                   statistics.median(got) if got else "-", metric, m.get(metric)))
        ok &= this
    return ok


COMMANDS = {f.__name__: f for f in (jtrue, jpy, more, samples, metric_stored, cells_ok,
                                     xcpu_in, xcpu_ok, ticks_ok)}


def main(argv):
    if len(argv) < 2 or argv[1] not in COMMANDS:
        sys.stderr.write("usage: pred.py {%s} ARGS...\n" % ",".join(sorted(COMMANDS)))
        return 2
    f = COMMANDS[argv[1]]
    code, n = f.__code__, len(argv) - 2
    least = code.co_argcount - len(f.__defaults__ or ())
    if n < least or (n > code.co_argcount and not code.co_flags & 0x04):
        sys.stderr.write("pred.py %s: %d arguments; usage: %s\n" % (argv[1], n, f.__doc__))
        return 2
    return 0 if f(*argv[2:]) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
