# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""``awx/job_template.json`` is an ``awx import`` file (awxkit's format) whose survey, credential types and
references agree with the playbooks and the roles' argument specs."""

import json
import pathlib
import re

import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
IMPORT = ROOT / "awx" / "job_template.json"

# awxkit 24.6.1 awxkit/api/pages/api.py EXPORTABLE_RESOURCES, and each page class's NATURAL_KEY, keyed by the
# resource list the import reads and the "type" its natural keys carry.
RESOURCES = {
    "organizations": ("organization", ("name",)),
    "credential_types": ("credential_type", ("name", "kind")),
    "credentials": ("credential", ("organization", "name", "credential_type")),
    "execution_environments": ("execution_environment", ("name",)),
    "projects": ("project", ("organization", "name")),
    "inventory": ("inventory", ("organization", "name")),
    "inventory_sources": ("inventory_source", ("name", "inventory")),
    "job_templates": ("job_template", ("organization", "name")),
}
# Objects every AWX has, which the file may name without defining.
BUILT_IN = [{"name": "Default", "type": "organization"}]
REFERENCE_FIELDS = {"name", "organization", "kind", "inventory", "credential_type"}
SURVEY_TYPES = {"text", "textarea", "password", "integer", "float", "multiplechoice", "multiselect"}


@pytest.fixture(scope="module")
def assets():
    with open(IMPORT, encoding="utf-8") as handle:
        return json.load(handle)


def _keys(data):
    return BUILT_IN + [asset["natural_key"] for resource in data for asset in data[resource]]


def _references(value):
    """Every natural-key reference (a dict with a "type") inside an asset's fields, outside its own key."""
    if isinstance(value, dict):
        if "type" in value and set(value) - {"type"} <= REFERENCE_FIELDS:
            yield value
        else:
            for item in value.values():
                yield from _references(item)
    elif isinstance(value, list):
        for item in value:
            yield from _references(item)


def test_every_asset_has_the_natural_key_awx_import_looks_it_up_by(assets):
    assert set(assets) <= set(RESOURCES), sorted(set(assets) - set(RESOURCES))
    for resource, items in assets.items():
        kind, fields = RESOURCES[resource]
        for asset in items:
            key = asset["natural_key"]
            assert key["type"] == kind and set(key) == {*fields, "type"}, (resource, key)
            for field in fields:
                # A job template's organization is its project's (AWX derives it; the API does not take it).
                own = asset["project"]["organization"] if (resource, field) == ("job_templates", "organization") else asset[field]
                assert own == key[field], (resource, field, own, key[field])


def test_every_reference_names_an_asset_of_the_file_or_of_every_awx(assets):
    known = _keys(assets)
    for resource, items in assets.items():
        for asset in items:
            fields = {k: v for k, v in asset.items() if k not in ("natural_key", "related")}
            for ref in _references(fields):
                assert ref in known, (resource, asset["name"], ref)


def test_the_project_holds_the_playbook_and_the_inventory_source(assets):
    for template in assets["job_templates"]:
        assert (ROOT / template["playbook"]).is_file(), template["name"]
    for source in assets["inventory_sources"]:
        assert source["source"] == "scm" and (ROOT / source["source_path"]).exists(), source


def _argument_specs():
    options = {}
    for path in ROOT.glob("roles/*/meta/argument_specs.yml"):
        for entry in yaml.safe_load(path.read_text())["argument_specs"].values():
            options.update(entry.get("options", {}))
    return options


def test_credential_types_inject_role_variables_and_keep_secrets_secret(assets):
    options = _argument_specs()
    for ctype in assets["credential_types"]:
        fields = {f["id"]: f for f in ctype["inputs"]["fields"]}
        assert ctype["kind"] == "cloud" and set(ctype["inputs"]["required"]) <= set(fields), ctype["name"]
        injected = ctype["injectors"]["extra_vars"]
        assert injected and set(ctype["injectors"]) == {"extra_vars"}, ctype["name"]
        used = set()
        for var, template in injected.items():
            names = re.findall(r"\{\{\s*(\w+)\s*\}\}", template)
            assert names and set(names) <= set(fields), (ctype["name"], var, template)
            used.update(names)
            assert var in options, "%s injects %s, which no role reads" % (ctype["name"], var)
            if any(fields[name].get("secret") for name in names):
                assert options[var].get("no_log") is True, "%s carries a secret but is not no_log" % var
        assert used == set(fields), (ctype["name"], set(fields) - used)
        for field in fields.values():
            if re.search(r"secret|password|token|key", field["id"]) and field["id"] not in ("token_id",):
                assert field.get("secret") is True, (ctype["name"], field["id"])


def test_the_survey_and_playbooks_vars_name_the_same_variables(assets):
    spec = assets["job_templates"][0]["related"]["survey_spec"]["spec"]
    deployment = (ROOT / "playbooks" / "vars" / "deployment.yml").read_text()
    read = set(re.findall(r"\bllmops_sglang_survey_(?!answers\b)\w+", deployment))
    asked = {question["variable"] for question in spec}
    assert asked == read, {"asked, never read": asked - read, "read, never asked": read - asked}


def test_the_rolling_update_survey_asks_what_its_playbook_and_the_deployment_vars_read(assets):
    template = [jt for jt in assets["job_templates"] if jt["playbook"] == "playbooks/rolling_update.yml"][0]
    read = set()
    for path in ("playbooks/rolling_update.yml", "playbooks/vars/deployment.yml"):
        read |= set(re.findall(r"\bllmops_sglang_survey_(?!answers\b)\w+", (ROOT / path).read_text()))
    asked = {question["variable"] for question in template["related"]["survey_spec"]["spec"]}
    assert asked <= read, {"asked, never read": asked - read}
    assert {"llmops_sglang_survey_rolling_replicas", "llmops_sglang_survey_rolling_stop_on_failure"} <= asked


@pytest.mark.parametrize("index", [0, 2])
def test_every_survey_question_is_valid_for_awx(assets, index):
    jt = assets["job_templates"][index]
    assert jt["survey_enabled"] is True
    for question in jt["related"]["survey_spec"]["spec"]:
        assert question["type"] in SURVEY_TYPES, question
        assert question["question_name"] and "default" in question, question
        if question["type"] == "multiplechoice":
            assert question["default"] in question["choices"], question
        if question["type"] in ("integer", "float"):
            assert question["min"] <= question["default"] <= question["max"], question
