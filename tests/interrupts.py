"""Starting an arena command the way a terminal does, for the tests that press Ctrl-C."""

from __future__ import annotations

import signal


def as_from_a_terminal() -> None:
    """``preexec_fn`` of a command a test interrupts: Ctrl-C's signal at its default
    and no signal blocked, as a shell starts a program. A pytest worker may carry
    another disposition or mask (left by code it ran before), which the child would
    otherwise inherit: then SIGINT never reaches the arena and the test measures that,
    not the arena's Ctrl-C.

    Not pytest-xdist's doing: a fresh worker (``-n 1``) and a plain run (``-n 0``) both
    start with SIGINT at Python's default handler, nothing blocked (``SigBlk`` 0) and
    only SIGPIPE and SIGXFSZ ignored (``SigIgn`` 0x1001000 in /proc/self/status,
    checked 2026-12-05). Which earlier test leaves SIGINT ignored or blocked in the
    worker is not known; this keeps the interrupt tests independent of it."""
    signal.pthread_sigmask(signal.SIG_SETMASK, ())
    signal.signal(signal.SIGINT, signal.SIG_DFL)
