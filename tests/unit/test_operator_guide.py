# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The operator's guide (docs/docsite/rst): every page parses without a docutils warning, starts with its
antsibull-docs label and is in extra-docs.yml; the generated troubleshooting tables render the catalog's text
unchanged, and a stale table is caught."""

import importlib.util
import pathlib
import re

import docutils.core
import docutils.utils
import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
RST = ROOT / "docs" / "docsite" / "rst"
PAGES = sorted(RST.glob("*.rst"))


def _generator():
    spec = importlib.util.spec_from_file_location("gen_troubleshooting", ROOT / "scripts" / "gen_troubleshooting.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _text(source):
    """The page as docutils reads it, failing on any warning."""
    doctree = docutils.core.publish_doctree(source, settings_overrides={"halt_level": 2, "report_level": 2})
    return " ".join(doctree.astext().split())


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_page_parses_and_starts_with_its_label(page):
    source = page.read_text(encoding="utf-8")
    assert source.startswith(".. _ansible_collections.llmops.sglang.docsite.%s:\n" % page.stem)
    try:
        _text(source)
    except docutils.utils.SystemMessage as exc:
        pytest.fail("%s: %s" % (page.name, exc))


def test_extra_docs_lists_every_page():
    with open(ROOT / "docs" / "docsite" / "extra-docs.yml", encoding="utf-8") as handle:
        sections = yaml.safe_load(handle)["sections"]
    listed = [stem for section in sections for stem in section["toctree"]]
    assert sorted(listed) == [p.stem for p in PAGES] and len(set(listed)) == len(listed), listed


def test_troubleshooting_tables_render_the_catalog_text_unchanged():
    gen = _generator()
    text = _text(gen.GUIDE.read_text(encoding="utf-8"))
    for cause in gen.CATALOG:
        for part in (cause.id, cause.title, cause.explanation, cause.verify, *cause.fix):
            assert " ".join(part.split()) in text, (cause.id, part)


def test_a_stale_table_is_reported(tmp_path, monkeypatch, capsys):
    gen = _generator()
    source = gen.GUIDE.read_text(encoding="utf-8")
    row = re.search(r"   \* - ``silent_death``\n(?:     .*\n)+", source)
    assert row, "silent_death's row is missing"
    stale = tmp_path / "guide_troubleshooting.rst"
    stale.write_text(source.replace(row.group(0), ""), encoding="utf-8")
    monkeypatch.setattr(gen, "GUIDE", stale)
    monkeypatch.setattr(gen, "ROOT", tmp_path)
    monkeypatch.setattr("sys.argv", ["gen_troubleshooting.py", "--check"])
    assert gen.main() == 1
    assert "out of date: guide_troubleshooting.rst: diagnosis-catalog" in capsys.readouterr().out


def _pveum_lines(text):
    return [line.strip() for line in text.splitlines() if line.strip().startswith("pveum ")]


def test_the_guide_grants_the_token_what_the_readme_quickstart_does():
    """One privilege list: the README's pveum commands are what test_quickstart.py deploys with."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quickstart = readme.split("<!-- BEGIN quickstart -->", 1)[1].split("<!-- END quickstart -->", 1)[0]
    guide = (RST / "guide_quickstart.rst").read_text(encoding="utf-8")
    assert _pveum_lines(quickstart) and _pveum_lines(guide) == _pveum_lines(quickstart)
