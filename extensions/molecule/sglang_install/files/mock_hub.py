# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A loopback stand-in for the Hugging Face hub, for tests only.

It answers the calls that huggingface_hub's ``hf download`` and llmops.sglang.model_download_plan make,
with the status codes and ``X-Error-Code`` headers the real hub sends:

* ``GET /api/models/<org>/<name>/revision/<rev>[?blobs=true]`` -> ``{"id", "sha", "siblings": [...]}``
  (sizes, ``blobId`` and, for ``*.safetensors``, ``lfs.sha256`` only with ``blobs=true``, as on the hub); 401 ``RepoNotFound`` for a wrong or missing token on
  a private repo, 404 ``RevisionNotFound`` for an unknown revision.
* ``HEAD``/``GET /<org>/<name>/resolve/<rev>/<path>`` with ``X-Repo-Commit``, ``ETag`` and
  ``Content-Length``; ``Range: bytes=N-`` gives 206 (resume).

Usage: ``python3 mock_hub.py CONFIG.json`` where CONFIG is
``{"host": "127.0.0.1", "port": 18080, "repos": {"org/name": {"dir": "...", "commit": "<40 hex>",
"branches": ["main"], "token": "hf_..." (optional), "omit_sizes": false,
"resolve_error": [status, "X-Error-Code"] (optional: file downloads fail, the API still answers),
"throttle_seconds": 0 (optional: each file body trickles out over this many seconds, in 10 chunks),
"hold_file": "/path" (optional: file bodies wait until this path exists),
"corrupt_bodies": false (optional: *.safetensors bodies arrive with their last byte flipped, while the API
and the ETag describe the right content)}}}``.
"""

import hashlib
import json
import os
import re
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

API_RE = re.compile(r"^/api/models/([^/]+/[^/]+)/revision/([^/?]+)$")
RESOLVE_RE = re.compile(r"^/([^/]+/[^/]+)/resolve/([^/]+)/(.+)$")


def repo_files(root):
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            files.append((os.path.relpath(full, root), os.path.getsize(full)))
    return files


# Larger files (the sparse 200 GiB shard of the disk-space test) get no digests: hashing them would take the
# stand-in minutes, and the plan then counts them by size, as it does for a hub that gives no digest.
DIGEST_LIMIT = 256 * 1024 * 1024


def blob_metadata(root, name, size):
    """What the hub adds to a sibling with blobs=true: size, git blob id, and for LFS files (weights) lfs.sha256."""
    if size > DIGEST_LIMIT:
        return {"size": size}
    blob, content = hashlib.sha1(b"blob %d\0" % size), hashlib.sha256()
    with open(os.path.join(root, name), "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            blob.update(chunk)
            content.update(chunk)
    meta = {"size": size, "blobId": blob.hexdigest()}
    if name.endswith(".safetensors"):
        meta["lfs"] = {"sha256": content.hexdigest(), "size": size, "pointerSize": 134}
    return meta


class HubHandler(BaseHTTPRequestHandler):
    repos = {}

    def log_message(self, fmt, *args):
        sys.stderr.write("mock_hub: " + (fmt % args) + "\n")

    def _error(self, status, code, message):
        body = json.dumps({"error": message}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if code:
            self.send_header("X-Error-Code", code)
            self.send_header("X-Error-Message", message)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _repo(self, repo_id, revision):
        repo = self.repos.get(repo_id)
        auth = self.headers.get("Authorization", "")
        if repo is None or (repo.get("token") and auth != "Bearer %s" % repo["token"]):
            self._error(401, "RepoNotFound", "Repository Not Found for url: %s." % self.path)
            return None
        if revision not in repo.get("branches", ["main"]) and revision != repo["commit"]:
            self._error(404, "RevisionNotFound", "Invalid rev id: %s" % revision)
            return None
        return repo

    def _json(self, payload):
        body = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):  # noqa: N802 (http.server naming)
        self._serve()

    def do_HEAD(self):  # noqa: N802
        self._serve()

    def _serve(self):
        url = urlsplit(self.path)
        path = unquote(url.path)
        match = API_RE.match(path)
        if match:
            repo = self._repo(match.group(1), match.group(2))
            if repo is None:
                return
            blobs = "blobs=true" in url.query.lower() and not repo.get("omit_sizes")
            siblings = [dict({"rfilename": n}, **(blob_metadata(repo["dir"], n, s) if blobs else {})) for n, s in repo_files(repo["dir"])]
            self._json({"id": match.group(1), "modelId": match.group(1), "sha": repo["commit"], "private": bool(repo.get("token")), "siblings": siblings})
            return
        match = RESOLVE_RE.match(path)
        if match:
            repo = self._repo(match.group(1), match.group(2))
            if repo is None:
                return
            if repo.get("resolve_error"):
                status, code = repo["resolve_error"]
                self._error(status, code, "resolve refused by mock_hub configuration")
                return
            full = os.path.join(repo["dir"], match.group(3))
            if not os.path.isfile(full):
                self._error(404, "EntryNotFound", "Entry not found")
                return
            with open(full, "rb") as handle:
                data = handle.read()
            etag = hashlib.sha256(data).hexdigest()
            if repo.get("corrupt_bodies") and full.endswith(".safetensors") and data:
                data = data[:-1] + bytes([data[-1] ^ 0xFF])  # same size, one byte off: a corrupting mirror or disk
            start = 0
            ranged = re.match(r"bytes=(\d+)-$", self.headers.get("Range", ""))
            if ranged:
                start = int(ranged.group(1))
            self.send_response(206 if ranged else 200)
            self.send_header("X-Repo-Commit", repo["commit"])
            self.send_header("ETag", '"%s"' % etag)
            self.send_header("Content-Length", str(len(data) - start))
            if ranged:
                self.send_header("Content-Range", "bytes %d-%d/%d" % (start, len(data) - 1, len(data)))
            self.end_headers()
            if self.command == "GET":
                while repo.get("hold_file") and not os.path.exists(repo["hold_file"]):
                    time.sleep(0.05)
                body = data[start:]
                steps = 10 if repo.get("throttle_seconds") else 1
                chunk = -(-len(body) // steps) or 1
                for offset in range(0, len(body), chunk):
                    time.sleep(repo.get("throttle_seconds", 0) / float(steps))
                    end = offset + chunk
                    self.wfile.write(body[offset:end])
                    self.wfile.flush()
            return
        self._error(404, None, "no such route in mock_hub: %s" % path)


def main(config_path):
    with open(config_path) as handle:
        config = json.load(handle)
    HubHandler.repos = config["repos"]
    server = ThreadingHTTPServer((config.get("host", "127.0.0.1"), int(config["port"])), HubHandler)
    server.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1])
