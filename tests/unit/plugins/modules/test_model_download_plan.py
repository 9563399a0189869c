# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""model_download_plan against the loopback hub stand-in used by the sglang_install molecule scenario.

The stand-in (extensions/molecule/sglang_install/files/mock_hub.py) answers the hub API with the real
hub's status codes and X-Error-Code headers; nothing here leaves 127.0.0.1.
"""

import importlib.util
import json
import os
import socket
import threading
from http.server import ThreadingHTTPServer

import pytest
from ansible_adhoc import HAVE_COLLECTIONS, NO_COLLECTIONS_REASON, run_adhoc

from ansible_collections.llmops.sglang.plugins.modules.model_download_plan import (
    PlanError,
    explain_http_error,
    fetch_plan,
    free_bytes,
    present_bytes,
    select_files,
)

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
COMMIT = "0123456789abcdef0123456789abcdef01234567"
INDEX = json.dumps({"metadata": {"total_size": 1400}, "weight_map": {}})
INDEX_BYTES = len(INDEX)
CONFIG = '{"architectures": ["Qwen3ForCausalLM"]}'
ALL_BYTES = len(CONFIG) + 1000 + 500 + INDEX_BYTES + 300


def _load_mock_hub():
    path = os.path.join(REPO, "extensions", "molecule", "sglang_install", "files", "mock_hub.py")
    spec = importlib.util.spec_from_file_location("mock_hub", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture()
def hub(tmp_path):
    mock_hub = _load_mock_hub()
    model = tmp_path / "repo"
    (model / "original").mkdir(parents=True)
    (model / "config.json").write_text(CONFIG)
    (model / "model-00001-of-00002.safetensors").write_bytes(b"a" * 1000)
    (model / "model-00002-of-00002.safetensors").write_bytes(b"b" * 500)
    (model / "model.safetensors.index.json").write_text(INDEX)
    (model / "original" / "consolidated.pth").write_bytes(b"c" * 300)

    class Handler(mock_hub.HubHandler):
        repos = {
            "org/public": {"dir": str(model), "commit": COMMIT, "branches": ["main", "v1"]},
            "org/private": {"dir": str(model), "commit": COMMIT, "token": "hf_right"},
            "org/nosizes": {"dir": str(model), "commit": COMMIT, "omit_sizes": True},
        }

        def do_GET(self):  # noqa: N802 (http.server's name)
            # A renamed repository: the real hub answers with a redirect to the new name on the same host.
            if "/org/renamed/" in self.path:
                self.send_response(307)
                self.send_header("Location", self.path.replace("/org/renamed/", "/org/private/"))
                self.end_headers()
                return
            super().do_GET()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield "http://127.0.0.1:%d" % server.server_address[1]
    server.shutdown()
    server.server_close()


def plan(endpoint, repo_id="org/public", revision="main", token=None, allow=(), ignore=()):
    return fetch_plan(endpoint, repo_id, revision, token, list(allow), list(ignore), True, 10)


def test_select_files_follows_hf_download_include_exclude():
    names = ["config.json", "model.safetensors", "original/consolidated.pth", "original/params.json", "README.md"]
    assert select_files(names, [], []) == names
    assert select_files(names, ["*.json", "*.safetensors"], []) == ["config.json", "model.safetensors", "original/params.json"]
    assert select_files(names, [], ["original/"]) == ["config.json", "model.safetensors", "README.md"]
    assert select_files(names, ["*.json"], ["original/*"]) == ["config.json"]


def test_plan_lists_sizes_and_resolves_the_commit(hub):
    commit, files, estimate = plan(hub, ignore=["original/*"])
    assert commit == COMMIT and estimate == 0
    assert {f["name"]: f["size"] for f in files} == {
        "config.json": len(CONFIG),
        "model-00001-of-00002.safetensors": 1000,
        "model-00002-of-00002.safetensors": 500,
        "model.safetensors.index.json": INDEX_BYTES,
    }


def test_missing_sizes_fall_back_to_the_safetensors_index(hub):
    commit, files, estimate = plan(hub, repo_id="org/nosizes", allow=["*.safetensors"])
    assert [f["size"] for f in files] == [None, None]
    assert estimate == 1400


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"repo_id": "org/private", "token": "hf_wrong"}, "org/private was not found or the token may not read it (HTTP 401)"),
        ({"repo_id": "org/private"}, "the token may not read it (HTTP 401)"),
        ({"revision": "v2"}, "revision 'v2' does not exist in org/public"),
        ({"allow": ["*.gguf"]}, "no file of org/public@main matches allow_patterns ['*.gguf']"),
    ],
)
def test_hub_errors_are_explained(hub, kwargs, message):
    with pytest.raises(PlanError) as info:
        plan(hub, **kwargs)
    assert message in str(info.value)


def test_right_token_and_pinned_commit_work(hub):
    assert plan(hub, repo_id="org/private", revision=COMMIT, token="hf_right")[0] == COMMIT


def _redirector(target_base, seen_tokens):
    """A loopback server that answers every GET with a 307 to target_base + the same path, recording the token."""
    from http.server import BaseHTTPRequestHandler

    class Redirect(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            seen_tokens.append(self.headers.get("Authorization"))
            self.send_response(307)
            self.send_header("Location", target_base + self.path)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_token_is_not_forwarded_to_another_origin_on_a_redirect(hub):
    """The hub stand-in (another origin: another port) receives the redirected request without the bearer token."""
    seen_at_endpoint = []
    front = _redirector(hub, seen_at_endpoint)
    try:
        with pytest.raises(PlanError, match="HTTP 401"):
            plan("http://127.0.0.1:%d" % front.server_address[1], repo_id="org/private", token="hf_right")
    finally:
        front.shutdown()
        front.server_close()
    assert seen_at_endpoint == ["Bearer hf_right"]


def test_token_is_kept_on_a_same_origin_redirect(hub):
    """A redirect within the endpoint's origin (the hub's answer for a renamed repo) keeps the token."""
    assert plan(hub, repo_id="org/renamed", revision=COMMIT, token="hf_right")[0] == COMMIT


@pytest.mark.parametrize("endpoint", ["http://hub.invalid", "ftp://127.0.0.1/", "huggingface.co", "http://hub.invalid:8080"])
def test_a_clear_text_or_malformed_endpoint_is_refused_before_any_request(endpoint, monkeypatch):
    def no_request(*args, **kwargs):
        raise AssertionError("a request was made to %s" % (args,))

    # No request may leave this machine, even if the check regresses.
    monkeypatch.setattr("ansible_collections.llmops.sglang.plugins.modules.model_download_plan.open_url", no_request)
    with pytest.raises(PlanError, match="must be an https:// URL"):
        plan(endpoint, token="hf_right")


def test_unreachable_endpoint_is_explained():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    endpoint = "http://127.0.0.1:%d" % port
    with pytest.raises(PlanError, match="cannot reach the Hugging Face endpoint %s" % endpoint):
        plan(endpoint)


def test_gated_and_other_statuses():
    assert "gated" in explain_http_error(403, "GatedRepo", "org/x", "main", "e")
    assert "HTTP 503" in explain_http_error(503, None, "org/x", "main", "e")
    assert "rejected the token" in explain_http_error(401, None, "org/x", "main", "e")


def test_free_bytes_measures_the_nearest_existing_parent(tmp_path):
    checked, free = free_bytes(str(tmp_path / "not" / "yet"))
    assert checked == str(tmp_path) and free > 0


def _run(args):
    return run_adhoc("llmops.sglang.model_download_plan", args).result


@pytest.mark.skipif(not HAVE_COLLECTIONS, reason=NO_COLLECTIONS_REASON)
def test_module_refuses_when_the_disk_is_too_small_and_hides_the_token(hub, tmp_path):
    dest = tmp_path / "models" / "public"
    ok = _run({"endpoint": hub, "repo_id": "org/private", "revision": "main", "token": "hf_right", "dest": str(dest)})
    assert not ok.get("failed") and ok["fits"] is True and ok["needed_bytes"] == ALL_BYTES
    assert "hf_right" not in json.dumps(ok)
    short = _run(
        {
            "endpoint": hub,
            "repo_id": "org/public",
            "revision": "main",
            "dest": str(dest),
            # Far above the free space, so that other writers on the disk cannot make it fit.
            "reserve_bytes": ok["free_bytes"] + 2**40,
        }
    )
    assert short["failed"] is True and short["fits"] is False
    assert short["msg"].startswith("not enough disk space for org/public@main: %d bytes (0.00 GiB) still to download" % ALL_BYTES)


def test_plan_carries_the_hubs_digests(hub):
    _commit, files, _estimate = plan(hub, allow=["*.safetensors", "config.json"])
    by_name = {f["name"]: f for f in files}
    import hashlib

    assert by_name["model-00001-of-00002.safetensors"]["sha256"] == hashlib.sha256(b"a" * 1000).hexdigest()
    assert by_name["config.json"]["sha256"] is None
    assert by_name["config.json"]["blob_id"] == hashlib.sha1(b"blob %d\0" % len(CONFIG) + CONFIG.encode()).hexdigest()


def test_a_same_size_file_counts_as_present_only_once_verified_against_the_hubs_digest(hub, tmp_path):
    # Issue 15 item 1: same-size shards of a new revision used to be taken as already downloaded.
    from ansible_collections.llmops.sglang.plugins.module_utils import model_manifest

    _commit, files, _estimate = plan(hub, allow=["*.safetensors"])
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "model-00001-of-00002.safetensors").write_bytes(b"x" * 1000)  # right size, other bytes
    (dest / "model-00002-of-00002.safetensors").write_bytes(b"b" * 500)  # the hub's bytes, never verified
    assert present_bytes(str(dest), files) == 0
    manifest = {}
    for entry in files:
        model_manifest.digest_of(manifest, str(dest), entry["name"], "sha256")
    model_manifest.save(str(dest), manifest)
    assert present_bytes(str(dest), files) == 500
    assert present_bytes(str(dest), [dict(f, sha256=None, blob_id=None) for f in files]) == 1500  # no digest: by size


@pytest.mark.skipif(not HAVE_COLLECTIONS, reason=NO_COLLECTIONS_REASON)
def test_metadata_lets_the_budget_size_a_model_before_its_weights_download(tmp_path):
    """Issue 13 item 3: the planner returns config.json and the index of the revision (the real Mixtral-8x7B
    config from tests/fixtures/model-configs, a 93.4 GB index total), and the budget sizes it from them alone."""
    from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.engine import evaluate

    mock_hub = _load_mock_hub()
    model = tmp_path / "mixtral"
    model.mkdir()
    real = os.path.join(REPO, "tests", "fixtures", "model-configs", "mistralai__Mixtral-8x7B-v0.1", "config.json")
    (model / "config.json").write_text(open(real).read())
    (model / "model.safetensors.index.json").write_text(json.dumps({"metadata": {"total_size": 93405585408}, "weight_map": {}}))

    class Handler(mock_hub.HubHandler):
        repos = {"mistralai/Mixtral-8x7B-v0.1": {"dir": str(model), "commit": COMMIT}}

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        res = _run(
            {
                "endpoint": "http://127.0.0.1:%d" % server.server_address[1],
                "metadata": True,
                "repo_id": "mistralai/Mixtral-8x7B-v0.1",
                "revision": "main",
                "dest": str(tmp_path / "dest"),
            }
        )
    finally:
        server.shutdown()
    assert not res.get("failed"), res.get("msg")
    meta = res["metadata"]
    assert meta["config"]["architectures"] == ["MixtralForCausalLM"] and meta["hf_quant_config"] is None
    budget = evaluate(meta, [{"name": "NVIDIA H100 80GB HBM3", "memory_total_mib": 81559}] * 2, {"tp_size": 2}, "0.5.23", with_fixes=False)
    assert budget["verdict"] in ("fits", "degraded") and budget["budget"]["totals"]["max_total_num_tokens"] > 0
    # the index total (93.4 GB), split over TP 2, not the shapes' estimate
    assert 43.0 < budget["budget"]["per_gpu"][0]["weights_gib"] < 44.0
