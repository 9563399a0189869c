#!/usr/bin/env bash
# Run `molecule test` for each scenario named, at -vvvv, its whole output in .build/molecule-logs/<scenario>.log.
# On success print the play recaps and the testinfra verifier's pytest summary (how many state checks ran);
# on failure print the log's tail and stop. Used by `make molecule` and `make e2e`.
set -euo pipefail
logs=.build/molecule-logs
mkdir -p "$logs" .build/secret-canaries .build/secret-scan
for scenario in "$@"; do
  log="$logs/$scenario.log"
  echo "== molecule test -s $scenario at -vvvv (output: $log)"
  if (cd extensions && ANSIBLE_VERBOSITY=4 molecule test -s "$scenario") > "$log" 2>&1; then
    grep -E "^[A-Za-z0-9_.-]+ +: ok=[0-9]+ " "$log" | tail -n 3
    grep -E "^=+ [0-9]+ passed.* in [0-9.]+s" "$log" | sed "s/^/testinfra: /" || true
  else
    tail -n 300 "$log"
    echo "molecule test -s $scenario failed"
    exit 1
  fi
done
