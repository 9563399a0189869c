# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read and check the header of a safetensors file without reading its tensor data.

The safetensors layout (https://github.com/huggingface/safetensors, "Format"): 8 bytes little-endian
unsigned header length N, then N bytes of UTF-8 JSON mapping tensor names to
``{"dtype", "shape", "data_offsets": [begin, end]}`` (offsets relative to the byte after the header),
plus an optional ``"__metadata__"`` string map, then the data buffer. The checks below follow the
library's own ``validate``: the header is at most 100,000,000 bytes, offsets are contiguous from 0,
each tensor's byte span equals its element count times its dtype width, and the last offset ends
exactly at the end of the file.

Standard library only; importable on Python 3.8+.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import struct

MAX_HEADER_BYTES = 100000000
METADATA_KEY = "__metadata__"

# dtype -> width in bits (safetensors Dtype enum, including the sub-byte float formats).
DTYPE_BITS = {
    "BOOL": 8,
    "U8": 8,
    "I8": 8,
    "F8_E5M2": 8,
    "F8_E4M3": 8,
    "F8_E8M0": 8,
    "I16": 16,
    "U16": 16,
    "F16": 16,
    "BF16": 16,
    "I32": 32,
    "U32": 32,
    "F32": 32,
    "C64": 64,
    "I64": 64,
    "U64": 64,
    "F64": 64,
    "F4": 4,
    "F6_E2M3": 6,
    "F6_E3M2": 6,
}


class SafetensorsHeaderError(ValueError):
    """The file is not a complete, well-formed safetensors file."""


def _element_count(shape):
    count = 1
    for dim in shape:
        count *= dim
    return count


def read_header_json(handle, file_size):
    """(N, the header's JSON object, ``__metadata__`` included) of an open binary safetensors file of
    ``file_size`` bytes, after checking the length prefix. Raises SafetensorsHeaderError."""
    prefix = handle.read(8)
    if len(prefix) < 8:
        raise SafetensorsHeaderError("file is %d bytes, shorter than the 8-byte header length" % len(prefix))
    (header_len,) = struct.unpack("<Q", prefix)
    if header_len > MAX_HEADER_BYTES:
        raise SafetensorsHeaderError("header length %d exceeds the safetensors limit of %d bytes" % (header_len, MAX_HEADER_BYTES))
    if 8 + header_len > file_size:
        raise SafetensorsHeaderError("header length %d runs past the end of the %d-byte file (truncated download?)" % (header_len, file_size))
    raw = handle.read(header_len)
    if len(raw) != header_len:
        raise SafetensorsHeaderError("could read only %d of %d header bytes" % (len(raw), header_len))
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise SafetensorsHeaderError("header is not valid UTF-8 JSON: %s" % exc) from exc
    if not isinstance(header, dict):
        raise SafetensorsHeaderError("header JSON is a %s, not an object" % type(header).__name__)
    return header_len, header


def parse_header(handle, file_size):
    """Parse the header of an open binary safetensors file of ``file_size`` bytes.

    Returns a dict with ``header_bytes`` (8 + N), ``data_bytes``, ``tensors`` (count),
    ``parameters`` (sum of element counts), ``dtypes`` (dtype -> tensor count) and ``metadata``.
    Raises SafetensorsHeaderError naming the first problem found.
    """
    header_len, header = read_header_json(handle, file_size)
    metadata = header.pop(METADATA_KEY, None)
    if metadata is not None and not isinstance(metadata, dict):
        raise SafetensorsHeaderError("__metadata__ is not an object")

    data_bytes = file_size - 8 - header_len
    spans = []
    dtypes = {}
    parameters = 0
    for name, info in header.items():
        if not isinstance(info, dict):
            raise SafetensorsHeaderError("tensor %r: entry is not an object" % name)
        dtype = info.get("dtype")
        shape = info.get("shape")
        offsets = info.get("data_offsets")
        if dtype not in DTYPE_BITS:
            raise SafetensorsHeaderError("tensor %r: unknown dtype %r" % (name, dtype))
        if not isinstance(shape, list) or not all(isinstance(d, int) and d >= 0 for d in shape):
            raise SafetensorsHeaderError("tensor %r: shape %r is not a list of non-negative integers" % (name, shape))
        if not isinstance(offsets, list) or len(offsets) != 2 or not all(isinstance(o, int) and o >= 0 for o in offsets) or offsets[1] < offsets[0]:
            raise SafetensorsHeaderError("tensor %r: data_offsets %r are not [begin, end] with begin <= end" % (name, offsets))
        bits = _element_count(shape) * DTYPE_BITS[dtype]
        if bits % 8 or bits // 8 != offsets[1] - offsets[0]:
            raise SafetensorsHeaderError("tensor %r: %s %r needs %s bytes but data_offsets span %d" % (name, dtype, shape, bits / 8.0, offsets[1] - offsets[0]))
        spans.append((offsets[0], offsets[1], name))
        dtypes[dtype] = dtypes.get(dtype, 0) + 1
        parameters += _element_count(shape)

    expected_begin = 0
    for begin, end, name in sorted(spans):
        if begin != expected_begin:
            raise SafetensorsHeaderError("tensor %r starts at offset %d, expected %d (gap or overlap)" % (name, begin, expected_begin))
        expected_begin = end
    if expected_begin != data_bytes:
        raise SafetensorsHeaderError(
            "tensor data ends at offset %d but the file holds %d data bytes (%s)"
            % (expected_begin, data_bytes, "truncated download?" if data_bytes < expected_begin else "trailing bytes")
        )
    return {
        "header_bytes": 8 + header_len,
        "data_bytes": data_bytes,
        "tensors": len(spans),
        "tensor_names": sorted(span[2] for span in spans),
        "parameters": parameters,
        "dtypes": dtypes,
        "metadata": metadata or {},
    }


def _with_file(path, read):
    with open(path, "rb") as handle:
        handle.seek(0, 2)
        size = handle.tell()
        handle.seek(0)
        return read(handle, size)


def read_header(path):
    """parse_header() for the file at ``path``."""
    return _with_file(path, parse_header)


def read_header_object(path):
    """The header's JSON object of the file at ``path`` (tensor entries and ``__metadata__``), checked as
    read_header_json() checks it."""
    return _with_file(path, read_header_json)[1]
