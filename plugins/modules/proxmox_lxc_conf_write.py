#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""On a Proxmox VE node: rewrite a container config file in place, only if it is still the one that was read."""

from __future__ import annotations

DOCUMENTATION = r"""
module: proxmox_lxc_conf_write
short_description: Rewrite a Proxmox VE container config file in place, only if nobody changed it since it was read
version_added: 0.1.0
description:
  - Runs on the Proxmox VE node (over SSH). Writes O(content) to O(path), typically C(/etc/pve/lxc/VMID.conf),
    but only when the file still has the SHA-1 O(expected_sha1) of the text the caller read earlier. This is
    the same guard PVE's API applies with a config C(digest) (the SHA-1 of the config file), for the raw
    C(lxc.*) lines that the API cannot set.
  - "If the file changed between the read and this write (C(pct set), the web UI, the API or another play),
    the module fails, writes nothing and says so: the other change is kept instead of being silently
    overwritten. Re-running the play reads the file again and recomputes the content."
  - The file is read, compared and rewritten through one open file descriptor, in place (written from the
    start, then truncated), so the window between the check and the write is as short as possible.
    pmxcfs (C(/etc/pve)) refuses C(chmod), which M(ansible.builtin.copy) and M(ansible.builtin.lineinfile)
    do to the temporary file they move over the destination, so they cannot be used there.
  - The file must exist; it is never created. Nothing is written when it already has O(content).
  - The content is never returned or logged, only SHA-1 digests. O(content) is C(no_log) for that (it is
    config, not a secret), so it stays out of the task's C(invocation) and the node's syslog too.
author: llmops.sglang maintainers (@llmops-sglang)
options:
  path:
    description: The config file on the node, for example C(/etc/pve/lxc/100.conf).
    type: path
    required: true
  content:
    description: The whole new text of the file.
    type: str
    required: true
  expected_sha1:
    description:
      - SHA-1 (40 hex digits, any case) of the file's content as the caller read it, that is of the text that
        M(ansible.builtin.slurp) returned, with the C(b64decode) and C(hash) filters (see the examples).
      - PVE's API returns the same value as the C(digest) of a container config, so a digest read through
        the API may be given too.
    type: str
    required: true
    aliases: [digest]
extends_documentation_fragment:
  - llmops.sglang.attributes
attributes:
  check_mode:
    support: full
    details: Reads the file and checks O(expected_sha1) as in a normal run; reports C(changed) without writing.
notes:
  - The check and the write are not one atomic step on pmxcfs. Between them there is only the hashing of the
    text just read from the same descriptor, not the seconds between the caller's read and this task.
seealso:
  - module: llmops.sglang.proxmox_lxc_devices
"""

EXAMPLES = r"""
- name: Read the container's config on the node
  ansible.builtin.slurp:
    src: /etc/pve/lxc/100.conf
  delegate_to: pve1
  register: conf_file

- name: Rewrite it in place, unless it changed since it was read
  llmops.sglang.proxmox_lxc_conf_write:
    path: /etc/pve/lxc/100.conf
    content: "{{ new_config_text }}"
    expected_sha1: "{{ conf_file.content | b64decode | hash('sha1') }}"
  delegate_to: pve1
"""

RETURN = r"""
path:
  description: The file.
  returned: always
  type: str
  sample: /etc/pve/lxc/100.conf
sha1_before:
  description: SHA-1 of the file as found (equal to O(expected_sha1), in lower case).
  returned: success
  type: str
  sample: 8d7b2f9cbe8d4e6b0f5a1c3e2d9f7a6b5c4d3e2f
sha1_after:
  description: SHA-1 of the file's content after the task (in check mode, of the content it would have).
  returned: success
  type: str
  sample: 1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e
"""

import errno
import hashlib
import os
import re
import stat

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_bytes

SHA1_HEX = re.compile(r"^[0-9a-f]{40}$")


class ConfWriteError(Exception):
    """A refusal or failure, with the one-line message for the operator."""


def sha1_hex(data):
    return hashlib.sha1(data).hexdigest()


def write_if_unchanged(path, content, expected_sha1, check_mode=False):
    """Write CONTENT (bytes) to PATH in place if the file's SHA-1 is EXPECTED_SHA1.

    Returns dict(changed, sha1_before, sha1_after); raises ConfWriteError, with nothing written, when the file
    is missing, is not a regular file or changed since it was read.
    """
    expected = (expected_sha1 or "").strip().lower()
    if not SHA1_HEX.match(expected):
        raise ConfWriteError(
            "expected_sha1 must be the 40 hex digits of a SHA-1 (the content's digest as read), not {0!r}; nothing was written to {1}".format(
                expected_sha1, path
            )
        )
    try:
        fd = os.open(path, os.O_RDONLY if check_mode else os.O_RDWR)
    except OSError as e:
        if e.errno == errno.ENOENT:
            raise ConfWriteError(
                "{0} does not exist on this node, so nothing was written: the container may have "
                "been removed or migrated to another node since its config was read; check "
                "it, then re-run the play".format(path)
            ) from e
        raise ConfWriteError("cannot open {0} for writing: {1}; nothing was written".format(path, e.strerror)) from e
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ConfWriteError("{0} is not a regular file; nothing was written".format(path))
    with os.fdopen(fd, "rb" if check_mode else "r+b", buffering=0) as handle:
        current = handle.readall()
        before = sha1_hex(current)
        if before != expected:
            raise ConfWriteError(
                "{0} changed since it was read (by another tool or play: pct set, the web UI, the "
                "API or another run); its SHA-1 is now {1}, not {2}. Nothing was written, so that "
                "change is kept. Re-run the play: it reads the file again".format(path, before, expected)
            )
        after = sha1_hex(content)
        if current == content:
            return dict(changed=False, sha1_before=before, sha1_after=before)
        if not check_mode:
            # In place, on the descriptor that was just read and checked (pmxcfs refuses the chmod of a
            # temporary file): write over the old text from the start, then cut what is left of it.
            handle.seek(0)
            view = memoryview(content)
            while view:
                written = handle.write(view)
                view = view[written:]
            handle.truncate(len(content))
    return dict(changed=True, sha1_before=before, sha1_after=after)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            path=dict(type="path", required=True),
            content=dict(type="str", required=True, no_log=True),
            expected_sha1=dict(type="str", required=True, aliases=["digest"]),
        ),
        supports_check_mode=True,
    )
    p = module.params
    content = to_bytes(p["content"], errors="surrogate_or_strict")
    try:
        result = write_if_unchanged(p["path"], content, p["expected_sha1"], check_mode=module.check_mode)
    except ConfWriteError as e:
        module.fail_json(msg=str(e), path=p["path"])
    except (IOError, OSError) as e:
        module.fail_json(
            msg="writing {0} failed after the check: {1}; the file may be incomplete, re-run the play to rewrite it".format(p["path"], e), path=p["path"]
        )
    module.exit_json(path=p["path"], **result)


if __name__ == "__main__":
    main()
