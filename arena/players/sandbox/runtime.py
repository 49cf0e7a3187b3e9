"""The runtime: all a bot sees of the host, read-only and at the same paths.

This is the one definition of it (:func:`host_runtime`); the fresh root
(:mod:`arena.players.sandbox.rootfs`) is built from it, and a command naming any other host
path is refused (:func:`check_named_paths`).

* **The system's programs and libraries**: ``/usr`` (``/usr/local`` too), ``/bin``,
  ``/sbin``, ``/lib``, ``/lib32``, ``/lib64``, ``/libx32``; those that are symbolic
  links (a merged ``/usr``) stay links. A bot may be written in any language the
  host has installed there (``node`` from ``/usr/bin``, ``python3``, …).
* **From /etc only what the dynamic linker and interpreters read**: ``ld.so.cache``,
  ``ld.so.conf``, ``ld.so.conf.d``, ``alternatives`` (Debian's links, such as
  ``nodejs``) and ``localtime``. ``passwd``, ``group`` and ``hosts`` are written
  afresh for each bot; nothing else of /etc is there.
* **The arena's Python**: its prefix (the virtual environment, with the installed
  packages a Python bot may import) and its base prefix (the interpreter and its
  standard library).
* **The bot SDK**: the ``bots`` and ``engines`` packages, since a Python bot may
  derive from ``bots.base.Bot``; nothing else of the checkout that holds them (its
  database, its configuration, ``.git``).

Besides the runtime a bot sees only what is its own: its code (read-only, ``{code}``
in its command, :data:`CODE_DIR`), a private working directory
(:data:`WORK_DIR`), fresh ``/tmp`` and ``/dev/shm``, a minimal ``/dev`` and its own
``/proc`` (see :mod:`arena.players.sandbox.rootfs`).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import shlex
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from arena.players.sandbox.errors import SandboxError

SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_PATHS = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/etc/localtime",
)
SDK_PACKAGES = ("bots", "engines")
CODE_DIR = "/bot/code"
WORK_DIR = "/bot/work"
OWN_PATHS = ("/bot", "/dev", "/proc")
"""Paths inside the sandbox that are the bot's own (or the kernel's), not the host's."""
SCRATCH_PATHS = ("/tmp", "/var/tmp", "/dev/shm")
"""Fresh and empty for each bot: a path there that exists on the host names the host's
file, which the bot would not find."""
SHELL_OPERATORS = "();<>|&"
"""What a shell reads as syntax between words: redirections, pipes, lists, subshells."""
_AFTER_OPERATOR = re.compile(
    rf"[{re.escape(SHELL_OPERATORS)}]\s*(/[^\s{re.escape(SHELL_OPERATORS)}'\"]*)"
)


@dataclass(frozen=True)
class Runtime:
    """The host paths a bot sees."""

    read_only: tuple[str, ...]
    """Files and directories shown read-only at the same path; none inside another."""
    links: tuple[tuple[str, str], ...]
    """Symbolic links recreated as they are: (path, target)."""

    def shows(self, path: str) -> bool:
        """Whether the absolute ``path`` of the host is visible in the sandbox: it lies
        in the runtime, and so does what it resolves to."""
        lexical = os.path.normpath(path)
        roots = [*self.read_only, *(link for link, _ in self.links)]
        if not any(_inside(lexical, root) for root in roots):
            return False
        real = os.path.realpath(lexical)
        return any(_inside(real, os.path.realpath(root)) for root in self.read_only)


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def _outermost(paths: Iterable[str]) -> tuple[str, ...]:
    """``paths`` without duplicates and without those inside another one."""
    kept: list[str] = []
    for path in sorted({os.path.normpath(p) for p in paths}):
        if not any(_inside(path, outer) for outer in kept):
            kept.append(path)
    return tuple(kept)


def sdk_directories() -> list[str]:
    """The directories of the SDK packages (:data:`SDK_PACKAGES`)."""
    found = []
    for name in SDK_PACKAGES:
        spec = importlib.util.find_spec(name)
        found += list(spec.submodule_search_locations or []) if spec else []
    return found


@functools.cache
def host_runtime() -> Runtime:
    """This host's runtime (see the module's description)."""
    links = tuple((path, os.readlink(path)) for path in SYSTEM_PATHS if os.path.islink(path))
    system = [path for path in SYSTEM_PATHS if os.path.isdir(path) and not os.path.islink(path)]
    etc = [path for path in ETC_PATHS if os.path.exists(path)]
    python = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    return Runtime(_outermost([*system, *etc, *python, *sdk_directories()]), links)


def shell_operator(command: str) -> str | None:
    """The first shell operator outside quotes in ``command`` (``>``, ``>&``, ``|``,
    ``&&``, ``;``, ``(`` …), or None. A bot's command is split into words as a shell
    would, but no shell runs it: such an operator would reach the program as a word.
    Only a whole word quotes: in ``--x="a|b"`` and ``a\\|b`` the ``|`` counts (write
    ``"--x=a|b"``). A command that does not split returns None (its split says why).
    """
    lexer = shlex.shlex(command, posix=False, punctuation_chars=SHELL_OPERATORS)
    lexer.whitespace_split = True
    try:
        return next((word for word in lexer if word and not word.strip(SHELL_OPERATORS)), None)
    except ValueError:
        return None


def shell_syntax(operator: str) -> str:
    """Why a command holding the shell ``operator`` outside quotes is refused."""
    return (
        f"{operator!r} is shell syntax, and no shell runs a bot's command (it is split into "
        "words and started as they are): quote an argument that holds it, or start a shell, "
        "sh -c '…'"
    )


def named_paths(args: Sequence[str]) -> Iterator[str]:
    """The absolute paths among a command's words: ``/a/b``, the file of the SDK's
    ``/a/b.py:Class``, the value of ``--option=/a/b``, and inside a word (the script of
    ``sh -c``) a path after a shell operator: ``cat</a/b``, ``x > /a/b``, ``x|/a/b``."""
    for arg in args:
        value = arg.partition("=")[2] if arg.startswith("-") else arg
        if value.startswith("/"):
            yield value.partition(":")[0] if ":" in value else value
        yield from _AFTER_OPERATOR.findall(arg)


def check_named_paths(args: Sequence[str], runtime: Runtime, code_dir: str) -> None:
    """Refuse a command that names a host path the bot cannot see.

    Raises:
        SandboxError: a path outside the runtime, the bot's code directory and the
            sandbox's own directories (quoted, with what to do instead).
    """
    for path in named_paths(args):
        if not _visible(os.path.normpath(path), runtime, code_dir):
            raise SandboxError(
                f"the command names {path!r}, which is outside the sandbox: a bot sees "
                "only its own files (name them {code}/PATH) and the runtime (the system's "
                "/usr, /bin and /lib, the arena's Python, the bot SDK; docs/protocol.md)"
            )


def _visible(path: str, runtime: Runtime, code_dir: str) -> bool:
    if runtime.shows(path) or _inside(path, code_dir):
        return True
    if any(_inside(path, scratch) for scratch in SCRATCH_PATHS):
        return not os.path.lexists(path)
    return any(_inside(path, own) for own in OWN_PATHS)
