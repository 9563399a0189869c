# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""sglang_wait_ready against a real loopback HTTP server that behaves like SGLang's endpoints."""

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from ansible_collections.llmops.sglang.plugins.modules import sglang_wait_ready as mod


class FakeModule:
    def __init__(self, **params):
        self.params = dict(
            url="",
            unit=None,
            expected_model=None,
            api_key=None,
            generate=True,
            prompt="Hello",
            timeout=30,
            interval=0.01,
            request_timeout=2,
            validate_certs=True,
        )
        self.params.update(params)


class Server:
    """Serves /health (503 for the first `starting` polls), /get_model_info and /generate with a key."""

    def __init__(self, model="/models/m", starting=2, api_key=None, generate_status=200):
        self.state = {"health_calls": 0, "generate_bodies": [], "auth": []}
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _reply(self, status, body=None):
                raw = json.dumps(body).encode() if body is not None else b""
                self.send_response(status)
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def _authorized(self):
                outer.state["auth"].append(self.headers.get("Authorization"))
                return not api_key or self.headers.get("Authorization") == "Bearer " + api_key

            def do_GET(self):
                if self.path == "/health":
                    outer.state["health_calls"] += 1
                    return self._reply(503 if outer.state["health_calls"] <= starting else 200)
                if self.path == "/get_model_info":
                    if not self._authorized():
                        return self._reply(401, {"error": "Unauthorized"})
                    return self._reply(200, {"model_path": model, "is_generation": True})
                return self._reply(404)

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                outer.state["generate_bodies"].append(json.loads(self.rfile.read(length)))
                if not self._authorized():
                    return self._reply(401, {"error": "Unauthorized"})
                return self._reply(generate_status, {"text": "!", "meta_info": {"completion_tokens": 1}})

        self.httpd = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server_factory():
    servers = []

    def make(**kwargs):
        servers.append(Server(**kwargs))
        return servers[-1]

    yield make
    for s in servers:
        s.close()


def run(module, show_unit=None):
    http = mod.Http(module.params["url"], module.params["api_key"], module.params["request_timeout"], True)
    return mod.wait_ready(module, http, show_unit)


def test_ready_after_health_turns_200_with_key_and_one_token_generate(server_factory):
    server = server_factory(api_key="k3y", starting=3)
    result = run(FakeModule(url=server.url, expected_model="/models/m/", api_key="k3y"))
    assert result["ready"] and result["stage"] == "ready" and result["reason"] == ""
    assert server.state["health_calls"] == 4
    assert server.state["generate_bodies"] == [{"text": "Hello", "sampling_params": {"max_new_tokens": 1, "temperature": 0}}]
    assert set(server.state["auth"]) == {"Bearer k3y"}
    assert result["model_info"]["model_path"] == "/models/m"


def test_wrong_model_stops_at_once(server_factory):
    server = server_factory(model="/models/other", starting=0)
    result = run(FakeModule(url=server.url, expected_model="/models/m"))
    assert not result["ready"] and result["reason"] == "wrong_model"
    assert "/models/other" in result["last_error"]


def test_missing_key_stops_at_once_instead_of_timing_out(server_factory):
    server = server_factory(api_key="k3y", starting=0)
    result = run(FakeModule(url=server.url, timeout=600))
    assert not result["ready"] and result["reason"] == "unauthorized"
    assert "401" in result["last_error"] and len(server.state["auth"]) == 1  # one try, no retry loop


def test_timeout_when_nothing_listens():
    result = run(FakeModule(url="http://127.0.0.1:9", timeout=0))
    assert result["reason"] == "timeout" and result["stage"] == "health"
    assert result["last_error"].startswith("GET /health:")


def test_unit_exit_stops_waiting_at_once_without_http():
    calls = []

    def show():
        calls.append(1)
        return {"ActiveState": "activating", "SubState": "auto-restart", "MainPID": "0", "Result": "exit-code", "ExecMainStatus": "1"}

    result = run(FakeModule(url="http://127.0.0.1:9", unit="sglang.service", timeout=600), show)
    assert result["reason"] == "unit_exited" and len(calls) == 1
    assert "exit status 1" in result["last_error"]


def test_main_pid_change_counts_as_an_exit():
    states = iter([{"ActiveState": "active", "SubState": "running", "MainPID": "100"}, {"ActiveState": "active", "SubState": "running", "MainPID": "200"}])
    result = run(FakeModule(url="http://127.0.0.1:9", unit="u", timeout=600), lambda: next(states))
    assert result["reason"] == "unit_exited"
    assert "from PID 100 to 200" in result["last_error"]


@pytest.mark.parametrize(
    "props,exited",
    [
        ({"ActiveState": "active", "SubState": "running", "MainPID": "5"}, False),
        ({"ActiveState": "activating", "SubState": "start-post", "MainPID": "5"}, False),
        ({"ActiveState": "failed", "SubState": "failed", "MainPID": "0"}, True),
        ({"ActiveState": "inactive", "SubState": "dead", "MainPID": "0"}, True),
    ],
)
def test_unit_exit_reason(props, exited):
    assert (mod.unit_exit_reason(props, 5) is not None) is exited


def test_parse_show():
    assert mod.parse_show("ActiveState=active\nMainPID=12\nbogus\nResult=success\n") == {"ActiveState": "active", "MainPID": "12", "Result": "success"}
