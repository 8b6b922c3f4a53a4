"""The tally of the README's Reliability section, counted from the hardening tests themselves.

    python -m tests.hardening.tally          # cases per file (collected, nothing run)
    python -m tests.hardening.tally --run    # and run them: survived = passed

Prints one markdown row per file: the item of docs/decisions.md#d10, the file, cases tried (test items pytest
collects; a hypothesis test counts once, its examples are in :data:`ROWS`), survived (passed;
``-`` without ``--run``) and what each file asserts about stored rows.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

#: file -> (item of docs/decisions.md#d10, what its tests assert about the rows and files they touch)
ROWS: dict[str, tuple[str, str]] = {
    "tests/hardening/test_sql_readonly.py": ("1 read-only `sql`", "0 (file bytes unchanged)"),
    "tests/hardening/test_api_key_leaks.py": ("2 API key never shown or stored", "0"),
    "tests/hardening/test_markup.py": ("3 text never parsed as markup", "0"),
    "tests/hardening/test_merge_trust.py": ("4 merge trusts nothing", "0"),
    "tests/hardening/test_poison_request.py": ("5 a poison request fails alone", "0"),
    "tests/hardening/test_nothing_written.py": (
        "6 a failing command writes nothing",
        "0 (file bytes unchanged)",
    ),
    "tests/hardening/test_inputs_designs.py": ("6 inputs checked first, every design", "0 (nothing written)"),
    "tests/hardening/test_one_line.py": ("7, 8 one line, disk full on a tmpfs", "0"),
    "tests/hardening/test_running.py": (
        "9, 10 SIGTERM (3 at random moments, 1 under Ray), reading a running infer",
        "0 (resumed run: every answer once, no WAL)",
    ),
    "tests/hardening/test_analyze_interrupt.py": (
        "9 Ctrl-C / SIGTERM inside analyze (long queries, signals dropped in finalizers)",
        "0 (no result table half-written, no WAL)",
    ),
    "tests/hardening/test_fuzz.py": ("fuzzing (hypothesis, 135 examples)", "0 (nothing written)"),
    "tests/store/test_upgrade_kill.py": (
        "`cueshift upgrade` killed -9 at each step, rerun",
        "0 (old or new database whole)",
    ),
    "tests/store/test_version_refusals.py": (
        "an older schema version refused by every command",
        "0 (file bytes unchanged)",
    ),
    "tests/execution/test_runner.py::test_kill_minus_nine_at_random_moments_loses_and_duplicates_nothing": (
        "kill -9 at random moments (8 kills), resumed",
        "0 (none duplicated)",
    ),
}


def _collected(targets: list[str]) -> Counter[str]:
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", *targets],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return Counter(_target_of(line, targets) for line in out.splitlines() if "::" in line)


def _passed(targets: list[str]) -> Counter[str]:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "junit.xml"
        subprocess.run([sys.executable, "-m", "pytest", "-q", f"--junitxml={report}", *targets], check=False)
        root = ET.parse(report).getroot()
    passed: Counter[str] = Counter()
    for case in root.iter("testcase"):
        if any(child.tag in ("failure", "error", "skipped") for child in case):
            continue
        path = case.get("classname", "").replace(".", "/") + ".py"
        passed[_target_of(f"{path}::{case.get('name', '')}", targets)] += 1
    return passed


def _target_of(item: str, targets: list[str]) -> str:
    return next((t for t in targets if item.startswith(t)), item.split("::")[0])


def main(argv: list[str]) -> None:
    targets = list(ROWS)
    tried = _collected(targets)
    passed = _passed(targets) if "--run" in argv else None
    print("| tally (docs/decisions.md#d10 item: test file) | cases tried | survived | rows lost |")
    print("|---|---|---|---|")
    for target, (item, rows) in ROWS.items():
        survived = "-" if passed is None else str(passed[target])
        name = Path(target.split("::")[0]).name
        print(f"| {item}: `{name}` | {tried[target]} | {survived} | {rows} |")


if __name__ == "__main__":
    main(sys.argv[1:])
