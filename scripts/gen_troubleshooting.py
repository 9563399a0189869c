# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write the tables of the troubleshooting guide from the diagnoser's catalog and the budget engine's source.

``python scripts/gen_troubleshooting.py`` rewrites each block between ``.. BEGIN generated: NAME`` and
``.. END generated: NAME`` in ``docs/docsite/rst/guide_troubleshooting.rst``; ``--check`` only reports the blocks
that are out of date (``tests/unit/test_generated_docs.py`` runs it). The blocks:

* ``diagnosis-catalog``: every ``RootCause`` of ``diagnosis/catalog.py``: id, phase, meaning, fixes, check;
* ``budget-root-causes``: the catalog ids that the budget engine's source (``budget/*.py``) can return;
* ``preflight-fail-on``: which verdicts stop the play for each ``llmops_sglang_preflight_fail_on`` value.
"""

from __future__ import annotations

import argparse
import ast
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / ".build" / "collections"))

from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.catalog import CATALOG  # noqa: E402
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.catalog import CATALOG_VERSION  # noqa: E402
from ansible_collections.llmops.sglang.plugins.plugin_utils.preflight import FAIL_ON_VERDICTS  # noqa: E402

GUIDE = ROOT / "docs" / "docsite" / "rst" / "guide_troubleshooting.rst"
BUDGET_DIR = ROOT / "plugins" / "plugin_utils" / "budget"
VERDICTS = ("fits", "degraded", "fails")


def rst_text(text: str) -> str:
    """Text that docutils renders back unchanged inside a table cell: inline markup escaped, one line."""
    text = re.sub(r"([\\*`|])", r"\\\1", " ".join(text.split()))
    text = re.sub(r"_(?!\w)", r"\\_", text)  # a trailing underscore would make a reference
    return "\\" + text if re.match(r"[-+#]|\d+\.", text) else text


def _list_table(header: tuple, widths: tuple, rows: list) -> str:
    lines = [".. list-table::", "   :header-rows: 1", "   :widths: " + " ".join(str(w) for w in widths), ""]
    for row in [header, *rows]:
        for i, cell in enumerate(row):
            cells = cell if isinstance(cell, list) else [cell]
            lead = "   * - " if i == 0 else "     - "
            if len(cells) == 1:
                lines.append(lead + cells[0])
            else:
                lines.append(lead + "* " + cells[0])
                lines.extend("       * " + item for item in cells[1:])
    return "\n".join(lines)


def diagnosis_catalog() -> str:
    rows = [[f"``{c.id}``", rst_text(c.phase), rst_text(f"{c.title}. {c.explanation}"), [rst_text(fix) for fix in c.fix], rst_text(c.verify)] for c in CATALOG]
    intro = (
        f"{len(CATALOG)} root causes, catalog {CATALOG_VERSION} (``python scripts/gen_troubleshooting.py``, "
        "from ``plugins/plugin_utils/diagnosis/catalog.py``). A fix names the numbers the diagnoser parsed "
        "from the log in braces; the first fix whose numbers are all known is the one the play prints."
    )
    return intro + "\n\n" + _list_table(("root cause", "phase", "meaning", "fix", "check"), (14, 8, 30, 34, 14), rows)


def budget_root_causes() -> dict:
    """Catalog id -> the budget modules whose source names it (string constants), in catalog order."""
    ids = {c.id for c in CATALOG}
    found: dict = {}
    for path in sorted(BUDGET_DIR.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in ids:
                found.setdefault(node.value, set()).add(path.name)
    return {c.id: sorted(found[c.id]) for c in CATALOG if c.id in found}


def budget_table() -> str:
    by_id = {c.id: c for c in CATALOG}
    rows = [
        [f"``{cid}``", rst_text(by_id[cid].title), "yes" if by_id[cid].retunable else "no", ", ".join(f"``{name}``" for name in files)]
        for cid, files in budget_root_causes().items()
        if cid != "none"
    ]
    intro = (
        f"{len(rows)} root causes that the budget engine can return besides ``none`` (``python scripts/gen_troubleshooting.py``, "
        "the catalog ids named in ``plugins/plugin_utils/budget/*.py``). *Retunable*: the engine's own fixes "
        "(fewer requests, another fraction or pool split) may cure it, so ``fixes`` is worth reading."
    )
    return intro + "\n\n" + _list_table(("root cause", "meaning", "retunable", "decided in"), (22, 42, 10, 26), rows)


def fail_on_table() -> str:
    rows = [
        [f"``{value}``", ", ".join(f"``{v}``" for v in stops) or "none", ", ".join(f"``{v}``" for v in VERDICTS if v not in stops)]
        for value, stops in FAIL_ON_VERDICTS.items()
    ]
    return _list_table(("llmops_sglang_preflight_fail_on", "stops the play", "reported, the play goes on"), (34, 33, 33), rows)


BLOCKS = {
    "diagnosis-catalog": diagnosis_catalog,
    "budget-root-causes": budget_table,
    "preflight-fail-on": fail_on_table,
}


def render(text: str, name: str, body: str) -> str:
    pattern = re.compile(rf"(\.\. BEGIN generated: {name}\n)(?:.*?\n)?(\.\. END generated: {name}\n)", re.S)
    if not pattern.search(text):
        raise SystemExit(f"{GUIDE.relative_to(ROOT)}: no '.. BEGIN generated: {name}' block to fill")
    return pattern.sub(lambda m: m.group(1) + "\n" + body + "\n\n" + m.group(2), text)


def render_all(text: str) -> str:
    for name, build in BLOCKS.items():
        text = render(text, name, build())
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report out-of-date blocks, change nothing")
    check = parser.parse_args().check
    text = GUIDE.read_text()
    stale = [name for name, build in BLOCKS.items() if render(text, name, build()) != text]
    for name in stale:
        print(("out of date: " if check else "rewrote: ") + f"{GUIDE.relative_to(ROOT)}: {name}")
    if stale and not check:
        GUIDE.write_text(render_all(text))
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
