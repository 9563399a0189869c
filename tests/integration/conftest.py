# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The demo's stand-ins (demo_env.py), started once for the end-to-end tests that deploy onto them."""

import secrets

import pytest

import demo_env
import test_quickstart


@pytest.fixture(scope="session")
def demo_standins(tmp_path_factory):
    """fakepve, the fake node and CT 129 with the model in place, plus the README quickstart's API token.

    The token and its privileges come from the README's pveum commands (test_quickstart.pveum_access).
    """
    state = str(tmp_path_factory.mktemp("demo-state"))
    token_secret = secrets.token_hex(16)
    demo_env.stage_wheels()
    try:  # a failed start stops what it had started: a stray fake node would answer the next run's port
        settings = demo_env.up(state, access=test_quickstart.pveum_access(test_quickstart.quickstart_blocks(), token_secret))
        demo_env.place_model(settings)
        yield dict(settings, quickstart_token_secret=token_secret)
    finally:
        demo_env.down(state)
