"""A cgroup per bot: memory, process count and CPU held for its whole process tree.

Each bot gets a cgroup of its own (:class:`BotCgroup`), made before it starts and
removed when its game ends; everything it starts stays inside (it has no
capabilities, and its cgroup namespace makes its cgroup look like the root).

* **cgroup v2** (one unified hierarchy) when it offers the ``memory`` and ``pids``
  controllers to the arena's cgroup: ``memory.max``, ``memory.swap.max`` = 0 (no swap
  beyond the limit), ``memory.oom.group`` (the whole bot goes when it runs out),
  ``pids.max``, and ``cgroup.kill`` to kill the tree in one write. A cgroup that holds
  processes cannot hand controllers to children (the "no internal processes" rule),
  so when the arena is the only process of its cgroup it moves into a leaf
  ``arena-host`` below it and enables the controllers there; otherwise v2 needs a
  delegated cgroup (``systemd-run --scope -p Delegate=yes arena serve``).
* **cgroup v1** otherwise, with its separate ``memory`` and ``pids`` hierarchies:
  ``memory.limit_in_bytes``, ``memory.memsw.limit_in_bytes`` (memory plus swap) where
  swap accounting is on, ``pids.max``; the tree is killed process by process.

Both versions also hold the bot's CPU (where the hierarchies offer it): all its processes
together get one share of the cores however many it starts (v2 ``cpu.weight``, v1
``cpu.shares``: the default weight, as one entity beside the host's processes and the
other bots), and at most one core's worth (``cpu.max``, ``cpu.cfs_quota_us``), so that a
move's time means the same whatever runs beside it. The bot is frozen while it is not its
turn (v2 ``cgroup.freeze``, present in every non-root v2 cgroup; v1 ``freezer.state``):
:meth:`BotCgroup.freeze` and :meth:`BotCgroup.thaw` are one write each to a file kept
open. Its CPU time as the kernel counts it is :meth:`BotCgroup.cpu_seconds` (v2
``cpu.stat``, v1 ``cpuacct.usage``).

What a machine offers is found out once per process by :func:`detect_cgroups`, which
makes (and removes) a probe cgroup with the same code a bot's goes through.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import signal
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

BOT_PREFIX = "arena-bot-"
HOST_LEAF = "arena-host"
WANTED = ("memory", "pids")
"""The controllers that decide between v2 and v1 (and whether there are cgroups at all)."""
V2_OPTIONAL = ("cpu",)
V1_CONTROLLERS = (*WANTED, "cpu", "cpuacct", "freezer")
FREEZERS = (("cgroup.freeze", b"1", b"0"), ("freezer.state", b"FROZEN", b"THAWED"))
"""Per version: the file that freezes a cgroup, and what to write to freeze and thaw it."""
FREEZER_KEEPER = "arena-freezer-on"
"""An empty v1 freezer cgroup kept frozen: while one is, the kernel's freezer stays on,
and a bot's freeze or thaw is one cheap write (about 4 µs) instead of switching it on and
off for the whole machine (about 190 µs a move, measured on Linux 6.18)."""
CFS_PERIOD_US = 100_000
REMOVE_SECONDS = 5.0


@dataclass(frozen=True)
class Enforced:
    """Which limits a bot's cgroup holds for its whole process tree."""

    memory: bool = False
    swap: bool = False
    """Swap counts against the memory limit (or the bot gets none)."""
    pids: bool = False
    kill: bool = False
    """The kernel kills the whole tree at once (``cgroup.kill``)."""
    cpu: bool = False
    """Its processes share one CPU weight, at most one core (the cpu controller)."""
    freeze: bool = False
    """It can be frozen while it is not its turn (``cgroup.freeze`` or ``freezer.state``)."""


@dataclass(frozen=True)
class CgroupSupport:
    """Where this machine lets the arena make bot cgroups, and what they enforce."""

    version: int
    """2 or 1; 0 when there are none."""
    parents: tuple[str, ...]
    """The directories bot cgroups are made in: one for v2, one per controller for v1."""
    enforced: Enforced
    note: str = ""
    """Why there is less than memory and process limits, when there is."""

    def describe(self) -> str:
        if not (self.enforced.memory or self.enforced.pids):
            return f"no cgroup limits ({self.note})" if self.note else "no cgroup limits"
        held = []
        if self.enforced.memory:
            held.append("memory" + (" and swap" if self.enforced.swap else ""))
        if self.enforced.pids:
            held.append("process count")
        if self.enforced.cpu:
            held.append("one CPU share of at most a core")
        described = f"cgroup v{self.version}: {', '.join(held)} for the whole bot"
        if self.enforced.freeze:
            described += ", frozen while it is not its turn"
        return described


