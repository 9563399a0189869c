# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""TEST DOUBLE for ``python -m sglang.launch_server`` (see ../README.md). Not SGLang; never shipped."""

import argparse
import json
import os
import re
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

READY_LINE = "The server is fired up and ready to roll!"
# The release the double's /version reports (the model gateway reads it to detect an SGLang backend).
DOUBLE_VERSION = "0.5.9"
# A double installed as a wheel (build_wheel.py) may carry its own defaults for the SGLANG_DOUBLE_* settings,
# so that one "release" of it starts healthy and another fails; the unit's environment still wins.
PACKAGED_DEFAULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_double_defaults.json")


def setting(name, default=None):
    """SGLANG_DOUBLE_* setting: the environment's, else the wheel's packaged default, else default."""
    if os.environ.get(name):
        return os.environ[name]
    try:
        with open(PACKAGED_DEFAULTS, encoding="utf-8") as handle:
            return json.load(handle).get(name, default)
    except FileNotFoundError:
        return default


def fixture_lines(variable):
    """The lines of the log fixture named by environment variable ``variable`` (a file of the log corpus)."""
    path = setting(variable)
    if not path:
        sys.stderr.write("sglang test double: set %s to a log fixture from tests/fixtures/logs\n" % variable)
        sys.exit(3)
    with open(path, encoding="utf-8") as handle:
        return handle.read().splitlines()


def shifted(lines, gib):
    """The real lines with every free-memory figure lowered by ``gib`` (as if another tenant held that much).

    Test-only: it lets one real log stand for a later start on the same host whose numbers moved.
    """
    if not gib:
        return lines
    return [re.sub(r"(avail mem=|available_gpu_mem=)(\d+\.\d+)", lambda m: "%s%.2f" % (m.group(1), float(m.group(2)) - gib), line) for line in lines]


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="launch_server.py")
    parser.add_argument("--model-path", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=30000)
    parser.add_argument("--api-key", default=None)
    parser.add_argument("--admin-api-key", default=None)
    parser.add_argument("--served-model-name", default=None)
    parser.add_argument("--config", default=None)
    # The multi-node flags (server_args.py): the double performs the rendezvous they describe.
    parser.add_argument("--tp-size", "--tensor-parallel-size", type=int, default=1)
    parser.add_argument("--pp-size", "--pipeline-parallel-size", type=int, default=1)
    parser.add_argument("--nnodes", type=int, default=1)
    parser.add_argument("--node-rank", type=int, default=0)
    parser.add_argument("--dist-init-addr", "--nccl-init-addr", default=None)
    parser.add_argument("--dist-timeout", type=int, default=None)
    # Prefill/decode disaggregation (server_args.py; defaults of 0.5.9-0.5.23): the double performs the bootstrap.
    parser.add_argument("--disaggregation-mode", default="null", choices=["null", "prefill", "decode"])
    parser.add_argument("--disaggregation-bootstrap-port", type=int, default=8998)
    parser.add_argument("--disaggregation-transfer-backend", default="mooncake")
    args, unknown = parser.parse_known_args(argv)
    if setting("SGLANG_DOUBLE_MODE") == "argparse_error":
        parser.error("unrecognized arguments: %s" % " ".join(unknown or ["--no-such-flag"]))
    if args.config:  # SGLang reads YAML; the role writes JSON, which is YAML too
        with open(args.config, encoding="utf-8") as handle:
            for key, value in json.load(handle).items():
                field = key.replace("-", "_")
                if field in ("api_key", "admin_api_key") and getattr(args, field) is None:
                    setattr(args, field, value)
    return args


class State:
    ready = False
    peers = ()  # the rendezvous listener and the other nodes' connections, held open while rank 0 serves
    bootstrap = None  # a prefill server's bootstrap server


# torch.distributed's default timeout of init_process_group (SGLang passes --dist-timeout, else None).
TORCH_DEFAULT_TIMEOUT_S = 600


def _address(dist_init_addr):
    host, port = dist_init_addr.rsplit(":", 1)
    return host.strip("[]"), int(port)


def _stamp():
    return time.strftime("%Y-%m-%d %H:%M:%S")


