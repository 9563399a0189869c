# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The documentation tables that come from the release registry are the generator's output, not typed by hand:
``scripts/gen_release_docs.py --check`` finds every generated block up to date."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_generated_release_tables_are_up_to_date():
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_release_docs.py"), "--check"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr + "\nrun: python scripts/gen_release_docs.py"


def test_generated_troubleshooting_tables_are_up_to_date():
    """The guide's tables of root causes are scripts/gen_troubleshooting.py's output from the catalog."""
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_troubleshooting.py"), "--check"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr + "\nrun: python scripts/gen_troubleshooting.py"


def test_every_release_range_in_the_docs_is_the_registry_range():
    """Text that names the range of known releases (role docs, argument specs, README) says the registry's."""
    import re

    from ansible_collections.llmops.sglang.plugins.plugin_utils.releases import SUPPORTED_VERSIONS

    want = f"{SUPPORTED_VERSIONS[0]} to {SUPPORTED_VERSIONS[-1]}"
    files = [
        ROOT / "README.md",
        *ROOT.glob("roles/*/README.md"),
        *ROOT.glob("roles/*/meta/argument_specs.yml"),
        *ROOT.glob("plugins/modules/*.py"),
        *ROOT.glob("plugins/filter/*.yml"),
    ]
    ranges = {(path.relative_to(ROOT).as_posix(), found) for path in files for found in re.findall(r"\b0\.\d+\.\d+ to 0\.\d+\.\d+\b", path.read_text())}
    assert ranges and all(found == want for _path, found in ranges), sorted(ranges)
