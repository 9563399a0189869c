# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""safetensors header checks and the model_files_verify module.

The test files are written here from the format's definition (8-byte little-endian header length,
JSON header, data buffer), independently of the parser under test.
"""

import json
import os
import struct

import pytest
from ansible_adhoc import HAVE_COLLECTIONS, NO_COLLECTIONS_REASON, run_adhoc

from ansible_collections.llmops.sglang.plugins.module_utils.safetensors_header import (
    SafetensorsHeaderError,
    read_header,
)
from ansible_collections.llmops.sglang.plugins.modules.model_files_verify import verify


def write_safetensors(path, tensors, pad_header=True, extra_header=None, trailing=b""):
    """tensors: list of (name, dtype, shape, bytes_per_element)."""
    header, offset, data = {}, 0, b""
    for name, dtype, shape, width in tensors:
        count = 1
        for dim in shape:
            count *= dim
        nbytes = int(count * width)
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + nbytes]}
        data += bytes(range(256)) * (nbytes // 256) + bytes(nbytes % 256)
        offset += nbytes
    header["__metadata__"] = {"format": "pt"}
    header.update(extra_header or {})
    raw = json.dumps(header).encode()
    if pad_header:
        raw += b" " * (-len(raw) % 8)
    with open(path, "wb") as handle:
        handle.write(struct.pack("<Q", len(raw)) + raw + data + trailing)


TINY = [("model.embed_tokens.weight", "BF16", [16, 8], 2), ("lm_head.weight", "F32", [16, 8], 4), ("scales", "F8_E4M3", [3], 1), ("packed", "F4", [4, 2], 0.5)]


def test_header_parses_and_counts(tmp_path):
    path = tmp_path / "model.safetensors"
    write_safetensors(path, TINY)
    header = read_header(str(path))
    assert header["tensors"] == 4
    assert header["parameters"] == 128 + 128 + 3 + 8
    assert header["data_bytes"] == 256 + 512 + 3 + 4
    assert header["dtypes"] == {"BF16": 1, "F32": 1, "F8_E4M3": 1, "F4": 1}
    assert header["metadata"] == {"format": "pt"}
    assert header["header_bytes"] + header["data_bytes"] == path.stat().st_size


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda raw: raw[:-10], "truncated download"),
        (lambda raw: raw + b"xx", "trailing bytes"),
        (lambda raw: raw[:5], "shorter than the 8-byte header length"),
        (lambda raw: struct.pack("<Q", 10**9) + raw[8:], "exceeds the safetensors limit"),
        (lambda raw: struct.pack("<Q", 10**6) + raw[8:], "runs past the end"),
        (lambda raw: raw[:8] + b"@" + raw[9:], "not valid UTF-8 JSON"),
    ],
)
def test_broken_files_are_named(tmp_path, mutate, message):
    path = tmp_path / "bad.safetensors"
    write_safetensors(path, TINY)
    path.write_bytes(mutate(path.read_bytes()))
    with pytest.raises(SafetensorsHeaderError, match=message):
        read_header(str(path))


@pytest.mark.parametrize(
    "entry, message",
    [
        ({"dtype": "Q7", "shape": [1], "data_offsets": [775, 776]}, "unknown dtype"),
        ({"dtype": "U8", "shape": [-1], "data_offsets": [775, 776]}, "non-negative integers"),
        ({"dtype": "U8", "shape": [1], "data_offsets": [776, 775]}, "begin <= end"),
        ({"dtype": "F32", "shape": [1], "data_offsets": [775, 776]}, "needs 4.0 bytes"),
        ({"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}, "gap or overlap"),
    ],
)
def test_inconsistent_headers_are_refused(tmp_path, entry, message):
    path = tmp_path / "bad.safetensors"
    write_safetensors(path, TINY, extra_header={"z.extra": entry}, trailing=b"\x00")
    with pytest.raises(SafetensorsHeaderError, match=message):
        read_header(str(path))


def make_model(root, shards=2):
    root.mkdir(parents=True, exist_ok=True)
    (root / "config.json").write_text(json.dumps({"architectures": ["LlamaForCausalLM"], "hidden_size": 8}))
    weight_map = {}
    for i in range(shards):
        name = "model-%05d-of-%05d.safetensors" % (i + 1, shards)
        tensors = [("layers.%d.weight" % i, "BF16", [8, 8], 2)]
        write_safetensors(root / name, tensors)
        weight_map["layers.%d.weight" % i] = name
    (root / "model.safetensors.index.json").write_text(json.dumps({"metadata": {"total_size": 128 * shards}, "weight_map": weight_map}))
    (root / ".cache" / "huggingface").mkdir(parents=True)
    (root / ".cache" / "huggingface" / "x.incomplete").write_bytes(b"partial")
    return root


def test_complete_model_passes(tmp_path):
    root = make_model(tmp_path / "m")
    expected = [{"name": n, "size": (root / n).stat().st_size} for n in os.listdir(root) if n != ".cache"]
    result = verify(str(root), expected, True, True, {})
    assert result["problems"] == []
    assert result["config"]["architectures"] == ["LlamaForCausalLM"]
    assert result["weight_bytes"] == 256 and result["parameters"] == 128
    assert result["file_count"] == 4  # .cache is not counted
    assert result["total_bytes"] == sum(e["size"] for e in expected)


def test_size_mismatch_missing_shard_and_bad_config_are_all_reported(tmp_path):
    root = make_model(tmp_path / "m")
    (root / "model-00002-of-00002.safetensors").unlink()
    (root / "config.json").write_text("{not json")
    result = verify(str(root), [{"name": "config.json", "size": 1}, {"name": "tokenizer.json", "size": 5}], True, True, {})
    text = " | ".join(result["problems"])
    assert "config.json: 9 bytes on disk, expected 1" in text
    assert "tokenizer.json: missing" in text
    assert "shard model-00002-of-00002.safetensors is missing" in text
    assert "config.json: not valid JSON" in text


def test_tensor_in_wrong_shard_and_missing_weights(tmp_path):
    root = make_model(tmp_path / "m")
    index = json.loads((root / "model.safetensors.index.json").read_text())
    index["weight_map"]["layers.0.weight"] = "model-00002-of-00002.safetensors"
    (root / "model.safetensors.index.json").write_text(json.dumps(index))
    assert any("not in the shard the index names" in p for p in verify(str(root), [], True, True, {})["problems"])
    empty = tmp_path / "empty"
    empty.mkdir()
    problems = verify(str(empty), [], True, True, {})["problems"]
    assert problems == ["no *.safetensors file in %s" % empty, "config.json: missing"]
    assert verify(str(tmp_path / "nope"), [], True, True, {})["problems"] == ["%s is not a directory" % (tmp_path / "nope")]


def _run(args):
    return run_adhoc("llmops.sglang.model_files_verify", args).result


@pytest.mark.skipif(not HAVE_COLLECTIONS, reason=NO_COLLECTIONS_REASON)
def test_module_through_ansible(tmp_path):
    root = make_model(tmp_path / "m")
    ok = _run({"path": str(root)})
    assert not ok.get("failed") and ok["changed"] is False
    assert ok["config"]["hidden_size"] == 8
    (root / "model-00001-of-00002.safetensors").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{}")
    bad = _run({"path": str(root)})
    assert bad["failed"] is True
    assert bad["msg"].startswith("model at %s is incomplete or corrupt: model-00001-of-00002.safetensors: " % root)
    assert "Traceback" not in bad["msg"]


def _digests(path):
    """The hub's digests of a file, computed here from git's and LFS's definitions, not by the module."""
    import hashlib

    data = path.read_bytes()
    return {"sha256": hashlib.sha256(data).hexdigest(), "blob_id": hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()}


