#!/usr/bin/env python3
"""table.py — turns the raw measurements of bench/run.sh into the table and bench/results.json.

Promise: reads RAW (JSON lines written by run.sh, one per measurement:
  {"name": KEY, "data": <a helper's JSON output>}  or  {"name": KEY, "na": "reason"}),
computes for every figure in FIGURES the number of runs, min/median/max, the ratio against its
base and whether its goal is met, prints the table and writes OUT (results.json). A figure whose
measurement (or whose base) is missing is printed as "n/a (<reason>)", never as a failure.
Figures are reported, never asserted: the exit status is 0 whenever the table could be written.

usage: table.py RAW OUT
"""
import json
import statistics
import sys
import time

# Each figure: key, label, unit, base key (ratio = median(key) / median(base)) or None,
# goal (what, op, value) with what = "ratio" | "value" | None. A key "K@x" shows K's measurement
# again (against another base).
FIGURES = [
    ("section", "Start-up: COMMAND = /bin/true (wall clock, fork to reap)"),
    ("start.bare", "bare exec", "ms", None, None),
    ("start.bwrap_typical", "plain bwrap, typical agent argv", "ms", "start.bare", None),
    ("start.bwrap", "plain bwrap, sbxsup's flags+binds", "ms", "start.bare", None),
    ("start.firejail", "firejail --noprofile --quiet (cold)", "ms", "start.auto", ("ratio", ">=", 2.0)),
    ("start.auto_noprobes", "sbxsup run, auto without probes", "ms", "start.bwrap_typical", ("ratio", "<=", 2.0)),
    ("start.auto_noprobes@own", "  the same against sbxsup's flags+binds", "ms", "start.bwrap", None),
    ("start.auto", "sbxsup run, auto (with probes)", "ms", "start.bwrap_typical", ("ratio", "<=", 2.5)),
    ("start.auto@own", "  the same against sbxsup's flags+binds", "ms", "start.bwrap", None),
    ("start.auto_shadow", "sbxsup run, auto, --shadow (overlay)", "ms", "start.auto", None),
    ("start.bwrap_pin", "plain bwrap, during the pinned phase", "ms", "start.bare", None),
    ("start.auto_pinned", "sbxsup run, auto, pinned probes", "ms", "start.bwrap_pin", ("ratio", "<=", 2.5)),
    ("start.bwrap_shared", "plain bwrap, during the shared-set phase", "ms", "start.bare", None),
    ("start.auto_shared", "sbxsup run, auto, another probed run live", "ms", "start.bwrap_shared", ("ratio", "<=", 2.5)),
    ("start.preload_only", "sbxsup run --layers preload", "ms", "start.bare", ("ratio", "<=", 4.0)),
    ("start.nobwrap", "sbxsup run, no bwrap", "ms", "start.bare", None),
    ("start.l.bwrap", "  by layer: sbxsup --layers bwrap", "ms", "start.bwrap", None),
    ("start.l.nobpf", "  by layer: auto without netfilter+probes", "ms", "start.bwrap", None),
    ("start.l.netfilter", "  by layer: sbxsup --layers netfilter", "ms", "start.bare", None),
    ("start.l.probes", "  by layer: sbxsup --layers probes", "ms", "start.bare", None),
    ("section", "Preload per-call cost (ns per call; ratio against the same loop without preload)"),
    ("call.open.native", "open+close, native", "ns", None, None),
    ("call.open.preload", "open+close, preloaded", "ns", "call.open.native", ("ratio", "<=", 1.3)),
    ("call.stat.native", "stat, native", "ns", None, None),
    ("call.stat.preload", "stat, preloaded", "ns", "call.stat.native", None),
    ("call.connect.native", "TCP connect 127.0.0.1, native", "ns", None, None),
    ("call.connect.preload", "TCP connect 127.0.0.1, preloaded", "ns", "call.connect.native", None),
    ("section", "Policy scale (ns per call; ratio against the 10-rule policy)"),
    ("scale.open.10", "open+close, 10 rules", "ns", None, None),
    ("scale.open.1000", "open+close, 1 000 rules", "ns", "scale.open.10", None),
    ("scale.open.10000", "open+close, 10 000 rules", "ns", "scale.open.10", ("ratio", "<=", 1.2)),
    ("scale.pol.10", "pol_path only, 10 rules", "ns", None, None),
    ("scale.pol.1000", "pol_path only, 1 000 rules", "ns", "scale.pol.10", None),
    ("scale.pol.10000", "pol_path only, 10 000 rules", "ns", "scale.pol.10", ("ratio", "<=", 1.2)),
    ("section", "A floating deny over a large tree (workspace of 100 000 files, deny **/.env; full mode)"),
    ("deny.start.none", "sbxsup run /bin/true, no deny", "ms", None, None),
    ("deny.start.float", "sbxsup run /bin/true, deny **/.env", "ms", "deny.start.none", None),
    ("deny.open.none", "open+close in the workspace, no deny", "ns", None, None),
    ("deny.open.float", "open+close in the workspace, deny **/.env", "ns", "deny.open.none", None),
    ("section", "Probe overhead (open+close loop, ns per call; ratio against probes off)"),
    ("probe.outside.off", "outside any run, no run live", "ns", None, None),
    ("probe.outside.on", "outside any run, probe run live", "ns", "probe.outside.off", ("ratio", "<=", 1.05)),
    ("probe.outside.idle", "outside any run, shared set idle (between runs)", "ns", "probe.outside.off", ("ratio", "<=", 1.02)),
    ("probe.inside.off", "inside a run, probes off", "ns", None, None),
    ("probe.inside.on", "inside a run, probes on", "ns", "probe.inside.off", ("ratio", "<=", 1.3)),
    ("section", "Emulated calls (open+close loop, ns per call; ratio against the continue path)"),
    ("emu.open.continue", "open notified, decided, continued (Landlock behind)", "ns", None, None),
    ("emu.open.emulated", "open notified, performed by sbxsup, ADDFD", "ns", "emu.open.continue", None),
    ("section", "Mixed workload (compile, Python imports, tar; ms of the workload itself)"),
    ("mix.off", "mixed workload, probes off", "ms", None, None),
    ("mix.on", "mixed workload, probes on", "ms", "mix.off", ("ratio", "<=", 1.10)),
    ("section", "Audit"),
    ("audit.writer", "writer, events/s (preload.deny)", "ev/s", None, ("value", ">=", 200000)),
    ("audit.writer_cpu", "writer, events/s by CPU time", "ev/s", None, ("value", ">=", 200000)),
    ("audit.kring", "kernel ring, delivered events/s, no loss", "ev/s", None, None),
    ("audit.summary", "audit summary, MB/s", "MB/s", None, None),
    ("section", "Warm server: 100 calls of /bin/true through sbxsup serve (ms per call; one long-lived client)"),
    ("serve.bare", "bare exec (the same client)", "ms", None, None),
    ("serve.call", "through sbxsup serve, paced (pre-created sandbox)", "ms", "serve.bare", ("ratio", "<=", 3.0)),
    ("serve.firejail", "firejail --noprofile --quiet", "ms", "serve.call", ("ratio", ">=", 10.0)),
    ("serve.burst", "through sbxsup serve, bursts of N back-to-back (--warm N)", "ms", "serve.bare", ("ratio", "<=", 3.0)),
    ("serve.b2b", "through sbxsup serve, a longer back-to-back stream", "ms", "serve.bare", None),
    ("serve.firejail@b2b", "  firejail against back-to-back calls", "ms", "serve.b2b", ("ratio", ">=", 10.0)),
    ("serve.cold", "through sbxsup serve --no-warm (cold sandbox)", "ms", "serve.bare", None),
    ("serve.cli", "sbxsup run --server, paced (client process start)", "ms", "serve.bare", None),
    ("section", "Network gateway (a client in its own network namespace; TLS name check; loopback)"),
    ("net.connect.direct", "connect to first byte back, direct", "ms", None, None),
    ("net.connect.gw", "connect to first byte back, via the gateway", "ms", "net.connect.direct", None),
    ("net.connect.added", "  added per connect by the gateway", "ms", None, ("value", "<=", 0.3)),
    ("net.tput.direct", "1 GB transfer, direct", "MB/s", None, None),
    ("net.tput.gw", "1 GB transfer, via the gateway", "MB/s", "net.tput.direct", ("ratio", ">=", 0.8)),
    ("section", "Memory"),
    ("mem.supervisor", "supervisor peak RSS (VmHWM)", "KiB", None, ("value", "<=", 8192)),
    ("mem.supervisor_nobpf", "supervisor peak RSS, no BPF layers", "KiB", None, None),
    ("mem.tiny.native", "small process, no preload (VmHWM)", "KiB", None, None),
    ("mem.tiny.preload", "small process, preloaded (VmHWM)", "KiB", None, None),
    ("mem.preload_added", "RSS added by the preload", "KiB", None, ("value", "<=", 512)),
]


