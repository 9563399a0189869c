# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Build the SGLang TEST DOUBLE (sglang/) as a wheel named ``sglang`` at a chosen version, for tests only.

    python3 build_wheel.py VERSION OUTDIR [SGLANG_DOUBLE_SETTING=VALUE ...]

pip and uv then install it like a release of SGLang, so a test can move a deployment from one "release" to
another through the real install path (one virtualenv per release, importlib.metadata reporting the version).
The settings become the double's packaged defaults (``_double_defaults.json``), e.g.
``SGLANG_DOUBLE_MODE=replay`` for a release that fails to start. The wheel follows the binary distribution
format (PEP 427/PEP 491: ``.dist-info`` with METADATA, WHEEL and a RECORD of urlsafe-base64 SHA-256 digests).
"""

import base64
import hashlib
import json
import os
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def build(version, outdir, defaults):
    files = {}
    for name in ("__init__.py", "launch_server.py"):
        with open(os.path.join(HERE, "sglang", name), "rb") as handle:
            files["sglang/" + name] = handle.read()
    if defaults:
        files["sglang/_double_defaults.json"] = json.dumps(defaults, sort_keys=True).encode()
    info = "sglang-%s.dist-info" % version
    files[info + "/METADATA"] = (
        "Metadata-Version: 2.1\nName: sglang\nVersion: %s\nSummary: TEST DOUBLE of SGLang's launch_server (llmops.sglang tests only)\n" % version
    ).encode()
    files[info + "/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: llmops-sglang-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = "\n".join([_record_line(n, d) for n, d in sorted(files.items())] + [info + "/RECORD,,", ""])
    files[info + "/RECORD"] = record.encode()
    path = os.path.join(outdir, "sglang-%s-py3-none-any.whl" % version)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data in files.items():
            entry = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            entry.external_attr = 0o644 << 16
            wheel.writestr(entry, data)
    return path


if __name__ == "__main__":
    settings = dict(arg.split("=", 1) for arg in sys.argv[3:])
    print(build(sys.argv[1], sys.argv[2], settings))
