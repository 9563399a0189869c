# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write the documentation tables that come from the release registry, so that none is typed by hand.

``python scripts/gen_release_docs.py`` rewrites each block between ``<!-- BEGIN generated: NAME -->`` and
``<!-- END generated: NAME -->`` in the files below; ``--check`` only reports the blocks that are out of date
(``tests/unit/test_generated_docs.py`` runs it). The blocks:

* ``incident-across-releases`` (README.md): the incident's flags under every release, from the budget engine;
* ``release-pins`` (roles/sglang_install/README.md): each release's wheel pins;
* ``release-cuda`` (roles/nvidia_userspace/README.md): the CUDA toolkit and host driver each release needs;
* ``verified-architectures`` (README.md): the budget's verified classes, their SGLang module and pool family;

and the lists of modelled releases and verified architectures in ``sglang_memory_budget``'s documentation.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / ".build" / "collections"))

from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.architectures import VERIFIED  # noqa: E402
from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.architectures import release_architectures  # noqa: E402
from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.compare import compare_releases  # noqa: E402
from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.engine import load_model_dir  # noqa: E402
from ansible_collections.llmops.sglang.plugins.plugin_utils.releases import RELEASES  # noqa: E402

INVENTORY = ROOT / "inventories" / "example" / "group_vars" / "sglang_containers.yml"
INCIDENT_MODEL = ROOT / "tests" / "fixtures" / "model-configs" / "Qwen__Qwen3.6-27B"
INCIDENT_KEYS = (
    "tp_size",
    "mem_fraction_static",
    "context_length",
    "enable_torch_compile",
    "speculative_algorithm",
    "speculative_num_steps",
    "speculative_eagle_topk",
    "speculative_num_draft_tokens",
)


def _number(value):
    return "-" if value is None else f"{value:,}"


def incident_across_releases() -> str:
    inventory = yaml.safe_load(INVENTORY.read_text())
    args = {k: inventory["llmops_sglang_server_args"][k] for k in INCIDENT_KEYS}
    gpus = [{k: g[k] for k in ("index", "name", "memory_total_mib")} for g in inventory["llmops_sglang_gpus"]]
    comparison = compare_releases(load_model_dir(str(INCIDENT_MODEL)), gpus, args)
    flags = " ".join(f"--{k.replace('_', '-')}" + ("" if v is True else f" {v}") for k, v in args.items())
    lines = [
        f"The incident's flags (`{flags}`) on 2x RTX A6000, under every release (`python scripts/gen_release_docs.py`, the same as `compare_releases: true`):",
        "",
        "| SGLang | sizing checked by | verdict | root cause | KV tokens | max running requests | mamba slots |",
        "|---|---|---|---|---|---|---|",
    ]
    for o in comparison.outcomes:
        lines.append(
            f"| {o.version} | {o.verified_by or '-'} | {o.verdict} | {o.root_cause or '-'} | "
            f"{_number(o.max_total_num_tokens)} | {_number(o.max_running_requests)} | {_number(o.mamba_slots)} |"
        )
    first = comparison.first_release_that_starts
    lines += ["", f"First release whose startup goes through with these flags: **{first or 'none'}**."]
    return "\n".join(lines)


def release_pins() -> str:
    lines = ["| SGLang | wheel tags | Requires-Python | torch | CUDA of torch's wheel | flashinfer_python | kernel |", "|---|---|---|---|---|---|---|"]
    for r in RELEASES.values():
        p = r.pins
        flashinfer = p.flashinfer + (f" `[{p.flashinfer_extra}]`" if p.flashinfer_extra else "")
        lines.append(
            f"| {r.version} | {'/'.join(p.python_tags)} | {p.requires_python} | {p.torch} | {p.torch_cuda} | "
            f"{flashinfer} | {p.kernel_distribution} {p.kernel} |"
        )
    return "\n".join(lines)


def release_cuda() -> str:
    min_driver = yaml.safe_load((ROOT / "roles" / "nvidia_userspace" / "vars" / "main.yml").read_text())["__nvidia_userspace_min_driver_by_cuda_major"]
    lines = ["| SGLang | torch (wheel METADATA) | toolkit (torch's CUDA) | host driver needed |", "|---|---|---|---|"]
    for r in RELEASES.values():
        lines.append(f"| {r.version} | {r.pins.torch} | {r.pins.torch_cuda} | >= {min_driver[r.pins.cuda_major]} |")
    return "\n".join(lines)