NO_CGROUPS = CgroupSupport(0, (), Enforced(), "the sandbox's isolation is off")


class BotCgroup:
    """One bot's cgroup: a directory in each parent (v1 has one per controller)."""

    def __init__(self, paths: Sequence[Path], enforced: Enforced = Enforced()) -> None:
        self.paths = list(paths)
        self.enforced = enforced
        self._freezer: tuple[int, bytes, bytes] | None = None
        """The open freezing file, and what freezes and what thaws."""

    @classmethod
    def create(cls, parents: Sequence[str], name: str, *, memory: int, processes: int) -> BotCgroup:
        """A new cgroup ``name`` in each of ``parents``, limited to ``memory`` bytes and
        ``processes`` processes (where the hierarchies offer those controllers).

        Raises:
            OSError: a directory or limit cannot be made (what was made is removed).
        """
        cgroup = cls([])
        try:
            for parent in parents:
                path = Path(parent) / name
                path.mkdir(mode=0o755)
                cgroup.paths.append(path)
            cgroup.enforced = cgroup._limit(memory, processes)
            cgroup._open_freezer()
        except OSError:
            cgroup.remove()
            raise
        return cgroup

    def _limit(self, memory: int, processes: int) -> Enforced:
        # v1 takes memory+swap as one limit that must not be below the memory limit,
        # so the memory limit goes first.
        held = self._write("memory.max", memory) or self._write("memory.limit_in_bytes", memory)
        swap = held and (
            self._write("memory.swap.max", 0) or self._write("memory.memsw.limit_in_bytes", memory)
        )
        if held:
            self._write("memory.oom.group", 1)
        return Enforced(
            memory=held,
            swap=swap,
            pids=self._write("pids.max", processes),
            kill=self._find("cgroup.kill") is not None,
            cpu=self._one_core(),
            freeze=any(self._find(name) is not None for name, _, _ in FREEZERS),
        )

    def _one_core(self) -> bool:
        """Its own cgroup under the cpu controller makes all its processes one entity of
        the default weight; a quota of one period per period caps them at one core.
        False when no hierarchy has the controller."""
        if self._find("cpu.weight") is None and self._find("cpu.shares") is None:
            return False
        # A parent allowed less than a core refuses a larger quota (v1): its own holds.
        with contextlib.suppress(OSError):
            if not self._write("cpu.max", f"{CFS_PERIOD_US} {CFS_PERIOD_US}"):
                period = self._find("cpu.cfs_period_us")
                quota = int(period.read_text()) if period is not None else CFS_PERIOD_US
                self._write("cpu.cfs_quota_us", quota)
        return True

    def _open_freezer(self) -> None:
        for name, frozen, thawed in FREEZERS:
            target = self._find(name)
            if target is not None:
                self._freezer = (os.open(target, os.O_WRONLY | os.O_CLOEXEC), frozen, thawed)
                return

    def _find(self, name: str) -> Path | None:
        return next((path / name for path in self.paths if (path / name).exists()), None)

    def _write(self, name: str, value: int | str) -> bool:
        """Write ``value`` to the interface file ``name``; False when no directory has it."""
        target = self._find(name)
        if target is None:
            return False
        target.write_text(str(value))
        return True

    def open_joins(self) -> list[int]:
        """File descriptors of its ``cgroup.procs`` files: a process writing ``0`` to each
        moves itself in (opened here so that the child resolves no paths)."""
        return [os.open(path / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC) for path in self.paths]

    def freeze(self) -> None:
        """Stop its processes where they are, until :meth:`thaw`; without waiting for
        them to be stopped (a no-op where there is no freezer).

        Raises:
            OSError: the kernel refused.
        """
        if self._freezer is not None:
            os.write(self._freezer[0], self._freezer[1])

    def thaw(self) -> None:
        """Let its processes run again (a no-op where there is no freezer).

        Raises:
            OSError: the kernel refused.
        """
        if self._freezer is not None:
            os.write(self._freezer[0], self._freezer[2])

    @contextlib.contextmanager
    def never_frozen(self) -> Iterator[None]:
        """Thawed, :meth:`freeze` and :meth:`thaw` doing nothing, for the block: what
        freezing costs a move, measured (``arena bench protocol``). Frozen again after.

        Raises:
            OSError: the kernel refused.
        """
        freezer, self._freezer = self._freezer, None
        if freezer is None:
            yield
            return
        os.write(freezer[0], freezer[2])
        try:
            yield
        finally:
            self._freezer = freezer
            self.freeze()

    def thawing(self) -> tuple[int, bytes] | None:
        """Its open freezer file and what thaws it (for a process that must thaw it
        without resolving paths); None where there is no freezer."""
        return (self._freezer[0], self._freezer[2]) if self._freezer else None

    def frozen(self) -> bool:
        """Whether every process of it is stopped (a freeze has landed)."""
        events = self._find("cgroup.events")
        if events is not None:
            return "frozen 1" in events.read_text()
        state = self._find("freezer.state")
        return state is not None and state.read_text().strip() == "FROZEN"

    def cpu_seconds(self) -> float | None:
        """The CPU time its processes have used, as the kernel counts it; None when
        no hierarchy counts it.

        Raises:
            OSError: the count cannot be read.
        """
        stat = self._find("cpu.stat")
        if stat is not None:
            for line in stat.read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "usage_usec":
                    return int(value) / 1e6
        usage = self._find("cpuacct.usage")
        return int(usage.read_text()) / 1e9 if usage is not None else None

    def members(self) -> set[int]:
        """PIDs of its processes (as this process's PID namespace numbers them). Every
        process joins all its hierarchies at once and cannot leave them, so the first
        one that is there says it."""
        for directory in self.paths:
            path = f"{directory}/cgroup.procs"
            try:
                fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            except FileNotFoundError:
                continue
            try:
                chunks = []
                while chunk := os.read(fd, 65536):
                    chunks.append(chunk)
            finally:
                os.close(fd)
            return {int(pid) for pid in b"".join(chunks).split()}
        return set()

    def oom_kills(self) -> int:
        """How many of its processes the kernel killed for reaching its memory limit."""
        for name in ("memory.events", "memory.oom_control"):
            target = self._find(name)
            if target is not None:
                with contextlib.suppress(OSError):
                    for line in target.read_text().splitlines():
                        key, _, value = line.partition(" ")
                        if key == "oom_kill":
                            return int(value)
        return 0

    def kill(self) -> None:
        """SIGKILL every process in it (those that left the bot's process group too)."""
        switch = self._find("cgroup.kill")
        if switch is not None:
            with contextlib.suppress(OSError):
                switch.write_text("1")
            self.thaw_to_die()
            return
        for _ in range(100):  # a process may fork while the others are being killed
            members = self.members()
            if not members:
                return
            for pid in members:
                _kill_member(pid, self)
            self.thaw_to_die()

    def thaw_to_die(self) -> None:
        """Thaw it after its processes were sent SIGKILL: a process frozen by the v1
        freezer dies only once it runs again (never raises)."""
        with contextlib.suppress(OSError):
            if self._freezer is not None:
                self.thaw()
                return
            for name, _, thawed in FREEZERS:  # one left by an arena killed outright
                target = self._find(name)
                if target is not None:
                    target.write_bytes(thawed)

    def remove(self) -> None:
        """Remove its directories once its processes are gone (killing stragglers);
        one that stays busy past ``REMOVE_SECONDS`` is left for :func:`sweep`."""
        if self._freezer is not None:
            os.close(self._freezer[0])
            self._freezer = None
        deadline = time.monotonic() + REMOVE_SECONDS
        for path in reversed(self.paths):
            while True:
                try:
                    path.rmdir()
                except FileNotFoundError:
                    break
                except OSError as exc:
                    if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                        break
                    self.kill()
                    time.sleep(0.01)
                    continue
                break
        self.paths = []


