# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run one module through the real ``ansible localhost -m`` CLI, as an operator's ad hoc call does.

The json stdout callback gives the task's result as data; the collection is found through the
``.build/collections`` link that ``make link`` creates.
"""

from __future__ import annotations

import collections
import json
import os
import pathlib
import subprocess
import sys

COLLECTIONS = pathlib.Path(__file__).resolve().parents[2] / ".build" / "collections"
HAVE_COLLECTIONS = COLLECTIONS.is_dir()
NO_COLLECTIONS_REASON = "run `make link` first"

AdhocRun = collections.namedtuple("AdhocRun", "rc result output")


def run_adhoc(module: str, args, env: dict | None = None, cli_args: tuple = ()) -> AdhocRun:
    """``ansible localhost -m MODULE -a ARGS [CLI_ARGS]``; ARGS is a dict (sent as JSON) or a ``key=value`` string,
    CLI_ARGS more options for ``ansible`` (``("--check",)``).

    Returns the exit status, the host's task result and the combined stdout + stderr (for messages).
    """
    run_env = dict(
        os.environ,
        ANSIBLE_COLLECTIONS_PATH=str(COLLECTIONS),
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_LOAD_CALLBACK_PLUGINS="1",
        ANSIBLE_STDOUT_CALLBACK="ansible.builtin.json",
        ANSIBLE_LOCALHOST_WARNING="false",
        ANSIBLE_INVENTORY_UNPARSED_WARNING="false",
        ANSIBLE_PYTHON_INTERPRETER=sys.executable,
    )
    run_env.update(env or {})
    proc = subprocess.run(
        [
            os.path.join(os.path.dirname(sys.executable), "ansible"),
            "localhost",
            "-m",
            module,
            "-a",
            args if isinstance(args, str) else json.dumps(args),
            *cli_args,
        ],
        env=run_env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    output = proc.stdout + proc.stderr
    try:
        result = json.loads(proc.stdout)["plays"][0]["tasks"][0]["hosts"]["localhost"]
    except (ValueError, LookupError) as exc:
        raise AssertionError("no task result from ansible (%s):\n%s" % (exc, output)) from None
    return AdhocRun(proc.returncode, result, output)
