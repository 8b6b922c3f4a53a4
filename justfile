# cueshift recipes: thin wrappers over the `cueshift` command line.
# Every recipe sets up .venv on first use (Python >= 3.11) with what it needs: infer, analyze, sql,
# merge the base dependencies only; report, plan, view their extra; test and lint every extra
# (`just setup`), torch pinned to 2.13.0 wherever it is installed.

set shell := ["bash", "-euo", "pipefail", "-c"]
set positional-arguments := true

venv := ".venv"
bin := venv / "bin"

# infer then analyze the embedded default study (a SIMULATED judge)
default: infer analyze

# every extra: what `just test` and `just lint` need (the others install only their own)
all_extras := "models,report,dev,view,croissant,ray,build,faces"

# install every extra into .venv, or those named (just setup models: before infer with real models)
setup EXTRAS=(all_extras): (_install EXTRAS)

# create .venv and install cueshift (editable) with EXTRAS ("" = base dependencies only, a comma list
# of pyproject.toml's extras otherwise). One stamp per extra set, holding pyproject.toml's hash: a set
# reinstalls only when pyproject.toml changes; the full set's stamp satisfies every other set.
[private]
_install EXTRAS:
    #!/usr/bin/env bash
    set -euo pipefail
    want=$(sha256sum pyproject.toml | cut -d' ' -f1)
    stamp="{{venv}}/.cueshift-installed-{{ if EXTRAS == "" { "base" } else { replace(EXTRAS, ",", "+") } }}"
    full="{{venv}}/.cueshift-installed-{{ replace(all_extras, ",", "+") }}"
    for done in "$stamp" "$full"; do
        if [ -f "$done" ] && [ "$(cat "$done")" = "$want" ]; then exit 0; fi
    done
    py=${PYTHON:-python3}
    "$py" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "cueshift needs Python >= 3.11, found " + sys.version.split()[0])'
    [ -x "{{bin}}/python" ] || "$py" -m venv "{{venv}}"
    echo "setting up {{venv}} with {{ if EXTRAS == "" { "the base dependencies" } else { "extras " + EXTRAS } }} (once)..." >&2
    "{{bin}}/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
    case ",{{EXTRAS}}," in
        *,models,*|*,faces,*)
            # exact pin, only here and before the extras: on the project's machines torch 2.13.0 is
            # the CPU wheel on disk and any other spec downloads several GB of CUDA wheels; the
            # 'models' extra then finds its range (torch>=2.2) satisfied. Sets without 'models'
            # (infer/analyze of the simulated default study) never import torch.
            "{{bin}}/python" -m pip install --quiet --disable-pip-version-check "torch==2.13.0" ;;
    esac
    "{{bin}}/python" -m pip install --quiet --disable-pip-version-check -e ".{{ if EXTRAS == "" { "" } else { "[" + EXTRAS + "]" } }}"
    case ",{{EXTRAS}}," in
        *,faces,*)
            # 'faces' builds dlib from source (minutes, once); facenet-pytorch only for its MTCNN
            # weights, without its dependencies (their pins clash with torch 2.13; docs/faces.md)
            "{{bin}}/python" -m pip install --quiet --disable-pip-version-check --no-deps "facenet-pytorch>=2.5" ;;
    esac
    echo "$want" > "$stamp"

# judge every image x scenario x ordering x seed not stored yet (e.g. just infer --study studies/x.toml)
infer *ARGS: (_install "")
    {{bin}}/cueshift infer "$@"

# build the views and print the summary (e.g. just analyze --study studies/x.toml)
analyze *ARGS: (_install "")
    {{bin}}/cueshift analyze "$@"

# plan a study before running it: power, minimum detectable effects, cost (e.g. just plan --pilot runs/pilot.duckdb)
plan *ARGS: (_install "report")
    {{bin}}/cueshift plan "$@"

# ad-hoc read-only SQL, e.g. just sql "SELECT * FROM delta LIMIT 5"
sql QUERY *ARGS: (_install "")
    {{bin}}/cueshift sql "$@"

# merge shard databases: just merge runs/all.duckdb runs/default.shard-*.duckdb
merge *ARGS: (_install "")
    {{bin}}/cueshift merge "$@"

# render the study report to HTML and PDF (e.g. just report --db runs/x.duckdb --models a,b)
report *ARGS: (_install "report")
    {{bin}}/cueshift report "$@"

# browse a study database in the browser, read-only (e.g. just view --db runs/x.duckdb --port 8000)
view *ARGS: (_install "view")
    {{bin}}/cueshift view "$@"

# run the test suite (arguments go to pytest; what CI runs): one pytest-xdist worker per core, each
# test file on one worker (its module fixtures built once); `just test -n 0 ...` runs in one process
test *ARGS: setup
    {{bin}}/python -m pytest -n auto --dist loadfile "$@"

# the quick subset: the suite without the tests marked slow (conftest.py SLOW_TESTS); every layer still tested
test-quick *ARGS: setup
    {{bin}}/python -m pytest -n auto --dist loadfile -m "not slow" "$@"

# the property tests (hypothesis) on new random examples, ROUNDS times (the suite draws the same ones
# every run: decision D96); a failure prints its @reproduce_failure blob
fuzz ROUNDS="3" *ARGS: setup
    shift; for round in $(seq {{ROUNDS}}); do {{bin}}/python -m pytest -n auto --dist loadfile -p no:cacheprovider -m hypothesis --hypothesis-profile fuzz -q "$@" || exit 1; done

# lint and type-check (strict mypy over the whole package, schemas included, and every test body)
lint: setup
    {{bin}}/ruff check engine tests benchmarks
    {{bin}}/ruff format --check engine tests benchmarks conftest.py
    {{bin}}/mypy