def _kill_member(pid: int, cgroup: BotCgroup) -> None:
    # A pidfd pins the process: checked to be a member after it was opened, the
    # signal cannot reach another process that got a recycled PID meanwhile.
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        return
    try:
        if pid in cgroup.members():
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
    except OSError:
        pass
    finally:
        os.close(pidfd)


def sweep(parents: Sequence[str], prefix: str) -> None:
    """Remove cgroups named ``prefix…`` that an arena killed outright left behind.

    Each is taken whole, its directory in every hierarchy together: a bot frozen by the
    v1 freezer dies only once thawed, and the freezer is another hierarchy than the
    memory's or the pids' (taken one by one, each of those waited out its removal time
    for processes that could not die)."""
    names = {path.name for parent in parents for path in Path(parent).glob(f"{prefix}*")}
    for name in sorted(names):
        stale = BotCgroup(
            [Path(parent) / name for parent in parents if (Path(parent) / name).is_dir()]
        )
        stale.kill()
        stale.remove()


# -- finding out what this machine offers ----------------------------------------------


@dataclass(frozen=True)
class _Mount:
    fstype: str
    point: str
    root: str
    options: frozenset[str]


def _cgroup_mounts() -> list[_Mount]:
    mounts = []
    with open("/proc/self/mountinfo", encoding="utf-8") as info:
        for line in info:
            before, _, after = line.partition(" - ")
            fields, tail = before.split(), after.split()
            if len(fields) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
                continue
            point, root = (_unescape(item) for item in (fields[4], fields[3]))
            mounts.append(_Mount(tail[0], point, root, frozenset(tail[2].split(","))))
    return mounts


