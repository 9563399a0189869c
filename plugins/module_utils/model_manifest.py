# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Content digests of a model directory's files, checked against the hub's, with a verified-files manifest.

The Hugging Face hub's ``/api/models/<repo>/revision/<rev>?blobs=true`` gives each file's git blob id
(``blobId``, the SHA-1 of ``b"blob <size>\\0" + content``) and, for files stored with LFS (weights), the
SHA-256 of the content (``lfs.sha256``). A file is the hub's file when its digest equals the hub's; its
size alone says nothing (a new revision's shards often have the same sizes).

Hashing tens of GB on every run would be slow, so ``model_files_verify`` records each verified file's
digest in ``.llmops-sglang-manifest.json`` in the model directory, keyed by size, mtime and inode: a
file that has not been touched since is not hashed again, and ``model_download_plan`` counts a file as
present only when the manifest says it was verified against the digest the hub gives now.

Standard library only; importable on Python 3.8+.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json
import os

MANIFEST_NAME = ".llmops-sglang-manifest.json"
CHUNK = 8 * 1024 * 1024


def expected_digest(entry):
    """(kind, hex digest) the hub gives for a planned file entry, or None when it gives none."""
    if entry.get("sha256"):
        return "sha256", str(entry["sha256"]).lower()
    if entry.get("blob_id"):
        return "blob", str(entry["blob_id"]).lower()
    return None


def compute_digest(path, kind):
    """The SHA-256 of the content (kind sha256) or its git blob id (kind blob)."""
    size = os.path.getsize(path)
    if kind == "sha256":
        digest = hashlib.sha256()
    else:
        digest = hashlib.sha1()  # nosec: git's object id, not a security use
        digest.update(b"blob %d\0" % size)
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _stamp(path):
    info = os.stat(path)
    return {"size": info.st_size, "mtime_ns": info.st_mtime_ns, "inode": info.st_ino}


def load(root):
    """The manifest of root (relative name -> record), or {} when there is none or it is unreadable."""
    try:
        with open(os.path.join(root, MANIFEST_NAME)) as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    return files if isinstance(files, dict) else {}


def recorded_digest(manifest, root, name, kind):
    """The digest the manifest holds for name when the file is unchanged since it was recorded, else None."""
    record = manifest.get(name)
    full = os.path.join(root, name)
    if not isinstance(record, dict) or not os.path.isfile(full):
        return None
    stamp = _stamp(full)
    if any(record.get(key) != value for key, value in stamp.items()):
        return None
    return record.get(kind)


def digest_of(manifest, root, name, kind):
    """The file's digest: from the manifest when the file is unchanged, else computed and recorded there."""
    cached = recorded_digest(manifest, root, name, kind)
    if cached:
        return cached
    full = os.path.join(root, name)
    value = compute_digest(full, kind)
    record = dict(_stamp(full))
    record[kind] = value
    manifest[name] = record
    return value


def save(root, manifest):
    """Write the manifest atomically; True when its content changed."""
    path = os.path.join(root, MANIFEST_NAME)
    content = json.dumps({"files": manifest}, indent=1, sort_keys=True)
    try:
        with open(path) as handle:
            if handle.read() == content:
                return False
    except OSError:
        pass
    temporary = path + ".tmp"
    with open(temporary, "w") as handle:
        handle.write(content)
    os.chmod(temporary, 0o644)
    os.replace(temporary, path)
    return True
