"""The sandbox: what a bot sees and may use, checked from inside a bot."""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.play.runner import play_game
from arena.players.sandbox import (
    GIB,
    MIB,
    NO_ISOLATION,
    SandboxedProcess,
    SandboxError,
    SandboxLimits,
    describe_exit,
    detect_isolation,
    kernel,
    uids,
)
from arena.players.sandbox import limits as limits_module
from arena.players.sandbox import process as process_module
from arena.players.sandbox.cgroups import BotCgroup, candidates, sweep
from arena.players.sandbox.runtime import host_runtime, named_paths, shell_operator
from arena.players.sandbox.warden import FIRST_LAST_PID
from arena.players.submission import UnsafeCommand, check_archive_command
from bots.simple import RandomBot
from engines.registry import get_game
from tests.arena.hostile import make_bot, processes_of, python_source
from tests.waiting import wait_until

ISOLATION = detect_isolation()


@pytest.fixture(scope="module", params=[False, True], ids=["cold", "warm"])
def snooped(request: pytest.FixtureRequest) -> tuple[dict[str, Any], Any]:
    """What the snooping bot saw on its first move, and its (closed) sandbox: started
    for its game (cold), or a fork of its zygote (warm, the default)."""
    bot = make_bot(
        python_source("snoop.py", "Snoop"), memory_bytes=GIB, processes=32, warm=request.param
    )
    state = get_game("koenigsgarten").new_initial_state(seed=3)
    try:
        record = play_game(state, [bot, RandomBot()])
    finally:
        bot.close()
    assert record.outcome.get("offender") is None
    lines = bot.last_stderr.decode().splitlines()
    facts = json.loads(next(line for line in lines if line.startswith("FACTS "))[6:])
    assert "printed to stdout" in lines  # a print() cannot corrupt the protocol
    return facts, bot.last_process


def test_the_environment_is_scrubbed(snooped: tuple[dict[str, Any], Any]) -> None:
    facts, _ = snooped
    expected = {"HOME", "LANG", "PATH", "PYTHONDONTWRITEBYTECODE", "PYTHONPATH", "TMPDIR"}
    assert set(facts["env"]) == expected


def test_the_working_directory_is_empty_and_deleted_afterwards(
    snooped: tuple[dict[str, Any], Any],
) -> None:
    facts, sandbox = snooped
    assert facts["cwd"] == str(sandbox.workdir) and facts["cwd_entries"] == []
    assert not sandbox.base.exists()


def test_the_resource_limits_are_set(snooped: tuple[dict[str, Any], Any]) -> None:
    facts, _ = snooped
    limits = facts["limits"]
    defaults = SandboxLimits()
    assert limits["RLIMIT_AS"] == GIB
    assert limits["RLIMIT_FSIZE"] == defaults.file_bytes
    assert limits["RLIMIT_CORE"] == 0
    assert limits["RLIMIT_NPROC"] == 32 or not ISOLATION.user
    assert limits["RLIMIT_CPU"] == SandboxLimits(game_seconds=30, startup_seconds=15).cpu_seconds(
        30
    )


@pytest.mark.skipif(not ISOLATION.user, reason="the arena does not run as root here")
def test_the_bot_runs_under_a_user_id_of_its_own(snooped: tuple[dict[str, Any], Any]) -> None:
    facts, sandbox = snooped
    assert facts["uid"] == sandbox.uid != 0
    assert processes_of(sandbox.uid) == []


@pytest.mark.skipif(not ISOLATION.network, reason="no network namespace here")
def test_the_bot_has_no_network(snooped: tuple[dict[str, Any], Any]) -> None:
    facts, _ = snooped
    assert facts["network"] != "connected"


