"""Run a command in a pseudo-terminal of a given width, as in a real terminal, and read what it printed."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import termios
import time
from collections.abc import Sequence
from pathlib import Path

#: The characters of rich's table borders (heavy head, rounded and square boxes).
BOX = frozenset("┏┓┗┛┃━┳┻╋┣┫┡┩╇│─┌┐└┘├┤┬┴┼╭╮╰╯")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def run_in_terminal(
    args: Sequence[str], width: int, *, env: dict[str, str] | None = None, cwd: Path | None = None,
    timeout: float = 300,
) -> str:  # fmt: skip
    """Run ``args`` with stdin, stdout and stderr on a ``width``-column pseudo-terminal; its text.

    ``COLUMNS`` and ``LINES`` are removed from the environment (the terminal's size is the only
    width), ``TERM`` is a real terminal's; escape codes are stripped and line ends are ``\\n``.
    """
    base = {k: v for k, v in (env or os.environ).items() if k not in ("COLUMNS", "LINES")}
    base["TERM"] = "xterm-256color"
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 50, width, 0, 0))
    process = subprocess.Popen(
        list(args), stdin=terminal, stdout=terminal, stderr=terminal, env=base, cwd=cwd, close_fds=True
    )
    os.close(terminal)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([controller], [], [], 0.5)
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # the terminal closed: every process holding it exited
                break
            if not chunk:
                break
            chunks.append(chunk)
        else:
            process.kill()
            raise TimeoutError(f"{args!r} ran past {timeout} s")
    finally:
        os.close(controller)
    code = process.wait(timeout=30)
    text = _ANSI.sub("", b"".join(chunks).decode("utf-8", "replace")).replace("\r\n", "\n")
    if code != 0:
        raise AssertionError(f"{args!r} exited {code}:\n{text}")
    return text


def table_lines(text: str) -> list[str]:
    """The lines of ``text`` drawn by a table (a border character at either end)."""
    return [line for line in text.splitlines() if line and (line[0] in BOX or line.rstrip()[-1:] in BOX)]


def too_wide(text: str, width: int) -> list[str]:
    """The table lines of ``text`` wider than ``width``."""
    return [line for line in table_lines(text) if len(line) > width]
