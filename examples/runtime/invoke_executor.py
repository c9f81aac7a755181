#!/usr/bin/env python3
"""invoke_executor.py — how an agent runtime calls a tool executor through sbxsup.

The runtime hands the executor a JSON payload on stdin and expects JSON on stdout; sbxsup's result
record tells it, without parsing stderr, whether the tool stayed inside its manifest. Run from the
repository root:  python3 examples/runtime/invoke_executor.py   (uses ./build/sbxsup unless $SBXSUP)
"""
import json
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
os.environ.setdefault("SBXSUP", os.path.join(ROOT, "build", "sbxsup"))
import sbxsup  # noqa: E402


def invoke_executor(code: str, manifest: str, payload: dict, workspace: str, tag: str) -> dict:
    """Run one tool call; return what the runtime needs to decide what to do next."""
    r = sbxsup.run(["python3", code], manifest=manifest, workspace=workspace, tag=tag,
                   stdin=json.dumps(payload).encode(), timeout=60)
    if r.refused:
        return {"ok": False, "error": "refused", "reason": r.reason_code, "run": r.run_id}
    try:
        output = json.loads(r.stdout or b"null")
    except ValueError:
        output = None
    return {"ok": r.exit == 0 and r.verdict == "clean", "run": r.run_id, "verdict": r.verdict,
            "exit": r.exit, "counts": r.counts, "output": output}


def main() -> int:
    ex = os.path.join(ROOT, "examples")
    with tempfile.TemporaryDirectory() as ws:
        os.makedirs(os.path.join(ws, "notes"))
        with open(os.path.join(ws, "notes", "todo.txt"), "w") as f:
            f.write("Sandbox review on Monday\n")
        for name in ("notes_search.py", "hostile.py"):
            with open(os.path.join(ex, "executors", name)) as src, open(os.path.join(ws, name), "w") as dst:
                dst.write(src.read())
        manifest = os.path.join(ex, "manifests", "demo-notes.json")
        for i, code in enumerate(("notes_search.py", "hostile.py")):
            res = invoke_executor(os.path.join(ws, code), manifest, {"query": "sandbox"}, ws, "call-%d" % i)
            print("%-16s verdict=%-9s exit=%-3s run=%s counts=%s" % (
                code, res.get("verdict", res.get("error")), res.get("exit", "-"), res.get("run"),
                json.dumps(res.get("counts", {}), sort_keys=True)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
