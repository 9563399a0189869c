# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read the end of a log cheaply and find the last launch marker (target side, Python 3.8+ stdlib only).

The launch marker is one line that every launch made by this collection writes before SGLang starts
(the sglang_service role's unit does it in ExecStartPre, from systemd's ``$INVOCATION_ID``)::

    === llmops.sglang launch 2026-11-29T21:20:32Z invocation=5f0c0f6c2b9e4a6f9d5f8e0a1b2c3d4e ===

Only lines after the last marker belong to the current launch. The marker's invocation id is the systemd
invocation of the run that wrote it, so a marker from an earlier run can be told apart from the current one.

The log directory belongs to the service account while the reader runs as root, so the log is opened
without following a symlink (``O_NOFOLLOW``), must be a regular file, and may not sit under a symlinked
directory that root does not own: the service account cannot point root's read at another file.
"""

from __future__ import annotations

import os
import re
import stat

MARKER_PREFIX = "=== llmops.sglang launch "
MARKER_RE = re.compile(r"=== llmops\.sglang launch (?P<time>\S+) invocation=(?P<invocation>[0-9A-Za-z_-]*) ===")
_MARKER_PREFIX_BYTES = MARKER_PREFIX.encode("ascii")
_BLOCK = 1 << 20
_FIRST_READ = 4096
_MAX_MARKER_LINE = 512


class UnsafeLogPathError(OSError):
    """The log path could lead root's read to another file (a symlink, a device, a FIFO); names the path."""


def _refuse_symlinked_parents(path):
    """Refuse a path with a directory component that is a symlink not owned by root."""
    parent = os.path.dirname(os.path.abspath(path))
    checked = "/"
    for part in [p for p in parent.split("/") if p]:
        checked = os.path.join(checked, part)
        try:
            info = os.lstat(checked)
        except FileNotFoundError:
            return
        if stat.S_ISLNK(info.st_mode) and info.st_uid != 0:
            raise UnsafeLogPathError(
                "refusing to read log %s: its directory component %s is a symlink owned by uid %d, not root; "
                "point the path at the real log directory" % (path, checked, info.st_uid)
            )


