# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Look for the tests' secret values in what the collection printed or left readable (issue 15, secrets).

    secret_scan.py --canaries FILE_OR_DIR [--canaries ...] PATH [PATH ...]

The canaries are the secret values the molecule scenarios and the end-to-end deploy run with (PVE password
and token, HF tokens, API keys, proxy and index passwords, the SSL key password): YAML or JSON files mapping
a name to a value; a directory means every *.json and *.yml in it (scenarios that generate their secrets
write them there). Every regular file under each PATH (the -vvvv logs, ansible-runner artifacts, unit files)
is searched for every value, also in its URL-encoded and JSON-escaped spellings. A hit prints
``file:line: name`` (never the value) and the exit status is 1.
"""

import argparse
import json
import os
import sys
from dataclasses import dataclass
from urllib.parse import quote

import yaml


@dataclass(frozen=True)
class Hit:
    path: str
    line: int
    name: str


def load_canaries(sources):
    """{name: value} from canary files and directories of them; values shorter than 8 characters are refused."""
    canaries = {}
    for source in sources:
        files = [source]
        if os.path.isdir(source):
            files = sorted(os.path.join(source, n) for n in os.listdir(source) if n.endswith((".json", ".yml", ".yaml")))
        elif not os.path.exists(source):
            continue  # a scenario that generates no secrets writes no file
        for path in files:
            with open(path, encoding="utf-8") as handle:
                data = yaml.safe_load(handle) or {}
            if not isinstance(data, dict):
                raise SystemExit("%s: a mapping of secret names to values was expected" % path)
            for name, value in data.items():
                if not isinstance(value, str) or len(value) < 8:
                    raise SystemExit("%s: secret %r must be a string of at least 8 characters, or its hits mean nothing" % (path, name))
                canaries["%s (%s)" % (name, os.path.basename(path))] = value
    return canaries


def spellings(value):
    """The forms a value takes in output: as is, URL-encoded, JSON-escaped."""
    forms = {value, quote(value, safe=""), json.dumps(value)[1:-1]}
    return [form.encode() for form in forms]


def scan(paths, canaries):
    """Every hit of every canary in the regular files under paths."""
    needles = [(name, form) for name, value in sorted(canaries.items()) for form in spellings(value)]
    hits = []
    for root in paths:
        files = [root] if os.path.isfile(root) else [os.path.join(top, name) for top, _dirs, names in os.walk(root) for name in sorted(names)]
        for path in files:
            if not os.path.isfile(path) or os.path.islink(path):
                continue
            with open(path, "rb") as handle:
                data = handle.read()
            for name, form in needles:
                start = data.find(form)
                while start != -1:
                    hits.append(Hit(path, data.count(b"\n", 0, start) + 1, name))
                    start = data.find(form, start + 1)
    return sorted(set(hits), key=lambda hit: (hit.path, hit.line, hit.name))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--canaries", action="append", required=True, help="canary file or directory")
    parser.add_argument("paths", nargs="+", help="files or directories to search")
    args = parser.parse_args(argv)
    canaries = load_canaries(args.canaries)
    if not canaries:
        parser.error("no canaries were loaded from %s" % ", ".join(args.canaries))
    searched = [p for p in args.paths if os.path.exists(p)]
    hits = scan(searched, canaries)
    for hit in hits:
        print("%s:%d: %s" % (hit.path, hit.line, hit.name))
    print("secret scan: %d secrets, %d paths (%s), %d hits" % (len(canaries), len(searched), ", ".join(searched), len(hits)))
    return 1 if hits else 0


if __name__ == "__main__":
    sys.exit(main())