def rendezvous_as_rank_0(args, timeout):
    """Rank 0 holds the TCPStore: it waits for every other node, as torch's TCPStore server does.

    Returns the joined connections, or exits 1 with torch's own message when a node is missing at the timeout
    (torch/csrc/distributed/c10d/TCPStore.cpp; real log: tests/fixtures/logs/real/nccl_failure/sglang-507-*).
    """
    host, port = _address(args.dist_init_addr)
    listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("::" if ":" in host else "0.0.0.0", port))
    listener.listen(16)
    deadline = time.monotonic() + timeout
    joined = {}
    while len(joined) < args.nnodes - 1 and time.monotonic() < deadline:
        listener.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            conn = listener.accept()[0]
        except socket.timeout:
            break
        conn.settimeout(5)
        try:
            hello = conn.recv(64).decode("ascii", "replace")
        except OSError:
            hello = ""
        match = re.match(r"rank (\d+)\n", hello)
        if not match:  # a port probe (the role's wait_for), not a rank
            conn.close()
            continue
        joined[int(match.group(1))] = conn
        print("[%s] [double] node rank %s joined the rendezvous on port %d" % (_stamp(), match.group(1), port), flush=True)
    if len(joined) < args.nnodes - 1:
        world = args.tp_size * args.pp_size
        per_node = max(1, world // max(1, args.nnodes))
        print("[%s] Scheduler hit an exception: Traceback (most recent call last):" % _stamp(), flush=True)
        print(
            "torch.distributed.DistStoreError: Timed out after %d seconds waiting for clients. %d/%d clients joined."
            % (timeout + 1, per_node * (1 + len(joined)), world),
            flush=True,
        )
        sys.exit(1)
    for conn in joined.values():
        conn.sendall(b"go\n")
    # The TCPStore keeps serving on its port while rank 0 runs: later connections (probes) are accepted and closed.
    listener.settimeout(None)
    threading.Thread(target=_drop_connections, args=(listener,), daemon=True).start()
    return [listener, *joined.values()]


def _drop_connections(listener):
    while True:
        listener.accept()[0].close()


def rendezvous_as_rank(args, timeout):
    """A node of rank >= 1 connects to rank 0's TCPStore, retrying until the timeout, as torch's client does."""
    host, port = _address(args.dist_init_addr)
    deadline = time.monotonic() + timeout
    while True:
        try:
            conn = socket.create_connection((host, port), timeout=2)
            conn.sendall(b"rank %d\n" % args.node_rank)
            conn.settimeout(max(1.0, deadline - time.monotonic()))
            if conn.recv(8).startswith(b"go"):
                conn.settimeout(None)
                return conn
            conn.close()
        except OSError:
            pass
        if time.monotonic() >= deadline:
            print(
                "torch.distributed.DistNetworkError: The client socket has timed out after %dms while trying to connect to (%s, %d)."
                % (timeout * 1000, host, port),
                flush=True,
            )
            sys.exit(1)
        time.sleep(0.5)


def serve_as_rank(conn, startup):
    """A node of rank >= 1 starts no HTTP server (SGLang's engine.py); it runs until rank 0 goes away."""
    for line in startup:
        if READY_LINE not in line:
            print(line, flush=True)
    conn.recv(1)  # blocks until rank 0's end closes
    print("[%s] [double] rank 0 closed the rendezvous connection; this node stops" % _stamp(), flush=True)
    return 1


def start_bootstrap_server(args):
    """A prefill server's bootstrap server (SGLang's CommonKVBootstrapServer, an HTTP server on the bootstrap port):
    a decode server asks its ``/route`` where to pull a request's KV cache from. The double answers for every room."""

    class Bootstrap(BaseHTTPRequestHandler):
        def log_message(self, fmt, *values):
            sys.stdout.write("[double] bootstrap %s - %s\n" % (self.address_string(), fmt % values))
            sys.stdout.flush()

        def do_GET(self):
            raw = json.dumps({"rank_ip": args.host, "rank_port": args.disaggregation_bootstrap_port}).encode() if self.path.startswith("/route") else b"{}"
            self.send_response(200 if self.path.startswith("/route") else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

    server = ThreadingHTTPServer((args.host, args.disaggregation_bootstrap_port), Bootstrap)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def pull_kv_cache(request):
    """What a decode server does first with a request: ask the prefill's bootstrap server, at the address the router
    put in the request, for the KV cache of its room. Returns SGLang's own error text when that fails
    (sglang/srt/disaggregation/decode.py and common/conn.py, 0.5.23), else None."""
    host, port, room = request.get("bootstrap_host"), request.get("bootstrap_port"), request.get("bootstrap_room")
    try:
        if host is None or port is None or room is None:
            raise OSError("no bootstrap address in the request")
        connection = socket.create_connection((str(host), int(port)), timeout=2)
        connection.sendall(b"GET /route?prefill_dp_rank=0&target_tp_rank=0 HTTP/1.0\r\nHost: bootstrap\r\n\r\n")
        answered = connection.recv(64).startswith(b"HTTP/1.0 200")
        connection.close()
        if not answered:
            raise OSError("the bootstrap server did not answer /route")
    except (OSError, ValueError):
        return (
            "Decode handshake failed for request rank=0 decode_req.req.rid=%r decode_req.req.bootstrap_room=%r with exception "
            "Failed to get kvcache from prefill instance, it might be dead" % (request.get("rid") or "0", room)
        )
    print("[%s] [double] decode: KV cache of room %s pulled from %s:%s" % (_stamp(), room, host, port), flush=True)
    return None


def make_handler(args):
    served_name = args.served_model_name or args.model_path

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, fmt, *values):
            sys.stdout.write("[double] %s - %s\n" % (self.address_string(), fmt % values))
            sys.stdout.flush()

        def reply(self, status, body=None, content_type="application/json"):
            raw = body if isinstance(body, bytes) else json.dumps(body).encode() if body is not None else b""
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def authorized(self):
            # Like sglang/srt/utils/auth.py decide_request_auth: /health* and /metrics* need no key.
            if self.path.startswith("/health") or self.path.startswith("/metrics") or not args.api_key:
                return True
            return self.headers.get("Authorization") == "Bearer " + args.api_key

        def do_GET(self):
            if not self.authorized():
                return self.reply(401, {"error": "Unauthorized"})
            if self.path == "/health":
                return self.reply(200 if State.ready else 503)
            if self.path in ("/get_model_info", "/model_info"):
                return self.reply(200, {"model_path": args.model_path, "tokenizer_path": args.model_path, "is_generation": True})
            # What SGLang's http_server.py answers and the model gateway (smg) reads to detect the backend.
            if self.path == "/version":
                return self.reply(200, {"version": DOUBLE_VERSION})
            if self.path in ("/server_info", "/get_server_info"):
                info = {"model_path": args.model_path, "served_model_name": served_name, "version": DOUBLE_VERSION}
                info.update(disaggregation_mode=args.disaggregation_mode, disaggregation_bootstrap_port=args.disaggregation_bootstrap_port)
                return self.reply(200, info)
            if self.path == "/v1/models":
                model = {"id": served_name, "object": "model", "created": int(time.time()), "owned_by": "sglang", "root": args.model_path}
                return self.reply(200, {"object": "list", "data": [model]})
            if self.path == "/metrics":
                return self.reply(200, b"sglang:num_running_reqs 0.0\n", "text/plain")
            return self.reply(404, {"detail": "Not Found"})

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            if not self.authorized():
                return self.reply(401, {"error": "Unauthorized"})
            if self.path != "/generate":
                return self.reply(404, {"detail": "Not Found"})
            try:
                request = json.loads(body or b"{}")
            except ValueError:
                return self.reply(400, {"error": "invalid JSON"})
            if args.disaggregation_mode == "prefill":
                print("[%s] [double] prefill: room %s" % (_stamp(), request.get("bootstrap_room")), flush=True)
            if args.disaggregation_mode == "decode":
                failure = pull_kv_cache(request)
                if failure:
                    print("[%s] ERROR %s" % (_stamp(), failure), flush=True)
                    return self.reply(500, {"object": "error", "message": failure, "type": "InternalServerError", "code": 500})
            return self.reply(
                200,
                {
                    "text": " world",
                    "meta_info": {
                        "prompt_tokens": len(str(request.get("text", "")).split()),
                        "completion_tokens": 1,
                        "finish_reason": {"type": "length", "length": 1},
                    },
                },
            )

    return Handler


def main(argv):
    mode = setting("SGLANG_DOUBLE_MODE", "healthy")
    if mode == "silent_death":
        os._exit(1)
    args = parse_args(argv)
    unless = setting("SGLANG_DOUBLE_REPLAY_UNLESS")
    if mode == "replay" and not (unless and unless in argv):
        for line in fixture_lines("SGLANG_DOUBLE_REPLAY"):
            print(line, flush=True)
        return 1
    startup = shifted(fixture_lines("SGLANG_DOUBLE_STARTUP"), float(setting("SGLANG_DOUBLE_STARTUP_SHIFT_GIB", "0")))
    if args.nnodes > 1:
        timeout = args.dist_timeout or TORCH_DEFAULT_TIMEOUT_S
        if args.node_rank:
            return serve_as_rank(rendezvous_as_rank(args, timeout), startup)
        State.peers = rendezvous_as_rank_0(args, timeout)
    # Like SGLang (engine.py logs f"{server_args=}"), the real startup prints the API key: the role must
    # keep such lines out of Ansible's output.
    print(
        "[%s] server_args=ServerArgs(model_path=%r, host=%r, port=%d, api_key=%r, admin_api_key=%r)"
        % (time.strftime("%Y-%m-%d %H:%M:%S"), args.model_path, args.host, args.port, args.api_key, args.admin_api_key),
        flush=True,
    )
    if args.disaggregation_mode == "prefill":
        State.bootstrap = start_bootstrap_server(args)
    server = ThreadingHTTPServer((args.host, args.port), make_handler(args))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    before = [line for line in startup if READY_LINE not in line]
    for line in before:
        print(line, flush=True)
    time.sleep(float(setting("SGLANG_DOUBLE_LOAD_SECONDS", "2")))
    State.ready = True
    logged = len(before)
    for line in startup[logged:] or ["[%s] %s" % (time.strftime("%Y-%m-%d %H:%M:%S"), READY_LINE)]:
        print(line, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
