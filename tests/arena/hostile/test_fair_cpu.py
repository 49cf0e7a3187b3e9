"""Fair CPU (issue 28): a bot's processes get no CPU while it is not its turn, however
many it starts, so a bot that answers at once but leaves 60 processes spinning cannot
make a fair opponent forfeit on time; and a frozen bot is killed as cleanly as any.

CPU is counted, not timed: the kernel's count of what the bot's processes used while
the other bot was thinking."""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from arena.play.runner import TimeControl, play_game
from arena.players.sandbox import detect_isolation
from arena.players.sandbox import process as sandbox_process
from arena.players.sandbox.cgroups import CgroupSupport, Enforced, candidates, sweep
from arena.players.subprocess_bot import SubprocessBot
from bots.base import GameInfo
from engines.core import Action
from engines.registry import get_game
from tests.arena.hostile import close_after_its_game, make_bot, processes_of, python_source
from tests.waiting import wait_until

ISOLATION = detect_isolation()
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
HOSTILE = python_source("busy_children.py", "BusyChildren")
FAIR = python_source("steady_thinker.py", "SteadyThinker")
GENEROUS = TimeControl(per_move=2.0)
"""20 times the 0.1 s of CPU the fair bot thinks a move: enough on a loaded machine,
not when 60 other processes share the cores with it."""
SLOW_START = 60.0
"""The hostile bot's move limit: forking 60 processes takes seconds when each new one
spins on the single core its cgroup may use."""
OFF_TURN_SLACK = 0.05
"""CPU seconds a frozen bot's processes may still be charged in a game: a freeze lands
within microseconds (60 processes left running would use seconds)."""

QUOTA_SLACK = 0.25
"""CPU seconds beyond one core that a move may show: the quota is enforced per period
(100 ms), and the count is read in clock ticks."""

needs_freezer = pytest.mark.skipif(
    not (ISOLATION.user and ISOLATION.cgroups.enforced.freeze),
    reason="needs a user id of the bot's own and a cgroup freezer",
)


def cpu_of_user(uid: int) -> float:
    """CPU seconds the live processes of ``uid`` have used (from /proc: independent of
    the cgroup the arena made)."""
    used = 0
    for pid in processes_of(uid, zombies=False):
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rpartition(")")[2].split()
        except OSError:
            continue
        used += int(fields[11]) + int(fields[12])  # utime, stime
    return used / CLOCK_TICKS


