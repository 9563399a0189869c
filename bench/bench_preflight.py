# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Wall time of the read-only preflight on declared GPUs, as an operator runs it.

    ansible-playbook -i inventories/example playbooks/preflight.yml

Target: the verdict within 10 s on this kind of machine (2 cores). Prints the median of a few runs and its
ratio to the target; the play is expected to fail (the incident does not start on SGLang 0.5.9).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET_S = 10.0
RUNS = 3


def main():
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(REPO, ".build", "collections"), ANSIBLE_NOCOLOR="1")
    playbook = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")
    times, verdict = [], ""
    while len(times) < RUNS:
        start = time.monotonic()
        proc = subprocess.run(
            [playbook, "-i", "inventories/example", "playbooks/preflight.yml"], cwd=REPO, env=env, capture_output=True, text=True, check=False
        )
        times.append(time.monotonic() - start)
        verdict = next((line for line in proc.stdout.splitlines() if "Action failed:" in line or "ok:" in line), "")
    median = statistics.median(times)
    print(
        f"preflight.yml on inventories/example: median {median:.2f} s over {RUNS} runs "
        f"(min {min(times):.2f}, max {max(times):.2f}); ratio to the {TARGET_S:.0f} s target: {median / TARGET_S:.2f}"
    )
    print(f"verdict line: {verdict.strip()[:200]}")


if __name__ == "__main__":
    main()
