# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The state that converge leaves: containers recorded on two nodes, one unit per member with the multi-node argv,
only each replica's head serving HTTP, secrets only in 0600 files, and the heads registered with the real smg.

Runs as molecule's verifier after converge and idempotence, before side_effect.yml exercises the behaviour.
"""

import json
import subprocess
import urllib.error
import urllib.request

HEAD_A, MEMBER_A1, HEAD_B, GATEWAY = "scale-a0", "scale-a1", "scale-b0", "scale-gw"
VMIDS = {HEAD_A: (201, "pve1"), MEMBER_A1: (202, "pve2"), HEAD_B: (203, "pve2"), GATEWAY: (210, "pve1")}
SECRET_FILES = ("/etc/llmops-sglang/sglang.env", "/etc/llmops-sglang/sglang-secrets.yaml")
HTTP_PORT = 30000
DIST_PORT = 20000


def address(name):
    """The container's address on the scenario's network, as podman assigned it."""
    template = '{{(index .NetworkSettings.Networks "llmops-scale-out").IPAddress}}'
    return subprocess.run(["podman", "inspect", "--format", template, name], check=True, capture_output=True, text=True).stdout.strip()


def server_argv(guest):
    """argv of the member's SGLang process (the test double): the child of the unit's main process."""
    main_pid = guest.check_output("systemctl show --value -p MainPID sglang.service")
    child = guest.check_output("ps --ppid %s -o pid=", main_pid).split()
    assert len(child) == 1, "unit main process %s has children %s, want exactly SGLang's" % (main_pid, child)
    return guest.check_output("tr '\\0' '\\n' < /proc/%s/cmdline", child[0]).splitlines()


def flag(argv, name):
    return argv[argv.index(name) + 1] if name in argv else None


def listening_ports(guest):
    return {int(s.rsplit(":", 1)[1]) for s in guest.socket.get_listening_sockets() if s.startswith("tcp://")}


def test_every_container_is_recorded_on_its_node(fakepve_state):
    recorded = {ct["config"].get("hostname"): (ct["vmid"], ct["node"]) for ct in fakepve_state["cts"]}
    assert recorded == VMIDS
    assert {placed[1] for placed in recorded.values()} == {"pve1", "pve2"}


def test_one_active_unit_per_member(host):
    for name in (HEAD_A, MEMBER_A1, HEAD_B):
        service = host(name).service("sglang")
        assert service.is_running and service.is_enabled, name


def test_members_run_the_multi_node_argv(host):
    head_a, member_a1, head_b = (server_argv(host(name)) for name in (HEAD_A, MEMBER_A1, HEAD_B))
    rendezvous = "%s:%d" % (address(HEAD_A), DIST_PORT)
    assert (flag(head_a, "--nnodes"), flag(head_a, "--node-rank"), flag(head_a, "--dist-init-addr")) == ("2", "0", rendezvous)
    assert (flag(member_a1, "--nnodes"), flag(member_a1, "--node-rank"), flag(member_a1, "--dist-init-addr")) == ("2", "1", rendezvous)
    assert flag(head_a, "--tp-size") == flag(member_a1, "--tp-size") == "2"
    # A replica of one member is today's single-node launch: no rendezvous.
    assert flag(head_b, "--nnodes") in (None, "1") and flag(head_b, "--dist-init-addr") is None


def test_only_rank_0_serves_http(host):
    assert HTTP_PORT in listening_ports(host(HEAD_A))
    assert HTTP_PORT not in listening_ports(host(MEMBER_A1))
    assert HTTP_PORT in listening_ports(host(HEAD_B))


def test_secrets_only_in_root_0600_files(host, member_vars, gateway_vars, files_holding):
    for name in (HEAD_A, MEMBER_A1, HEAD_B):
        guest = host(name)
        for path in SECRET_FILES:
            secret = guest.file(path)
            assert (secret.user, secret.group, secret.mode) == ("root", "root", 0o600), (name, path, secret.mode)
    # An unprivileged account finds the API key nowhere, in any container (the gateway's env file included).
    for name in (HEAD_A, MEMBER_A1, HEAD_B, GATEWAY):
        assert files_holding(name, member_vars["sglang_service_api_key"], user="nobody") == [], name
    # The gateway holds the workers' key in memory only: it came in the registration request's body.
    assert files_holding(GATEWAY, member_vars["sglang_service_api_key"]) == []
    assert member_vars["sglang_service_api_key"] not in host(GATEWAY).check_output("ps -eo args")


def test_the_gateways_control_plane_key_is_root_only_and_required(host, gateway_vars, files_holding):
    key = gateway_vars["sglang_gateway_control_plane_api_key"]
    secret = host(GATEWAY).file("/etc/smg-control-plane.env")
    assert (secret.user, secret.group, secret.mode) == ("root", "root", 0o600)
    assert files_holding(GATEWAY, key, user="nobody") == [], "the unit and every other readable file are free of it"
    assert files_holding(GATEWAY, key) == ["/etc/smg-control-plane.env"], "not in the journal either"
    # smg takes it as an argument, then renames its process (smg::router): ps shows no key.
    assert key not in host(GATEWAY).check_output("ps -eo args")
    url = "http://%s:%d/workers" % (address(GATEWAY), gateway_vars["sglang_gateway_port"])
    try:
        urllib.request.urlopen(url, timeout=10)
        raise AssertionError("the gateway listed its workers without the control-plane key")
    except urllib.error.HTTPError as refused:
        assert refused.code == 401


def test_gateway_registered_the_heads_only(gateway_vars):
    url = "http://%s:%d/workers" % (address(GATEWAY), gateway_vars["sglang_gateway_port"])
    request = urllib.request.Request(url, headers={"Authorization": "Bearer " + gateway_vars["sglang_gateway_control_plane_api_key"]})
    with urllib.request.urlopen(request, timeout=10) as response:
        workers = json.load(response)["workers"]
    assert sorted(worker["url"] for worker in workers) == sorted("http://%s:%d" % (address(name), HTTP_PORT) for name in (HEAD_A, HEAD_B))