class OffTurnMeter:
    """The CPU ``watched``'s processes use while ``mover`` is asked for its moves (its
    ``act`` patched to count, whether it answers or fails)."""

    def __init__(
        self, watched: SubprocessBot, mover: SubprocessBot, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        self.watched = watched
        self.off_turn = 0.0
        self.moves = 0
        act = mover.act

        def counted(
            observation: Mapping[str, Any], legal_actions: Sequence[Action], time_left: float | None
        ) -> Action:
            before = self.used()
            try:
                return act(observation, legal_actions, time_left)
            finally:
                after = self.used()
                if before is not None and after is not None:
                    self.off_turn += after - before
                    self.moves += 1

        monkeypatch.setattr(mover, "act", counted)

    def used(self) -> float | None:
        sandbox = self.watched.process
        return cpu_of_user(sandbox.uid) if sandbox is not None else None


def assert_nothing_left(bot: SubprocessBot) -> None:
    close_after_its_game(bot)
    sandbox = bot.last_process
    assert sandbox is not None and bot.process is None
    assert processes_of(sandbox.uid) == []
    cgroups = [Path(parent) / sandbox.base.name for parent in sandbox.isolation.cgroups.parents]
    assert [path for path in cgroups if path.exists()] == []


@pytest.mark.slow
@needs_freezer
def test_processes_left_spinning_get_no_cpu_off_turn_and_a_fair_opponent_keeps_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = get_game("koenigsgarten")
    for seed in range(3):  # the hostile bot moves first: its processes spin from then on
        hostile = make_bot(HOSTILE, move_seconds=SLOW_START)
        fair = make_bot(FAIR, time_control=GENEROUS)
        meter = OffTurnMeter(hostile, fair, monkeypatch)
        record = play_game(
            game.new_initial_state(seed=seed),
            [hostile, fair],
            time_control=[TimeControl(), GENEROUS],
        )
        assert record.outcome.get("offender") is None, record.outcome
        assert meter.moves >= 2
        assert meter.off_turn < OFF_TURN_SLACK, (seed, meter.off_turn)
        assert_nothing_left(hostile)
        assert_nothing_left(fair)


def wait_until_frozen(bot: SubprocessBot) -> None:
    assert bot.process is not None and bot.process.cgroup is not None
    wait_until(bot.process.cgroup.frozen, what="the freeze landing", interval=0.01)


def started_and_frozen(bot: SubprocessBot) -> None:
    """Start ``bot`` (the hostile one), let it make its first move (its processes
    start) and wait until it is frozen."""
    game = get_game("koenigsgarten")
    state = game.new_initial_state(seed=1)
    options = game.options_to_dict(state.options)
    bot.new_game(GameInfo.of(game, options, state.current_seat, state.num_seats, 1))
    bot.act(state.observation(state.current_seat), state.legal_actions(), None)
    wait_until_frozen(bot)


def cgroup_support(version: int) -> CgroupSupport:
    """Bot cgroups of cgroup ``version`` only (skips when this machine has none)."""
    parents, _ = candidates()[version]
    if not parents:
        pytest.skip(f"no cgroup v{version} hierarchy here")
    return CgroupSupport(version, tuple(parents), Enforced())


@pytest.fixture(params=[1, 2], ids=["cgroup-v1", "cgroup-v2"])
def one_cgroup_version(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    """Bots get cgroups of one version, each in turn (skipped where there is none)."""
    isolation = dataclasses.replace(ISOLATION, cgroups=cgroup_support(request.param))
    monkeypatch.setattr(sandbox_process, "detect_isolation", lambda: isolation)
    return int(request.param)


@needs_freezer
@pytest.mark.usefixtures("one_cgroup_version")
def test_a_frozen_bot_uses_no_cpu_until_asked_and_is_killed_leaving_nothing() -> None:
    bot = make_bot(HOSTILE, move_seconds=SLOW_START)
    try:
        started_and_frozen(bot)
        assert bot.process is not None and bot.process.cgroup is not None
        cgroup = bot.process.cgroup
        assert len(processes_of(bot.process.uid, zombies=False)) > 50
        used = cgroup.cpu_seconds()
        assert used is not None
        time.sleep(0.5)  # 60 spinning processes would use about a second of CPU
        assert cgroup.cpu_seconds() == used
        assert cgroup.frozen()
    finally:
        bot.close()  # killed while frozen
    assert_nothing_left(bot)


@needs_freezer
@pytest.mark.usefixtures("one_cgroup_version")
def test_a_bot_never_frozen_for_a_measurement_is_frozen_again_after_it() -> None:
    """``arena bench protocol`` times moves with freezing off, to show what it costs."""
    bot = make_bot(python_source("first_legal.py", "FirstLegal"))
    game = get_game("koenigsgarten")
    state = game.new_initial_state(seed=1)
    observation, legal = state.observation(state.current_seat), state.legal_actions()
    try:
        started_and_frozen(bot)
        assert bot.process is not None and bot.process.cgroup is not None
        cgroup = bot.process.cgroup
        with cgroup.never_frozen():
            assert bot.act(observation, legal, None) == legal[0]
            assert not cgroup.frozen()
        wait_until_frozen(bot)
        assert bot.act(observation, legal, None) == legal[0]
        wait_until_frozen(bot)
    finally:
        bot.close()
    assert_nothing_left(bot)


@pytest.mark.slow
@needs_freezer
def test_a_frozen_bot_is_killed_when_its_opponent_times_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hostile = make_bot(HOSTILE, move_seconds=SLOW_START)
    looping = make_bot(python_source("endless_loop.py", "EndlessLoop"), move_seconds=2.0)
    meter = OffTurnMeter(hostile, looping, monkeypatch)
    record = play_game(get_game("koenigsgarten").new_initial_state(seed=1), [hostile, looping])
    assert (record.outcome["offender"], record.outcome["reason"]) == (1, "timeout")
    assert meter.moves == 1 and meter.off_turn < OFF_TURN_SLACK, meter.off_turn
    assert_nothing_left(hostile)
    assert_nothing_left(looping)


@pytest.mark.skipif(
    not (ISOLATION.user and ISOLATION.cgroups.enforced.cpu),
    reason="needs a user id of the bot's own and the cgroup cpu controller",
)
def test_on_its_turn_a_bot_gets_at_most_a_core_however_many_processes_think() -> None:
    """Four processes spinning through a move (about 2 cores' worth on this 2-core
    machine without the cgroup's quota) are held to one core together: the CPU they
    used is at most the move's wall time, and a little for the quota's period."""
    bot = make_bot(python_source("wide_thinker.py", "WideThinker"), move_seconds=SLOW_START)
    game = get_game("koenigsgarten")
    state = game.new_initial_state(seed=1)
    options = game.options_to_dict(state.options)
    try:
        bot.new_game(GameInfo.of(game, options, state.current_seat, state.num_seats, 1))
        assert bot.process is not None
        uid = bot.process.uid
        used_before = cpu_of_user(uid)
        began = time.monotonic()
        bot.act(state.observation(state.current_seat), state.legal_actions(), None)
        wall = time.monotonic() - began
        used = cpu_of_user(uid) - used_before  # its children still live (frozen)
        assert len(processes_of(uid, zombies=False)) >= 4
    finally:
        bot.close()
    assert used <= wall + QUOTA_SLACK, (used, wall)
    assert_nothing_left(bot)


@needs_freezer
def test_a_frozen_bot_whose_supervisor_was_killed_is_swept_whole() -> None:
    """A bot frozen off its turn whose supervisor is SIGKILLed (a worker killed with
    every process of its machine) keeps its pending SIGKILL until thawed. The sweep that
    a later lease of its user id makes takes its cgroup in every hierarchy together: it
    thaws it through the freezer's, so the bot dies and no directory is left (taken one
    hierarchy at a time, the others waited out their removal time and stayed)."""
    bot = make_bot(HOSTILE, move_seconds=SLOW_START)
    try:
        started_and_frozen(bot)
        sandbox = bot.process
        assert sandbox is not None and sandbox.cgroup is not None
        sandbox.process.kill()  # the supervisor, outright
        sandbox.process.wait()
        assert processes_of(sandbox.uid, zombies=False)  # frozen: alive with SIGKILL pending
        parents = sandbox.isolation.cgroups.parents
        name = sandbox.base.name
        sweep(parents, name)
        # Its process 1 has left its cgroup and ends once the kernel has taken the
        # rest of its PID namespace (a warm sandbox's warden too): a moment, not more.
        wait_until(
            lambda: processes_of(sandbox.uid, zombies=False) == [],
            what="the swept bot's processes to end",
        )
        assert [parent for parent in parents if (Path(parent) / name).exists()] == []
    finally:
        bot.close()