@pytest.mark.skipif(not ISOLATION.pids, reason="no PID namespace here")
def test_the_bot_has_a_pid_namespace_of_its_own(snooped: tuple[dict[str, Any], Any]) -> None:
    """Cold, the bot is its process 1; warm, each game's process has an id drawn for
    the game (above the namespace's own few processes)."""
    facts, sandbox = snooped
    if sandbox.warm:
        assert facts["pid"] > FIRST_LAST_PID
    else:
        assert facts["pid"] == 1


@pytest.mark.skipif(not ISOLATION.filesystem, reason="no fresh root here")
def test_the_bot_sees_a_fresh_empty_tmp(snooped: tuple[dict[str, Any], Any]) -> None:
    facts, _ = snooped
    assert facts["tmp_entries"] == []


@pytest.mark.skipif(not ISOLATION.filesystem, reason="no fresh root here")
def test_the_bot_sees_the_runtime_and_nothing_else_of_the_host(
    snooped: tuple[dict[str, Any], Any],
) -> None:
    facts, _ = snooped
    runtime = host_runtime()
    top = {Path(path).parts[1] for path in runtime.read_only} | {
        Path(link).parts[1] for link, _ in runtime.links
    }
    assert set(facts["root_entries"]) == top | {"bot", "dev", "etc", "proc", "tmp", "var"}
    etc = {Path(path).name for path in runtime.read_only if path.startswith("/etc/")}
    assert set(facts["etc_entries"]) == etc | {"passwd", "group", "hosts"}
    # The checkout that holds the SDK shows only the SDK (and the virtual environment
    # when it lies inside): not its database, configuration, other code or .git.
    checkout = str(Path(__file__).resolve().parents[2])
    shown = set(facts["python_path"][checkout])
    assert {"bots", "engines"} <= shown <= {"bots", "engines", ".venv"}
    assert not {"pyproject.toml", "arena", "tests", ".git"} & shown


@pytest.mark.skipif(not ISOLATION.uts, reason="no UTS namespace here")
def test_the_bot_has_a_host_name_of_its_own(snooped: tuple[dict[str, Any], Any]) -> None:
    facts, _ = snooped
    assert facts["hostname"] == "arena-bot" != socket.gethostname()


@pytest.mark.skipif(
    not (ISOLATION.cgroup_namespace and ISOLATION.cgroups.parents),
    reason="no cgroup namespace or cgroups here",
)
def test_the_bot_sees_its_cgroup_as_the_root(snooped: tuple[dict[str, Any], Any]) -> None:
    facts, _ = snooped
    assert facts["cgroups"] == ["/"]


def cgroup_value(cgroup: BotCgroup, *names: str) -> int:
    """The first of the interface files ``names`` that the bot's cgroup has, as a number."""
    for path in cgroup.paths:
        for name in names:
            if (path / name).exists():
                return int((path / name).read_text())
    raise AssertionError(f"no {names} in {cgroup.paths}")


@pytest.mark.skipif(
    not (ISOLATION.cgroups.enforced.memory and ISOLATION.cgroups.enforced.pids),
    reason="no cgroup memory and pids controllers here",
)
def test_each_bot_has_a_cgroup_with_its_limits_that_goes_with_it() -> None:
    limits = SandboxLimits(memory_bytes=300 * MIB, processes=20)
    process = SandboxedProcess(["sleep", "60"], limits=limits, cpu_seconds=5)
    cgroup = process.cgroup
    assert cgroup is not None
    paths = list(cgroup.paths)
    try:
        assert cgroup_value(cgroup, "memory.max", "memory.limit_in_bytes") == 300 * MIB
        assert cgroup_value(cgroup, "pids.max") == 20
        assert (process.bot_pid or process.process.pid) in cgroup.members()
        assert "300 MiB for the whole bot" in process.enforced()
    finally:
        process.close()
    assert [path for path in paths if path.exists()] == []


def writable_hierarchies() -> list[Any]:
    found = candidates() if os.geteuid() == 0 else {}
    return [
        pytest.param(parents, id=f"cgroup-v{version}")
        for version, (parents, _) in found.items()
        if parents and all(os.access(parent, os.W_OK) for parent in parents)
    ]


