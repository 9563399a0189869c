# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which harness adapter and which light-deps venv each SGLang release uses.

One harness per family of internals, subclassed where a release really differs
(README.md, "Adapters"). Releases whose requirements file is the same share one
venv, ``bench/.venv-oracle-<key>``, where ``requirements-<key>.txt`` is the file;
sglang itself is reinstalled ``--no-deps`` into it per release by run.sh.

    python3 adapters.py venv-key 0.5.22     # -> 0.5.22 (run.sh: venv and requirements file)
    python3 adapters.py harness 0.5.22      # -> harness_0_5_22.py
    python3 adapters.py releases            # every release with an adapter

Standard library only: run.sh calls it before any venv exists.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class Release:
    harness: str  # the adapter module run for each GPU group
    venv_key: str  # requirements-<venv_key>.txt, installed into bench/.venv-oracle-<venv_key>


RELEASES = {
    "0.5.9": Release("harness_0_5_9.py", "0.5.9"),
    "0.5.10": Release("harness_0_5_10.py", "0.5.10"),
    "0.5.10.post1": Release("harness_0_5_10.py", "0.5.10"),
    "0.5.11": Release("harness_0_5_10.py", "0.5.11"),
    "0.5.12": Release("harness_0_5_10.py", "0.5.12"),
    "0.5.12.post1": Release("harness_0_5_10.py", "0.5.12.post1"),
    "0.5.13": Release("harness_0_5_10.py", "0.5.13"),
    "0.5.13.post1": Release("harness_0_5_10.py", "0.5.13"),
    "0.5.14": Release("harness_0_5_14.py", "0.5.13"),
    "0.5.15": Release("harness_0_5_14.py", "0.5.15"),
    "0.5.15.post1": Release("harness_0_5_14.py", "0.5.15"),
    "0.5.16": Release("harness_0_5_16.py", "0.5.16"),
    "0.5.17": Release("harness_0_5_17.py", "0.5.16"),
    "0.5.18": Release("harness_0_5_17.py", "0.5.18"),
    "0.5.19": Release("harness_0_5_19.py", "0.5.19"),
    "0.5.20": Release("harness_0_5_19.py", "0.5.19"),
    "0.5.21": Release("harness_0_5_21.py", "0.5.21"),
    "0.5.22": Release("harness_0_5_22.py", "0.5.22"),
    "0.5.23": Release("harness_0_5_23.py", "0.5.23"),
}


def release(version: str) -> Release:
    try:
        return RELEASES[version]
    except KeyError:
        raise SystemExit(f"no oracle adapter for SGLang {version} (bench/oracle/adapters.py)") from None


if __name__ == "__main__":
    what = sys.argv[1]
    if what == "releases":
        print(" ".join(RELEASES))
    elif what == "harness":
        print(release(sys.argv[2]).harness)
    elif what == "venv-key":
        print(release(sys.argv[2]).venv_key)
    else:
        raise SystemExit(f"unknown query {what!r}")
