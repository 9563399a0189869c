# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ansible-core version matrix (``make core-matrix``): one nox session per supported ansible-core that
meta/runtime.yml admits, besides the main venv's 2.21 (which ``make sanity`` and ``make units`` cover).

Each session gets its own venv with ``ansible-core==2.N.*`` and the test packages, at the exact pins of
requirements/core-matrix/2.N.txt (one file per core), and the collections galaxy.yml depends on (antsibull-nox links them from the
ANSIBLE_COLLECTIONS_PATH it is given: the main venv's ansible bundle; Galaxy is not reached). It then runs
``ansible-test sanity`` as ``make sanity`` does, and the unit tests whose outcome can depend on ansible-core.
"""

from __future__ import annotations

import pathlib
import re

import nox
from antsibull_nox.sessions import prepare_collections

# One session per file: requirements/core-matrix/2.N.txt holds the exact pins of ansible-core 2.N's venv.
PINS = pathlib.Path("requirements/core-matrix")
CORES = sorted(path.stem for path in PINS.glob("*.txt"))
TEST_PACKAGES = ("pytest", "hypothesis", "proxmoxer", "requests", "paramiko")
UNIT_DIR = pathlib.Path("tests/unit")

# A unit test depends on ansible-core when it imports it, imports one of our Ansible plugins (modules, action,
# filter...: ansible-core loads and drives them) or runs an ansible CLI (ansible_adhoc's `ansible localhost -m`,
# ansible-playbook, ansible-inventory). The others (most of plugin_utils: the budget engine, the diagnoser, the
# catalogs; module_utils; the scripts' tests) test plain Python that imports nothing of ansible-core
# (PURE_LIBRARIES, checked below), so the same result under every core: they run once, in `make units`.
CORE_USE = re.compile(
    r"^\s*(?:from|import) ansible(?:[. ]|$)"
    r"|ansible_collections\.llmops\.sglang\.plugins\.(?!plugin_utils\b|module_utils\b)"
    r"|\bansible_adhoc\b"
    r"|[\"']ansible(?:-playbook|-inventory|-doc)?[\"']",
    re.MULTILINE,
)
IMPORTS_CORE = re.compile(r"^\s*(?:from|import) ansible(?:[. ]|$)", re.MULTILINE)
PURE_LIBRARIES = ("plugins/plugin_utils", "plugins/module_utils")


def core_dependent_tests(session: nox.Session) -> list[str]:
    """The unit test files that can pass under one ansible-core and fail under another."""
    for library in PURE_LIBRARIES:
        for path in sorted(pathlib.Path(library).rglob("*.py")):
            if IMPORTS_CORE.search(path.read_text(encoding="utf-8")):
                session.error(f"{path} imports ansible-core: the tests of {library} now depend on the core; select them in noxfile.py (CORE_USE)")
    return [str(path) for path in sorted(UNIT_DIR.rglob("test_*.py")) if CORE_USE.search(path.read_text(encoding="utf-8"))]


def core_session(core: str) -> None:
    """Register the session ``core-<core>``."""

    @nox.session(name=f"core-{core}", python="3.12", default=True)
    def run(session: nox.Session) -> None:
        session.install("-c", str(PINS / f"{core}.txt"), f"ansible-core=={core}.*", *TEST_PACKAGES)
        # ansible-test bootstraps pip in its sanity venvs from the internet; the shim does it offline,
        # for the pip version this core's ansible-test wants.
        session.run("bash", "scripts/install-ansible-test-pip-shim.sh", f"{session.bin}/python", external=True)
        # The dependencies in site-packages, where the unit tests' ansible CLI runs find them, and a tree outside
        # the venv with a copy of our files (git's tracked and untracked, as `make sanity` takes) for ansible-test.
        for in_site_packages in (True, False):
            tree = prepare_collections(session, ansible_core_version=core, install_in_site_packages=in_site_packages, install_out_of_tree=not in_site_packages)
            if tree is None:
                session.error("antsibull-nox could not set up the collections")
        with session.chdir(tree.current_path):
            session.run("ansible-test", "sanity", "--local", "--python", "3.12", "--color", "no")
        session.run("python", "-m", "pytest", "-q", *core_dependent_tests(session))

    run.__doc__ = f"ansible-test sanity and the core-dependent unit tests under ansible-core {core}"


for version in CORES:
    core_session(version)
