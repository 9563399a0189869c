# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""``scripts/draft_release.py`` and ``make release``: what can be drafted, the map from SGLang's functions to
SizingBehaviour fields, and drafts of real release pairs.

The package index is a loopback stand-in serving the registry's own release list (PEP 691/700 JSON); the real
pairs read the wheels unpacked under ``.cache/sglang-src`` (``scripts/release_diff.py`` puts them there) and are
skipped when those are absent, since tests never reach PyPI.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import http.server
import json
import pathlib
import subprocess
import sys
import threading

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import draft_release  # noqa: E402
import release_diff  # noqa: E402

from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.behaviour import SizingBehaviour  # noqa: E402
from ansible_collections.llmops.sglang.plugins.plugin_utils.releases import (  # noqa: E402
    RELEASES,
    SIZED_VERSIONS,
    SUPPORTED_VERSIONS,
)


@pytest.fixture(scope="module")
def index_url():
    """A loopback PEP 691 JSON simple index that lists the registry's releases of sglang."""
    body = json.dumps({"meta": {"api-version": "1.1"}, "name": "sglang", "files": [], "versions": list(SUPPORTED_VERSIONS)}).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            found = self.path == "/sglang/"
            self.send_response(200 if found else 404)
            self.send_header("Content-Type", "application/vnd.pypi.simple.v1+json")
            self.end_headers()
            if found:
                self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/{{project}}/"
    server.shutdown()
    server.server_close()


def sources_cached(*versions):
    return all((release_diff.SOURCES / v / "sglang" / "srt").is_dir() for v in versions)


# ---------------------------------------------------------------- what can be drafted


def test_a_release_missing_from_the_index_fails_clearly(index_url, capsys):
    with pytest.raises(SystemExit) as exc:
        draft_release.main(["0.5.24", "--check", "--index", index_url])
    assert str(exc.value).startswith("sglang 0.5.24 is not on the package index")
    assert f"newest there: {SUPPORTED_VERSIONS[-1]}" in str(exc.value)


def test_a_listed_release_passes_the_check(index_url, capsys):
    assert draft_release.main([SUPPORTED_VERSIONS[-1], "--previous", SUPPORTED_VERSIONS[-2], "--check", "--index", index_url]) == 0
    assert f"drafted from {SUPPORTED_VERSIONS[-2]}" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["0.5.x"], "is not an SGLang version"),
        ([SUPPORTED_VERSIONS[-1]], "is already in the registry"),
        (["0.5.24", "--previous", "0.5.8"], "is not in the registry"),
        ([SUPPORTED_VERSIONS[-2], "--previous", SUPPORTED_VERSIONS[-1]], "is not newer than"),
    ],
)
def test_what_cannot_be_drafted_is_refused_before_the_index(argv, message):
    # an index nobody serves: each refusal must come before it is read
    with pytest.raises(SystemExit, match=message):
        draft_release.main(argv + ["--check", "--index", "http://127.0.0.1:9/{project}/"])


def test_sizing_names_follow_the_registry():
    assert draft_release.sizing_name("0.5.22") == "_SIZING_0_5_22"
    assert draft_release.sizing_name("0.5.10.post1") == "_SIZING_0_5_10_post1"


# ---------------------------------------------------------------- the field map


def test_every_behaviour_field_has_one_source_area_in_declaration_order():
    fields = [f.name for f in dataclasses.fields(SizingBehaviour)]
    assert [a.field for a in draft_release.SOURCE_AREAS] == fields, (
        "scripts/draft_release.py SOURCE_AREAS must name, for each SizingBehaviour field, where SGLang decides it"
    )


def test_unread_files_are_indeed_outside_release_diff():
    curated = [f"srt/{glob}" for glob in release_diff.SIZING_MODULES]
    for area in draft_release.SOURCE_AREAS:
        assert area.names or area.modules or area.unread, area.field
        for path in area.unread:
            assert not any(fnmatch.fnmatch(path, glob) for glob in curated), (area.field, path)


CHECKED_RELEASES = ("0.5.9", "0.5.13", "0.5.16", "0.5.21", "0.5.22", "0.5.23")


@pytest.mark.skipif(not sources_cached(*CHECKED_RELEASES), reason="needs the wheels unpacked in .cache/sglang-src")
def test_every_mapped_name_is_defined_in_the_modules_release_diff_reads():
    defined, modules = set(), set()
    for version in CHECKED_RELEASES:
        package = release_diff.SOURCES / version / "sglang"
        for module in release_diff.sizing_modules(package):
            modules.add(module)
            for qualname in release_diff.functions(release_diff.parse(package / module)):
                parts = draft_release.bare(qualname).split(".")
                defined.update(parts)
                defined.update(".".join(parts[i:]) for i in range(len(parts)))
    for area in draft_release.SOURCE_AREAS:
        names = {draft_release.bare(n) for n in area.names}
        assert names <= defined, (area.field, sorted(names - defined))
        assert set(area.modules) <= modules, (area.field, sorted(set(area.modules) - modules))


