# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What roles/nvidia_userspace and roles/sglang_install leave in the guest, checked from outside with testinfra.

Runs as molecule's verifier after converge, idempotence and check mode, before side_effect.yml feeds both
roles bad input. No GPU exists here: nothing below claims that CUDA works, only what was installed, pinned,
held, downloaded and with which owners and modes.
"""

import json
import re

import pytest

NVIDIA_PACKAGES = ("libcuda1", "libnvidia-ml1", "libnvidia-ptxjitcompiler1", "nvidia-smi")
MODEL_ROOT = "/opt/sglang/models/sglang-install--tiny-model"
MODEL_COMMIT = "5f1e0a9c2b7d4e6f8a0b1c2d3e4f5a6b7c8d9e0f"
HUB_COPY = "/srv/sglang-install-test/hub/tiny"  # the hub stand-in's own files
MODEL_FILES = ("config.json", "model.safetensors")


def check_nvidia_packages(guest, host_driver):
    """Every NVIDIA userspace package is installed at the host module's exact version and held by apt."""
    held = set(guest.check_output("apt-mark showhold").split())
    for name in NVIDIA_PACKAGES:
        package = guest.package(name)
        assert package.is_installed, name
        assert package.version.startswith(host_driver + "-"), "%s is %s, want the host module's %s-*" % (name, package.version, host_driver)
        assert name in held, "%s is not held" % name


def test_nvidia_userspace_pinned_to_the_host_module_and_held(guest, host_driver):
    check_nvidia_packages(guest, host_driver)


def test_libnvidia_ml_resolves_to_the_host_version(guest, host_driver):
    library = guest.check_output("/sbin/ldconfig -p | awk '/libnvidia-ml\\.so\\.1 /{print $NF; exit}'")
    assert guest.file(library).linked_to.endswith("libnvidia-ml.so." + host_driver)


def test_the_nonfree_source_is_a_deb822_file_with_a_keyring(guest):
    sources = guest.check_output("grep -l 'Components: contrib non-free' /etc/apt/sources.list.d/*.sources")
    text = guest.file(sources).content_string
    assert re.search(r"^Signed-By: /usr/share/keyrings/debian-archive-keyring\.gpg$", text, re.MULTILINE)


def test_one_venv_per_release_with_the_pinned_sglang(guest, install_record):
    assert install_record["version"] == "0.5.9"
    assert re.fullmatch(r"/opt/sglang/venvs/sglang-0\.5\.9-[0-9a-f]{10}", install_record["venv"])
    assert install_record["python"] == install_record["venv"] + "/bin/python"
    shown = guest.check_output("%s -m pip show sglang", install_record["python"])
    assert re.search(r"^Version: 0\.5\.9$", shown, re.MULTILINE)
    # The CI path installs SGLang without its multi-GB dependencies (sglang_install_dependencies: false).
    assert guest.run("%s -c 'import torch'", install_record["python"]).rc != 0
    assert guest.run("%s/bin/hf version", install_record["venv"]).rc == 0
    venv = guest.file(install_record["venv"])
    assert (venv.user, venv.group, venv.mode) == ("root", "root", 0o755)
    assert guest.file(install_record["venv"] + "/bin/python3").user == "root"


def test_one_model_directory_per_revision_with_verified_files(guest, install_record):
    assert install_record["model_root"] == MODEL_ROOT
    assert install_record["model_commit"] == MODEL_COMMIT
    assert install_record["model_path"] == MODEL_ROOT + "/" + MODEL_COMMIT
    assert re.fullmatch(r"[0-9a-f]{64}", install_record["fingerprint"])
    model = install_record["model_path"]
    manifest = json.loads(guest.file(model + "/.llmops-sglang-manifest.json").content_string)
    assert sorted(manifest["files"]) == list(MODEL_FILES)
    for name in MODEL_FILES:
        downloaded = guest.file("%s/%s" % (model, name))
        assert downloaded.sha256sum == guest.file("%s/%s" % (HUB_COPY, name)).sha256sum, name
        # root's and read-only to the service account: a compromised server cannot alter its own weights.
        assert (downloaded.user, downloaded.group, downloaded.mode) == ("root", "root", 0o644), name
    directory = guest.file(model)
    assert (directory.user, directory.mode) == ("root", 0o755)


def test_service_account(guest):
    account = guest.user("sglang")
    assert (account.home, account.shell) == ("/var/lib/sglang", "/usr/sbin/nologin")
    assert "video" in account.groups  # the GPU device nodes' group
    state = guest.file("/var/lib/sglang")
    assert (state.user, state.group, state.mode) == ("sglang", "sglang", 0o750)


def test_no_token_left_in_the_guest(guest):
    # The HF token reaches `hf download` through a file that the role removes afterwards.
    assert guest.check_output("find / -xdev -name '*hf-token*' -print 2>/dev/null || true") == ""


def test_a_downgraded_held_package_turns_its_check_red(guest, host_driver):
    """The pin check is not vacuous: nvidia-smi forced down to an older release (past the hold) fails it."""
    installed = guest.package("nvidia-smi").version
    archive = "/var/cache/apt/archives/nvidia-smi_%s_amd64.deb" % installed.replace(":", "%3a")
    assert guest.file(archive).is_file, "apt's copy of nvidia-smi %s, needed to restore it" % installed
    older = "470.256.02-1"
    guest.check_output(
        "set -e; d=$(mktemp -d); mkdir $d/DEBIAN; printf '%%s\\n' 'Package: nvidia-smi' 'Version: %s'"
        " 'Architecture: amd64' 'Maintainer: llmops.sglang tests <tests@localhost>'"
        " 'Description: an older nvidia-smi, to test the pin check' > $d/DEBIAN/control;"
        " dpkg-deb -b $d /tmp/nvidia-smi-older.deb >/dev/null; rm -r $d",
        older,
    )
    guest.check_output("dpkg -i --force-hold,downgrade /tmp/nvidia-smi-older.deb")
    try:
        assert guest.package("nvidia-smi").version == older
        with pytest.raises(AssertionError, match="nvidia-smi is 470.256.02-1"):
            check_nvidia_packages(guest, host_driver)
    finally:
        # dpkg -i resets the selection: restore apt's copy and the hold, as the role left them.
        guest.check_output("dpkg -i --force-hold %s && apt-mark hold nvidia-smi && rm -f /tmp/nvidia-smi-older.deb", archive)
    check_nvidia_packages(guest, host_driver)
