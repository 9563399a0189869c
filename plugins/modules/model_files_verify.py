#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: model_files_verify
short_description: Check that a model directory is complete before SGLang loads it
version_added: 0.1.0
description:
  - Checks a model directory on the target without loading any weights.
  - Every expected file (for example the list a Hugging Face download planned) must exist with exactly
    its expected size and, when the entry gives one, the hub's content digest (C(sha256) of an LFS file, or
    C(blob_id), its git blob id). A same-size file from another revision or a corrupt shard fails here.
  - Verified digests are recorded in C(.llmops-sglang-manifest.json) in the model directory, keyed by each
    file's size, mtime and inode, so an untouched file is hashed once, and
    M(llmops.sglang.model_download_plan) counts a file as present only when it was verified this way.
  - Every C(*.safetensors) file must have a header that parses, with contiguous tensor offsets that end
    exactly at the end of the file; only the 8-byte length and the JSON header are read.
  - When C(model.safetensors.index.json) is present, every shard it names must exist and hold the tensors
    the index maps to it.
  - C(config.json) must parse as a JSON object; it is returned for the preflight and the service role.
  - Read-only; supports check mode.
author:
  - llmops.sglang maintainers (@llmops-sglang)
extends_documentation_fragment:
  - llmops.sglang.attributes
