#!/usr/bin/env bash
# galaxy-importer, the checks Galaxy runs on an upload, on the built tarball (settings: .galaxy-importer.cfg).
#
#   bash scripts/galaxy_importer_check.sh VENV TARBALL
#
# It runs as Galaxy runs it: its own venv (ansible-core and ansible-lint, no other collection), no collections
# path, a fresh HOME. The importer exits 0 on some errors (a failed ansible-doc is logged, not raised), so any
# ERROR line fails here, as does a run that does not end with "Importer processing completed successfully";
# WARNING lines are listed. Its whole output: .build/importer/importer.log, its result: importer_result.json there.
set -euo pipefail
venv="$(cd "$1" && pwd)" tarball="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$repo/.build/importer"
rm -rf "$out" && mkdir -p "$out/home"
started=$SECONDS
rc=0
(cd "$out" && env -i PATH="$venv/bin:/usr/bin:/bin" HOME="$out/home" LANG=C.UTF-8 \
  GALAXY_IMPORTER_CONFIG="$repo/.galaxy-importer.cfg" \
  "$venv/bin/python" -m galaxy_importer.main "$tarball") > "$out/importer.log" 2>&1 || rc=$?
warnings="$(grep -E '^WARNING' "$out/importer.log" || true)"
errors="$(grep -E '^(ERROR|CRITICAL)' "$out/importer.log" || true)"
[ -z "$warnings" ] || printf 'galaxy-importer warnings:\n%s\n' "$warnings"
if [ "$rc" != 0 ] || [ -n "$errors" ] || ! grep -q '^Importer processing completed successfully$' "$out/importer.log"; then
  tail -n 60 "$out/importer.log"
  echo "galaxy-importer: $(basename "$tarball") does not import cleanly (exit $rc; output: $out/importer.log)" >&2
  exit 1
fi
echo "galaxy-importer $("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("galaxy-importer"))'):" \
  "$(basename "$tarball") imports with no error, $(grep -c . <<< "$warnings" || true) warning(s), in $((SECONDS - started)) s"
