# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Scale-out on loopback, the fast subset of molecule's scale_out scenario.

The SGLang TEST DOUBLE (tests/integration/sglang_double) stands for SGLang: it performs the TCP rendezvous on
--dist-init-addr that torch's TCPStore performs (rank 0 waits for the other nodes and gives up with torch's own
message), and only rank 0 serves HTTP. The gateway is the real PyPI smg binary (make smg installs it in
.build/smg-venv), routing real HTTP requests to the doubles. Everything listens on 127.0.0.1.
"""

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOUBLE = ROOT / "tests" / "integration" / "sglang_double"
HEALTHY = ROOT / "tests" / "fixtures" / "logs" / "real" / "none" / "sglang-docs-send-request-llama31-8b-h100.log"
SMG = ROOT / ".build" / "smg-venv" / "bin" / "smg"
sys.path.insert(0, str(ROOT / "tests" / "unit"))


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def http(method, url, body=None, timeout=5, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
            return response.status, json.loads(raw) if raw.strip().startswith((b"{", b"[")) else raw
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()
    except OSError:
        return None, None


def wait_until(check, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError("timed out after %s s waiting for %s" % (timeout, what))


class Doubles:
    """Launches of the test double, stopped at the end of the test."""

    def __init__(self, tmp_path):
        self.tmp_path, self.procs = tmp_path, []

    def start(self, name, *args, **env):
        log = open(self.tmp_path / ("%s.log" % name), "w", encoding="utf-8")  # noqa: SIM115 (closed with the process)
        environ = dict(
            os.environ, PYTHONPATH=str(DOUBLE), SGLANG_DOUBLE_MODE="healthy", SGLANG_DOUBLE_LOAD_SECONDS="0.5", SGLANG_DOUBLE_STARTUP=str(HEALTHY), **env
        )
        proc = subprocess.Popen(
            [sys.executable, "-m", "sglang.launch_server", "--model-path", "/srv/models/m", *args], stdout=log, stderr=subprocess.STDOUT, env=environ
        )
        self.procs.append((proc, log))
        return proc

    def output(self, name):
        return (self.tmp_path / ("%s.log" % name)).read_text(encoding="utf-8")

    def stop(self):
        for proc, log in self.procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            log.close()


@pytest.fixture
def doubles(tmp_path):
    launched = Doubles(tmp_path)
    yield launched
    launched.stop()


def node_args(rank, http_port, dist_port, nnodes=2, timeout=20):
    return [
        "--host",
        "127.0.0.1",
        "--port",
        str(http_port),
        "--tp-size",
        "2",
        "--nnodes",
        str(nnodes),
        "--node-rank",
        str(rank),
        "--dist-init-addr",
        "127.0.0.1:%d" % dist_port,
        "--dist-timeout",
        str(timeout),
    ]


def test_two_nodes_rendezvous_and_only_rank_0_serves(doubles):
    dist, head_port, other_port = free_port(), free_port(), free_port()
    other = doubles.start("rank1", *node_args(1, other_port, dist))  # started first: it retries until rank 0 listens
    time.sleep(1)
    doubles.start("rank0", *node_args(0, head_port, dist))
    wait_until(lambda: http("GET", "http://127.0.0.1:%d/health" % head_port)[0] == 200, 20, "rank 0's /health")
    assert "node rank 1 joined the rendezvous" in doubles.output("rank0")
    assert http("GET", "http://127.0.0.1:%d/health" % other_port) == (None, None), "a node of rank >= 1 serves no HTTP"
    assert other.poll() is None


def test_a_missing_rank_times_out_with_torchs_message_and_the_diagnoser_reads_it(doubles):
    from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.diagnose import diagnose

    head = doubles.start("rank0", *node_args(0, free_port(), free_port(), timeout=2))
    assert head.wait(timeout=20) == 1
    out = doubles.output("rank0")
    assert "torch.distributed.DistStoreError: Timed out after 3 seconds waiting for clients. 1/2 clients joined." in out
    diagnosis = diagnose({"log": {"path": "rank0.log", "exists": True, "lines": out.splitlines(), "mtime": time.time()}}, since_marker=False)
    assert diagnosis["root_cause"] == "nccl_failure", diagnosis["summary"]


def test_a_rank_that_cannot_reach_rank_0_says_so_and_a_port_probe_is_no_rank(doubles):
    dist = free_port()
    other = doubles.start("rank1", *node_args(1, free_port(), dist, timeout=2))
    assert other.wait(timeout=20) == 1
    assert "The client socket has timed out after 2000ms while trying to connect to (127.0.0.1, %d)." % dist in doubles.output("rank1")
    head = doubles.start("rank0", *node_args(0, free_port(), dist, timeout=3))
    wait_until(lambda: socket.socket().connect_ex(("127.0.0.1", dist)) == 0, 10, "rank 0's rendezvous port")
    assert head.wait(timeout=20) == 1, "a bare connection (the role's wait_for) must not count as a rank"


def test_rank_1_stops_when_rank_0_goes(doubles):
    dist, head_port = free_port(), free_port()
    other = doubles.start("rank1", *node_args(1, free_port(), dist))
    head = doubles.start("rank0", *node_args(0, head_port, dist))
    wait_until(lambda: http("GET", "http://127.0.0.1:%d/health" % head_port)[0] == 200, 20, "rank 0's /health")
    head.kill()
    assert other.wait(timeout=10) == 1


def launch_gateway(tmp_path, *options):
    """The real smg on loopback (its own metrics port too: smg binds 0.0.0.0:29000 for Prometheus unless told
    otherwise); yields its base URL and stops it at the end."""
    assert SMG.exists(), "the real model gateway is missing: run `make smg` (make bootstrap does)"
    port = free_port()
    log = open(tmp_path / "smg.log", "w", encoding="utf-8")  # noqa: SIM115 (closed below)
    argv = [str(SMG), "launch", "--host", "127.0.0.1", "--port", str(port), "--policy", "round_robin", *options]
    proc = subprocess.Popen([*argv, "--prometheus-host", "127.0.0.1", "--prometheus-port", str(free_port())], stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: http("GET", "http://127.0.0.1:%d/health" % port)[0] == 200, 30, "smg's /health")
        yield "http://127.0.0.1:%d" % port
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        log.close()


@pytest.fixture
def gateway(tmp_path):
    yield from launch_gateway(tmp_path)


# The PD gateway's control plane is authenticated, as sglang_gateway_control_plane_api_key sets it up.
CONTROL_KEY = "loopback-control-plane-key-51f0"
CONTROL = {"Authorization": "Bearer " + CONTROL_KEY}


@pytest.fixture
def pd_gateway(tmp_path):
    yield from launch_gateway(tmp_path, "--pd-disaggregation", "--control-plane-api-keys", "llmops-sglang:ansible:admin:" + CONTROL_KEY)


def generate(gateway_url, n):
    return [http("POST", gateway_url + "/generate", {"text": "hello %d" % i, "sampling_params": {"max_new_tokens": 1}}, timeout=30)[0] for i in range(n)]


def test_the_real_gateway_routes_to_the_heads_and_around_a_stopped_one(doubles, gateway):
    ports = [free_port(), free_port()]
    servers = [doubles.start("head%d" % i, "--host", "127.0.0.1", "--port", str(port)) for i, port in enumerate(ports)]
    for port in ports:
        wait_until(lambda port=port: http("GET", "http://127.0.0.1:%d/health" % port)[0] == 200, 20, "a head's /health")
        assert http("POST", gateway + "/workers", {"url": "http://127.0.0.1:%d" % port})[0] in (200, 202)

    def healthy():
        status, body = http("GET", gateway + "/workers")
        return status == 200 and sum(bool(w.get("is_healthy")) for w in body["workers"]) == 2

    wait_until(healthy, 30, "both workers healthy at the gateway")
    assert generate(gateway, 10) == [200] * 10
    served = [doubles.output("head%d" % i).count("POST /generate") for i in range(2)]
    assert all(served), "round_robin sends requests to both heads: %s" % served
    servers[1].kill()
    assert generate(gateway, 10) == [200] * 10, "the gateway retries on the other head"
    worker = [w for w in http("GET", gateway + "/workers")[1]["workers"] if w["url"].endswith(":%d" % ports[1])][0]
    assert http("DELETE", gateway + "/workers/" + worker["id"])[0] in (200, 202)
    wait_until(lambda: len(http("GET", gateway + "/workers")[1]["workers"]) == 1, 20, "the stopped head deregistered")


ANSIBLE_PLAYBOOK = Path(sys.executable).with_name("ansible-playbook")


def run_gateway_playbook(tmp_path, gateway_url, heads, pd_disaggregation, control_key=CONTROL_KEY):
    """playbooks/gateway.yml's registration play, run for real on loopback: each head is a local "container" with
    its own server args; the gateway host is in the inventory (its sglang_gateway_pd_disaggregation is read) but
    --limit leaves its install play out, as smg already runs."""
    inventory = {
        "sglang_gateway": {"hosts": {"gw": {"sglang_gateway_pd_disaggregation": pd_disaggregation, "sglang_gateway_control_plane_api_key": control_key}}},
        "sglang_containers": {
            "hosts": {name: {"llmops_sglang_server_args": dict(args, host="127.0.0.1")} for name, args in heads.items()},
            "vars": {
                "ansible_connection": "local",
                "ansible_python_interpreter": sys.executable,
                # Loopback stands for each container's address; the tests run as a user who needs no become.
                "ansible_become": False,
                "llmops_sglang_gateway_url": gateway_url,
                "llmops_sglang_worker_address": "127.0.0.1",
                "llmops_sglang_version": "0.5.23",
                "llmops_sglang_model_id": "m",
                "llmops_sglang_model_path": "/srv/models/m",
            },
        },
    }
    path = tmp_path / "inventory.json"
    path.write_text(json.dumps({"all": {"children": inventory}}), encoding="utf-8")
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=str(ROOT / ".build/collections"), ANSIBLE_NOCOLOR="1", ANSIBLE_LOCALHOST_WARNING="false")
    command = [str(ANSIBLE_PLAYBOOK), "-i", str(path), str(ROOT / "playbooks" / "gateway.yml"), "--limit", "sglang_containers", "-v"]
    run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert control_key not in run.stdout + run.stderr, "the control-plane key leaked into the play's output"
    return run


def test_prefill_and_decode_heads_registered_by_the_playbook_serve_through_the_real_pd_gateway(doubles, pd_gateway, tmp_path):
    """SGLang's prefill/decode disaggregation on loopback: the playbook registers each head with the role its own
    --disaggregation-mode gives (the prefill with the bootstrap port it opens), through the gateway's authenticated
    control plane (its key never in the play's output), smg sends each request to both with
    a bootstrap address and room, and the decode double pulls the KV cache from the prefill's bootstrap server, as
    SGLang's decode does, or fails with SGLang's own handshake error."""
    prefill_port, decode_port, bootstrap = free_port(), free_port(), free_port()
    heads = {
        "p0": {"port": prefill_port, "disaggregation_mode": "prefill", "disaggregation_bootstrap_port": bootstrap},
        "d0": {"port": decode_port, "disaggregation_mode": "decode"},
    }
    for name, args in heads.items():
        mode = ["--disaggregation-mode", args["disaggregation_mode"]] + (["--disaggregation-bootstrap-port", str(bootstrap)] if name == "p0" else [])
        doubles.start(name, "--host", "127.0.0.1", "--port", str(args["port"]), *mode)
        wait_until(lambda port=args["port"]: http("GET", "http://127.0.0.1:%d/health" % port)[0] == 200, 20, "%s's /health" % name)

    registered = run_gateway_playbook(tmp_path, pd_gateway, heads, pd_disaggregation=True)
    assert registered.returncode == 0, registered.stdout[-3000:]
    assert http("GET", pd_gateway + "/workers")[0] == 401, "the control plane wants its key"
    workers = {w["url"]: w for w in http("GET", pd_gateway + "/workers", headers=CONTROL)[1]["workers"]}
    prefill, decode = workers["http://127.0.0.1:%d" % prefill_port], workers["http://127.0.0.1:%d" % decode_port]
    assert (prefill["worker_type"], prefill.get("bootstrap_port"), decode["worker_type"]) == ("prefill", bootstrap, "decode")
    assert prefill["runtime_type"] == decode["runtime_type"] == "sglang"

    assert generate(pd_gateway, 10) == [200] * 10
    pulled = re.findall(r"KV cache of room (\d+) pulled from 127\.0\.0\.1:%d" % bootstrap, doubles.output("d0"))
    prefilled = re.findall(r"prefill: room (\d+)", doubles.output("p0"))
    assert len(pulled) == 10 and sorted(pulled) == sorted(prefilled), "each request's room, on both sides"

    again = run_gateway_playbook(tmp_path, pd_gateway, heads, pd_disaggregation=True)
    assert again.returncode == 0 and re.search(r"p0\s+: ok=\d+\s+changed=0", again.stdout), again.stdout[-3000:]

    refused = run_gateway_playbook(tmp_path, pd_gateway, heads, pd_disaggregation=False)
    reason = "p0, d0 run with --disaggregation-mode decode/prefill, which serves only behind a prefill/decode gateway"
    assert refused.returncode != 0 and len(re.findall(r"fatal: \[(?:p0|d0)\]: FAILED!.*" + re.escape(reason), refused.stdout)) == 2, refused.stdout[-3000:]

    wrong_key = run_gateway_playbook(tmp_path, pd_gateway, heads, pd_disaggregation=True, control_key="not-the-key-0000")
    assert wrong_key.returncode != 0 and "refused the control-plane key (HTTP 401/403)" in wrong_key.stdout, wrong_key.stdout[-3000:]

    status, body = http(
        "POST", "http://127.0.0.1:%d/generate" % decode_port, {"text": "x", "bootstrap_host": "127.0.0.1", "bootstrap_port": free_port(), "bootstrap_room": 7}
    )
    assert status == 500 and "Failed to get kvcache from prefill instance, it might be dead" in json.loads(body)["message"]
