"""The watchdog process: stops an embedded server when its owner dies without stopping it.

Run as ``python -m okeytools.embedded.watchdog PID SIGNAL CLEANUP_DIR`` with a pipe from the owner
on standard input. A "q" on the pipe means the owner stopped the server itself; end of file
without it means the owner is gone (killed, crashed), so the watchdog sends SIGNAL to PID, waits
up to 15 s, kills it if it still runs, and removes CLEANUP_DIR (when not empty), so a test run
never leaves servers or temporary data behind. Only the standard library is used: it must start
fast and hold little while it waits.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import sys
import time
from collections.abc import Sequence

STOP_WAIT_S = 15.0


def _send(pid: int, pidfd: int | None, sig: int) -> bool:
    """Signal the server (through its pidfd when there is one, so a reused pid is never hit)."""
    try:
        if pidfd is not None:
            signal.pidfd_send_signal(pidfd, sig)
        else:
            os.kill(pid, sig)
        return True
    except ProcessLookupError:
        return False


def _wait_gone(pid: int, pidfd: int | None, timeout_s: float) -> bool:
    """True once the server has exited, False when ``timeout_s`` passed first."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if pidfd is not None:
            if select.select([pidfd], [], [], 0.2)[0]:
                return True
        else:
            time.sleep(0.2)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
    return False


def main(argv: Sequence[str]) -> int:
    pid, sig, cleanup = int(argv[0]), int(argv[1]), argv[2]
    # A Ctrl-C in the terminal is for the owner: the watchdog only acts when the owner is gone.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        pidfd: int | None = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    if sys.stdin.buffer.read(1) == b"q":  # the owner stopped the server itself
        return 0
    if _send(pid, pidfd, sig) and not _wait_gone(pid, pidfd, STOP_WAIT_S):
        _send(pid, pidfd, signal.SIGKILL)
        time.sleep(0.5)
    if cleanup:
        shutil.rmtree(cleanup, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
