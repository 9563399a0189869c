# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Control characters in flag values and in the model path are refused by name (issue 15, item 11)."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.llmops.sglang.plugins.filter.sglang_service import sglang_service_args, sglang_service_secrets
from ansible_collections.llmops.sglang.plugins.plugin_utils.service_launch import (
    ServiceLaunchError,
    launch_plan,
    merge_service_args,
    secrets_config,
)

INJECTION = "x\n[Service]\nExecStartPre=/bin/sh -c 'id > /tmp/pwned'"
MODEL = {"model_path": "/srv/models/Qwen3-8B"}


def test_a_string_flag_that_would_inject_a_unit_line_is_refused_naming_the_flag():
    with pytest.raises(
        ServiceLaunchError,
        match=r"^served_model_name in sglang_service_server_args holds the control "
        r"character '\\n' at offset 1",
    ):
        merge_service_args(dict(MODEL, served_model_name=INJECTION), {}, "0.5.9")
    with pytest.raises(AnsibleFilterError, match="served_model_name in sglang_service_extra_args holds the control"):
        sglang_service_args(MODEL, "0.5.9", extra_args={"--served-model-name": INJECTION})


@pytest.mark.parametrize("character", ["\n", "\r", "\x00", "\x1b", "\t", "\x7f", "\x85", "\u2028"])
def test_a_model_path_with_a_control_character_is_refused(character):
    with pytest.raises(ServiceLaunchError, match="model_path in sglang_service_server_args holds the control character"):
        merge_service_args({"model_path": "/srv/models/a%sb" % character}, {}, "0.5.9")
    with pytest.raises(ServiceLaunchError, match="model_path in the server args holds the control character"):
        launch_plan({"model_path": "/srv/models/a%sb" % character}, "0.5.9")


def test_list_and_json_values_are_checked_inside():
    with pytest.raises(ServiceLaunchError, match="^json_model_override_args in sglang_service_server_args"):
        merge_service_args(dict(MODEL, json_model_override_args='{"rope_scaling":\n{"type": "yarn"}}'), {}, "0.5.9")
    # A JSON object is serialized with its newlines escaped (\\n): no raw control character reaches the unit.
    merged = merge_service_args(dict(MODEL, json_model_override_args={"note": "a\nb"}), {}, "0.5.9")
    assert merged["json_model_override_args"] == '{"note":"a\\nb"}'
    with pytest.raises(ServiceLaunchError, match="^lora_paths in sglang_service_server_args"):
        merge_service_args(dict(MODEL, lora_paths=["ok", "bad\rpath"]), {}, "0.5.9")


def test_a_secret_with_a_newline_is_refused_without_showing_it():
    with pytest.raises(ServiceLaunchError) as raised:
        secrets_config({"admin_api_key": "top\nsecret"}, "", "0.5.9")
    assert "admin_api_key in sglang_service_secret_args holds the control character" in str(raised.value)
    assert "secret" not in str(raised.value).replace("sglang_service_secret_args", "")
    with pytest.raises(AnsibleFilterError, match="admin_api_key in sglang_service_secret_args"):
        sglang_service_secrets({"admin_api_key": "top\nsecret"}, "0.5.9")


def test_printable_unicode_and_spaces_pass():
    merged = merge_service_args({"model_path": "/srv/models/Qwen3 8B ü", "served_model_name": "qwen-ü"}, {}, "0.5.9")
    assert merged["model_path"] == "/srv/models/Qwen3 8B ü"
