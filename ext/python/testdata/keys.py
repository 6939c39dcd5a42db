#!/usr/bin/env python3
"""Checks zut_ext.canonical_key against the key name table given as the
first argument (proto/testdata/keys.txt), for the Go test of ext/python.
Prints one line per mismatch and, last, "checked N".
"""
import json
import sys

import zut_ext as zut

n, bad = 0, 0
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        case = json.loads(line)
        n += 1
        try:
            got, err = zut.canonical_key(case["in"]), None
        except zut.KeyNameError as e:
            got, err = None, e
        if "key" in case:
            if err is not None or got != case["key"]:
                bad += 1
                print("canonical_key(%r) = %r, %s, want %r" % (case["in"], got, err, case["key"]))
            elif zut.canonical_key(got) != got:
                bad += 1
                print("canonical_key(%r) = %r, want it unchanged" % (got, zut.canonical_key(got)))
        elif err is None or err.reason != case["error"] or err.key != case["in"]:
            bad += 1
            print("canonical_key(%r) = %r, %r, want the error %r" % (case["in"], got, err and err.reason, case["error"]))
print("checked %d" % n)
sys.exit(1 if bad else 0)
