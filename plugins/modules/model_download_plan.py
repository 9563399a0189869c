#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: model_download_plan
short_description: Plan a Hugging Face model download and refuse it when the disk is too small
version_added: 0.1.0
description:
  - Asks the Hugging Face hub (or a mirror speaking its API) for the files of one model revision with
    their sizes (C(GET /api/models/<repo>/revision/<revision>?blobs=true), the call huggingface_hub's
    C(model_info(files_metadata=True)) makes), keeps those selected by O(allow_patterns) and
    O(ignore_patterns) with the same matching rules as C(hf download --include/--exclude), and resolves
    the revision to its commit.
  - When the hub gives no sizes for some C(*.safetensors) files, their size comes from
    C(metadata.total_size) of C(model.safetensors.index.json).
  - Compares the bytes still to download plus O(reserve_bytes) with the free space of the file system that will hold O(dest), and fails
    before anything is downloaded when they do not fit. A file under O(dest) counts as present only when
    M(llmops.sglang.model_files_verify) verified it against the digest the hub gives for this revision;
    the same size is not the same content.
  - With O(metadata), also reads the revision's C(config.json), C(hf_quant_config.json) and
    C(model.safetensors.index.json) (the small files the budget needs) and returns them parsed, so that
    M(llmops.sglang.sglang_memory_budget) can size the model before any weight is downloaded.
  - Errors name the cause and the fix - unreachable endpoint, rejected token, gated or unknown
    repository, unknown revision - instead of a traceback.
  - Read-only; supports check mode. Standard library only on the target.
author:
  - llmops.sglang maintainers (@llmops-sglang)
extends_documentation_fragment:
  - llmops.sglang.attributes
  - llmops.sglang.attributes.read_only