def _unescape(text: str) -> str:
    """mountinfo writes spaces and the like as octal escapes (``\\040``)."""
    return text.encode().decode("unicode_escape") if "\\" in text else text


def _own_cgroups() -> dict[str, str]:
    """This process's cgroup per controller ("" for the v2 hierarchy)."""
    own = {}
    with open("/proc/self/cgroup", encoding="utf-8") as lines:
        for line in lines:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                own[controller] = path
    return own


def _directory(mount: _Mount, path: str) -> str | None:
    """Where ``path`` of the hierarchy mounted as ``mount`` is, or None when it lies
    outside what is mounted there."""
    if mount.root != "/" and not (path == mount.root or path.startswith(mount.root + "/")):
        return None
    inside = path[len(mount.root.rstrip("/")) :].lstrip("/")
    return os.path.normpath(os.path.join(mount.point, inside))


def _words(path: Path) -> set[str]:
    try:
        return set(path.read_text().split())
    except OSError:
        return set()


def _v2_parent(mounts: list[_Mount], own: dict[str, str]) -> tuple[str | None, str]:
    """The cgroup v2 directory for bot cgroups, or None and why not."""
    unified = next((m for m in mounts if m.fstype == "cgroup2"), None)
    if unified is None or "" not in own:
        return None, "no cgroup v2 hierarchy"
    directory = _directory(unified, own[""])
    if directory is None:
        return None, "the arena's cgroup v2 is not mounted"
    here = Path(directory)
    wanted = set(WANTED) & _words(here / "cgroup.controllers")
    if not wanted:
        return str(here), f"cgroup v2 at {unified.point} offers no memory or pids controller"
    parent: str | None
    if wanted <= _words(here / "cgroup.subtree_control"):
        parent, note = str(here), ""
    elif not (here / "cgroup.type").exists():  # the real root, where processes may stay
        parent, note = _enable(here, wanted)
    elif here.name == HOST_LEAF and wanted <= _words(here.parent / "cgroup.subtree_control"):
        parent, note = str(here.parent), ""
    else:
        parent, note = _delegate(here, wanted)
    if parent is not None:
        _enable_optional(Path(parent))
    return parent, note


def _enable_optional(parent: Path) -> None:
    """Hand the controllers of :data:`V2_OPTIONAL` to the children of ``parent`` where
    it has them (the cpu controller, for one: it refuses while a real-time process
    sits in a cgroup outside the root)."""
    offered = _words(parent / "cgroup.controllers") - _words(parent / "cgroup.subtree_control")
    for controller in set(V2_OPTIONAL) & offered:
        with contextlib.suppress(OSError):
            (parent / "cgroup.subtree_control").write_text(f"+{controller}")


