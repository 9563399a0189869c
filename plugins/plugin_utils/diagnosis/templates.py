# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Catalog patterns made from SGLang's own message templates (``data/sglang-messages.json``).

Every template that :mod:`message_map` maps to a catalog id becomes a :class:`catalog.Pattern` of that cause
(``template_patterns(cause_id)``), so that each release's spelling of a message (typos included) is recognised
without a hand-written pattern:

* the regex is one line of the message (the first line, or the line with the most literal text when the first
  has fewer than :data:`MIN_LITERAL` characters of it), up to :data:`MAX_LITERAL` characters of literal text:
  its literal text escaped, each run-time value a bounded lazy wildcard, runs of whitespace ``\\s+``; a bare
  ``assert cond`` is matched as the traceback's source line
  ``assert <cond>`` (its first line);
* a template is not made a pattern when its line's longest literal run is shorter than :data:`MIN_LITERAL`
  characters, holds no whole uncommon word (``literal_index.anchor_word``: the literal index could not key it)
  or when its line has fewer than :data:`MIN_DISTINCT_WORDS` words outside ``literal_index.COMMON_WORDS`` and
  :data:`GENERIC_WORDS` (``{} is not supported for the {} {}``): such a regex would match unrelated lines;
* weight :data:`ERROR_WEIGHT` for a raise, an assert or an error log line, :data:`WARNING_WEIGHT` (and
  ``warning=True``) for a warning; label ``SGLang <kind> (<first>-<last release>)``; ``wrapper`` as the rule says.

The patterns are computed once by :func:`build_pattern_table` (``make templates``) into
``data/sglang-message-patterns.json``; :func:`template_patterns` reads that table lazily, once.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from functools import lru_cache

from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.catalog import Pattern
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.literal_index import COMMON_WORDS, WORD_RE, anchor_word, required_literals
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.message_map import INDEX_PATH, id_templates, load_index

# The patterns, computed from the index and message_map's rules by build_pattern_table() and committed (``make
# templates`` writes it; a unit test checks it is current): mapping 15,000 templates through the rules takes about
# a second, reading the table a few milliseconds.
PATTERNS_PATH = os.path.join(os.path.dirname(INDEX_PATH), "sglang-message-patterns.json")
TABLE_FIELDS = ("cause", "regex", "weight", "label", "wrapper", "warning")

ERROR_WEIGHT = 85
WARNING_WEIGHT = 40
MIN_LITERAL = 20
MAX_LITERAL = 120
WILDCARD = r".{0,200}?"
# Words any library's error message is made of: a template needs MIN_DISTINCT_WORDS others to be a pattern.
GENERIC_WORDS = frozenset(
    (
        "all any but can cannot currently does expected found got given have has into invalid must no none only required requires set should "
        "support supported supports than that unsupported valid when which yet you your"
    ).split()
)
MIN_DISTINCT_WORDS = 2

_FIELD_RE = re.compile(r"\{\{|\}\}|\{\}")
_SPACES_RE = re.compile(r"\s{2,}")
_SPECIAL_RE = re.compile(r"[.^$*+?{}\[\]\\|()]")


def _pieces(text):
    """The template as literal strings and ``None`` for each run-time value (``{{``/``}}`` are literal braces)."""
    out = []
    literal = []
    pos = 0
    for match in _FIELD_RE.finditer(text):
        start = match.start()
        literal.append(text[pos:start])
        if match.group(0) == "{}":
            out.append("".join(literal))
            out.append(None)
            literal = []
        else:
            literal.append(match.group(0)[0])
        pos = match.end()
    literal.append(text[pos:])
    out.append("".join(literal))
    return [piece for piece in out if piece != ""]


def _lines(pieces):
    """Split the pieces at the literal newlines: one list of pieces per line of the message."""
    lines = [[]]
    for piece in pieces:
        if piece is None:
            lines[-1].append(None)
            continue
        first, *rest = piece.split("\n")
        if first:
            lines[-1].append(first)
        for part in rest:
            lines.append([part] if part else [])
    return lines


