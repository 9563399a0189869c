# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Find which of many regexes can match a line without running them all.

Python's ``re`` tries every branch of a big alternation at every position, which is far too slow for a few
hundred patterns over a 500-line tail. Instead each regex is parsed once for a literal it cannot match
without (for example ``Capture cuda graph failed`` in ``Capture cuda graph failed:.{0,200}out of memory``), and
a whole word inside that literal becomes its key. A line is split into lower-case words once; only the
regexes keyed by one of its words (or whose literal has no whole word and is found as a substring) are run.
The index is exact: it only skips regexes that cannot match.
"""

from __future__ import annotations

import bisect
import re

try:  # Python 3.11+
    import re._parser as _sre_parse
    from re._constants import BRANCH, LITERAL, MAX_REPEAT, MIN_REPEAT, SUBPATTERN

    try:
        from re._constants import POSSESSIVE_REPEAT
    except ImportError:  # pragma: no cover - Python 3.11 has it, kept for safety
        POSSESSIVE_REPEAT = MAX_REPEAT
except ImportError:  # pragma: no cover - Python < 3.11
    import sre_parse as _sre_parse  # pylint: disable=deprecated-module
    from sre_constants import BRANCH, LITERAL, MAX_REPEAT, MIN_REPEAT, SUBPATTERN  # pylint: disable=deprecated-module

    POSSESSIVE_REPEAT = MAX_REPEAT

WORD_RE = re.compile(r"[a-z]+")
_LETTER = re.compile(r"[A-Za-z]")


def _best(candidates):
    candidates = [c for c in candidates if c]
    if not candidates:
        return None
    return max(candidates, key=lambda alts: min(len(a) for a in alts))


def _required(items):
    """A set of literals one of which every match contains, or None."""
    candidates = []
    run = []
    for op, arg in items:
        if op is LITERAL:
            run.append(chr(arg))
            continue
        if run:
            candidates.append({"".join(run)})
            run = []
        if op is SUBPATTERN:
            candidates.append(_required(arg[-1]))
        elif op is BRANCH:
            branches = [_required(branch) for branch in arg[1]]
            if all(branches):
                candidates.append(set().union(*branches))
        elif op in (MAX_REPEAT, MIN_REPEAT, POSSESSIVE_REPEAT) and arg[0] >= 1:
            candidates.append(_required(arg[2]))
    if run:
        candidates.append({"".join(run)})
    return _best(candidates)


def required_literals(regex, flags=0):
    """Literals (lower-cased) of which every match of ``regex`` contains at least one; None if there are none."""
    found = _required(_sre_parse.parse(regex, flags))
    return None if found is None else {literal.lower() for literal in found}


# Words too common in SGLang / torch logs to narrow anything down: literals keyed only by these are looked up
# as substrings instead. The path words are in every traceback frame ("/sglang/python/sglang/srt/...").
COMMON_WORDS = frozenset(
    (
        "a an and are as at be by error failed for from gpu in init is manager memory model not of on or out please "
        "process server size status the this to try use value with sglang python packages site"
    ).split()
)


def anchor_word(literal):
    """The longest uncommon word that is whole inside ``literal`` (no letter next to it within it), or None."""
    best = None
    for match in WORD_RE.finditer(literal):
        start, end = match.span()
        word = match.group(0)
        if start == 0 or end == len(literal) or len(word) < 3 or word in COMMON_WORDS:
            continue  # at the literal's edge the word may continue in the line
        if best is None or len(word) > len(best):
            best = word
    return best


class LiteralIndex:
    """Map lines to the keys of the regexes that might match them."""

    def __init__(self, items):
        self.by_word = {}
        substrings = {}
        self.always = set()
        for key, regex, flags in items:
            literals = required_literals(regex, flags)
            if not literals or any("\n" in literal for literal in literals):
                self.always.add(key)
                continue
            for literal in literals:
                word = anchor_word(literal)
                if word:
                    self.by_word.setdefault(word, set()).add(key)
                else:
                    substrings.setdefault(literal, set()).add(key)
        self.substrings = sorted(substrings.items())

    def keys_per_line(self, low_lines):
        """For each lower-cased line, the keys of the regexes that might match it."""
        keys = [set(self.always) for _line in low_lines]
        by_word = self.by_word
        for index, low in enumerate(low_lines):
            for word in WORD_RE.findall(low):
                hit = by_word.get(word)
                if hit:
                    keys[index].update(hit)
        # Literals without a whole word: one str.find pass over the joined text instead of a test per line.
        blob = "\n".join(low_lines)
        starts = []
        offset = 0
        for low in low_lines:
            starts.append(offset)
            offset += len(low) + 1
        for literal, literal_keys in self.substrings:
            pos = blob.find(literal)
            while pos >= 0:
                index = bisect.bisect_right(starts, pos) - 1
                keys[index].update(literal_keys)
                next_line = starts[index + 1] if index + 1 < len(starts) else len(blob)
                pos = blob.find(literal, next_line)
        return keys
