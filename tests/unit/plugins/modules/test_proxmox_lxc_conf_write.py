# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""proxmox_lxc_conf_write: the in-place rewrite of /etc/pve/lxc/VMID.conf happens only if the file is still the
one that was read. The expected SHA-1 values are computed here with hashlib, independently of the module."""

import hashlib
import json
import os

import pytest
from ansible.module_utils.common.parameters import PASS_VARS
from ansible.module_utils.testing import patch_module_args
from ansible_adhoc import HAVE_COLLECTIONS, NO_COLLECTIONS_REASON, run_adhoc

from ansible_collections.llmops.sglang.plugins.modules.proxmox_lxc_conf_write import (
    ConfWriteError,
    main,
    write_if_unchanged,
)

OLD = (
    "arch: amd64\ncores: 8\nhostname: sglang\nmemory: 65536\n"
    "lxc.cgroup2.devices.allow: c 195:0 rwm\nlxc.mount.entry: /dev/nvidia0 dev/nvidia0 none bind,optional,create=file\n"
)
NEW = (
    "arch: amd64\ncores: 8\nhostname: sglang\nmemory: 65536\n"
    "lxc.cgroup2.devices.allow: c 195:1 rwm\nlxc.mount.entry: /dev/nvidia1 dev/nvidia1 none bind,optional,create=file\n"
    "lxc.cgroup2.devices.allow: c 508:* rwm\n"
)
# What a `pct set 100 -cores 16` on the node makes of the file between the role's read and its write.
OTHER = OLD.replace("cores: 8", "cores: 16")


def sha1(text):
    return hashlib.sha1(text.encode()).hexdigest()


@pytest.fixture
def conf(tmp_path):
    path = tmp_path / "100.conf"
    path.write_text(OLD)
    return path


def test_the_read_content_is_written_in_place(conf):
    inode = conf.stat().st_ino
    result = write_if_unchanged(str(conf), NEW.encode(), sha1(OLD))
    assert result == {"changed": True, "sha1_before": sha1(OLD), "sha1_after": sha1(NEW)}
    assert conf.read_text() == NEW
    assert conf.stat().st_ino == inode  # rewritten, not replaced (pmxcfs)


def test_shorter_content_leaves_no_tail_of_the_old_one(conf):
    short = "arch: amd64\n"
    assert write_if_unchanged(str(conf), short.encode(), sha1(OLD))["changed"] is True
    assert conf.read_text() == short


def test_an_unchanged_file_is_not_written(conf):
    os.utime(conf, (1000000000, 1000000000))
    result = write_if_unchanged(str(conf), OLD.encode(), sha1(OLD))
    assert result == {"changed": False, "sha1_before": sha1(OLD), "sha1_after": sha1(OLD)}
    assert conf.stat().st_mtime == 1000000000 and conf.read_text() == OLD


def test_a_file_changed_after_it_was_read_is_left_alone(conf):
    read_digest = sha1(conf.read_text())  # the role's slurp
    conf.write_text(OTHER)  # pct set, the web UI or another play
    with pytest.raises(ConfWriteError) as failed:
        write_if_unchanged(str(conf), NEW.encode(), read_digest)
    message = str(failed.value)
    assert message == (
        "{0} changed since it was read (by another tool or play: pct set, the web UI, the API or another run); "
        "its SHA-1 is now {1}, not {2}. Nothing was written, so that change is kept. Re-run the play: it reads "
        "the file again".format(conf, sha1(OTHER), sha1(OLD))
    )
    assert "\n" not in message
    assert conf.read_text() == OTHER


def test_check_mode_reports_the_change_and_writes_nothing(conf):
    os.utime(conf, (1000000000, 1000000000))
    result = write_if_unchanged(str(conf), NEW.encode(), sha1(OLD), check_mode=True)
    assert result == {"changed": True, "sha1_before": sha1(OLD), "sha1_after": sha1(NEW)}
    assert conf.read_text() == OLD and conf.stat().st_mtime == 1000000000


def test_check_mode_still_refuses_a_changed_file(conf):
    with pytest.raises(ConfWriteError, match="changed since it was read"):
        write_if_unchanged(str(conf), NEW.encode(), sha1(OTHER), check_mode=True)


def test_the_expected_digest_may_be_upper_case(conf):
    assert write_if_unchanged(str(conf), NEW.encode(), sha1(OLD).upper())["changed"] is True
    assert conf.read_text() == NEW


@pytest.mark.parametrize("check_mode", [False, True])
def test_a_missing_file_is_not_created(tmp_path, check_mode):
    path = tmp_path / "101.conf"
    with pytest.raises(ConfWriteError) as failed:
        write_if_unchanged(str(path), NEW.encode(), sha1(OLD), check_mode=check_mode)
    assert str(failed.value) == (
        "{0} does not exist on this node, so nothing was written: the container may have been removed or "
        "migrated to another node since its config was read; check it, then re-run the play".format(path)
    )
    assert not path.exists()


@pytest.mark.parametrize("digest", ["", "abc", "g" * 40, sha1(OLD) + "0"])
def test_a_malformed_digest_is_refused_before_the_file_is_opened(conf, digest):
    with pytest.raises(ConfWriteError, match="expected_sha1 must be the 40 hex digits of a SHA-1"):
        write_if_unchanged(str(conf), NEW.encode(), digest)
    assert conf.read_text() == OLD


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(ConfWriteError, match="nothing was written"):
        write_if_unchanged(str(tmp_path), NEW.encode(), sha1(OLD), check_mode=True)


def test_the_content_stays_out_of_the_result_and_its_invocation(conf, capsys):
    # ansible-core 2.21 injects the invocation only when asked to (ANSIBLE_INJECT_INVOCATION); older ones always,
    # and refuse the option they do not know as an unsupported parameter.
    args = {"path": str(conf), "content": NEW, "expected_sha1": sha1(OLD)}
    if "inject_invocation" in PASS_VARS:
        args["_ansible_inject_invocation"] = True
    with patch_module_args(args):
        with pytest.raises(SystemExit) as exited:
            main()
    assert exited.value.code == 0
    result = json.loads(capsys.readouterr().out)
    assert result["changed"] is True and conf.read_text() == NEW
    assert result["invocation"]["module_args"]["content"] == "VALUE_SPECIFIED_IN_NO_LOG_PARAMETER"
    assert "nvidia1" not in json.dumps(result)


def _run(args, check=False):
    return run_adhoc("llmops.sglang.proxmox_lxc_conf_write", args, cli_args=("--check",) if check else ()).result


@pytest.mark.skipif(not HAVE_COLLECTIONS, reason=NO_COLLECTIONS_REASON)
def test_module_writes_then_finds_nothing_to_do(conf):
    args = {"path": str(conf), "content": NEW, "expected_sha1": sha1(OLD)}
    first = _run(args)
    assert not first.get("failed") and first["changed"] is True, first
    assert (first["sha1_before"], first["sha1_after"]) == (sha1(OLD), sha1(NEW))
    assert conf.read_text() == NEW
    again = _run({"path": str(conf), "content": NEW, "digest": sha1(NEW)})
    assert not again.get("failed") and again["changed"] is False, again
    assert conf.read_text() == NEW


@pytest.mark.skipif(not HAVE_COLLECTIONS, reason=NO_COLLECTIONS_REASON)
def test_module_fails_on_a_file_changed_since_it_was_read(conf):
    read_digest = sha1(OLD)
    conf.write_text(OTHER)
    failed = _run({"path": str(conf), "content": NEW, "expected_sha1": read_digest})
    assert failed["failed"] is True and failed.get("changed", False) is False
    assert failed["msg"].startswith("%s changed since it was read (by another tool or play" % conf)
    assert "Nothing was written" in failed["msg"] and "Re-run the play" in failed["msg"]
    assert "Traceback" not in failed["msg"]
    assert conf.read_text() == OTHER


@pytest.mark.skipif(not HAVE_COLLECTIONS, reason=NO_COLLECTIONS_REASON)
def test_module_in_check_mode_reports_changed_and_writes_nothing(conf):
    result = _run({"path": str(conf), "content": NEW, "expected_sha1": sha1(OLD)}, check=True)
    assert not result.get("failed") and result["changed"] is True, result
    assert conf.read_text() == OLD


@pytest.mark.skipif(not HAVE_COLLECTIONS, reason=NO_COLLECTIONS_REASON)
def test_module_explains_a_missing_file(tmp_path):
    path = tmp_path / "101.conf"
    failed = _run({"path": str(path), "content": NEW, "expected_sha1": sha1(OLD)})
    assert failed["failed"] is True
    assert failed["msg"].startswith("%s does not exist on this node, so nothing was written" % path)
    assert not path.exists()