def _literal_size(line):
    return sum(len(piece.strip()) for piece in line if piece is not None)


def _escape(literal):
    """The literal as a regex (only the metacharacters escaped, so the table stays readable); runs of
    whitespace match any run."""
    return r"\s+".join(_SPECIAL_RE.sub(r"\\\g<0>", part) for part in _SPACES_RE.split(literal))


def _opening(line):
    """The line's pieces up to about :data:`MAX_LITERAL` characters of literal text, cut after a whole word: the
    opening identifies a message, and a log may cut a long line."""
    out = []
    size = 0
    for piece in line:
        if piece is None:
            out.append(piece)
            continue
        if size + len(piece) > MAX_LITERAL:
            cut = piece.rfind(" ", 0, MAX_LITERAL - size)
            if cut > 0:
                out.append(piece[:cut])
            elif not any(p is not None for p in out):
                out.append(piece)
            break
        out.append(piece)
        size += len(piece)
    while out and out[-1] is None:
        out.pop()
    return out


def template_regex(template):
    """The regex of one template, or None when it is too short or too common to be evidence."""
    if template.kind == "assert:condition":
        condition = template.text.replace("{{", "{").replace("}}", "}").split("\n")[0].strip()
        if len(condition) < MIN_LITERAL:
            return None
        regex = r"^\s*assert\s+" + _escape(condition)
    else:
        lines = [line for line in _lines(_pieces(template.text)) if _literal_size(line)]
        if not lines:
            return None
        line = lines[0] if _literal_size(lines[0]) >= MIN_LITERAL else max(lines, key=_literal_size)
        while line and (line[0] is None or not line[0].strip()):
            line = line[1:]
        while line and (line[-1] is None or not line[-1].strip()):
            line = line[:-1]
        if not line:
            return None
        line = [line[0].lstrip()] + line[1:]
        line = line[:-1] + [line[-1].rstrip()]
        if max(len(piece) for piece in line if piece is not None) < MIN_LITERAL:
            return None
        regex = "".join(WILDCARD if piece is None else _escape(piece) for piece in _opening(line))
    literals = required_literals(regex)
    if not literals or any(anchor_word(literal) is None for literal in literals):
        return None
    if len(set(WORD_RE.findall(regex.lower())) - COMMON_WORDS - GENERIC_WORDS) < MIN_DISTINCT_WORDS:
        return None
    return regex


def _label(template, releases):
    first, last = releases[template.first_release].version, releases[template.last_release].version
    return f"SGLang {template.kind} ({first})" if first == last else f"SGLang {template.kind} ({first}-{last})"


def build_pattern_table():
    """The pattern table computed from the index and the rules: one row per distinct (cause, regex), in index
    order, labelled with the releases of the first template that gives it (``make templates`` writes it)."""
    releases = load_index().releases
    seen = set()
    rows = []
    for template, rule in id_templates():
        regex = template_regex(template)
        if regex is None or (rule.target, regex) in seen:
            continue
        seen.add((rule.target, regex))
        warning = template.is_warning
        rows.append([rule.target, regex, WARNING_WEIGHT if warning else ERROR_WEIGHT, _label(template, releases), rule.wrapper, warning])
    return {"index_sha256": index_digest(), "fields": list(TABLE_FIELDS), "patterns": rows}


def index_digest():
    with open(INDEX_PATH, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


@lru_cache(maxsize=1)
def patterns_by_cause():
    """{cause id: (Pattern, ...)} read once from the committed pattern table."""
    with open(PATTERNS_PATH, encoding="utf-8") as handle:
        table = json.load(handle)
    out = {}
    for cause_id, regex, weight, label, wrapper, warning in table["patterns"]:
        out.setdefault(cause_id, []).append(Pattern(regex, weight, label, wrapper=wrapper, warning=warning))
    return {cause_id: tuple(patterns) for cause_id, patterns in out.items()}


def template_patterns(cause_id):
    """The template patterns of one catalog cause (empty for a cause no template maps to)."""
    return patterns_by_cause().get(cause_id, ())