def values(data, unit):
    """The per-run values of one measurement, in the figure's unit."""
    if "values" in data:
        return [float(v) for v in data["values"] if v is not None]
    if "ns" in data:
        ns = [float(v) for v in data["ns"]]
        if unit == "ev/s":
            return [1e9 / v for v in ns if v > 0]
        return ns
    if data.get("median_ms") is not None:
        # timeit: min/median/max only; rebuild a 3-point summary with the right run count
        return None
    return []


def summary(rec, unit):
    if rec is None:
        return None, "not measured"
    if "na" in rec:
        return None, rec["na"]
    d = rec["data"]
    if d.get("median_ms") is not None and "values" not in d:
        return {"runs": d.get("ok", d.get("runs")), "min": d["min_ms"], "median": d["median_ms"],
                "max": d["max_ms"]}, None
    v = values(d, unit)
    if not v:
        return None, "no value"
    return {"runs": len(v), "min": min(v), "median": statistics.median(v), "max": max(v)}, None


def fmt(x, unit):
    if x is None:
        return "-"
    if unit in ("ev/s",):
        return f"{x:,.0f}"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    if abs(x) >= 100:
        return f"{x:.0f}"
    if abs(x) >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def main():
    raw, out = sys.argv[1], sys.argv[2]
    recs, notes = {}, {}
    with open(raw, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if "note" in r and "data" not in r and "na" not in r:
                notes.setdefault(r["name"], []).append(r["note"])
                continue
            recs[r["name"]] = r
            if r.get("note"):
                notes.setdefault(r["name"], []).append(r["note"])
    rows, results = [], []
    for fig in FIGURES:
        if fig[0] == "section":
            rows.append(("section", fig[1]))
            continue
        key, label, unit, base, goal = fig
        s, why = summary(recs.get(key.split("@")[0]), unit)
        ratio = None
        if s and base:
            b, bwhy = summary(recs.get(base), unit)
            if b and b["median"]:
                ratio = s["median"] / b["median"]
        gtext, met = "", None
        if goal:
            what, op, val = goal
            gtext = f"{'ratio' if what == 'ratio' else 'value'} {op} {val:g}" + ("x" if what == "ratio" else "")
            x = ratio if what == "ratio" else (s["median"] if s else None)
            if x is not None:
                met = x <= val if op == "<=" else x >= val
        res = {"figure": key, "label": label, "unit": unit, "base": base, "ratio": ratio,
               "goal": gtext or None, "met": met,
               "notes": notes.get(key, []) if "@" not in key else []}
        if s:
            res.update(s)
        else:
            res["na"] = why
        results.append(res)
        rows.append(("fig", res))

    for h in notes.get("host", []):
        print(f"host: {h}")
    hdr = f"{'figure':44} {'runs':>5} {'min':>10} {'median':>10} {'max':>10} {'unit':5} {'ratio':>7}  {'goal':16} met"
    print(hdr)
    print("-" * len(hdr))
    for kind, r in rows:
        if kind == "section":
            print(f"== {r}")
            continue
        if "na" in r:
            print(f"{r['label']:44} n/a ({r['na']})" + (f"   [goal {r['goal']}]" if r["goal"] else ""))
            continue
        ratio = f"{r['ratio']:.2f}x" if r["ratio"] is not None else "-"
        met = "-" if r["met"] is None else ("yes" if r["met"] else "NO")
        print(f"{r['label']:44} {r['runs']:>5} {fmt(r['min'], r['unit']):>10} {fmt(r['median'], r['unit']):>10} "
              f"{fmt(r['max'], r['unit']):>10} {r['unit']:5} {ratio:>7}  {r['goal'] or '':16} {met}")
    allnotes = [(r["label"], n) for k, r in rows if k == "fig" for n in r["notes"]]
    if allnotes:
        print()
        for label, n in allnotes:
            print(f"note: {label}: {n}")
    doc = {"generated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "host": notes.get("host", []), "figures": results}
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    import os
    os.replace(out + ".tmp", out)
    print(f"\nwrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
