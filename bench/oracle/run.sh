#!/usr/bin/env bash
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# Regenerate tests/fixtures/oracle/sglang-<V>.json by running SGLang's own sizing code on the CPU.
# Opt-in (make oracle): needs ~3 GB per venv and PyPI; never run by make units.
#   ORACLE_VERSIONS="0.5.23"   versions to run (default: every release in adapters.py)
#   ORACLE_ONLY="incident"     only cases whose id starts with these prefixes (space separated)
#   ORACLE_MERGE=1             update the existing fixture instead of rewriting it
#   ORACLE_FIXTURE_DIR=/tmp/x  write the fixtures there instead of tests/fixtures/oracle
# Releases whose light-deps pins match share a venv (adapters.py: venv_key); sglang itself is
# (re)installed --no-deps into it for the release being run.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
PY311="${ORACLE_PYTHON:-python3.11}"
export PYENV_VERSION="${PYENV_VERSION:-3.11.7}"   # the wheels and the CPU torch are cp311
VERSIONS="${ORACLE_VERSIONS:-$("$PY311" bench/oracle/adapters.py releases)}"
mkdir -p bench/.wheels

for V in $VERSIONS; do
    KEY="$("$PY311" bench/oracle/adapters.py venv-key "$V")"
    VENV="bench/.venv-oracle-$KEY"
    if [ ! -x "$VENV/bin/python" ]; then
        "$PY311" -m venv "$VENV"
        # CPU torch only: the CUDA builds sglang pins are several GB and useless here.
        "$VENV/bin/pip" install -q -r "bench/oracle/requirements-$KEY.txt"
    fi
    WHEEL="$(find bench/.wheels -maxdepth 1 -name "sglang-$V-*.whl" | head -n1)"
    if [ -z "$WHEEL" ]; then
        "$VENV/bin/pip" download -q --no-deps "sglang==$V" -d bench/.wheels
        WHEEL="$(find bench/.wheels -maxdepth 1 -name "sglang-$V-*.whl" | head -n1)"
    fi
    if ! "$VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('sglang') != '$V')" 2>/dev/null; then
        "$VENV/bin/pip" install -q --no-deps "$WHEEL"
    fi
    ARGS=(--version "$V" --venv "$VENV" --wheel "$WHEEL")
    if [ -n "${ORACLE_ONLY:-}" ]; then
        # shellcheck disable=SC2206
        ARGS+=(--only ${ORACLE_ONLY})
    fi
    if [ -n "${ORACLE_MERGE:-}" ]; then
        ARGS+=(--merge)
    fi
    if [ -n "${ORACLE_FIXTURE_DIR:-}" ]; then
        ARGS+=(--fixture-dir "$ORACLE_FIXTURE_DIR")
    fi
    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 "$VENV/bin/python" bench/oracle/driver.py "${ARGS[@]}"
done
