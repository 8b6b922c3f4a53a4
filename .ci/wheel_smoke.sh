#!/usr/bin/env bash
# cueshift installs as a library: the wheel built from this checkout, installed WITHOUT
# extras in a clean venv (pip takes the base dependencies from PyPI), must infer and analyze the
# default study and import as `cueshift`; `cueshift report` must refuse in one line naming the
# 'report' extra (exit 2, no traceback). Called by .ci/run; runs alone too: .ci/wheel_smoke.sh
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Build from a copy of the tracked and unignored files: no stale build/ or egg-info in the wheel.
mkdir "$work/src"
git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"; done |
    tar -c --null -T - | tar -x -C "$work/src"
"$py" -m pip wheel --quiet --no-deps -w "$work/dist" "$work/src"
"$py" -m venv "$work/venv"
bin="$work/venv/bin"
"$bin/python" -m pip install --quiet --disable-pip-version-check "$work"/dist/cueshift-*.whl

cd "$work"  # away from the checkout: the installed package only
for module in torch transformers great_tables matplotlib nbformat starlette uvicorn jinja2 mlcroissant ray; do
    if "$bin/python" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('$module') is None)"; then
        echo "wheel smoke: $module is installed without extras" >&2
        exit 1
    fi
done
"$bin/python" -c "import cueshift, cueshift.cli"
"$bin/cueshift" infer --study default --db x.duckdb --no-progress
"$bin/cueshift" analyze --study default --db x.duckdb --no-progress >analyze.out
tail -n 1 analyze.out

rc=0
"$bin/cueshift" report --db x.duckdb >report.out 2>report.err || rc=$?
want="error: cueshift report needs the 'report' extra (great_tables is not installed): pip install 'cueshift[report]'"
if [ "$rc" -ne 2 ] || [ "$(cat report.err)" != "$want" ] || [ -s report.out ]; then
    echo "wheel smoke: cueshift report without the 'report' extra: exit $rc, stderr:" >&2
    cat report.err >&2
    exit 1
fi
echo "wheel smoke: the wheel without extras infers, analyzes, imports; report names its extra"