options:
  repo_id:
    description: Repository id, C(<org>/<name>).
    type: str
    required: true
  revision:
    description:
      - Branch, tag or commit to plan for. Pin a commit sha for reproducible deployments.
    type: str
    required: true
  endpoint:
    description:
      - Base URL of the hub; the C(HF_ENDPOINT) convention.
      - Must be C(https://); C(http://) is accepted only on a loopback address (a local stand-in or mirror).
      - The token is sent only to this endpoint's origin; a redirect to another host or scheme is followed
        without it.
    type: str
    default: https://huggingface.co
  token:
    description: Hugging Face access token, sent as a bearer token. Never returned.
    type: str
  allow_patterns:
    description: Keep only files matching one of these shell patterns (C(hf download --include)).
    type: list
    elements: str
    default: []
  ignore_patterns:
    description: Drop files matching one of these shell patterns (C(hf download --exclude)).
    type: list
    elements: str
    default: []
  dest:
    description: Directory the model will be downloaded to; it need not exist yet.
    type: path
    required: true
  commit_subdir:
    description:
      - Download into a subdirectory of O(dest) named after the commit the revision resolves to, so that each
        revision has its own directory and a new revision never overwrites the files a running server loads.
      - RV(dest) is that directory.
    type: bool
    default: false
  reserve_bytes:
    description: Free space to keep on top of the download, in bytes.
    type: int
    default: 0
  check_space:
    description: Fail when the download does not fit. When V(false), RV(fits) is still reported.
    type: bool
    default: true
  validate_certs:
    description: Verify the endpoint's TLS certificate.
    type: bool
    default: true
  metadata:
    description:
      - Also fetch and return the revision's C(config.json), C(hf_quant_config.json) and C(model.safetensors.index.json)
        (those it has), as RV(metadata).
    type: bool
    default: false
  timeout:
    description: Seconds to wait for each HTTP answer.
    type: int
    default: 30
seealso:
  - module: llmops.sglang.model_files_verify
"""

EXAMPLES = r"""
- name: Plan the download and refuse it when the disk is too small
  llmops.sglang.model_download_plan:
    repo_id: Qwen/Qwen3-8B
    revision: b968826d9c46dd6066d109eabc6255188de91218
    token: "{{ hf_token }}"
    ignore_patterns: ["*.pth", "original/*"]
    dest: /srv/models/Qwen3-8B
  no_log: false
  register: plan
"""

RETURN = r"""
commit:
  description: The commit the revision resolved to.
  returned: success
  type: str
files:
  description:
    - Selected files with their sizes in bytes (size V(null) when neither the hub nor the index knew it) and the
      digests the hub gives, C(sha256) for LFS files and C(blob_id) (git blob id) for every file, V(null) when absent.
  returned: success
  type: list
  elements: dict
  sample: [{"name": "config.json", "size": 726, "sha256": null, "blob_id": "4b1f0d5c0b2a6e55d3c1f2a8e9b7d6c5a4f3e2d1"}]
total_bytes:
  description:
    - Sum of the known sizes of the selected files, plus the index's C(total_size) when the hub gave no
      shard sizes.
  returned: success
  type: int
present_bytes:
  description:
    - Bytes of selected files already under O(dest) with the hub's content, as M(llmops.sglang.model_files_verify)
      recorded it (a file of the right size that was never verified against the hub's digest, or changed since, is
      not counted). Files the hub gives no digest for count by size.
  returned: success
  type: int
needed_bytes:
  description: Bytes still to download.
  returned: success
  type: int
free_bytes:
  description: Free bytes, for an unprivileged user, on the file system of RV(checked_path).
  returned: success
  type: int
dest:
  description: The directory the files go to, O(dest) or, with O(commit_subdir), O(dest)/<commit>.
  returned: success
  type: str
  sample: /opt/sglang/models/Qwen--Qwen3-8B/1b8e6b3fd8a4ee3e6f9d6de0c23d5b8b8f3f62f1
checked_path:
  description: O(dest), or its nearest existing parent, whose file system was measured.
  returned: success
  type: str
fits:
  description: Whether RV(needed_bytes) plus O(reserve_bytes) fit in RV(free_bytes).
  returned: success
  type: bool
metadata:
  description:
    - The parsed C(config), C(hf_quant_config) and C(safetensors_index) of the revision (V(null) for a file it does
      not have), in the shape O(llmops.sglang.sglang_memory_budget#module:model) takes.
  returned: when O(metadata) is set
  type: dict
  sample: {"config": {"architectures": ["MixtralForCausalLM"]}, "hf_quant_config": null,
           "safetensors_index": {"metadata": {"total_size": 93405585408}}}
"""

import fnmatch
import json
import os
import re

from urllib.error import HTTPError, URLError
from urllib.parse import quote, urljoin, urlsplit

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.urls import open_url
from ansible_collections.llmops.sglang.plugins.module_utils import model_manifest

COMMIT_RE = re.compile(r"^[0-9a-f]{40}$")

INDEX_NAME = "model.safetensors.index.json"
MAX_REDIRECTS = 5
REDIRECT_STATUSES = (301, 302, 303, 307, 308)
LOOPBACK_HOSTS = ("localhost", "::1")
GIB = 1024.0**3


class PlanError(Exception):
    """A planning step failed; the message is meant for the operator."""


def _normalise(pattern):
    # huggingface_hub.utils.filter_repo_objects: "dir/" means everything below dir.
    return pattern + "*" if pattern.endswith("/") else pattern


def select_files(names, allow_patterns, ignore_patterns):
    """The names kept by hf download's --include/--exclude rules, in the given order."""
    allow = [_normalise(p) for p in allow_patterns]
    ignore = [_normalise(p) for p in ignore_patterns]
    return [n for n in names if (not allow or any(fnmatch.fnmatch(n, p) for p in allow)) and not any(fnmatch.fnmatch(n, p) for p in ignore)]


def explain_http_error(status, error_code, repo_id, revision, endpoint):
    """One operator-facing sentence for a hub HTTP error (X-Error-Code as huggingface_hub reads it)."""
    if error_code == "RevisionNotFound":
        return "revision %r does not exist in %s on %s; pin an existing branch, tag or full commit sha (sglang_install_model_revision)" % (
            revision,
            repo_id,
            endpoint,
        )
    if error_code == "GatedRepo" or status == 403:
        return (
            "%s is gated or the token may not read it (HTTP %d); accept the model's terms on the hub with "
            "the token's account, or use a token with read access (HF_TOKEN)" % (repo_id, status)
        )
    if status == 401 and error_code == "RepoNotFound":
        return "%s was not found or the token may not read it (HTTP 401); check the repository id and the token (HF_TOKEN)" % repo_id
    if status == 401:
        return "the hub rejected the token (HTTP 401); set a valid HF_TOKEN (sglang_install_hf_token)"
    if status == 404:
        return "%s was not found on %s (HTTP 404); check the repository id" % (repo_id, endpoint)
    return "the hub answered HTTP %d for %s@%s; retry later or check %s" % (status, repo_id, revision, endpoint)


def _origin(url):
    parts = urlsplit(url)
    return parts.scheme, parts.hostname, parts.port or {"http": 80, "https": 443}.get(parts.scheme)


def check_endpoint(endpoint):
    """Refuse an endpoint that would carry the token and the file list in clear text over the network."""
    scheme, host, _port = _origin(endpoint)
    if scheme == "https" and host:
        return
    if scheme == "http" and host and (host in LOOPBACK_HOSTS or host.startswith("127.")):
        return
    raise PlanError(
        "endpoint %r (sglang_install_hf_endpoint) must be an https:// URL; http:// is accepted only on a "
        "loopback address, for a local stand-in. Use https://huggingface.co or your mirror's https "
        "address." % endpoint
    )


def _open_json(url, token, validate_certs, timeout, endpoint):
    """GET url, following redirects by hand: the token goes only to the endpoint's origin, never downgraded."""
    home = _origin(endpoint)
    for _hop in range(MAX_REDIRECTS + 1):
        headers = {"User-Agent": "llmops.sglang model_download_plan"}
        if token and _origin(url) == home:
            headers["Authorization"] = "Bearer %s" % token
        try:
            response = open_url(url, headers=headers, validate_certs=validate_certs, timeout=timeout, follow_redirects="none")
            return json.loads(response.read().decode("utf-8"))
        except HTTPError as exc:
            if exc.code not in REDIRECT_STATUSES:
                raise
            target = urljoin(url, exc.headers.get("Location") or exc.filename or "")
            if urlsplit(url).scheme == "https" and urlsplit(target).scheme != "https":
                raise PlanError("the hub redirected %s to %s, which is not https; refusing to follow it" % (url, target)) from exc
            url = target
    raise PlanError("the hub redirected more than %d times from %s; check the endpoint" % (MAX_REDIRECTS, endpoint))


def _get_json(url, token, validate_certs, timeout, repo_id, revision, endpoint):
    try:
        return _open_json(url, token, validate_certs, timeout, endpoint)
    except HTTPError as exc:
        raise PlanError(explain_http_error(exc.code, exc.headers.get("X-Error-Code"), repo_id, revision, endpoint)) from exc
    except (URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise PlanError(
            "cannot reach the Hugging Face endpoint %s (%s); check the network or HF_ENDPOINT "
            "(sglang_install_hf_endpoint), or deploy from a local model path" % (endpoint, reason)
        ) from exc
    except ValueError as exc:
        raise PlanError("the hub at %s did not answer JSON for %s (%s)" % (endpoint, url, exc)) from exc


def fetch_plan(endpoint, repo_id, revision, token, allow_patterns, ignore_patterns, validate_certs, timeout):
    """Commit and [{name, size}] of the selected files of repo_id@revision."""
    check_endpoint(endpoint)
    base = endpoint.rstrip("/")
    info = _get_json(
        "%s/api/models/%s/revision/%s?blobs=true" % (base, repo_id, quote(revision, safe="")), token, validate_certs, timeout, repo_id, revision, endpoint
    )
    siblings = info.get("siblings")
    if not isinstance(siblings, list):
        raise PlanError("the hub's answer for %s@%s lists no files (no 'siblings')" % (repo_id, revision))
    sizes = {}
    digests = {}
    for sibling in siblings:
        size = sibling.get("size")
        lfs = sibling.get("lfs") if isinstance(sibling.get("lfs"), dict) else {}
        if size is None:
            size = lfs.get("size")
        sizes[sibling["rfilename"]] = size
        digests[sibling["rfilename"]] = {"sha256": lfs.get("sha256") or None, "blob_id": sibling.get("blobId") or None}
    commit = info.get("sha") or revision
    if not isinstance(commit, str):
        raise PlanError("the hub's answer for %s@%s gives %r as the commit, not a sha string" % (repo_id, revision, commit))
    names = select_files(list(sizes), allow_patterns, ignore_patterns)
    if not names:
        raise PlanError("no file of %s@%s matches allow_patterns %s / ignore_patterns %s" % (repo_id, revision, allow_patterns, ignore_patterns))
    unknown = [n for n in names if sizes[n] is None]
    estimate = 0
    if unknown and INDEX_NAME in sizes and all(n.endswith(".safetensors") for n in unknown):
        index = _get_json(
            "%s/%s/resolve/%s/%s" % (base, repo_id, quote(commit, safe=""), INDEX_NAME), token, validate_certs, timeout, repo_id, revision, endpoint
        )
        total = (index.get("metadata") or {}).get("total_size")
        if isinstance(total, int):
            # Tensor bytes of all shards (headers excluded), a close lower bound for the shards' size.
            estimate = total
    return commit, [dict({"name": n, "size": sizes[n]}, **digests[n]) for n in names], estimate


METADATA_FILES = (("config", "config.json"), ("hf_quant_config", "hf_quant_config.json"), ("safetensors_index", INDEX_NAME))


def fetch_metadata(endpoint, repo_id, revision, commit, names, token, validate_certs, timeout):
    """The parsed small files the budget reads, from the resolved commit (config.json is required)."""
    base = endpoint.rstrip("/")
    out = {}
    for key, name in METADATA_FILES:
        if name not in names:
            if key == "config":
                raise PlanError("%s@%s has no config.json; the budget cannot size it" % (repo_id, revision))
            out[key] = None
            continue
        value = _get_json("%s/%s/resolve/%s/%s" % (base, repo_id, quote(commit, safe=""), name), token, validate_certs, timeout, repo_id, revision, endpoint)
        if not isinstance(value, dict):
            raise PlanError("%s of %s@%s is not a JSON object" % (name, repo_id, revision))
        out[key] = value
    return out


def free_bytes(path):
    """(nearest existing path, bytes free to unprivileged users on its file system)."""
    probe = os.path.abspath(path)
    while not os.path.exists(probe):
        probe = os.path.dirname(probe)
    stats = os.statvfs(probe)
    return probe, stats.f_bavail * stats.f_frsize


def present_bytes(dest, files):
    """Bytes of the planned files already in dest: verified against the hub's digest (the manifest that
    model_files_verify keeps), or of the right size when the hub gives no digest for them."""
    manifest = model_manifest.load(dest)
    done = 0
    for entry in files:
        full = os.path.join(dest, entry["name"])
        if entry["size"] is None or not os.path.isfile(full) or os.path.getsize(full) != entry["size"]:
            continue
        wanted = model_manifest.expected_digest(entry)
        if wanted is None or model_manifest.recorded_digest(manifest, dest, entry["name"], wanted[0]) == wanted[1]:
            done += entry["size"]
    return done


def main():
    module = AnsibleModule(
        argument_spec=dict(
            repo_id=dict(type="str", required=True),
            revision=dict(type="str", required=True),
            endpoint=dict(type="str", default="https://huggingface.co"),
            token=dict(type="str", no_log=True),
            allow_patterns=dict(type="list", elements="str", default=[]),
            ignore_patterns=dict(type="list", elements="str", default=[]),
            dest=dict(type="path", required=True),
            commit_subdir=dict(type="bool", default=False),
            reserve_bytes=dict(type="int", default=0),
            check_space=dict(type="bool", default=True),
            validate_certs=dict(type="bool", default=True),
            timeout=dict(type="int", default=30),
            metadata=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    )
    p = module.params
    if not p["revision"].strip():
        module.fail_json(msg="revision is empty; pin a branch, tag or commit sha of %s" % p["repo_id"])
    try:
        commit, files, estimate = fetch_plan(
            p["endpoint"], p["repo_id"], p["revision"], p["token"], p["allow_patterns"], p["ignore_patterns"], p["validate_certs"], p["timeout"]
        )
    except PlanError as exc:
        module.fail_json(msg="model download plan for %s@%s: %s" % (p["repo_id"], p["revision"], exc))

    if p["commit_subdir"] and not COMMIT_RE.match(commit):
        module.fail_json(
            msg="the hub resolved %s@%s to %r, not a commit sha; cannot name the revision's directory after it" % (p["repo_id"], p["revision"], commit)
        )
    dest = os.path.join(p["dest"], commit) if p["commit_subdir"] else p["dest"]
    total = sum(f["size"] for f in files if f["size"] is not None) + estimate
    present = present_bytes(dest, files)
    needed = total - present
    checked, free = free_bytes(dest)
    fits = needed + p["reserve_bytes"] <= free
    result = dict(
        changed=False,
        commit=commit,
        dest=dest,
        files=files,
        total_bytes=total,
        present_bytes=present,
        needed_bytes=needed,
        free_bytes=free,
        checked_path=checked,
        fits=fits,
    )
    if p["metadata"]:
        try:
            result["metadata"] = fetch_metadata(
                p["endpoint"], p["repo_id"], p["revision"], commit, {f["name"] for f in files}, p["token"], p["validate_certs"], p["timeout"]
            )
        except PlanError as exc:
            module.fail_json(msg="model download plan for %s@%s: %s" % (p["repo_id"], p["revision"], exc))
    unknown = [f["name"] for f in files if f["size"] is None]
    if unknown and not estimate:
        result["warnings"] = ["the hub reported no size for %s; the disk-space check does not count them" % ", ".join(unknown)]
    if p["check_space"] and not fits:
        module.fail_json(
            msg=(
                "not enough disk space for %s@%s: %d bytes (%.2f GiB) still to download plus %d reserved, but only "
                "%d bytes (%.2f GiB) free on the file system of %s. Free space there, point the model directory "
                "elsewhere, or narrow the allow/ignore patterns."
                % (p["repo_id"], p["revision"], needed, needed / GIB, p["reserve_bytes"], free, free / GIB, checked)
            ),
            **result,
        )
    module.exit_json(**result)


if __name__ == "__main__":
    main()
