# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every secret-bearing SGLang flag goes through the unit's 0600 secrets file, never argv (issue 15, item 7).

The catalogs are read from plugins/plugin_utils/data as they are when the test runs, so a catalog added for
a new release is checked without editing this file.
"""

import json
import pathlib
import re

import pytest

from ansible_collections.llmops.sglang.plugins.plugin_utils.flag_catalog import load_catalog
from ansible_collections.llmops.sglang.plugins.plugin_utils.flag_validator import FlagValidationError
from ansible_collections.llmops.sglang.plugins.plugin_utils.releases import UnsupportedVersionError
from ansible_collections.llmops.sglang.plugins.plugin_utils.service_launch import (
    NOT_SECRET_FIELDS,
    RESERVED_FIELDS,
    SECRET_FIELDS,
    ServiceLaunchError,
    launch_plan,
    merge_service_args,
    secrets_config,
)

DATA = pathlib.Path(__file__).resolve().parents[4] / "plugins/plugin_utils/data"
CATALOGS = sorted(DATA.glob("sglang-flags-*.json"))
LOOKS_SECRET = re.compile(r"secret|passw|key|token|credential", re.IGNORECASE)
MODEL = {"model_path": "/srv/models/Qwen3-8B"}


def _flags(path):
    return json.loads(path.read_text())["flags"]


def _version(path):
    return json.loads(path.read_text())["sglang_version"]


def test_the_catalog_folder_is_read():
    assert {"sglang-flags-0.5.9.json", "sglang-flags-0.5.23.json"} <= {p.name for p in CATALOGS}


@pytest.mark.parametrize("catalog", CATALOGS, ids=lambda p: p.name)
def test_every_flag_that_looks_secret_is_routed_or_has_a_reason(catalog):
    unclassified = []
    for flag in _flags(catalog):
        text = " ".join(flag["option_strings"]) + " " + (flag.get("help") or "")
        if LOOKS_SECRET.search(text) and flag["field"] not in SECRET_FIELDS and not NOT_SECRET_FIELDS.get(flag["field"]):
            unclassified.append("%s (%s): %s" % (flag["field"], flag["declared_at"], (flag.get("help") or "")[:120]))
    assert not unclassified, "classify in service_launch.SECRET_FIELDS or NOT_SECRET_FIELDS: " + " | ".join(unclassified)


def test_secret_and_not_secret_do_not_overlap_and_every_secret_is_reserved():
    assert not set(SECRET_FIELDS) & set(NOT_SECRET_FIELDS)
    assert set(SECRET_FIELDS) <= set(RESERVED_FIELDS)
    assert "ssl_keyfile_password" in SECRET_FIELDS


def _deployable(path):
    """A catalog of a release the role can deploy (others are kept for research and classified above)."""
    try:
        load_catalog(_version(path))
    except UnsupportedVersionError:
        return False
    return True


SECRET_FLAGS = [(c, f) for c in CATALOGS if _deployable(c) for f in _flags(c) if f["field"] in SECRET_FIELDS]


@pytest.mark.parametrize("catalog,flag", SECRET_FLAGS, ids=lambda x: x.name if isinstance(x, pathlib.Path) else x["field"])
def test_a_secret_flag_is_refused_in_the_server_args_in_every_spelling(catalog, flag):
    version = _version(catalog)
    for spelling in (flag["field"], flag["option_strings"][0], flag["option_strings"][0][2:]):
        with pytest.raises(ServiceLaunchError, match="%s may not be set.*sglang_service_secret_args" % flag["field"]):
            merge_service_args(dict(MODEL, **{spelling: "fake-secret-value"}), {}, version)
        with pytest.raises(ServiceLaunchError, match="may not be set"):
            launch_plan(dict(MODEL, **{spelling: "fake-secret-value"}), version)


@pytest.mark.parametrize(
    "catalog,flag", [cf for cf in SECRET_FLAGS if cf[1]["field"] != "api_key"], ids=lambda x: x.name if isinstance(x, pathlib.Path) else x["field"]
)
def test_a_secret_flag_goes_to_the_secrets_file_under_its_option_name(catalog, flag):
    config = secrets_config({flag["field"]: "fake-secret-value"}, "the-api-key", _version(catalog))
    assert config == {"api-key": "the-api-key", flag["option_strings"][0][2:]: "fake-secret-value"}


def test_ssl_keyfile_password_reaches_the_secrets_file_and_not_the_argv():
    config = secrets_config({"--ssl-keyfile-password": "pem-pass"}, "", "0.5.23")
    assert config == {"ssl-keyfile-password": "pem-pass"}
    plan = launch_plan(dict(MODEL, ssl_keyfile="/etc/sglang/tls.key"), "0.5.23")
    assert "pem-pass" not in " ".join(plan["argv"]) and "--ssl-keyfile" in plan["argv"]


def test_the_secrets_file_refuses_other_flags_the_api_key_and_unknown_ones():
    with pytest.raises(ServiceLaunchError, match="takes only secret flags .* move tp_size to sglang_service_server_args"):
        secrets_config({"tp_size": 2}, "", "0.5.9")
    with pytest.raises(ServiceLaunchError, match="api_key may not be set in sglang_service_secret_args"):
        secrets_config({"--api-key": "k"}, "", "0.5.9")
    with pytest.raises(FlagValidationError):
        secrets_config({"ssl_keyfile_passwrd": "x"}, "", "0.5.9")
    with pytest.raises(ServiceLaunchError, match="must be a dict"):
        secrets_config(["ssl_keyfile_password"], "", "0.5.9")
    assert secrets_config({}, "", "0.5.9") == {}
