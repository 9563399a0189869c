# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run the nvidia_gpu_info module through ansible for real.

No GPU exists here, so an ``nvidia-smi`` stand-in (a shell script that prints what the real tool prints
for the same --query arguments on the incident's 2x RTX A6000) is put first on PATH. Everything else —
argument handling, command construction, parsing, the result — is the real module.
"""

import os
import stat

import pytest
from ansible_adhoc import HAVE_COLLECTIONS, NO_COLLECTIONS_REASON, run_adhoc

pytestmark = pytest.mark.skipif(not HAVE_COLLECTIONS, reason=NO_COLLECTIONS_REASON)

STANDIN = r"""#!/bin/sh
# nvidia-smi stand-in for tests: prints the CSV the real tool prints for these queries.
case "$1" in
  --query-gpu=*compute_cap*)
    if [ -n "$LEGACY_DRIVER" ]; then echo 'Field "compute_cap" is not a valid field to query.' >&2; exit 2; fi
    echo "0, NVIDIA RTX A6000, GPU-83f78936-a6e1-3cb8-b6ab-41dd1af7bbd9, 49140, 26911, 22229, 570.133.20, 8.6"
    echo "1, NVIDIA RTX A6000, GPU-0c67f372-5dab-cffc-3384-39877429a610, 49140, 1, 48638, 570.133.20, 8.6" ;;
  --query-gpu=*)
    echo "0, NVIDIA RTX A6000, GPU-83f78936-a6e1-3cb8-b6ab-41dd1af7bbd9, 49140, 26911, 22229, 470.57.02" ;;
  --query-compute-apps=*)
    echo "41237, python3, 26904, GPU-83f78936-a6e1-3cb8-b6ab-41dd1af7bbd9" ;;
  *) echo "unexpected arguments: $*" >&2; exit 9 ;;
esac
"""


def _run_module(tmp_path, args="", extra_env=None):
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    tool = bindir / "nvidia-smi"
    tool.write_text(STANDIN)
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    env = {"PATH": "%s:%s" % (bindir, os.environ["PATH"])}
    env.update(extra_env or {})
    return run_adhoc("llmops.sglang.nvidia_gpu_info", args, env).result


def test_gpus_and_leftover_process_are_reported(tmp_path):
    result = _run_module(tmp_path)
    assert result["available"] is True and result["gpu_count"] == 2
    assert result["driver_version"] == "570.133.20"
    assert result["gpus"][0]["memory_free_mib"] == 22229
    assert result["gpus"][0]["processes"][0]["pid"] == 41237
    assert result["processes"] == result["gpus"][0]["processes"]


def test_legacy_driver_is_retried_without_compute_cap(tmp_path):
    result = _run_module(tmp_path, extra_env={"LEGACY_DRIVER": "1"})
    assert result["gpus"][0]["compute_capability"] is None
    assert result["driver_version"] == "470.57.02"


def test_missing_nvidia_smi_fails_with_the_fix_or_reports_unavailable(tmp_path):
    failed = _run_module(tmp_path, "nvidia_smi_path=/nonexistent/nvidia-smi")
    assert failed["failed"] is True
    assert "nvidia_userspace" in failed["msg"] and "declare the GPUs" in failed["msg"]
    missing_ok = _run_module(tmp_path, "nvidia_smi_path=/nonexistent/nvidia-smi missing_ok=true")
    assert missing_ok["available"] is False and missing_ok["gpus"] == []
    assert not missing_ok.get("failed")