ORACLE_FIXTURE = ROOT / "tests" / "fixtures" / "oracle" / "sglang-0.5.23.json"
CONFIGS = ROOT / "tests" / "fixtures" / "model-configs"


def _oracle_configs_by_class() -> dict:
    """Real configs per class in 0.5.23's oracle fixture."""
    models = {case["model"] for case in json.loads(ORACLE_FIXTURE.read_text())["cases"]}
    by_class: dict = {}
    for model in models:
        arch = json.loads((CONFIGS / model / "config.json").read_text())["architectures"][0]
        by_class[arch] = by_class.get(arch, 0) + 1
    return by_class


def verified_architectures() -> str:
    releases = list(RELEASES)
    configs = _oracle_configs_by_class()
    lines = [
        f"{len(VERIFIED)} classes, each checked against SGLang's own sizing code (bench/oracle) "
        "(`python scripts/gen_release_docs.py`, from `budget/architectures.py`):",
        "",
        "| class | SGLang module | KV / state pool | real configs in the oracle grid | first registry release with it |",
        "|---|---|---|---|---|",
    ]
    pools = {"dense": "standard", "moe": "standard (MoE)", "mla": "MLA", "swa": "hybrid SWA", "gdn": "KV + GDN state", "mamba2": "KV + mamba2 state"}
    for name, layout in sorted(VERIFIED.items()):
        first = next((v for v in releases if name in release_architectures(v).entry_classes), "-")
        lines.append(f"| {name} | `models/{layout.module}` | {pools[layout.family]} | {configs.get(name, 0)} | {first} |")
    return "\n".join(lines)


def verified_architectures_line() -> str:
    return _wrapped(["Architectures", "verified", "against", "SGLang's", "own", "sizing", "code:"] + [f"V({name})," for name in sorted(VERIFIED)])


BLOCKS = {
    "incident-across-releases": (ROOT / "README.md", incident_across_releases),
    "verified-architectures": (ROOT / "README.md", verified_architectures),
    "release-pins": (ROOT / "roles" / "sglang_install" / "README.md", release_pins),
    "release-cuda": (ROOT / "roles" / "nvidia_userspace" / "README.md", release_cuda),
}


def render(text: str, name: str, body: str) -> str:
    pattern = re.compile(rf"(<!-- BEGIN generated: {name} -->\n)(?:.*?\n)?(<!-- END generated: {name} -->)", re.S)
    if not pattern.search(text):
        raise SystemExit(f"no '<!-- BEGIN generated: {name} -->' block to fill")
    return pattern.sub(lambda m: m.group(1) + body + "\n" + m.group(2), text)


MODULE_DOC = ROOT / "plugins" / "modules" / "sglang_memory_budget.py"
MODELLED_LINE = re.compile(r'"Releases whose startup sizing is modelled: [^"]*"')


VERIFIED_LINE = re.compile(r'"Architectures verified against SGLang\'s own sizing code: [^"]*"')


def modelled_releases_line() -> str:
    return _wrapped(["Releases", "whose", "startup", "sizing", "is", "modelled:"] + [f"V({v})," for v, r in RELEASES.items() if r.sizing is not None])


def _wrapped(words: list) -> str:
    """A module doc list item, a double-quoted YAML scalar wrapped to the doc's 160-column limit."""
    words[-1] = words[-1][:-1] + "."
    lines, line = [], '"' + words[0]
    for word in words[1:]:
        if len(line) + 1 + len(word) > 110:
            lines.append(line)
            line = word
        else:
            line += " " + word
    return "\n        ".join(lines + [line + '"'])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report out-of-date blocks, change nothing")
    stale = []
    check = parser.parse_args().check
    for name, (path, build) in BLOCKS.items():
        text = path.read_text()
        new = render(text, name, build())
        if new != text:
            stale.append(f"{path.relative_to(ROOT)}: {name}")
            if not check:
                path.write_text(new)
    text = MODULE_DOC.read_text()
    new = MODELLED_LINE.sub(modelled_releases_line(), text)
    new = VERIFIED_LINE.sub(lambda _: verified_architectures_line(), new)
    if new != text:
        stale.append(f"{MODULE_DOC.relative_to(ROOT)}: sglang_version / model")
        if not check:
            MODULE_DOC.write_text(new)
    for line in stale:
        print(("out of date: " if check else "rewrote: ") + line)
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
