# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Generate the Prometheus metric catalog of an SGLang release from its real wheel.

``python scripts/gen_metric_catalog.py VERSION...`` reads each release's wheel (``.cache/wheels``, downloaded
once with ``pip download --no-deps`` as for the flag catalog) with :mod:`ast` only, and writes
``plugins/plugin_utils/data/sglang-metrics-<V>.json``: every ``Gauge``, ``Counter``, ``Histogram`` and
``Summary`` that ``sglang/srt`` constructs with a literal ``name="sglang:..."``, with its type and file. The
Grafana dashboard (``dashboards/sglang.json``) is checked against these names (tests/unit/test_dashboard.py).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_flag_catalog import DATA, REPO, download_wheel  # noqa: E402  (same wheel, same cache)

KINDS = ("Gauge", "Counter", "Histogram", "Summary")


def _metrics(tree: ast.AST):
    """(name, kind) of each metric constructor call with a literal sglang: name."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        kind = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if kind not in KINDS:
            continue
        names = [kw.value for kw in node.keywords if kw.arg == "name"] + node.args[:1]
        for value in names:
            if isinstance(value, ast.Constant) and isinstance(value.value, str) and value.value.startswith("sglang:"):
                yield value.value, kind
                break


def build_catalog(version: str) -> dict:
    wheel = download_wheel(version)
    metrics: dict[str, dict[str, str]] = {}
    with zipfile.ZipFile(wheel) as archive:
        for member in sorted(archive.namelist()):
            if not (member.startswith("sglang/srt/") and member.endswith(".py")):
                continue
            tree = ast.parse(archive.read(member).decode("utf-8-sig"), filename=member)
            for name, kind in _metrics(tree):
                metrics.setdefault(name, {"type": kind, "file": member.removeprefix("sglang/srt/")})
    return {
        "sglang_version": version,
        "wheel_filename": wheel.name,
        "wheel_sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
        "generated_by": "scripts/gen_metric_catalog.py (ast over the wheel's source; nothing imported)",
        "metrics": dict(sorted(metrics.items())),
    }


def main(argv: list[str]) -> int:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("versions", nargs="+", metavar="VERSION")
    args = cli.parse_args(argv)
    for version in args.versions:
        catalog = build_catalog(version)
        out = DATA / f"sglang-metrics-{version}.json"
        out.write_text(json.dumps(catalog, indent=1) + "\n", encoding="utf-8")
        print(f"{out.relative_to(REPO)}: {len(catalog['metrics'])} metrics")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
