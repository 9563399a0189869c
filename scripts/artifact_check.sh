#!/usr/bin/env bash
# The collection as users get it: build the tarball, install it offline into an empty collections path, and run
# the plays and plugins from there only (never the checkout's .build/collections link). Used by `make artifact`.
#
#   bash scripts/artifact_check.sh [TARBALL]     # builds .build/dist/llmops-sglang-<version>.tar.gz when not given
#
# The install needs no Galaxy: `ansible-galaxy collection install --offline` resolves the dependencies of
# galaxy.yml (community.proxmox, community.general, ansible.posix) against the collections already installed,
# here the `ansible` bundle's in site-packages, and fails when a version there does not meet galaxy.yml.

set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Files the plays and plugins read at runtime must ship; so must these, whatever build_ignore says.
RUNTIME_DIRS=(plugins roles playbooks meta inventories awx dashboards execution-environment.yml)
MAX_TARBALL_BYTES=$((8 * 1024 * 1024))

# artifact_build OUTDIR: build the tarball from the checkout into OUTDIR; prints its path.
artifact_build() {
  local out="$1"
  mkdir -p "$out"
  (cd "$REPO" && ansible-galaxy collection build --force --output-path "$out" . > /dev/null)
  ls "$out"/llmops-sglang-"$(sed -n 's/^version: *//p' "$REPO/galaxy.yml")".tar.gz
}

# artifact_install TARBALL COLLECTIONS_DIR: install TARBALL into COLLECTIONS_DIR (emptied first), offline.
artifact_install() {
  local tarball="$1" dest="$2"
  rm -rf "$dest" && mkdir -p "$dest"
  ANSIBLE_COLLECTIONS_PATH="$dest" ansible-galaxy collection install --offline -p "$dest" "$tarball"
}

fail() { echo "artifact check: $*" >&2; exit 1; }

# expect_rc WANT LOG CMD...: run CMD with its output in LOG; fail with LOG's tail unless it exits WANT.
expect_rc() {
  local want="$1" log="$2" rc=0
  shift 2
  "$@" > "$log" 2>&1 || rc=$?
  [ "$rc" = "$want" ] || { tail -n 40 "$log" >&2; fail "exit $rc, expected $want: $*"; }
}

# expect_in LOG REGEX: fail unless LOG has a line matching the extended REGEX.
expect_in() { grep -Eq -- "$2" "$1" || { tail -n 40 "$1" >&2; fail "no line matches '$2' in $1"; }; }

check_contents() {
  local tarball="$1" members="$2" extracted="$3" missing secrets size
  tar tzf "$tarball" | sed 's:/$::' | sort > "$members"
  rm -rf "$extracted" && mkdir -p "$extracted" && tar xzf "$tarball" -C "$extracted"
  missing="$(cd "$REPO" && git ls-files --cached --others --exclude-standard -- "${RUNTIME_DIRS[@]}" \
    | grep -v '__pycache__' | sort | comm -23 - "$members")"
  [ -z "$missing" ] || fail "runtime files missing from the tarball (galaxy.yml build_ignore?): $missing"
  secrets="$(grep -rlaE -- '-----BEGIN [A-Z ]*PRIVATE KEY-----|^[$]ANSIBLE_VAULT;' "$extracted" || true)"
  [ -z "$secrets" ] || fail "the tarball holds a private key or a vault file: $secrets"
  size=$(stat -c %s "$tarball")
  [ "$size" -le "$MAX_TARBALL_BYTES" ] || fail "$tarball is $size bytes, over $MAX_TARBALL_BYTES; see build_ignore"
  echo "tarball: $(basename "$tarball"), $size bytes, $(grep -c . "$members") members; top level:" \
    "$(cut -d/ -f1 "$members" | sort -u | tr '\n' ' ')"
  echo "biggest members:"
  tar tzvf "$tarball" | sort -k3 -n -r | awk 'NR <= 5 {print "  " $3, $6}'
}

