# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The documentation tables that come from the release registry are the generator's output, not typed by hand:
``scripts/gen_release_docs.py --check`` finds every generated block up to date."""
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_generated_release_tables_are_up_to_date():
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_release_docs.py"), "--check"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr + "\nrun: python scripts/gen_release_docs.py"