# ---------------------------------------------------------------- drafts of real pairs


def _behaviour_differences(previous, new):
    a, b = RELEASES[previous].sizing, RELEASES[new].sizing
    return {f.name for f in dataclasses.fields(SizingBehaviour) if getattr(a, f.name) != getattr(b, f.name)}


MODELLED_PAIRS = list(zip(SIZED_VERSIONS, SIZED_VERSIONS[1:]))


@pytest.mark.parametrize("previous, new", MODELLED_PAIRS)
def test_a_draft_lists_every_field_the_registry_changed_between_modelled_releases(previous, new):
    if not sources_cached(previous, new):
        pytest.skip(f"needs .cache/sglang-src/{previous} and {new} (python scripts/release_diff.py {previous} {new})")
    result = draft_release.draft(new, previous)
    listed = {c.field for c in result.changed} | {a.field for a in result.unread}
    assert _behaviour_differences(previous, new) <= listed, sorted(_behaviour_differences(previous, new) - listed)


@pytest.mark.skipif(not sources_cached("0.5.22", "0.5.23"), reason="needs .cache/sglang-src/0.5.22 and 0.5.23")
def test_drafting_0_5_23_as_if_0_5_22_were_the_newest_release(index_url, tmp_path, capsys):
    assert draft_release.main(["0.5.23", "--previous", "0.5.22", "--out", str(tmp_path), "--index", index_url]) == 0
    text = (tmp_path / "0.5.23.md").read_text()
    assert str(tmp_path / "0.5.23.md") in capsys.readouterr().out
    assert "# SGLang 0.5.22 -> 0.5.23: sizing-relevant changes" in text  # (a) the diff report
    assert "_SIZING_0_5_23 = replace(\n    _SIZING_0_5_22,\n" in text  # (b) the entry
    assert '    ("0.5.23", None, None),' in text
    start, end = text.index("_SIZING_0_5_23 = replace("), text.index('("0.5.23", None, None)')
    entry = text[start:end]
    # the three differences releases.py documents between 0.5.22 and 0.5.23, each from its source area
    for field in ("mla_prefill_graph_max_tokens", "requests_per_worker_at_least_one", "messages"):
        assert f"    # {field}=...," in entry
    assert "handle_gpu_memory_settings changed [srt/arg_groups/memory_hook.py:47" in text
    assert "KVCacheConfigurator.resolve_max_num_reqs changed" in text
    assert "`weight_dtype_quirks`: `srt/models/qwen3_5.py`" in text  # read by hand
    for step in draft_release.checklist("0.5.23", "0.5.22"):  # (c) the checklist
        assert step in text


# ---------------------------------------------------------------- one checklist, make release


def test_contributing_md_holds_the_drafts_checklist():
    contributing = (ROOT / "CONTRIBUTING.md").read_text()
    for step in draft_release.checklist("<V>", "<PREV>"):
        assert step in contributing, step


# -o venv -o link: the venv and the collection link are not (re)built by these tests
MAKE = ["make", "-o", "venv", "-o", "link"]


def test_make_release_runs_the_steps_in_order():
    proc = subprocess.run(MAKE + ["-n", "release", "V=0.5.24", "ORACLE=1"], cwd=ROOT, capture_output=True, text=True, check=True)
    steps = [line for line in proc.stdout.splitlines() if "scripts/" in line or "bench/oracle/run.sh" in line]
    assert [s.split()[1] if "scripts/" in s else s for s in steps] == [
        "scripts/draft_release.py",
        "scripts/gen_flag_catalog.py",
        "scripts/gen_arch_catalog.py",
        "scripts/gen_release_pins.py",
        "scripts/draft_release.py",
        'ORACLE_VERSIONS="0.5.24" bash bench/oracle/run.sh',
    ]
    assert "--check" in steps[0] and "--check" not in steps[4]
    without = subprocess.run(MAKE + ["-n", "release", "V=0.5.24"], cwd=ROOT, capture_output=True, text=True, check=True)
    assert "bench/oracle/run.sh" not in without.stdout


def test_make_release_without_a_version_fails_with_the_usage():
    proc = subprocess.run(MAKE + ["-s", "release"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert proc.returncode != 0
    assert "make release: name the new SGLang release, e.g. make release V=0.5.24" in proc.stderr
