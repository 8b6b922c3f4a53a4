"""The command line's entry point: importing ``cueshift.cli`` changes no process state; ``main`` (the
console script, ``python -m cueshift.cli``) turns Ctrl-C or SIGTERM during start-up into one line."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

#: Prints whether SIGINT's and SIGTERM's handlers are unchanged after loading every command.
UNCHANGED = """
import signal
before = [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)]
import cueshift.cli
cueshift.cli.app  # every command registered
print([signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)] == before)
"""

#: Runs ``main`` with a signal arriving while the commands load.
STOPPED_WHILE_STARTING = """
import os, sys
import cueshift.cli
cueshift.cli._load_app = lambda: os.kill(os.getpid(), int(sys.argv[1]))
cueshift.cli.main()
print("not stopped")
"""


def test_importing_the_command_line_installs_no_signal_handler() -> None:
    done = subprocess.run(
        [sys.executable, "-c", UNCHANGED], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "True"


@pytest.mark.parametrize(
    ("signum", "line"),
    [(signal.SIGINT, "interrupted"), (signal.SIGTERM, "stopped by SIGTERM")],
    ids=["SIGINT", "SIGTERM"],
)
def test_a_signal_while_starting_prints_one_line(signum: signal.Signals, line: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", STOPPED_WHILE_STARTING, str(int(signum))],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 128 + signum
    assert done.stderr == f"{line} while starting: nothing was done\n"
    assert done.stdout == ""


def test_main_puts_the_handlers_back_before_the_command_runs() -> None:
    code = (
        "import signal, cueshift.cli\n"
        "before = signal.getsignal(signal.SIGINT)\n"
        "cueshift.cli.app.command('probe')(lambda: print(signal.getsignal(signal.SIGINT) is before))\n"
        "cueshift.cli.main()\n"
    )
    done = subprocess.run([sys.executable, "-c", code, "probe"], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "True", done.stderr
