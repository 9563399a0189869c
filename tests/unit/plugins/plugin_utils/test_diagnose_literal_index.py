# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The literal index may only skip regexes that cannot match: checked on the corpus and on generated lines."""

from __future__ import annotations

import pathlib
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.catalog import CATALOG
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.classify import NUMBER_PATTERNS, normalize
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.literal_index import (
    LiteralIndex,
    anchor_word,
    required_literals,
)

LOGS = pathlib.Path(__file__).resolve().parents[3] / "fixtures" / "logs"
ITEMS = [(("p", i), p.regex, p.flags) for i, p in enumerate(p for c in CATALOG for p in c.patterns)]
ITEMS += [(("n", i), rx.pattern, rx.flags) for i, (_name, rx, _convert) in enumerate(NUMBER_PATTERNS)]
COMPILED = {key: re.compile(regex, flags) for key, regex, flags in ITEMS}
INDEX = LiteralIndex(ITEMS)
FRAGMENTS = sorted({lit for _key, regex, flags in ITEMS for lit in (required_literals(regex, flags) or ())})


def assert_exact(lines):
    lines = [normalize(line) for line in lines]
    keys = INDEX.keys_per_line([line.lower() for line in lines])
    for line, line_keys in zip(lines, keys):
        for key, regex in COMPILED.items():
            if regex.search(line):
                assert key in line_keys, (key, regex.pattern, line)


def test_required_literals_and_anchor_words():
    assert required_literals(r"Capture cuda graph failed:.{0,200}(?:out of memory|OOM)") == {"capture cuda graph failed:"}
    assert required_literals(r"(?:Prefill|Decode) out of memory\. Try") == {" out of memory. try"}  # the longer
    assert required_literals(r"(?:Prefill|Decode)\d out") == {"prefill", "decode"}
    assert required_literals(r"\d+") is None
    assert anchor_word("capture cuda graph failed:") == "graph"  # "capture" is at the edge, "failed" is common
    assert anchor_word("outofmemoryerror") is None  # a word at the literal's edge may be longer in the line


def test_index_is_exact_on_the_corpus():
    lines = []
    for path in sorted(LOGS.rglob("*.log")):
        lines.extend(path.read_bytes().decode("utf-8", "replace").splitlines())
    assert lines
    assert_exact(lines)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.text(alphabet="aZ_ .:-\t(", max_size=4), st.sampled_from(FRAGMENTS), st.booleans()), min_size=1, max_size=4), st.text(max_size=6))
def test_index_is_exact_on_generated_lines(parts, tail):
    line = "".join(prefix + (fragment.upper() if upper else fragment) for prefix, fragment, upper in parts) + tail
    assert_exact([line, "xx" + line + "yy"])
