"""The bot's fresh root: the runtime read-only, its own files, nothing else of the host.

:func:`enter_fresh_root` runs in the bot's child process, as root, in a mount
namespace of its own, before it drops its privileges. It mounts a small tmpfs as the
new root and puts into it:

* the runtime (:func:`arena.players.sandbox.runtime.host_runtime`), bound read-only, nosuid
  and nodev, at the same paths, submounts included;
* ``/etc/passwd``, ``/etc/group`` and ``/etc/hosts`` written for this bot;
* ``/dev`` with ``null``, ``zero``, ``full``, ``random``, ``urandom`` (bound from the
  host), ``fd``, ``stdin``, ``stdout``, ``stderr`` and a fresh ``/dev/shm``;
* a fresh ``/proc`` (its PID namespace's) and fresh, size-capped ``/tmp``
  (``/var/tmp`` links to it);
* ``/bot/code``: its code, bound read-only; ``/bot/work``: its working directory, a
  tmpfs only its user may enter.

Then ``pivot_root`` makes it the root, the host's old root is detached, and the new
root is made read-only: a bot can write only to its working directory, ``/tmp`` and
``/dev/shm``, all of which vanish with its mount namespace when it ends.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from arena.players.sandbox import kernel
from arena.players.sandbox.runtime import CODE_DIR, WORK_DIR, Runtime

DEVICES = ("null", "zero", "full", "random", "urandom")
DEVICE_LINKS = (
    ("fd", "/proc/self/fd"),
    ("stdin", "/proc/self/fd/0"),
    ("stdout", "/proc/self/fd/1"),
    ("stderr", "/proc/self/fd/2"),
)
ROOT_OPTIONS = "mode=0755,size=1m"
PROC_OPTIONS = "hidepid=2"
READ_ONLY = kernel.MOUNT_ATTR_RDONLY | kernel.MOUNT_ATTR_NOSUID | kernel.MOUNT_ATTR_NODEV
FRESH = kernel.MS_NOSUID | kernel.MS_NODEV


@dataclass(frozen=True)
class RootPlan:
    """Everything :func:`enter_fresh_root` needs, computed before the fork."""

    mount_point: str
    """An empty host directory the new root is mounted on (in the bot's namespace only)."""
    runtime: Runtime
    code: str | None
    """The host directory holding the bot's files, shown as ``/bot/code``."""
    etc_files: tuple[tuple[str, str], ...]
    """Files written into the new ``/etc``: (name, text)."""
    scratch_options: str
    """tmpfs options of ``/tmp`` and ``/dev/shm``."""
    work_options: str
    """tmpfs options of the working directory (its owner, its size)."""


def bot_etc_files(uid: int) -> tuple[tuple[str, str], ...]:
    """``passwd``, ``group`` and ``hosts`` for a bot running as ``uid``: programs that
    look up their user or ``localhost`` find them, and learn nothing of the host."""
    return (
        ("passwd", f"root:x:0:0::/:/usr/sbin/nologin\nbot:x:{uid}:{uid}::{WORK_DIR}:/bin/sh\n"),
        ("group", f"root:x:0:\nbot:x:{uid}:\n"),
        ("hosts", "127.0.0.1 localhost\n::1 localhost\n"),
    )


def enter_fresh_root(plan: RootPlan) -> None:
    """Build the new root and switch to it (see the module's description); the
    working directory ends as ``/bot/work``.

    Raises:
        OSError: the kernel refused a step (the child cannot start the bot).
    """
    os.umask(0o022)
    kernel.mount(None, "/", None, kernel.MS_REC | kernel.MS_PRIVATE, "")
    root = plan.mount_point
    kernel.mount("tmpfs", root, "tmpfs", FRESH, ROOT_OPTIONS)
    # The scratch /tmp first: a runtime below the host's /tmp (a checkout's virtual
    # environment there) is then bound inside it, visible, instead of hidden under it.
    os.mkdir(f"{root}/tmp")
    kernel.mount("tmpfs", f"{root}/tmp", "tmpfs", FRESH, plan.scratch_options)
    for path, target in plan.runtime.links:
        os.symlink(target, root + path)
    for path in plan.runtime.read_only:
        _bind(path, root + path, READ_ONLY)
    for name, text in plan.etc_files:
        os.makedirs(f"{root}/etc", exist_ok=True)
        with open(f"{root}/etc/{name}", "w", encoding="utf-8") as file:
            file.write(text)
    _make_dev(root, plan.scratch_options)
    os.mkdir(f"{root}/proc")
    # hidepid=2: the bot sees only its own user's processes (not a warm sandbox's
    # warden, which is root's: arena/players/sandbox/warden.py).
    kernel.mount("proc", f"{root}/proc", "proc", FRESH | kernel.MS_NOEXEC, PROC_OPTIONS)
    os.makedirs(f"{root}/var", exist_ok=True)
    if not os.path.lexists(f"{root}/var/tmp"):
        os.symlink("/tmp", f"{root}/var/tmp")
    os.makedirs(root + WORK_DIR)
    kernel.mount("tmpfs", root + WORK_DIR, "tmpfs", FRESH, plan.work_options)
    if plan.code is not None:
        _bind(plan.code, root + CODE_DIR, READ_ONLY)
    _switch_root(root)
    os.chdir(WORK_DIR)


def _make_dev(root: str, scratch_options: str) -> None:
    os.mkdir(f"{root}/dev")
    for device in DEVICES:
        if os.path.exists(f"/dev/{device}"):
            # Device nodes work only on a mount without nodev: theirs, bound as they are.
            _bind(f"/dev/{device}", f"{root}/dev/{device}", kernel.MOUNT_ATTR_NOSUID)
    for name, target in DEVICE_LINKS:
        os.symlink(target, f"{root}/dev/{name}")
    os.mkdir(f"{root}/dev/shm")
    kernel.mount("tmpfs", f"{root}/dev/shm", "tmpfs", FRESH, scratch_options)


def _bind(source: str, target: str, attributes: int) -> None:
    """Show ``source`` (and its submounts) at ``target`` with mount ``attributes``."""
    tree = _clone(source, attributes)
    try:
        _attach(tree, os.path.isdir(source), target)
    finally:
        os.close(tree)


def _clone(source: str, attributes: int) -> int:
    tree = kernel.clone_tree(source)
    try:
        kernel.set_tree_attributes(tree, attributes)
    except OSError:
        os.close(tree)
        raise
    return tree


def _attach(tree: int, directory: bool, target: str) -> None:
    if directory:
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.close(os.open(target, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o644))
    kernel.attach_tree(tree, target)


@dataclass(frozen=True)
class RuntimeBelow:
    """The runtime's paths below a scratch directory (a checkout below ``/tmp``), cloned
    read-only on the host's side to be shown again in a fresh mount of it."""

    trees: tuple[tuple[str, bool, int], ...]
    """(path, whether a directory, the clone's file descriptor)."""
    links: tuple[tuple[str, str], ...]

    @classmethod
    def clone(cls, runtime: Runtime, directory: str) -> RuntimeBelow:
        """Raises OSError: the kernel refused a clone."""
        below = [path for path in runtime.read_only if path.startswith(directory + "/")]
        trees = []
        try:
            for path in below:
                trees.append((path, os.path.isdir(path), _clone(path, READ_ONLY)))
        except OSError:
            for _, _, tree in trees:
                os.close(tree)
            raise
        links = tuple(link for link in runtime.links if link[0].startswith(directory + "/"))
        return cls(tuple(trees), links)

    def show(self) -> None:
        """Show them again at their paths (in the bot's mount namespace, after a
        fresh mount of their directory).

        Raises:
            OSError: the kernel refused.
        """
        for path, target in self.links:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            os.symlink(target, path)
        for path, directory, tree in self.trees:
            _attach(tree, directory, path)


def _switch_root(root: str) -> None:
    """Make ``root`` the root and detach the old one (``pivot_root(".", ".")`` stacks
    the old root on the new one, so unmounting "." removes it), then make it read-only."""
    os.chdir(root)
    kernel.pivot_root(".", ".")
    kernel.detach(".")
    os.chdir("/")
    flags = kernel.MS_REMOUNT | kernel.MS_BIND | kernel.MS_RDONLY | FRESH
    kernel.mount(None, "/", None, flags, "")