main() {
  local tarball="${1:-}" base="$REPO/.build/artifact" started=$SECONDS work coll installed
  [ -n "$tarball" ] || tarball="$(artifact_build "$REPO/.build/dist")"
  tarball="$(cd "$(dirname "$tarball")" && pwd)/$(basename "$tarball")"
  mkdir -p "$base"
  check_contents "$tarball" "$base/members.txt" "$base/extracted"

  coll="$base/collections"
  artifact_install "$tarball" "$coll" > "$base/install.log" 2>&1 || { cat "$base/install.log" >&2; fail "install failed"; }
  installed="$coll/ansible_collections/llmops/sglang"
  [ -f "$installed/MANIFEST.json" ] || fail "no MANIFEST.json in $installed"
  echo "dependencies (from site-packages): $(sed -n "s/^'\(.*\)' is already installed, skipping.$/\1/p" \
    "$base/install.log" | tr '\n' ' ')"

  # Outside the repository, with a fresh HOME and no PYTHONPATH: only the installed artifact and the bundle's
  # site-packages collections can be found.
  work="$(mktemp -d "${TMPDIR:-/tmp}/llmops-sglang-artifact.XXXXXX")"
  ARTIFACT_WORK="$work"
  trap 'rm -rf "$ARTIFACT_WORK"' EXIT
  mkdir -p "$work/home"
  cp -r "$REPO/inventories/example" "$work/inventory"
  mkdir -p "$work/model"
  cp "$REPO/tests/fixtures/model-configs/Qwen__Qwen3.6-27B/config.json" "$work/model/config.json"
  cd "$work"
  unset PYTHONPATH ANSIBLE_CONFIG
  export HOME="$work/home" ANSIBLE_COLLECTIONS_PATH="$coll"
  local config=(-e "llmops_sglang_model_config=$work/model/config.json")

  ansible-galaxy collection list llmops.sglang --format json > listed.json 2> /dev/null
  python3 -c 'import json, sys; found = sorted(json.load(open(sys.argv[1]))); sys.exit(found != [sys.argv[2]] and "llmops.sglang found in %s" % found)' \
    listed.json "$coll/ansible_collections" || fail "llmops.sglang visible outside the installed artifact"
  expect_rc 0 doc.log ansible-doc -t role llmops.sglang.sglang_service
  expect_in doc.log "^> ROLE: \*llmops\.sglang\.sglang_service\* \($installed\)"

  expect_rc 0 syntax.log ansible-playbook -i inventory --syntax-check "${config[@]}" \
    llmops.sglang.deploy llmops.sglang.preflight llmops.sglang.diagnose llmops.sglang.teardown
  expect_rc 0 filter.log ansible localhost -m ansible.builtin.debug \
    -a 'msg={{ {"model_path": "/srv/models/Qwen3.6-27B", "max_running_requests": 32} | llmops.sglang.sglang_argv(version="0.5.9") | join(" ") }}'
  expect_in filter.log '"msg": "--model-path /srv/models/Qwen3.6-27B --max-running-requests 32"'

  # The incident fails its preflight by design (README, Why): the root cause, and the fix it computes.
  expect_rc 2 incident.log ansible-playbook -i inventory "${config[@]}" llmops.sglang.preflight
  expect_in incident.log "Origin: $installed/playbooks/preflight.yml"
  expect_in incident.log "mamba_pool_too_small: fails: SGLang 0\.5\.9, Qwen3_5ForConditionalGeneration, TP 2"
  expect_in incident.log "Fix: --max-running-requests [0-9]+ -> fits"
  # The fix in the inventory: it passes.
  sed -i 's/^llmops_sglang_server_args:$/&\n  max_running_requests: 32/' inventory/group_vars/sglang_containers.yml
  expect_in inventory/group_vars/sglang_containers.yml "^  max_running_requests: 32$"
  expect_rc 0 fixed.log ansible-playbook -i inventory "${config[@]}" llmops.sglang.preflight
  expect_in fixed.log '"none: fits: SGLang 0\.5\.9, Qwen3_5ForConditionalGeneration, TP 2'

  # meta/runtime.yml's action group: the fixed launch, all but the model from group/llmops.sglang.sglang.
  cat > group.yml <<EOF
- name: The incident's release and GPUs from module_defaults
  hosts: localhost
  gather_facts: false
  module_defaults:
    group/llmops.sglang.sglang:
      sglang_version: "0.5.9"
      gpus: [{name: NVIDIA RTX A6000, memory_total_mib: 49140}, {name: NVIDIA RTX A6000, memory_total_mib: 49140}]
      server_args: {model_path: /srv/models/Qwen3.6-27B, tp_size: 2, mem_fraction_static: 0.85, context_length: 65536,
                    enable_torch_compile: true, speculative_algorithm: NEXTN, speculative_num_steps: 3,
                    speculative_eagle_topk: 1, speculative_num_draft_tokens: 4, max_running_requests: 32}
  tasks:
    - name: Budget the fixed launch
      llmops.sglang.sglang_memory_budget:
        model: $work/model/config.json
      register: budget
    - name: Show the verdict
      ansible.builtin.debug:
        msg: "verdict {{ budget.verdict }} under {{ budget.sglang_version }}"
EOF
  expect_rc 0 group.log ansible-playbook group.yml
  expect_in group.log '"msg": "verdict fits under 0\.5\.9"'

  echo "artifact check: ok in $((SECONDS - started)) s: installed offline into $coll (the only llmops.sglang)," \
    "syntax-check of deploy, preflight, diagnose, teardown; sglang_argv; ansible-doc role; incident preflight" \
    "rc 2 (mamba_pool_too_small), with max_running_requests 32 rc 0; group/llmops.sglang.sglang module_defaults"
}

main "$@"
