#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Wait until an SGLang server really serves, while watching its systemd unit."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: sglang_wait_ready
short_description: Wait until an SGLang server answers health, model info and a generate request
version_added: 0.1.0
author: llmops.sglang maintainers (@llmops-sglang)
description:
  - Polls, on the target, C(GET /health) until it answers 200, then C(GET /get_model_info) until it reports
    the expected model, then sends one tiny C(POST /generate) request (one new token, greedy).
  - With O(unit), it reads C(systemctl show) for the unit on every iteration. When the unit's process
    exits (the unit is C(failed), C(inactive), waiting to auto-restart, or its MainPID changed), it stops
    waiting at once and fails, so a crash is reported in seconds instead of after the timeout.
  - Uses only the Python standard library (Python 3.8+).
options:
  url:
    description: Base URL of the server, for example C(http://127.0.0.1:30000).
    type: str
    required: true
  unit:
    description: The systemd unit that runs the server. Omit to only poll HTTP.
    type: str
  expected_model:
    description:
      - The C(model_path) that C(/get_model_info) must report (the server's C(--model-path)).
      - Omit to accept any model.
    type: str
  api_key:
    description:
      - "The server's API key, sent as C(Authorization: Bearer <key>) to C(/get_model_info) and C(/generate)."
      - SGLang exempts C(/health) and C(/metrics) from the key.
    type: str
  generate:
    description: Send the smoke C(/generate) request as the last stage.
    type: bool
    default: true
  prompt:
    description: The prompt of the smoke request.
    type: str
    default: Hello
  timeout:
    description: Seconds to wait for all stages together.
    type: int
    default: 600
  interval:
    description: Seconds between polls.
    type: float
    default: 2.0
  request_timeout:
    description: Seconds one HTTP request may take (the generate request gets three times this).
    type: int
    default: 10
  validate_certs:
    description: Verify TLS certificates for C(https) URLs.
    type: bool
    default: true
extends_documentation_fragment:
  - llmops.sglang.attributes
  - llmops.sglang.attributes.read_only
attributes:
  check_mode:
    details: Only reads; in check mode it still polls, since polling changes nothing.
notes:
  - The module never changes the unit; it only reads C(systemctl show -p ActiveState,SubState,MainPID,Result,ExecMainStatus).
"""

EXAMPLES = r"""
- name: Wait for the service to serve the expected model
  llmops.sglang.sglang_wait_ready:
    url: http://127.0.0.1:30000
    unit: sglang.service
    expected_model: /srv/models/Qwen3-8B
    api_key: "{{ sglang_api_key }}"
    timeout: 900
  no_log: true
"""

RETURN = r"""
ready:
  description: True when every stage passed.
  type: bool
  returned: always
stage:
  description: The last stage reached (C(health), C(model_info), C(generate), C(ready)).
  type: str
  returned: always
reason:
  description: Why waiting stopped without success (C(unit_exited), C(timeout), C(wrong_model), C(unauthorized), C(generate_failed)); empty when ready.
  type: str
  returned: always
elapsed:
  description: Seconds spent waiting.
  type: float
  returned: always
model_info:
  description: The last C(/get_model_info) answer.
  type: dict
  returned: when the server answered it
unit_state:
  description: The unit's last C(systemctl show) properties (ActiveState, SubState, MainPID, Result, ExecMainStatus, ...).
  type: dict
  returned: when unit is set
last_error:
  description: The last HTTP error or status seen.
  type: str
  returned: always
"""

import json
import time

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.six.moves.urllib.error import HTTPError, URLError
from ansible.module_utils.urls import open_url
from ansible_collections.llmops.sglang.plugins.module_utils.systemd_unit import parse_show

_SHOW_PROPERTIES = ("ActiveState", "SubState", "MainPID", "Result", "ExecMainStatus", "ExecMainCode", "NRestarts", "InvocationID")


def unit_exit_reason(props, first_main_pid):
    """A sentence when the unit's process is gone (or was replaced), else None."""
    active = props.get("ActiveState", "")
    sub = props.get("SubState", "")
    main_pid = int(props.get("MainPID") or 0)
    if active in ("failed", "inactive") or sub in ("auto-restart", "dead", "failed"):
        return "the unit is %s/%s (result %s, exit status %s)" % (active, sub, props.get("Result", "?"), props.get("ExecMainStatus", "?"))
    if first_main_pid and main_pid and main_pid != first_main_pid:
        return "the unit's main process changed from PID %s to %s (it exited and was restarted)" % (first_main_pid, main_pid)
    return None


def model_matches(info, expected):
    """True when /get_model_info names the expected model (path compared without a trailing slash)."""
    if not expected:
        return True
    reported = str(info.get("model_path") or "").rstrip("/")
    return reported == str(expected).rstrip("/")


class Http:
    """Tiny JSON-over-HTTP client on ansible's open_url."""

    def __init__(self, base_url, api_key, request_timeout, validate_certs):
        self.base = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = request_timeout
        self.validate_certs = validate_certs

    def call(self, path, payload=None, auth=True, timeout=None):
        """(status, parsed JSON or text or None); status 0 with the error text when unreachable."""
        headers = {"Accept": "application/json"}
        data = None
        if payload is not None:
            data = json.dumps(payload)
            headers["Content-Type"] = "application/json"
        if auth and self.api_key:
            headers["Authorization"] = "Bearer %s" % self.api_key
        try:
            response = open_url(
                self.base + path,
                data=data,
                headers=headers,
                method="POST" if data else "GET",
                timeout=timeout or self.timeout,
                validate_certs=self.validate_certs,
            )
            body = response.read().decode("utf-8", "replace")
            status = response.getcode()
        except HTTPError as exc:
            return exc.code, exc.read().decode("utf-8", "replace")[:500]
        except (URLError, OSError, ValueError) as exc:
            return 0, str(getattr(exc, "reason", exc))
        try:
            return status, json.loads(body) if body else None
        except ValueError:
            return status, body[:500]


def wait_ready(module, http, show_unit, clock=time.monotonic, sleep=time.sleep):
    """Poll the stages until ready, a unit exit, a wrong model or the deadline; return the result dict."""
    params = module.params
    start = clock()
    deadline = start + params["timeout"]
    result = {"ready": False, "stage": "health", "reason": "", "last_error": "", "model_info": None}
    first_main_pid = 0
    while True:
        if show_unit is not None:
            props = show_unit()
            result["unit_state"] = props
            pid = int(props.get("MainPID") or 0)
            exited = unit_exit_reason(props, first_main_pid)
            if exited:
                result.update(reason="unit_exited", last_error=exited)
                break
            first_main_pid = first_main_pid or pid
        stage = result["stage"]
        if stage == "health":
            status, body = http.call("/health", auth=False)
            if status == 200:
                result["stage"] = "model_info"
                continue
            result["last_error"] = "GET /health: %s" % (status or body)
        elif stage == "model_info":
            status, body = http.call("/get_model_info")
            if status == 200 and isinstance(body, dict):
                result["model_info"] = body
                if not model_matches(body, params["expected_model"]):
                    result.update(reason="wrong_model", last_error="the server serves %r, expected %r" % (body.get("model_path"), params["expected_model"]))
                    break
                result["stage"] = "generate" if params["generate"] else "ready"
                continue
            if status in (401, 403):
                result.update(reason="unauthorized", last_error="GET /get_model_info: %s %s (check the API key)" % (status, body))
                break
            result["last_error"] = "GET /get_model_info: %s %s" % (status, body if status else "")
        elif stage == "generate":
            payload = {"text": params["prompt"], "sampling_params": {"max_new_tokens": 1, "temperature": 0}}
            status, body = http.call("/generate", payload, timeout=3 * params["request_timeout"])
            if status == 200 and isinstance(body, (dict, list)):
                result["stage"] = "ready"
                continue
            if status in (400, 401, 403, 404, 422):
                result.update(reason="generate_failed", last_error="POST /generate: %s %s" % (status, body))
                break
            result["last_error"] = "POST /generate: %s %s" % (status, body if status else "")
        else:
            result["ready"] = True
            break
        if clock() >= deadline:
            result["reason"] = "timeout"
            break
        sleep(max(0.0, min(params["interval"], deadline - clock())))
    result["elapsed"] = round(clock() - start, 2)
    return result


def main():
    module = AnsibleModule(
        argument_spec=dict(
            url=dict(type="str", required=True),
            unit=dict(type="str"),
            expected_model=dict(type="str"),
            api_key=dict(type="str", no_log=True),
            generate=dict(type="bool", default=True),
            prompt=dict(type="str", default="Hello"),
            timeout=dict(type="int", default=600),
            interval=dict(type="float", default=2.0),
            request_timeout=dict(type="int", default=10),
            validate_certs=dict(type="bool", default=True),
        ),
        supports_check_mode=True,
    )
    params = module.params
    if not params["url"].startswith(("http://", "https://")):
        module.fail_json(msg="url %r must start with http:// or https://, e.g. http://127.0.0.1:30000" % params["url"])
    if params["timeout"] < 0 or params["interval"] <= 0:
        module.fail_json(msg="timeout must be >= 0 and interval > 0 (got timeout=%s, interval=%s)" % (params["timeout"], params["interval"]))

    show_unit = None
    if params["unit"]:
        systemctl = module.get_bin_path("systemctl", required=True)

        def show_unit():
            rc, out, err = module.run_command([systemctl, "show", params["unit"], "-p", ",".join(_SHOW_PROPERTIES)])
            if rc != 0:
                module.fail_json(msg="systemctl show %s failed: %s" % (params["unit"], err.strip()))
            return parse_show(out)

    http = Http(params["url"], params["api_key"], params["request_timeout"], params["validate_certs"])
    result = wait_ready(module, http, show_unit)
    if result["ready"]:
        module.exit_json(changed=False, msg="%s is ready (%.1f s)" % (params["url"], result["elapsed"]), **result)
    messages = {
        "unit_exited": "%s exited while waiting for readiness at stage %s: %s",
        "wrong_model": "%s is up but serves the wrong model at stage %s: %s",
        "generate_failed": "%s rejected the smoke request at stage %s: %s",
        "unauthorized": "%s refused the API key at stage %s: %s",
        "timeout": "%s was not ready within the timeout; last stage %s: %s",
    }
    module.fail_json(msg=messages[result["reason"]] % (params["unit"] or params["url"], result["stage"], result["last_error"]), **result)


if __name__ == "__main__":
    main()