options:
  path:
    description: The model directory.
    type: path
    required: true
  expected_files:
    description:
      - Files that must be present, each with its exact size in bytes, relative to O(path), and optionally
        C(sha256) and C(blob_id), the digests the hub gives (as M(llmops.sglang.model_download_plan) returns them).
      - Typically RV(llmops.sglang.model_download_plan#module:files).
    type: list
    elements: dict
    default: []
  require_config:
    description: Fail when C(config.json) is missing or not a JSON object.
    type: bool
    default: true
  require_weights:
    description: Fail when the directory holds no C(*.safetensors) file.
    type: bool
    default: true
attributes:
  check_mode:
    support: full
notes:
  - The module reports C(changed) when it wrote the manifest of verified digests (in check mode it
    hashes but writes nothing).
  - Directories named C(.cache) (where C(hf download --local-dir) keeps its metadata and partial files)
    are not counted in the model size.
seealso:
  - module: llmops.sglang.model_download_plan
"""

EXAMPLES = r"""
- name: Verify the downloaded model
  llmops.sglang.model_files_verify:
    path: /srv/models/Qwen3-8B
    expected_files: "{{ plan.files }}"
  register: model

- name: Show the architecture SGLang will load
  ansible.builtin.debug:
    msg: "{{ model.config.architectures }} in {{ model.total_bytes | human_readable }}"
"""

RETURN = r"""
path:
  description: The model directory, as given.
  returned: always
  type: str
total_bytes:
  description: Size of all files in the directory, outside C(.cache) directories.
  returned: success
  type: int
file_count:
  description: Number of files counted in RV(total_bytes).
  returned: success
  type: int
safetensors:
  description: One entry per safetensors file, sorted by name.
  returned: success
  type: list
  elements: dict
  contains:
    name:
      description: Path relative to O(path).
      type: str
    size:
      description: File size in bytes.
      type: int
    tensors:
      description: Number of tensors in the header.
      type: int
    parameters:
      description: Sum of the tensors' element counts.
      type: int
    dtypes:
      description: Tensor count per dtype.
      type: dict
weight_bytes:
  description: Bytes of tensor data in all safetensors files (headers excluded).
  returned: success
  type: int
parameters:
  description: Sum of the element counts of all tensors.
  returned: success
  type: int
config:
  description: The parsed C(config.json), or an empty dict when it is absent and not required.
  returned: success
  type: dict
problems:
  description: Every problem found; the module fails when this is not empty.
  returned: always
  type: list
  elements: str
"""

import json
import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.llmops.sglang.plugins.module_utils import model_manifest
from ansible_collections.llmops.sglang.plugins.module_utils.safetensors_header import (
    SafetensorsHeaderError,
    read_header,
)

INDEX_NAME = "model.safetensors.index.json"
SKIPPED_DIRS = (".cache",)


def list_files(root):
    """Relative path -> size for every regular file under root, outside .cache directories."""
    files = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS)
        for name in filenames:
            full = os.path.join(dirpath, name)
            if os.path.isfile(full) and not (dirpath == root and name == model_manifest.MANIFEST_NAME):
                files[os.path.relpath(full, root)] = os.path.getsize(full)
    return files


def check_expected(root, files, expected, manifest):
    """Problems of the expected files: missing, another size, or another content than the hub's digest."""
    problems = []
    for entry in expected:
        name = entry.get("name")
        size = entry.get("size")
        if name not in files:
            problems.append("%s: missing" % name)
            continue
        if size is not None and files[name] != int(size):
            problems.append("%s: %d bytes on disk, expected %d (incomplete or different revision)" % (name, files[name], int(size)))
            continue
        wanted = model_manifest.expected_digest(entry)
        if wanted is None:
            continue
        kind, value = wanted
        found = model_manifest.digest_of(manifest, root, name, kind)
        if found != value:
            manifest.pop(name, None)
            problems.append(
                "%s: %s %s on disk, the hub's is %s (a corrupt file or another revision: delete it and re-run "
                "the download)" % (name, "sha256" if kind == "sha256" else "git blob id", found[:16], value[:16])
            )
    return problems


def check_index(root, files, headers):
    """Problems with model.safetensors.index.json against the shard headers that parsed."""
    if INDEX_NAME not in files:
        return []
    try:
        with open(os.path.join(root, INDEX_NAME)) as handle:
            weight_map = json.load(handle)["weight_map"]
    except (ValueError, KeyError, TypeError) as exc:
        return ["%s: not a safetensors index (%s)" % (INDEX_NAME, exc)]
    problems = []
    missing_shards = sorted(set(weight_map.values()) - set(files))
    for shard in missing_shards:
        problems.append("%s: shard %s is missing" % (INDEX_NAME, shard))
    misplaced = [tensor for tensor, shard in weight_map.items() if shard in headers and tensor not in headers[shard]]
    if misplaced:
        problems.append("%s: %d tensor(s) are not in the shard the index names, e.g. %s" % (INDEX_NAME, len(misplaced), sorted(misplaced)[0]))
    return problems


def verify(root, expected, require_config, require_weights, manifest):
    if not os.path.isdir(root):
        return {"problems": ["%s is not a directory" % root]}
    files = list_files(root)
    problems = check_expected(root, files, expected, manifest)

    safetensors = []
    tensor_names = {}
    for name in sorted(n for n in files if n.endswith(".safetensors")):
        try:
            header = read_header(os.path.join(root, name))
        except (SafetensorsHeaderError, IOError, OSError) as exc:
            problems.append("%s: %s" % (name, exc))
            continue
        tensor_names[name] = set(header["tensor_names"])
        safetensors.append(
            {
                "name": name,
                "size": files[name],
                "tensors": header["tensors"],
                "parameters": header["parameters"],
                "dtypes": header["dtypes"],
                "weight_bytes": header["data_bytes"],
            }
        )
    if require_weights and not any(n.endswith(".safetensors") for n in files):
        problems.append("no *.safetensors file in %s" % root)
    problems.extend(check_index(root, files, tensor_names))

    config = {}
    if "config.json" in files:
        try:
            with open(os.path.join(root, "config.json")) as handle:
                config = json.load(handle)
            if not isinstance(config, dict):
                problems.append("config.json: a JSON %s, not an object" % type(config).__name__)
                config = {}
        except ValueError as exc:
            problems.append("config.json: not valid JSON (%s)" % exc)
    elif require_config:
        problems.append("config.json: missing")

    return {
        "problems": problems,
        "total_bytes": sum(files.values()),
        "file_count": len(files),
        "safetensors": safetensors,
        "weight_bytes": sum(s["weight_bytes"] for s in safetensors),
        "parameters": sum(s["parameters"] for s in safetensors),
        "config": config,
    }


def main():
    module = AnsibleModule(
        argument_spec=dict(
            path=dict(type="path", required=True),
            expected_files=dict(type="list", elements="dict", default=[]),
            require_config=dict(type="bool", default=True),
            require_weights=dict(type="bool", default=True),
        ),
        supports_check_mode=True,
    )
    root = module.params["path"]
    manifest = model_manifest.load(root)
    result = verify(root, module.params["expected_files"], module.params["require_config"], module.params["require_weights"], manifest)
    changed = False
    verified = set(e.get("name") for e in module.params["expected_files"] if model_manifest.expected_digest(e))
    if verified and os.path.isdir(root) and not module.check_mode:
        kept = dict((name, record) for name, record in manifest.items() if name in verified)
        try:
            changed = model_manifest.save(root, kept)
        except OSError as exc:
            module.warn(
                "could not record the verified digests in %s (%s); the next run hashes the files again"
                % (os.path.join(root, model_manifest.MANIFEST_NAME), exc)
            )
    result.update(path=root, changed=changed)
    problems = result["problems"]
    if problems:
        shown = "; ".join(problems[:10]) + ("; and %d more" % (len(problems) - 10) if len(problems) > 10 else "")
        module.fail_json(msg="model at %s is incomplete or corrupt: %s. Re-run the download (it resumes) or fix the local copy." % (root, shown), **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
