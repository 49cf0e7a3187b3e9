"""Issue 28, point 2: no channel between games through the kernel. Keyrings (a key one
bot leaves for a later bot of the same leased user id, or a concurrent one), locks on
the shared read-only runtime, and every system call the filter denies
(arena/players/sandbox/syscalls.py, docs/protocol.md)."""

from __future__ import annotations

import ctypes
import itertools
import os
from typing import Any

import pyseccomp
import pytest

from arena.players.sandbox import SandboxedProcess, detect_isolation, uids
from arena.players.sandbox.isolation import in_child
from tests.arena.hostile import read_json_line, start_script

ISOLATION = detect_isolation()
needs_the_filter = pytest.mark.skipif(
    not (ISOLATION.user and ISOLATION.syscall_filter),
    reason="no user id of its own or no system call filter here",
)


def first_line(sandbox: SandboxedProcess) -> Any:
    try:
        return read_json_line(sandbox)
    finally:
        sandbox.close()


@pytest.fixture
def one_uid(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every lease starts its search at the same slot: a bot after another gets the
    user id the first one had (the pool reuses ids)."""
    monkeypatch.setattr(uids, "_lease_counter", itertools.repeat(0))


@needs_the_filter
@pytest.mark.usefixtures("one_uid")
def test_a_key_left_in_a_keyring_reaches_no_later_bot_of_the_same_user_id() -> None:
    writer = start_script("keyring.py", "write", "my hand: AH KH QH")
    added = first_line(writer)
    reader = start_script("keyring.py", "read")
    found = first_line(reader)
    assert found == {"uid": writer.uid, "found": None}
    assert added == {"session": "EPERM", "user": "EPERM"}


LEFT_KEY = b"left-by-an-unfiltered-bot"
KEY_SPEC_USER_KEYRING, KEYCTL_SEARCH = -4, 10


def as_user(uid: int, call: str, *args: Any) -> bool:
    """Whether ``call`` (a system call's name) succeeds for ``uid`` (in a child of the host)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    number = pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, call)

    def attempt() -> bool:
        os.setresuid(uid, uid, uid)
        return libc.syscall(number, *args) >= 0

    return in_child(attempt)


@needs_the_filter
@pytest.mark.usefixtures("one_uid")
def test_a_key_left_for_a_user_id_before_the_filter_is_gone_when_it_is_leased_again() -> None:
    lease = uids.UidLease()
    uid = lease.uid
    lease.release()
    added = as_user(uid, "add_key", b"user", LEFT_KEY, b"AH", 2, KEY_SPEC_USER_KEYRING)
    sandbox = start_script("keyring.py", "read")
    first_line(sandbox)
    search = (KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, b"user", LEFT_KEY, 0)
    assert (added, sandbox.uid, as_user(uid, "keyctl", *search)) == (True, uid, False)


@needs_the_filter
def test_a_key_reaches_no_concurrent_bot() -> None:
    writer = start_script("keyring.py", "write", "my hand: AH KH QH")
    try:
        added = read_json_line(writer)
        found = first_line(start_script("keyring.py", "read"))
    finally:
        writer.close()
    assert (added, found["found"]) == ({"session": "EPERM", "user": "EPERM"}, None)


@needs_the_filter
def test_locks_on_the_shared_runtime_carry_no_signal_to_a_concurrent_game() -> None:
    holder = start_script("lock_signal.py", "hold")
    try:
        held = read_json_line(holder)
        seen = first_line(start_script("lock_signal.py", "probe"))
    finally:
        holder.close()
    assert (held, seen) == ({"flock": "ENOLCK", "posix": "ENOLCK"},) * 2


@needs_the_filter
def test_each_denied_system_call_is_refused_and_what_bots_need_still_works() -> None:
    results = first_line(start_script("denied_calls.py"))
    assert results == {
        "unshare(CLONE_NEWUSER)": "EPERM",
        "unshare(CLONE_NEWNET)": "EPERM",
        "clone(CLONE_NEWUSER)": "EPERM",
        "ptrace(PTRACE_TRACEME)": "EPERM",
        "mount": "EPERM",
        "bpf": "EPERM",
        "perf_event_open": "EPERM",
        "setns": "EPERM",
        "clone3": "ENOSYS",
        "io_uring_setup": "ENOSYS",
        "keyctl": "EPERM",
        "pidfd_getfd": "EPERM",
        "inotify_init1": "EPERM",
        "mincore": "EPERM",
        "madvise(MADV_PAGEOUT)": "EINVAL",
        "preadv2(RWF_NOWAIT)": "ENOTSUP",  # EOPNOTSUPP: the same number on Linux
        "process_madvise": "ENOSYS",
        "personality(ADDR_NO_RANDOMIZE)": "EPERM",
        "personality(query)": "ok",
        "fork": "ok",
        "thread": "ok",
        "subprocess": "ok",
        "sqlite in memory": "ok",
        "sqlite unix-none": "ok",
    }