@pytest.mark.skipif(not HAVE_COLLECTIONS, reason=NO_COLLECTIONS_REASON)
def test_a_same_size_shard_with_other_bytes_fails_and_the_manifest_spares_rehashing(tmp_path):
    # Issue 15 item 1: a new revision's shard (or a corrupt one) of the same size is not the hub's file.
    root = make_model(tmp_path / "m")
    shard = root / "model-00001-of-00002.safetensors"
    expected = [dict({"name": n, "size": (root / n).stat().st_size}, **_digests(root / n)) for n in ("config.json", shard.name)]
    expected[0]["sha256"] = None  # a small git file: checked by its blob id
    first = _run({"path": str(root), "expected_files": expected})
    assert not first.get("failed") and first["changed"] is True
    manifest = json.loads((root / ".llmops-sglang-manifest.json").read_text())["files"]
    assert manifest[shard.name]["sha256"] == expected[1]["sha256"]
    assert manifest["config.json"]["blob"] == expected[0]["blob_id"]
    assert first["file_count"] == 4  # the manifest is not a model file
    again = _run({"path": str(root), "expected_files": expected})
    assert not again.get("failed") and again["changed"] is False
    data = bytearray(shard.read_bytes())
    data[-1] ^= 0xFF  # same size, one flipped byte in the tensor data: the header still parses
    shard.write_bytes(bytes(data))
    bad = _run({"path": str(root), "expected_files": expected})
    assert bad["failed"] is True
    assert "%s: sha256 " % shard.name in bad["msg"] and "the hub's is %s" % expected[1]["sha256"][:16] in bad["msg"]
    assert shard.name not in json.loads((root / ".llmops-sglang-manifest.json").read_text())["files"]


def test_a_file_changed_after_verification_is_hashed_again(tmp_path):
    from ansible_collections.llmops.sglang.plugins.module_utils import model_manifest

    path = tmp_path / "f.bin"
    path.write_bytes(b"one")
    manifest = {}
    first = model_manifest.digest_of(manifest, str(tmp_path), "f.bin", "sha256")
    assert model_manifest.recorded_digest(manifest, str(tmp_path), "f.bin", "sha256") == first
    path.write_bytes(b"two")
    os.utime(path, ns=(1, 1))
    assert model_manifest.recorded_digest(manifest, str(tmp_path), "f.bin", "sha256") is None
    assert model_manifest.digest_of(manifest, str(tmp_path), "f.bin", "sha256") == _digests(path)["sha256"]
