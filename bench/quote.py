#!/usr/bin/env python3
"""quote.py — a README-ready Markdown paragraph quoting the medians of bench/results.json.

Promise: reads a results.json written by bench/table.py and prints Markdown (a short paragraph and
a table of medians with their goals) to stdout; figures that were n/a are quoted as such.

usage: quote.py [RESULTS_JSON]   (default bench/results.json)
"""
import json
import sys


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "bench/results.json"
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    figs = doc["figures"]
    host = "; ".join(doc.get("host", []))

    def num(x, unit):
        if unit == "ev/s" or abs(x) >= 1000:
            return f"{x:,.0f}"
        if abs(x) >= 100:
            return f"{x:.0f}"
        return f"{x:.1f}" if abs(x) >= 10 else f"{x:.2f}"

    print(f"Measured by `make bench` on {doc.get('generated', '?')} ({host}). Ratios are measured side "
          "by side in one run (pairs interleaved), medians quoted; absolute times depend on the host "
          "and its load, ratios much less. `bench/README.md` explains every figure.")
    print()
    labels = {r["figure"]: r["label"] for r in figs}
    print("| figure | median | ratio (against) | goal | met |")
    print("|---|---|---|---|---|")
    for r in figs:
        if "na" in r:
            print(f"| {r['label']} | n/a ({r['na']}) | | {r.get('goal') or ''} | |")
            continue
        ratio = (f"{r['ratio']:.2f}× ({labels.get(r['base'], r['base'])})"
                 if r.get("ratio") is not None else "")
        met = "" if r.get("met") is None else ("yes" if r["met"] else "no")
        print(f"| {r['label']} | {num(r['median'], r['unit'])} {r['unit']} | {ratio} | {r.get('goal') or ''} | {met} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
