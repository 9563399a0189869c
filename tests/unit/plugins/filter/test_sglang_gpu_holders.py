# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.llmops.sglang.plugins.filter.sglang_gpu_holders import FilterModule


def test_filter_is_registered_and_decides():
    fn = FilterModule().filters()["sglang_gpu_holders"]
    result = fn(
        [{"pid": 10, "process_name": "python3", "used_memory_mib": 5, "gpu_uuid": "GPU-a"}],
        "sglang.service",
        control_group="/system.slice/sglang.service",
        pid_cgroups={"10": "0::/system.slice/sglang.service\n"},
    )
    assert result["action"] == "stop_unit"


@pytest.mark.parametrize(
    "bad,kwargs",
    [
        ("not a list", {}),
        ([{"pid": "abc"}], {}),
    ],
)
def test_bad_input_is_a_clear_filter_error(bad, kwargs):
    with pytest.raises(AnsibleFilterError, match="sglang_gpu_holders"):
        FilterModule().filters()["sglang_gpu_holders"](bad, "sglang.service", **kwargs)
