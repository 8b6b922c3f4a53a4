# cueshift recipes: thin wrappers over the `cueshift` command line.
# Every recipe sets up .venv on first use (Python >= 3.11, torch pinned to 2.13.0).

set shell := ["bash", "-euo", "pipefail", "-c"]
set positional-arguments := true

venv := ".venv"
bin := venv / "bin"

# infer then analyze the embedded default study (a SIMULATED judge)
default: infer analyze

# create .venv and install cueshift (editable) with all extras; reruns only when pyproject.toml changes
setup:
    #!/usr/bin/env bash
    set -euo pipefail
    stamp="{{venv}}/.cueshift-installed"
    want=$(sha256sum pyproject.toml | cut -d' ' -f1)
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then exit 0; fi
    py=${PYTHON:-python3}
    "$py" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "cueshift needs Python >= 3.11, found " + sys.version.split()[0])'
    [ -x "{{bin}}/python" ] || "$py" -m venv "{{venv}}"
    echo "setting up {{venv}} (first run: a few minutes)..." >&2
    "{{bin}}/python" -m pip install --quiet --upgrade pip
    # exact pin, only here and before the extras: on the project's machines torch 2.13.0 is the CPU
    # wheel on disk and any other spec downloads several GB of CUDA wheels; the 'models' extra then
    # finds its range (torch>=2.2) satisfied
    "{{bin}}/python" -m pip install --quiet "torch==2.13.0"
    "{{bin}}/python" -m pip install --quiet -e ".[models,report,dev,view,croissant,ray]"
    echo "$want" > "$stamp"

# judge every image x scenario x ordering x seed not stored yet (e.g. just infer --study studies/x.toml)
infer *ARGS: setup
    {{bin}}/cueshift infer "$@"

# build the views and print the summary (e.g. just analyze --study studies/x.toml)
analyze *ARGS: setup
    {{bin}}/cueshift analyze "$@"

# plan a study before running it: power, minimum detectable effects, cost (e.g. just plan --pilot runs/pilot.duckdb)
plan *ARGS: setup
    {{bin}}/cueshift plan "$@"

# ad-hoc read-only SQL, e.g. just sql "SELECT * FROM delta LIMIT 5"
sql QUERY *ARGS: setup
    {{bin}}/cueshift sql "$@"

# merge shard databases: just merge runs/all.duckdb runs/default.shard-*.duckdb
merge *ARGS: setup
    {{bin}}/cueshift merge "$@"

# render the study report to HTML and PDF (e.g. just report --db runs/x.duckdb --models a,b)
report *ARGS: setup
    {{bin}}/cueshift report "$@"

# browse a study database in the browser, read-only (e.g. just view --db runs/x.duckdb --port 8000)
view *ARGS: setup
    {{bin}}/cueshift view "$@"

# run the test suite (arguments go to pytest)
test *ARGS: setup
    {{bin}}/python -m pytest "$@"

# lint and type-check (strict mypy over the whole package, schemas included)
lint: setup
    {{bin}}/ruff check engine tests benchmarks
    {{bin}}/mypy
