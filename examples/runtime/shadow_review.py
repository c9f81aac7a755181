#!/usr/bin/env python3
"""shadow_review.py — a runtime that lets a person review a tool's file changes before they happen.

The tool runs under `sbxsup run --shadow`: it sees the workspace as usual, but everything it writes,
deletes, renames or chmods lands in the run's shadow store. The runtime then prints the change list
and the unified diff (sbxsup shadow diff), asks the person y/n, and commits (atomically per file,
refusing conflicts, symlinks, devices, setuid files; audited as shadow.commit) or discards.

    python3 examples/runtime/shadow_review.py [--yes] [--workspace DIR]

Without --workspace a demo workspace is made in a temporary directory; --yes answers "y" (tests).
Uses ./build/sbxsup unless $SBXSUP.
"""
import argparse
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
os.environ.setdefault("SBXSUP", os.path.join(ROOT, "build", "sbxsup"))
import sbxsup  # noqa: E402

# The "tool": rewrites a note, deletes a scratch file, writes a report.
TOOL = ["sh", "-c", "mkdir -p notes; echo 'reviewed: yes' >> notes/todo.txt; rm -f scratch.tmp; "
                    "printf 'lines: %s\\n' \"$(cat notes/todo.txt | wc -l)\" > report.txt"]


def review(workspace: str, yes: bool) -> int:
    r = sbxsup.run(TOOL, workspace=workspace, shadow=True, timeout=60)
    if r.refused:
        print("sbxsup refused the run: %s" % r.reason_code)
        return 1
    s = r.shadow or {}
    print("run %s: exit %d, verdict %s, %s change(s), change set %s" % (
        r.run_id, r.exit, r.verdict, sum((s.get("count") or {}).values()), s.get("hash")))
    print(sbxsup.shadow_diff(r.run_id))
    answer = "y" if yes else input("Apply these changes to %s? [y/N] " % workspace).strip().lower()
    if answer != "y":
        sbxsup.shadow_discard(r.run_id)
        print("discarded")
        return 0
    c = sbxsup.shadow_commit(r.run_id)
    for line in c.committed:
        print(line)
    for line in c.refused:
        print(line)
    sbxsup.shadow_discard(r.run_id)  # what was refused stays out; the audit stream has the record
    return 0 if c.ok else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--yes", action="store_true", help="commit without asking (tests)")
    ap.add_argument("--workspace", help="the workspace (default: a demo one in a temporary directory)")
    a = ap.parse_args()
    if a.workspace:
        ws = a.workspace
    else:
        tmp = tempfile.TemporaryDirectory()
        ws = tmp.name
        os.chmod(ws, 0o755)
    os.makedirs(os.path.join(ws, "notes"), exist_ok=True)
    with open(os.path.join(ws, "notes", "todo.txt"), "a") as f:
        f.write("Sandbox review on Monday\n")
    with open(os.path.join(ws, "scratch.tmp"), "w") as f:
        f.write("scratch\n")
    return review(ws, a.yes)


if __name__ == "__main__":
    sys.exit(main())
