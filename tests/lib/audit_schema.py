#!/usr/bin/env python3
"""tests/lib/audit_schema.py — validate audit lines against docs/audit-schema.json (stdlib only).

Usage: audit_schema.py [--schema FILE] AUDIT_FILE...   prints FILE:LINE: problem, exits 1 on any.
As a module: check_file(path) -> list of problems (used by tests/lib.sh audit_has, so every audit
line an integration test reads is checked against the contract).

Implements the JSON Schema keywords the schema uses (type, const, enum, pattern, minimum, maximum,
minLength, maxLength, minItems, items, required, properties, additionalProperties, propertyNames,
anyOf, allOf, if/then, local $ref). An unknown keyword is an error, so the schema cannot silently
use something this checker ignores.
"""
import json
import os
import re
import sys

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'docs', 'audit-schema.json')
ANNOT = {'$schema', '$id', 'title', 'description', '$defs', '$comment'}
TYPES = {
    'object': lambda v: isinstance(v, dict),
    'array': lambda v: isinstance(v, list),
    'string': lambda v: isinstance(v, str),
    'integer': lambda v: isinstance(v, int) and not isinstance(v, bool),
    'number': lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    'boolean': lambda v: isinstance(v, bool),
    'null': lambda v: v is None,
}


class Checker:
    def __init__(self, schema):
        self.root = schema

    def ref(self, r):
        if not r.startswith('#/'):
            raise ValueError('only local $ref: ' + r)
        node = self.root
        for tok in r[2:].split('/'):
            node = node[tok.replace('~1', '/').replace('~0', '~')]
        return node

    def errors(self, s, v, path='$'):
        out = []
        for k, a in s.items():
            if k in ANNOT or k == 'then':
                continue
            if k == '$ref':
                out += self.errors(self.ref(a), v, path)
            elif k == 'type':
                ts = a if isinstance(a, list) else [a]
                if not any(TYPES[t](v) for t in ts):
                    out.append('%s: %r is not of type %s' % (path, v, '/'.join(ts)))
            elif k == 'const':
                if v != a or (type(v) is bool) != (type(a) is bool):
                    out.append('%s: %r is not %r' % (path, v, a))
            elif k == 'enum':
                if v not in a or isinstance(v, bool):
                    out.append('%s: %r is not one of %s' % (path, v, ', '.join(map(str, a))))
            elif k == 'pattern':
                if isinstance(v, str) and not re.search(a, v):
                    out.append('%s: %r does not match %s' % (path, v, a))
            elif k in ('minimum', 'maximum'):
                if TYPES['number'](v) and (v < a if k == 'minimum' else v > a):
                    out.append('%s: %r is %s %r' % (path, v, 'below' if k == 'minimum' else 'above', a))
            elif k in ('minLength', 'maxLength'):
                if isinstance(v, str) and (len(v) < a if k == 'minLength' else len(v) > a):
                    out.append('%s: string length %d violates %s %d' % (path, len(v), k, a))
            elif k == 'minItems':
                if isinstance(v, list) and len(v) < a:
                    out.append('%s: fewer than %d items' % (path, a))
            elif k == 'items':
                if isinstance(v, list):
                    for i, x in enumerate(v):
                        out += self.errors(a, x, '%s[%d]' % (path, i))
            elif k == 'required':
                if isinstance(v, dict):
                    out += ['%s: missing member "%s"' % (path, m) for m in a if m not in v]
            elif k == 'properties':
                if isinstance(v, dict):
                    for m, sub in a.items():
                        if m in v:
                            out += self.errors(sub, v[m], '%s.%s' % (path, m))
            elif k == 'additionalProperties':
                if isinstance(v, dict):
                    known = s.get('properties', {})
                    for m, x in v.items():
                        if m in known:
                            continue
                        if a is False:
                            out.append('%s: unexpected member "%s"' % (path, m))
                        elif isinstance(a, dict):
                            out += self.errors(a, x, '%s.%s' % (path, m))
            elif k == 'propertyNames':
                if isinstance(v, dict):
                    for m in v:
                        out += self.errors(a, m, '%s{%s}' % (path, m))
            elif k == 'anyOf':
                if all(self.errors(sub, v, path) for sub in a):
                    out.append('%s: matches none of %s' % (path, json.dumps(a)))
            elif k == 'allOf':
                for sub in a:
                    out += self.errors(sub, v, path)
            elif k == 'if':
                if not self.errors(a, v, path) and 'then' in s:
                    out += self.errors(s['then'], v, path)
            else:
                raise ValueError('audit-schema.json uses "%s", which tests/lib/audit_schema.py does not implement' % k)
        return out


_cache = {}


def checker(schema_path=SCHEMA):
    if schema_path not in _cache:
        with open(schema_path, encoding='utf-8') as f:
            _cache[schema_path] = Checker(json.load(f))
    return _cache[schema_path]


def check_line(line, schema_path=SCHEMA):
    try:
        o = json.loads(line)
    except ValueError as e:
        return ['not JSON: %s' % e]
    return checker(schema_path).errors(checker(schema_path).root, o)


def check_file(path, schema_path=SCHEMA, skip_non_json=False):
    probs = []
    with open(path, encoding='utf-8', errors='replace') as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line.strip():
                continue
            if skip_non_json and not line.lstrip().startswith('{'):
                continue  # a test's own output mixed into the file (audit to stderr)
            for p in check_line(line, schema_path):
                probs.append('%s:%d: %s' % (path, n, p))
    return probs


def main(argv):
    schema = SCHEMA
    if len(argv) > 2 and argv[1] == '--schema':
        schema, argv = argv[2], argv[2:]
    bad = 0
    for p in argv[1:]:
        for line in check_file(p, schema):
            print(line)
            bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