def _delegate(here: Path, wanted: set[str]) -> tuple[str | None, str]:
    """Move this process into a leaf below its cgroup and hand ``wanted`` to that
    cgroup's children; possible only when no other process is in it."""
    others = _words(here / "cgroup.procs") - {str(os.getpid())}
    if others:
        return None, (
            f"the arena's cgroup {str(here)!r} holds other processes, so it cannot give "
            "bots cgroups of their own: start the arena in a cgroup of its own with the "
            "memory and pids controllers delegated (systemd-run --scope -p Delegate=yes …)"
        )
    leaf = here / HOST_LEAF
    try:
        leaf.mkdir(exist_ok=True)
        (leaf / "cgroup.procs").write_text(str(os.getpid()))
    except OSError as exc:
        return None, f"cannot move the arena into {str(leaf)!r}: {exc.strerror}"
    parent, note = _enable(here, wanted)
    if parent is None:
        with contextlib.suppress(OSError):
            (here / "cgroup.procs").write_text(str(os.getpid()))
    return parent, note


def _enable(here: Path, wanted: set[str]) -> tuple[str | None, str]:
    """Hand the controllers ``wanted`` to the children of ``here``."""
    try:
        (here / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in sorted(wanted)))
    except OSError as exc:
        return None, f"cannot delegate cgroup v2 controllers in {str(here)!r}: {exc.strerror}"
    return str(here), ""


def _v1_parents(mounts: list[_Mount], own: dict[str, str]) -> tuple[list[str], str]:
    parents: list[str] = []
    wanted = False
    for controller in V1_CONTROLLERS:
        mount = next((m for m in mounts if m.fstype == "cgroup" and controller in m.options), None)
        directory = _directory(mount, own.get(controller, "/")) if mount else None
        if directory is None:
            continue
        wanted = wanted or controller in WANTED
        if directory not in parents:  # cpu and cpuacct often share a mount
            parents.append(directory)
    return (parents, "") if wanted else ([], "no cgroup v1 memory or pids hierarchy")


def _keep_freezer_on(probe: BotCgroup) -> None:
    """Keep :data:`FREEZER_KEEPER` frozen beside a v1 bot cgroup (a no-op for v2)."""
    state = probe._find("freezer.state")
    if state is None:
        return
    keeper = state.parent.parent / FREEZER_KEEPER
    with contextlib.suppress(OSError):
        keeper.mkdir(mode=0o755, exist_ok=True)
        (keeper / "freezer.state").write_text("FROZEN")


def _probe(version: int, parents: Sequence[str], note: str) -> CgroupSupport:
    """Make a probe cgroup with small limits and remove it: what a bot's would hold."""
    if not parents:
        return CgroupSupport(version, (), Enforced(), note)
    try:
        probe = BotCgroup.create(
            parents, f"arena-probe-{os.getpid()}", memory=64 * 2**20, processes=8
        )
    except OSError as exc:
        return CgroupSupport(version, (), Enforced(), f"cgroup v{version}: {exc}")
    _keep_freezer_on(probe)
    probe.remove()
    return CgroupSupport(version, tuple(parents), probe.enforced, note)


def candidates() -> dict[int, tuple[list[str], str]]:
    """Where bot cgroups can be made, per cgroup version: the parent directories (none
    when that version is not usable here) and a note on what is missing.

    Raises:
        OSError: this process's cgroups or mounts cannot be read.
    """
    mounts, own = _cgroup_mounts(), _own_cgroups()
    v2_parent, v2_note = _v2_parent(mounts, own)
    return {2: ([v2_parent] if v2_parent else [], v2_note), 1: _v1_parents(mounts, own)}


@functools.cache
def detect_cgroups() -> CgroupSupport:
    """The best cgroup support this machine gives the arena: the version that holds
    more of memory and process count for a whole bot (v2 on a tie), probed once."""
    try:
        found = candidates()
    except OSError as exc:
        return CgroupSupport(0, (), Enforced(), f"cannot read this process's cgroups: {exc}")
    v2, v1 = (_probe(version, *found[version]) for version in (2, 1))

    def strength(support: CgroupSupport) -> tuple[int, bool]:
        return support.enforced.memory + support.enforced.pids, support.version == 2

    best = max(v2, v1, key=strength)
    if not (best.enforced.memory or best.enforced.pids):
        notes = "; ".join(n for n in (v2.note, v1.note) if n)
        return CgroupSupport(0, (), Enforced(), notes or "no usable cgroup controllers")
    return best