PR_SET_CHILD_SUBREAPER = 36


@contextlib.contextmanager
def adopting_orphans() -> Iterator[None]:
    """Orphans of this process's descendants become its children meanwhile, to be
    reaped here (this VM's init reaps none)."""
    kernel.prctl(PR_SET_CHILD_SUBREAPER, 1)
    try:
        yield
    finally:
        kernel.prctl(PR_SET_CHILD_SUBREAPER, 0)


@pytest.mark.parametrize("parents", writable_hierarchies())
def test_a_cgroup_kills_its_whole_tree_and_is_removed(parents: list[str]) -> None:
    cgroup = BotCgroup.create(parents, f"arena-bot-test-{os.getpid()}", memory=GIB, processes=16)
    joins = cgroup.open_joins()

    def join() -> None:
        for fd in joins:
            os.write(fd, b"0")

    def sleepers() -> set[int]:
        found = set()
        for pid in cgroup.members():
            with contextlib.suppress(OSError):  # the subshell exits meanwhile
                if Path(f"/proc/{pid}/comm").read_text() == "sleep\n":
                    found.add(pid)
        return found

    paths = list(cgroup.paths)
    try:
        with adopting_orphans():
            script = "sleep 600 & (setsid sleep 600 &); sleep 600"
            tree = subprocess.Popen(["sh", "-c", script], preexec_fn=join)
            for fd in joins:
                os.close(fd)
            wait_until(lambda: len(sleepers()) >= 3, what="three sleepers", interval=0.02)
            asleep = sleepers()
            assert len(asleep) == 3  # the one in a session of its own too
            cgroup.kill()
            tree.wait(60)
            for pid in asleep:
                with contextlib.suppress(ChildProcessError):  # its shell reaped it
                    os.waitpid(pid, 0)
        assert cgroup.members() == set()
    finally:
        cgroup.remove()  # after a failure too: it kills what is left
    assert [path for path in paths if path.exists()] == []


def test_a_file_over_the_size_limit_cannot_be_written() -> None:
    # Through the plain process API: a shell writing 2 MiB under a 1 MiB limit.
    limits = SandboxLimits(file_bytes=MIB, isolate=False)
    script = "head -c 2097152 /dev/zero > big; echo $? >&2; wc -c < big >&2"
    process = SandboxedProcess(["sh", "-c", script], limits=limits, cpu_seconds=5)
    assert process.process.wait(10) == 0
    assert process.process.stderr is not None
    *_, status, size = process.process.stderr.read().decode().split()
    process.close()
    assert status != "0" and int(size) == MIB  # cut at the limit, and the writer failed


def test_a_missing_program_is_a_sandbox_error() -> None:
    with pytest.raises(SandboxError, match="no program"):
        SandboxedProcess(["no-such-program-here"], limits=SandboxLimits(), cpu_seconds=1)


