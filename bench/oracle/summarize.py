# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Print a Markdown summary of the oracle fixtures (for README.md's results section).

    python bench/oracle/summarize.py
"""

from __future__ import annotations

import collections
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "..", "tests", "fixtures", "oracle")


def summarize(version: str) -> None:
    with open(os.path.join(FIXTURES, f"sglang-{version}.json")) as fh:
        data = json.load(fh)
    cases = data["cases"]
    sized = [c for c in cases if c["result"]]
    errors = [c for c in cases if c["error"]]
    broken = [c for c in cases if c.get("harness_error")]
    print(f"### SGLang {version} ({data['wheel_filename']}, torch {data['torch_version']}, "
          f"transformers {data['transformers_version']})\n")
    print(f"{len(cases)} cases: {len(sized)} sized, {len(errors)} ended in SGLang's own error, "
          f"{len(broken)} harness failures.\n")
    print("| SGLang error | cases |\n|---|---|")
    for (etype, msg), n in collections.Counter(
            (c["error"]["type"], c["error"]["message"][:70]) for c in errors).most_common():
        print(f"| `{etype}: {msg.replace('|', '/')}…` | {n} |")
    print("\n| model | cases | sized | errors |\n|---|---|---|---|")
    per = collections.defaultdict(lambda: [0, 0, 0])
    for c in cases:
        row = per[c["model"]]
        row[0] += 1
        row[1] += bool(c["result"])
        row[2] += bool(c["error"])
    for model, (n, s, e) in sorted(per.items()):
        print(f"| {model} | {n} | {s} | {e} |")
    print()


if __name__ == "__main__":
    for v in ("0.5.23", "0.5.9"):
        summarize(v)
