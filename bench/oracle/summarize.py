# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Print a Markdown summary of the oracle fixtures (for README.md's results section).

python bench/oracle/summarize.py [--overview] [--no-models] [--readme] [VERSION ...]
    default: every fixture, newest release first; --overview: one row per fixture;
    --no-models: leave out the per-model table; --readme: rewrite README.md's results (the overview and the
    0.5.23 / 0.5.9 sections) from the fixtures
"""

from __future__ import annotations

import collections
import contextlib
import glob
import io
import json
import os
import re
import sys

from cases import release_key

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "..", "tests", "fixtures", "oracle")
MODEL_DIR = re.compile(r"/tmp/oracle-model-\w+")  # harness_common.make_model_dir's temporary checkpoint folder


def summarize(version: str, models: bool = True) -> None:
    with open(os.path.join(FIXTURES, f"sglang-{version}.json")) as fh:
        data = json.load(fh)
    cases = data["cases"]
    sized = [c for c in cases if c["result"]]
    errors = [c for c in cases if c["error"]]
    broken = [c for c in cases if c.get("harness_error")]
    print(f"### SGLang {version} ({data['wheel_filename']}, torch {data['torch_version']}, transformers {data['transformers_version']})\n")
    print(f"{len(cases)} cases: {len(sized)} sized, {len(errors)} ended in SGLang's own error, {len(broken)} harness failures.\n")
    print("| SGLang error | cases |\n|---|---|")
    messages = collections.Counter((c["error"]["type"], MODEL_DIR.sub("<model dir>", c["error"]["message"])[:70]) for c in errors)
    for (etype, msg), n in messages.most_common():
        print(f"| `{etype}: {msg.replace('|', '/')}…` | {n} |")
    if not models:
        print()
        return
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


def present() -> list[str]:
    names = (os.path.basename(p).removeprefix("sglang-").removesuffix(".json") for p in glob.glob(os.path.join(FIXTURES, "sglang-*.json")))
    return sorted(names, key=release_key, reverse=True)


def overview(versions: list[str]) -> None:
    print("| release | harness | cases | sized | SGLang errors | harness failures |\n|---|---|---|---|---|---|")
    for version in versions:
        with open(os.path.join(FIXTURES, f"sglang-{version}.json")) as fh:
            data = json.load(fh)
        cases = data["cases"]
        harness = data["generated_by"].split("+ ")[-1].rstrip(")")
        print(
            f"| {version} | `{harness}` | {len(cases)} | {sum(1 for c in cases if c['result'])} | "
            f"{sum(1 for c in cases if c['error'])} | {sum(1 for c in cases if c.get('harness_error'))} |"
        )
    print()


README = os.path.join(HERE, "README.md")
README_SECTIONS = ("0.5.23", "0.5.9")


def _captured(fn, *args, **kwargs) -> str:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        fn(*args, **kwargs)
    return buffer.getvalue()


def write_readme() -> None:
    """Replace the overview table and the per-release sections of README.md with what the fixtures hold now."""
    with open(README, encoding="utf-8") as fh:
        text = fh.read()
    table = _captured(overview, present()).rstrip("\n") + "\n"
    start = text.index("| release | harness | cases |")
    end = text.index("\n\n", start) + 1
    text = text[:start] + table + text[end:]
    for version in README_SECTIONS:
        section = _captured(summarize, version, models=False).rstrip("\n") + "\n"
        start = text.index(f"### SGLang {version} (")
        ends = [i for i in (text.find("\n### ", start + 5), text.find("\n## ", start + 5)) if i != -1]
        end = min(ends) + 1 if ends else len(text)
        text = text[:start] + section + ("\n" if end < len(text) else "") + text[end:]
    with open(README, "w", encoding="utf-8") as fh:
        fh.write(text)


if __name__ == "__main__":
    flags = {a for a in sys.argv[1:] if a.startswith("--")}
    versions = [a for a in sys.argv[1:] if not a.startswith("--")] or present()
    if "--readme" in flags:
        write_readme()
    elif "--overview" in flags:
        overview(versions)
    else:
        for v in versions:
            summarize(v, models="--no-models" not in flags)
