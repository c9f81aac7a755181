#!/usr/bin/env python3
"""notes_search.py — an honest example executor for sbxsup.

Reads a JSON payload on stdin: {"query": "text", "dir": "notes"} (dir defaults to $NOTES_DIR or
"notes", relative to the working directory), searches the files below it line by line
(case-insensitive) and prints JSON on stdout: {"query": ..., "matches": [{"file", "line", "text"}],
"errors": [...]}. It only touches what its manifest grants (fs:read on the notes).
"""
import json
import os
import sys


def main():
    try:
        payload = json.load(sys.stdin)
    except ValueError as e:
        print(json.dumps({"error": "bad payload: %s" % e}))
        return 2
    query = str(payload.get("query", "")).lower()
    top = payload.get("dir") or os.environ.get("NOTES_DIR") or "notes"
    matches, errors = [], []
    for root, dirs, files in os.walk(top, onerror=lambda e: errors.append(str(e))):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(root, name)
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    for n, line in enumerate(f, 1):
                        if query and query in line.lower():
                            matches.append({"file": path, "line": n, "text": line.rstrip("\n")})
            except OSError as e:
                errors.append("%s: %s" % (path, e.strerror))
    print(json.dumps({"query": query, "matches": matches, "errors": errors}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
