# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Checks the molecule scenarios' testinfra verifiers share (extensions/molecule/<scenario>/tests/)."""

import subprocess


def files_holding(container, value, user=None):
    """Files in a podman container that hold VALUE, searched as USER (root if None) over the whole filesystem.

    The value goes to grep on stdin (`podman exec -i`), never in an argv: journald records each logging
    process's command line, so a secret in grep's argv would land in the journal that the checks search.
    """
    prefix = ["runuser", "-u", user, "--"] if user else []
    search = subprocess.run(
        ["podman", "exec", "-i", container, *prefix, "grep", "-rlsF", "--exclude-dir=proc", "--exclude-dir=sys", "--exclude-dir=dev", "-f", "-", "/"],
        input=value + "\n",
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    # grep exits 1 without a hit and 2 after files it may not read, quietly (-s); hits go to stdout either way.
    # Anything on stderr is grep failing as a whole (its pattern unreadable, say): then nothing was searched.
    if search.returncode not in (0, 1, 2) or search.stderr:
        raise RuntimeError("grep in %s failed (%d): %s" % (container, search.returncode, search.stderr))
    return search.stdout.split()


def pct_config(node, vmid):
    """`pct config VMID` on a (fake) PVE node, as a dict."""
    lines = node.check_output("pct config %s", str(vmid)).splitlines()
    return dict(line.split(": ", 1) for line in lines)


def passthrough_devices(config):
    """The devN entries of a container config, sorted."""
    return sorted(value for key, value in config.items() if key.startswith("dev") and key[3:].isdigit())
