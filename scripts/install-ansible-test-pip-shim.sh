#!/usr/bin/env bash
# ansible-test bootstraps pip in each venv it makes by downloading get-pip-<ver>.py from
# Ansible's CI file host, which cannot be reached here. Put an offline stand-in where
# ansible-test looks first (~/.ansible/test/cache/get_pip_<ver>.py); it uses ensurepip
# and then pip itself, which goes through the machine's configured package index.
set -euo pipefail
python=${1:-.venv/bin/python}
pip_version=$("$python" - <<'PY'
import ansible_test._internal.python_requirements as pr, inspect, re
src = inspect.getsource(pr.get_venv_packages)
print(re.search(r"pip='([0-9.]+)'", src).group(1))
PY
)
cache="$HOME/.ansible/test/cache"
mkdir -p "$cache"
target="$cache/get_pip_${pip_version//./_}.py"
cat > "$target" <<'PY'
import ensurepip, importlib, os, runpy, sys
ensurepip.bootstrap()
os.environ.pop("PIP_CONFIG_FILE", None)  # ensurepip points it at /dev/null; restore the machine's pip.conf
importlib.invalidate_caches()
args = [a for a in sys.argv[1:] if a not in ("--no-setuptools", "--no-wheel")]
sys.argv = ["pip", "install", "--upgrade"] + args
runpy.run_module("pip", run_name="__main__", alter_sys=True)
PY
echo "ansible-test pip bootstrap shim: $target"
