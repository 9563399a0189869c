# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run every oracle case of one SGLang version and write its JSON fixture.

    python driver.py --version 0.5.23 --venv bench/.venv-oracle-0.5.23 \
        --wheel bench/.wheels/sglang-0.5.23-....whl [--only ID_PREFIX ...] [--merge] [--fixture-dir DIR]

Cases are grouped by GPU type and count; each group is one harness process
(import once, fork per case), and groups run one after the other.  The
release's harness adapter comes from adapters.py.  With ``--merge`` the new
records replace those of the same id in the existing fixture, so the fixture
can grow in steps.  ``--fixture-dir`` writes elsewhere (e.g. to compare a
regeneration with the committed fixture).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from adapters import RELEASES  # noqa: E402
from cases import cases, version_args  # noqa: E402

FIXTURE_DIR = os.path.join(REPO, "tests", "fixtures", "oracle")


def sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def venv_versions(python: str) -> dict:
    code = "import importlib.metadata as m, json; print(json.dumps({p: m.version(p) for p in ('torch', 'transformers', 'sglang')}))"
    return json.loads(subprocess.check_output([python, "-c", code], text=True))


def fixture_record(case: dict, rec: dict, version: str) -> dict:
    out = {
        "id": case["id"],
        "model": case["model"],
        "gpu": {k: case["gpu"][k] for k in ("name", "memory_total_mib", "compute_capability", "count")},
        "pre_model_load_gib": case["pre_model_load_gib"],
        "server_args": version_args(version, case["server_args"]),
        "env": case["env"],
        "weights": rec.get("weights"),
        "resolved": rec.get("resolved"),
        "result": rec.get("result"),
        "error": rec.get("error"),
        "log_lines": rec.get("log_lines", []),
    }
    if "expect" in case:
        out["notes_expect"] = case["expect"]
    if "deviation" in case:
        out["notes_deviation"] = case["deviation"]
    if rec.get("shim_calls"):
        out["shim_calls"] = rec["shim_calls"]  # a CUDA-only stand-in was called: not SGLang's outcome
    if rec.get("harness_error"):
        out["harness_error"] = rec["harness_error"].strip().splitlines()[-1][:500]
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--version", required=True, choices=sorted(RELEASES))
    ap.add_argument("--venv", required=True)
    ap.add_argument("--wheel", required=True)
    ap.add_argument("--only", nargs="*", default=None, help="case id prefixes to run")
    ap.add_argument("--merge", action="store_true", help="update the existing fixture in place")
    ap.add_argument("--timeout", type=int, default=3600, help="seconds per GPU group")
    ap.add_argument("--fixture-dir", default=FIXTURE_DIR, help="where sglang-<V>.json is written")
    args = ap.parse_args()
    harness = RELEASES[args.version].harness

    python = os.path.join(args.venv, "bin", "python")
    todo = cases(args.version)
    if args.only:
        todo = [c for c in todo if any(c["id"].startswith(p) for p in args.only)]
    groups: dict[tuple, list] = {}
    for c in todo:
        groups.setdefault((c["gpu"]["name"], c["gpu"]["count"]), []).append(c)

    records: dict[str, dict] = {}
    tmp = tempfile.mkdtemp(prefix="oracle-run-")
    t0 = time.time()
    for (gpu, count), group in groups.items():
        gpath = os.path.join(tmp, "group.json")
        opath = os.path.join(tmp, "out.jsonl")
        if os.path.exists(opath):
            os.remove(opath)
        with open(gpath, "w") as fh:
            json.dump(group, fh)
        print(f"== {gpu} x{count}: {len(group)} cases", file=sys.stderr, flush=True)
        try:
            subprocess.run([python, os.path.join(HERE, harness), gpath, opath, args.version], timeout=args.timeout, stdout=subprocess.DEVNULL, check=False)
        except subprocess.TimeoutExpired:
            print(f"   group timed out after {args.timeout} s", file=sys.stderr)
        done = {}
        if os.path.exists(opath):
            for line in open(opath):
                rec = json.loads(line)
                done[rec["id"]] = rec
        for c in group:
            rec = done.get(c["id"], {"harness_error": "no record (group timed out or crashed)"})
            records[c["id"]] = fixture_record(c, rec, args.version)

    path = os.path.join(args.fixture_dir, f"sglang-{args.version}.json")
    vers = venv_versions(python)
    fixture = None
    if args.merge and os.path.exists(path):
        fixture = json.load(open(path))
    if fixture is None:
        fixture = {"cases": []}
    fixture.update(
        {
            "sglang_version": args.version,
            "wheel_filename": os.path.basename(args.wheel),
            "wheel_sha256": sha256(args.wheel),
            "generated_by": "bench/oracle/run.sh (driver.py + %s)" % harness,
            "torch_version": vers["torch"],
            "transformers_version": vers["transformers"],
        }
    )
    assert vers["sglang"] == args.version, vers
    order = [c["id"] for c in cases(args.version)]
    merged = {c["id"]: c for c in fixture["cases"]}
    merged.update(records)
    fixture["cases"] = [merged[i] for i in order if i in merged]
    os.makedirs(args.fixture_dir, exist_ok=True)
    with open(path, "w") as fh:
        json.dump(fixture, fh, indent=1, sort_keys=False)
        fh.write("\n")
    n = len(fixture["cases"])
    ok = sum(1 for c in fixture["cases"] if c["result"] is not None)
    err = sum(1 for c in fixture["cases"] if c["error"] is not None and not c.get("harness_error"))
    broken = sum(1 for c in fixture["cases"] if c.get("harness_error"))
    shims = sum(1 for c in fixture["cases"] if c.get("shim_calls"))
    print(
        f"wrote {path}: {n} cases, {ok} sized, {err} SGLang errors, {broken} harness failures, {shims} with shim calls, {time.time() - t0:.0f} s this run",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