@pytest.mark.skipif(not ISOLATION.filesystem, reason="needs the sandbox's fresh root")
def test_a_runtime_below_the_hosts_tmp_is_visible_in_the_bots_own_tmp(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A checkout (and its virtual environment, the runtime's Python) below /tmp: the
    # bot's own empty /tmp must not hide it.
    folder = Path("/tmp") / f"arena-runtime-{os.getpid()}"
    folder.mkdir(exist_ok=True)
    program = folder / "bot.sh"
    program.write_text("#!/bin/sh\necho started >&2\n")
    program.chmod(0o755)
    runtime = process_module.host_runtime()
    widened = dataclasses.replace(runtime, read_only=(*runtime.read_only, str(folder)))
    monkeypatch.setattr(process_module, "host_runtime", lambda: widened)
    try:
        sandboxed = SandboxedProcess([str(program)], limits=SandboxLimits(), cpu_seconds=5)
        assert sandboxed.process.wait(60) == 0
        assert sandboxed.process.stderr is not None
        assert sandboxed.process.stderr.read().decode().strip() == "started"
        sandboxed.close()
    finally:
        shutil.rmtree(folder)


def test_limits_must_be_positive() -> None:
    with pytest.raises(ValueError, match="move_seconds"):
        SandboxLimits(move_seconds=0)


@pytest.mark.parametrize(
    ("setting", "warm"),
    [(None, True), ("1", True), ("", True), ("0", False), (" Off ", False), ("false", False)],
)
def test_bots_play_warm_unless_the_environment_turns_it_off(
    setting: str | None, warm: bool
) -> None:
    environment = {} if setting is None else {limits_module.WARM_SETTING: setting}
    assert limits_module.warm_by_default(environment) is warm
    assert SandboxLimits().warm


@pytest.mark.parametrize(
    ("code", "text"),
    [
        (0, "exited with status 0"),
        (3, "exited with status 3"),
        (-9, "killed by SIGKILL"),
        (-24, "killed by SIGXCPU (CPU time limit)"),
    ],
)
def test_exit_codes_are_described(code: int, text: str) -> None:
    assert describe_exit(code) == text


def test_isolation_is_described_with_what_is_missing() -> None:
    assert "namespaces: none" in NO_ISOLATION.describe()
    assert "a PID namespace" in NO_ISOLATION.missing()
    assert "fresh root" in ISOLATION.describe() or not ISOLATION.filesystem
    assert os.geteuid() != 0 or ISOLATION.process_limit == ISOLATION.user


@pytest.mark.skipif(not ISOLATION.user, reason="the arena does not run as root here")
def test_what_a_killed_arena_left_goes_when_its_user_id_is_leased_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    limits = SandboxLimits()
    monkeypatch.setattr(uids, "_lease_counter", itertools.count())
    first = SandboxedProcess(["true"], limits=limits, cpu_seconds=1)
    first.close()
    name = f"arena-bot-{first.uid}-left-behind"
    stale = [first.base.parent / name, *(Path(p) / name for p in ISOLATION.cgroups.parents)]
    for directory in stale:
        directory.mkdir()  # a cgroup directory is a cgroup
    monkeypatch.setattr(uids, "_lease_counter", itertools.count())  # the same slot again
    second = SandboxedProcess(["true"], limits=limits, cpu_seconds=1)
    second.close()
    assert second.uid == first.uid
    assert [directory for directory in stale if directory.exists()] == []


ARENA_THAT_DIES = """
import sys
import time
from engines.registry import get_game
from bots.base import GameInfo
from tests.arena.hostile import make_bot, python_source

file, cls, when = sys.argv[1:]
bot = make_bot(python_source(file, cls), move_seconds=60)
game = get_game("koenigsgarten")
state = game.new_initial_state(seed=1)
bot.new_game(GameInfo(game, {}, 0, 2, 1))
if when == "off its turn":
    bot.act(state.observation(0), state.legal_actions(), None)  # answered: frozen
print(bot.process.uid, flush=True)
if when == "on its move":
    bot.act(state.observation(0), state.legal_actions(), None)
time.sleep(600)
"""


@pytest.mark.skipif(not (ISOLATION.user and ISOLATION.pids), reason="needs root and PID namespaces")
@pytest.mark.parametrize(
    "bot",
    [
        ("sleeper.py", "Sleeper", "on its move"),
        # Frozen, 60 processes that SIGKILL alone does not end under a v1 freezer.
        ("busy_children.py", "BusyChildren", "off its turn"),
    ],
    ids=lambda bot: bot[2],
)
def test_the_bots_die_with_an_arena_killed_outright(bot: tuple[str, str, str]) -> None:
    arena = subprocess.Popen(
        [sys.executable, "-c", ARENA_THAT_DIES, *bot],
        cwd=Path(__file__).resolve().parents[2],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert arena.stdout is not None
    uid = int(arena.stdout.readline())
    assert processes_of(uid, zombies=False)  # the bot sleeps on its move, or is frozen
    arena.kill()
    arena.wait()
    wait_until(
        lambda: not processes_of(uid, zombies=False),
        what="the bot's processes outlived the killed arena",
        interval=0.05,
    )
    for parent in ("/dev/shm", "/tmp"):  # what a killed arena leaves (see the test above)
        for left in Path(parent).glob(f"arena-bot-{uid}-*"):
            shutil.rmtree(left)
    sweep(ISOLATION.cgroups.parents, f"arena-bot-{uid}-")


def test_the_sandbox_bench_times_every_fence_and_each_left_out() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["bench", "sandbox", "--starts", "2"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "every fence" in result.output
    assert ("without its cgroup" in result.output) == bool(ISOLATION.cgroups.parents)
    assert ("without the fresh root" in result.output) == ISOLATION.filesystem
    assert ("without the seccomp filter" in result.output) == ISOLATION.syscall_filter
    refused = runner.invoke(app, ["bench", "sandbox", "--starts", "0"])
    assert refused.exit_code == 2 and "--starts must be at least 1" in refused.output


def test_a_pidfd_tells_how_its_process_ended_after_another_reaped_it() -> None:
    ended = subprocess.Popen([sys.executable, "-c", "import os; os._exit(3)"])
    killed = subprocess.Popen(["sleep", "60"])
    pidfds = [os.pidfd_open(ended.pid), os.pidfd_open(killed.pid)]
    try:
        try:
            assert kernel.pidfd_exit_code(pidfds[1]) is None  # it runs
        except OSError:
            pytest.skip("this kernel keeps no exit status for a pidfd (Linux 6.15 and later do)")
        killed.kill()
        assert (ended.wait(), killed.wait()) == (3, -9)  # reaped here: only the pidfd knows
        assert [kernel.pidfd_exit_code(pidfd) for pidfd in pidfds] == [3, -9]
    finally:
        for pidfd in pidfds:
            os.close(pidfd)
        killed.kill()


@pytest.mark.parametrize(
    ("command", "operator"),
    [
        ("python3 bot.py > log", ">"),
        ("python3 bot.py 2>&1", ">&"),
        ("python3 bot.py <in", "<"),
        ("python3 bot.py | tee x", "|"),
        ("python3 bot.py && x", "&&"),
        ("python3 bot.py; x", ";"),
        ("python3 bot.py (x)", "("),
        ('python3 bot.py --x="a|b"', "|"),  # only a whole word quotes
        ("python3 bot.py 'a|b' \"x > y\"", None),
        ("sh -c 'cat</etc/passwd'", None),
        ("python3 bot.py --depth=3", None),
        ("python3 'unclosed", None),
    ],
)
def test_shell_operators_outside_quotes_are_found(command: str, operator: str | None) -> None:
    assert shell_operator(command) == operator


def test_paths_after_shell_operators_inside_a_word_are_named() -> None:
    script = "cat</a/in >/b/out; x|/c/prog & /d/bg 2>&1 (/e)"
    assert list(named_paths(["sh", "-c", script])) == ["/a/in", "/b/out", "/c/prog", "/d/bg", "/e"]
    assert list(named_paths(["/usr/bin/python3", "--lib=/x/y", "/a/b.py:Bot", "a>b"])) == [
        "/usr/bin/python3",
        "/x/y",
        "/a/b.py",
    ]


def test_an_archive_command_may_quote_shell_syntax_for_its_program() -> None:
    files = {"main.py": "", "lib/x.py": ""}
    check_archive_command("python3 {code}/main.py 'a|b' \"x > y\"", files)
    check_archive_command("sh -c 'cd {code}/lib && python3 x.py 2>&1' {code}", files)
    with pytest.raises(UnsafeCommand, match="'cat</etc/passwd' names a path outside"):
        check_archive_command("sh -c 'cat</etc/passwd' {code}", files)