def _open_log(path):
    """The log opened read-only without following a final symlink, or None when it does not exist."""
    _refuse_symlinked_parents(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        if os.path.islink(path):
            raise UnsafeLogPathError(
                "refusing to read log %s: it is a symlink (to %s); the service's log must be a regular file" % (path, os.readlink(path))
            ) from None
        raise exc
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise UnsafeLogPathError(
            "refusing to read log %s: it is not a regular file (mode %o); the service's log must be a regular file" % (path, stat.S_IFMT(mode))
        )
    return os.fdopen(fd, "rb")


def format_marker(iso_time, invocation):
    """The marker line (without newline) for a launch at ``iso_time`` by systemd invocation ``invocation``."""
    return "%s%s invocation=%s ===" % (MARKER_PREFIX, iso_time, invocation or "")


def parse_marker(line):
    """``{'time', 'invocation'}`` from a marker line, or None when the line is not a marker."""
    match = MARKER_RE.search(line or "")
    if not match:
        return None
    return {"time": match.group("time"), "invocation": match.group("invocation")}


def _decode(raw, max_line_length):
    text = raw.decode("utf-8", "replace")
    if len(text) > max_line_length:
        return text[:max_line_length] + " [... %d more characters cut]" % (len(text) - max_line_length), True
    return text, False


def _read_window(handle, size, max_bytes, lines, since_marker):
    """Read backwards in growing chunks until ``lines`` lines (or the marker) are in, at most ``max_bytes``."""
    want = min(size, max_bytes)
    # First guess: a fresh launch's marker is near the end; otherwise ~128 bytes a line (SGLang lines are
    # mostly 80-200). Grown 4x while too short.
    chunk = min(want, _FIRST_READ if since_marker else max(_FIRST_READ, 128 * (lines or 0)))
    while True:
        start = size - chunk
        handle.seek(start)
        data = handle.read(chunk)
        if chunk >= want or (lines is not None and data.count(b"\n") > lines):
            return start, data
        if since_marker and data.find(_MARKER_PREFIX_BYTES) >= 0:
            return start, data
        chunk = min(want, chunk * 4)


def _scan_back_for_marker(handle, end, scan_bytes):
    """Offset of the last marker prefix that starts before ``end`` within ``scan_bytes``, or -1.

    Reads backwards in 1 MiB blocks that overlap by the prefix length, so a prefix split across two
    blocks is still found. Returns (offset, bytes_scanned).
    """
    overlap = len(_MARKER_PREFIX_BYTES) - 1
    limit = max(0, end - scan_bytes)
    pos = end
    scanned = 0
    while pos > limit:
        start = max(limit, pos - _BLOCK)
        handle.seek(start)
        block = handle.read(min(end, pos + overlap) - start)
        scanned += pos - start
        found = block.rfind(_MARKER_PREFIX_BYTES)
        if found >= 0:
            return start + found, scanned
        pos = start
    return -1, scanned


def _marker_at(handle, offset):
    """The marker line that starts at ``offset`` (bounded length) and the offset just after it."""
    handle.seek(offset)
    raw = handle.read(_MAX_MARKER_LINE)
    newline = raw.find(b"\n")
    line = raw if newline < 0 else raw[:newline]
    after = offset + (len(raw) if newline < 0 else newline + 1)
    text = line.decode("utf-8", "replace").rstrip("\r")
    parsed = parse_marker(text)
    return text, parsed, after


def read_tail(path, lines=200, max_bytes=262144, since_marker=True, marker_scan_bytes=16777216, max_line_length=8192, expect_inode=None):
    """Return the last ``lines`` lines of ``path`` (at most ``max_bytes`` read) as a JSON-ready dict.

    The file is read by seeking from the end, so the cost depends on ``max_bytes`` and
    ``marker_scan_bytes``, never on the size of the file. With ``since_marker`` only lines after the last
    launch marker are returned, together with the marker's time and invocation id. Raises
    UnsafeLogPathError for a symlink, a file that is not regular, or a parent symlink not owned by root.
    """
    result = {
        "path": path,
        "exists": False,
        "size": 0,
        "mtime": None,
        "inode": None,
        "lines": [],
        "first_line_partial": False,
        "bytes_read": 0,
        "long_lines_cut": 0,
        "marker": None,
        "marker_scanned_bytes": 0,
        "marker_search_complete": False,
        "launch_output_truncated": False,
        "rotated": False,
        "truncated_while_reading": False,
    }
    handle = _open_log(path)
    if handle is None:
        return result
    with handle:
        before = os.fstat(handle.fileno())
        size = before.st_size
        result.update(exists=True, size=size, mtime=before.st_mtime, inode=before.st_ino)
        if expect_inode is not None and int(expect_inode) != before.st_ino:
            result["rotated"] = True
        start, data = _read_window(handle, size, max_bytes, lines, since_marker)
        if len(data) < size - start:
            result["truncated_while_reading"] = True
            size = start + len(data)
        result["bytes_read"] = len(data)

        at_line_start = start == 0
        marker_offset = -1
        if since_marker:
            found = data.rfind(_MARKER_PREFIX_BYTES)
            if found >= 0:
                marker_offset = start + found
                result["marker_search_complete"] = True
            elif start == 0:
                result["marker_search_complete"] = True
            else:
                marker_offset, scanned = _scan_back_for_marker(handle, start, marker_scan_bytes)
                result["marker_scanned_bytes"] = scanned
                result["marker_search_complete"] = marker_offset >= 0 or scanned >= start
            result["marker_scanned_bytes"] += len(data)
            if marker_offset >= 0:
                text, parsed, after = _marker_at(handle, marker_offset)
                if parsed is not None:
                    result["marker"] = dict(parsed, line=text, offset=marker_offset)
                    if after > start:
                        skipped = after - start
                        data = data[skipped:]
                        start = after
                        at_line_start = True
                    else:
                        result["launch_output_truncated"] = True
        if not at_line_start:
            handle.seek(start - 1)
            result["first_line_partial"] = handle.read(1) != b"\n"
        try:
            now = os.lstat(path)
            if now.st_ino != before.st_ino or now.st_dev != before.st_dev:
                result["rotated"] = True
            if now.st_size < size:
                result["truncated_while_reading"] = True
        except OSError:
            result["rotated"] = True

    raw_lines = data.split(b"\n")
    if raw_lines and raw_lines[-1] == b"":
        raw_lines.pop()
    if result["first_line_partial"] and len(raw_lines) > 1:
        # The window began inside a line: drop the fragment unless it is all there is.
        raw_lines.pop(0)
        result["first_line_partial"] = False
    if lines is not None and 0 <= lines < len(raw_lines):
        raw_lines = raw_lines[-lines:] if lines else []
    out = []
    for raw in raw_lines:
        text, cut = _decode(raw.rstrip(b"\r"), max_line_length)
        result["long_lines_cut"] += int(cut)
        out.append(text)
    result["lines"] = out
    return result
