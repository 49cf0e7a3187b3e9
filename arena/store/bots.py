"""The bot registry in the database: add, find, list and retire bot versions.

A bot is a name bound to one game. Adding a name again with different code (or a
different kind, entry or parameters) creates the next version, ``NAME@2``; adding it
with identical code changes nothing. The stored code, not the user's file, is what
tournaments run.

The names of built-in kinds are reserved in every game, for every user and for the
command line: ``greedy`` alone, or followed by ``-`` and one of its parameters
(``greedy-seed2``, the name ``greedy:seed=2`` is registered under), belongs to the
built-in, so ``-b greedy`` always plays the built-in (:func:`reserved_kind`).
"""

from __future__ import annotations

import math
import os
import re
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, func, select

from arena.errors import ArenaError, NotFoundError
from arena.store.ladders import join_ladders
from arena.store.models import Account, BotVersion, GameSeat
from engines.errors import did_you_mean
from engines.seeding import MAX_SEED

if TYPE_CHECKING:
    from arena.players.loader import BotSource, BotSpec

# The bot loader, the sandbox, the built-in bots and the engines are imported by the
# functions that use them, so that `arena bots list` loads none of them.

NAME_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_.+-]{0,63}")
MAX_CODE_BYTES = 1_000_000
SAFE_WORD = re.compile(r"[\w@%+=:,./{}-]+")
MAX_VERSION = 2**31 - 1


class BotRegistryError(ArenaError):
    """A bad bot name, source or reference."""


def check_name(name: str) -> str:
    """Raises BotRegistryError unless ``name`` is a valid bot name."""
    if not NAME_PATTERN.fullmatch(name):
        raise BotRegistryError(
            f"bad bot name {name!r:.80}: start with a letter, then letters, digits, '_', '.', "
            "'+' or '-' (at most 64 characters)"
        )
    return name


def reserved_kind(name: str) -> str | None:
    """The built-in kind that owns ``name`` (in any letter case): its own name, or its
    name, ``-`` and one of its parameters (``greedy-seed2``); None for a free name."""
    from bots.registry import all_bot_kinds

    lowered = name.lower()
    for kind in all_bot_kinds():
        if lowered == kind.name or any(
            lowered.startswith(f"{kind.name}-{param}")
            for param in [*kind.param_names(), *(old for old, _ in kind.renamed)]
        ):
            return kind.name
    return None


def check_free_name(name: str) -> str:
    """A name a submitted bot may take.

    Raises:
        BotRegistryError: a bad name, or one reserved for a built-in kind.
    """
    check_name(name)
    kind = reserved_kind(name)
    if kind is not None:
        raise BotRegistryError(
            f"the bot name {name!r} is reserved for the built-in bot {kind!r} (in every game): "
            "choose another name"
        )
    return name


def check_not_account_name(session: Session, name: str) -> None:
    """Raises BotRegistryError when ``name`` is an account's (in any letter case): it
    names that person's games in the browser (arena/web/humans.py)."""
    taken = session.exec(
        select(Account.name).where(func.lower(Account.name) == name.lower())
    ).first()
    if taken is not None:
        raise BotRegistryError(
            f"the bot name {name!r} is reserved: it is the name of the account {taken!r}, "
            "who plays under it in the browser; choose another name"
        )


def builtin_name(kind: str, params: Mapping[str, Any]) -> str:
    """The name a built-in kind with these parameters is registered under:
    ``greedy``, ``greedy-seed2``."""
    return "-".join([kind, *(f"{key}{value}" for key, value in params.items())])


def builtin_source(kind: str, game: str, params: Mapping[str, Any] | None = None) -> BotSource:
    """A built-in kind with validated parameters (defaults filled in).

    Raises:
        UnknownBotError / UnknownGameError: unknown kind, game or parameter.
    """
    from arena.players.loader import BUILTIN, BotSource
    from bots.registry import get_bot_kind

    bot_kind = get_bot_kind(kind, game)
    return BotSource(BUILTIN, bot_kind.name, bot_kind.validate_params(params))


PARAM_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
MAX_PARAMS = 32
MAX_PARAM_TEXT = 200


def param_value(value: Any) -> Any:
    """A parameter as the command line gives it (text) made a value: ``3`` and ``-3``
    integers, ``0.5`` a number, ``true``/``false`` booleans; other text stays text."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    if text.lstrip("-").isdigit() and len(text) < 30:
        return int(text)
    try:
        number = float(text)
    except ValueError:
        return value
    return number if math.isfinite(number) else value


def python_params(
    params: Mapping[str, Any] | None, what: str = "a Python bot", *, from_text: bool = False
) -> dict[str, Any]:
    """A submitted bot's parameters, checked: at most MAX_PARAMS, each named like a
    Python identifier, with a number, a boolean or a text (at most MAX_PARAM_TEXT
    characters) as its value; ``seed`` an integer of at most 63 bits (its digits too).
    ``from_text``: the values are the command line's texts, read by
    :func:`param_value`. A Python bot's constructor gets them as keyword arguments, a
    command bot in its ``new_game`` message (docs/protocol.md).

    Raises:
        BotRegistryError: a bad name or value, quoted.
    """
    raw = dict(params or {})
    if len(raw) > MAX_PARAMS:
        raise BotRegistryError(f"{what} takes at most {MAX_PARAMS} parameters, got {len(raw)}")
    checked: dict[str, Any] = {}
    for key, given in raw.items():
        if not isinstance(key, str) or not PARAM_NAME.fullmatch(key):
            raise BotRegistryError(
                f"bad parameter name {key!r:.80} of {what}: letters, digits and '_', "
                "not starting with a digit (at most 64)"
            )
        value = param_value(given) if from_text or key == "seed" else given
        if key == "seed":
            if isinstance(value, bool) or not isinstance(value, int) or abs(value) > MAX_SEED:
                raise BotRegistryError(
                    f"parameter 'seed' of {what}: an integer of at most 63 bits (got {given!r:.40})"
                )
        elif isinstance(value, float) and not math.isfinite(value):
            raise BotRegistryError(f"parameter {key!r} of {what}: a finite number (got {value!r})")
        elif isinstance(value, str) and len(value) > MAX_PARAM_TEXT:
            raise BotRegistryError(
                f"parameter {key!r} of {what}: at most {MAX_PARAM_TEXT} characters of text"
            )
        elif not isinstance(value, bool | int | float | str):
            raise BotRegistryError(
                f"parameter {key!r} of {what}: a number, a boolean or a text (got {given!r:.40})"
            )
        checked[key] = value
    return checked


def python_source(spec: str, params: Mapping[str, Any] | None = None) -> BotSource:
    """A Python bot from ``FILE[:Class]``: reads the file and finds the class;
    ``params`` are the command line's texts (``depth=3`` gives 3).

    Raises:
        BotRegistryError: the file is missing, unreadable, too large or not UTF-8, or a
            bad parameter (:func:`python_params`).
        BotLoadError: a syntax error or no unique bot class.
    """
    from arena.players.loader import PYTHON, BotSource, python_bot_class_name

    checked = python_params(params, from_text=True)
    path_text, _, class_name = spec.partition(":")
    if ":" in spec and len(path_text) == 1:  # a Windows drive letter, not a class
        path_text, class_name = spec, ""
    path = Path(path_text)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BotRegistryError(f"cannot read bot file {path_text!r}: {exc.strerror}") from None
    if len(data) > MAX_CODE_BYTES:
        raise BotRegistryError(f"bot file {path_text!r} is larger than {MAX_CODE_BYTES} bytes")
    try:
        code = data.decode("utf-8")
    except UnicodeDecodeError:
        raise BotRegistryError(f"bot file {path_text!r} is not UTF-8 text") from None
    entry = python_bot_class_name(code, path.name, class_name or None)
    return BotSource(PYTHON, entry, checked, code)


def command_source(
    command: str,
    *,
    also: Sequence[str] = (),
    base: Path | None = None,
    params: Mapping[str, Any] | None = None,
) -> BotSource:
    """A bot run as ``command`` speaking the JSON-lines protocol, stored with its files.

    Each word of the command that names an existing file or folder the sandbox does
    not show (absolute, or relative to ``base``, the current directory by default; also
    the file of a ``FILE:Class`` word and the value of ``--option=PATH``), and each
    path in ``also``, is read now and stored with the bot as ``{code}/NAME`` (a folder
    with the files in it), and the stored command names the copy: tournaments run the
    stored code, on any machine, never the user's files. Words naming what the sandbox
    shows (the system's programs, the arena's Python, the bot SDK) stay as they are.
    ``params`` (the command line's texts, :func:`python_params`) reach the bot in its
    ``new_game`` message.

    Raises:
        BotRegistryError: an empty command, one that cannot be split into words or
            holds a shell operator outside quotes, a path in ``also`` that does not
            exist, a file that cannot be read or is not UTF-8 text, two stored files
            of one name, more than MAX_CODE_BYTES of files.
    """
    from arena.players.loader import COMMAND, BotSource, bundle_files
    from arena.players.sandbox.runtime import host_runtime, shell_operator, shell_syntax

    checked = python_params(params, "a command bot", from_text=True)
    text = command.strip()
    if not text:
        raise BotRegistryError("the bot command is empty")
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise BotRegistryError(f"bad bot command {text!r}: {exc}") from None
    operator = shell_operator(text)
    if operator is not None:
        raise BotRegistryError(f"bad bot command {text!r}: {shell_syntax(operator)}")
    base = base or Path.cwd()
    runtime = host_runtime()
    files: dict[str, str] = {}
    for index, word in enumerate(words):
        before, path_text, after = _path_in_word(word)
        if not path_text or (index == 0 and "/" not in path_text):
            continue  # a program name is looked up on the sandbox's PATH
        path = Path(base, path_text).absolute()
        if path.exists() and not runtime.shows(str(path)):
            words[index] = f"{before}{{code}}/{_store(path, files)}{after}"
    for extra in also:
        path = Path(base, extra).absolute()
        if not path.exists():
            raise BotRegistryError(f"no file or folder {extra!r} to store with the bot")
        _store(path, files)
    if not files:
        return BotSource(COMMAND, text, checked)
    return BotSource(COMMAND, " ".join(map(_quote_word, words)), checked, bundle_files(files))


def _path_in_word(word: str) -> tuple[str, str, str]:
    """``word`` as (before, path, after): ``--opt=PATH`` and ``PATH:Class`` name PATH."""
    before, value = "", word
    if word.startswith("-"):
        option, equals, value = word.partition("=")
        if not equals:
            return word, "", ""
        before = option + equals
    head, colon, tail = value.rpartition(":")
    if colon and head and tail.isidentifier():
        return before, head, colon + tail
    return before, value, ""


def _store(path: Path, files: dict[str, str]) -> str:
    """Read the file or folder ``path`` into ``files`` under its name; returns the name.

    Raises:
        BotRegistryError: see :func:`command_source`.
    """
    name = path.resolve().name
    if any(stored == name or stored.startswith(name + "/") for stored in files):
        raise BotRegistryError(
            f"two files or folders named {name!r} would be stored with the bot: rename one"
        )
    if path.is_dir():
        for folder, subfolders, names in os.walk(path):
            subfolders[:] = sorted(d for d in subfolders if not _skipped(d))
            for file in sorted(n for n in names if not _skipped(n)):
                inside = Path(folder, file).relative_to(path).as_posix()
                files[f"{name}/{inside}"] = _read_text(Path(folder, file))
    else:
        files[name] = _read_text(path)
    if sum(len(text.encode()) for text in files.values()) > MAX_CODE_BYTES:
        raise BotRegistryError(
            f"the files stored with the bot are larger than {MAX_CODE_BYTES} bytes "
            f"(adding {str(path)!r})"
        )
    return name


def _skipped(name: str) -> bool:
    """Hidden entries and byte-code caches are not part of a bot's code."""
    return name.startswith(".") or name == "__pycache__"


def _read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BotRegistryError(f"cannot read {str(path)!r}: {exc.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise BotRegistryError(
            f"{str(path)!r} is not UTF-8 text: only text is stored with a bot; a compiled "
            "program must be installed on the host (/usr/local/bin) to run in the sandbox"
        ) from None


def _quote_word(word: str) -> str:
    """``word`` for the stored command; ``{code}/…`` needs no quotes."""
    return word if SAFE_WORD.fullmatch(word) else shlex.quote(word)


def add_bot(
    session: Session, *, name: str, game: str, source: BotSource, attempt: int = 0
) -> tuple[BotVersion, bool]:
    """Register ``source`` under ``name`` for ``game``; returns the version and whether
    it is new. Names are per game: ``random`` may be a bot of every game. A new version
    joins the started ladders of its game, and a regression test against the version
    before it starts on each (:func:`arena.store.ladders.join_ladders`).

    Raises:
        BotRegistryError: a bad name, or a name reserved for another built-in kind.
        UnknownGameError: ``game`` is unknown.
    """
    from arena.players.loader import BUILTIN, HUMAN
    from engines.registry import get_game

    check_name(name)
    kind = reserved_kind(name)
    if kind is not None and (source.kind != BUILTIN or source.entry != kind):
        check_free_name(name)
    if source.kind != HUMAN:
        check_not_account_name(session, name)
    game = get_game(game).name
    versions = session.exec(
        select(BotVersion)
        .where(BotVersion.name == name, BotVersion.game == game)
        .order_by(col(BotVersion.version))
    ).all()
    for version in versions:
        if version.code_hash == source.code_hash:
            if version.retired:
                version.retired = False
                session.add(version)
            return version, False
    bot = BotVersion(
        name=name,
        version=(versions[-1].version + 1) if versions else 1,
        game=game,
        kind=source.kind,
        entry=source.entry,
        params=dict(source.params),
        code=source.code,
        code_hash=source.code_hash,
    )
    try:
        with session.begin_nested():
            session.add(bot)
    except IntegrityError:
        # Another program registered this name meanwhile (two tournaments starting at
        # once): look again; its version may be this very code.
        if attempt >= 3:
            raise
        return add_bot(session, name=name, game=game, source=source, attempt=attempt + 1)
    join_ladders(session, bot)
    return bot, True


def parse_reference(reference: str) -> tuple[str, int | None]:
    """``"name@3"`` → ``("name", 3)``; ``"name"`` → ``("name", None)``.

    Raises:
        BotRegistryError: a version that is not a positive number.
    """
    name, sep, version = reference.strip().partition("@")
    if not sep:
        return name, None
    if not (
        version.isascii()
        and version.isdigit()
        and len(version) <= 10
        and 1 <= int(version) <= MAX_VERSION
    ):
        raise BotRegistryError(
            f"bad bot reference {reference!r:.80}: write NAME or NAME@VERSION "
            f"(a version from 1 to {MAX_VERSION})"
        )
    return name, int(version)


def _named(session: Session, name: str, game: str | None) -> str:
    """The game of the bots called ``name``: ``game`` itself, or the only game with
    such a bot.

    Raises:
        NotFoundError: no bot of that name, or several games have one and ``game`` is
            not given.
    """
    from engines.registry import get_game

    if game is not None:
        return get_game(game).name
    games = sorted(set(session.exec(select(BotVersion.game).where(BotVersion.name == name))))
    if not games:
        close = did_you_mean(name, _names(session, None))
        raise NotFoundError(f"no bot {name!r} ({close}see `arena bots list`)")
    if len(games) > 1:
        raise NotFoundError(
            f"there is a bot {name!r} for {', '.join(games)}: name the game (--game)"
        )
    return games[0]


def find_bot(session: Session, reference: str, *, game: str | None = None) -> BotVersion:
    """The version ``NAME@V``, or the latest active version of ``NAME``, of ``game``
    (which may be left out when only one game has a bot of that name).

    Raises:
        NotFoundError: no such bot or version, or an ambiguous name.
    """
    from arena.players.loader import BUILTIN

    name, version = parse_reference(reference)
    game_name = _named(session, name, game)
    query = select(BotVersion).where(BotVersion.name == name, BotVersion.game == game_name)
    if reserved_kind(name) is not None:
        query = query.where(BotVersion.kind == BUILTIN)  # never a squatter's code
    if version is not None:
        query = query.where(BotVersion.version == version)
    else:
        query = query.where(col(BotVersion.retired).is_(False))
    bot = session.exec(query.order_by(col(BotVersion.version).desc())).first()
    if bot is None:
        close = did_you_mean(name, _names(session, game_name)) if version is None else ""
        if version is not None:
            existing = session.exec(
                select(BotVersion.version)
                .where(BotVersion.name == name, BotVersion.game == game_name)
                .order_by(col(BotVersion.version))
            ).all()
            if existing:
                close = f"{name} has versions {', '.join(str(v) for v in existing)}; "
        raise NotFoundError(f"no bot {reference!r} for {game_name} ({close}see `arena bots list`)")
    return bot


def close_bots(session: Session, reference: str, game: str) -> str:
    """``"did you mean 'random'? "`` for a misspelt bot of ``game`` (a built-in kind or a
    registered name), or ``""``."""
    from bots.registry import all_bot_kinds

    name = reference.partition("@")[0].partition(":")[0]
    kinds = [kind.name for kind in all_bot_kinds(game)]
    return did_you_mean(name, [*kinds, *_names(session, game)])


def _names(session: Session, game: str | None) -> list[str]:
    """The names of the registered bots (of ``game``), for a "did you mean"."""
    query = select(BotVersion.name).distinct()
    if game is not None:
        query = query.where(BotVersion.game == game)
    return list(session.exec(query).all())


def resolve_bot(session: Session, reference: str, game: str) -> BotVersion:
    """A built-in kind (``greedy``, ``greedy:seed=2``; registered on first use under
    :func:`builtin_name`), or else a registered bot (``NAME``, ``NAME@V``). A built-in
    kind's name always means the built-in.

    Raises:
        NotFoundError: neither a built-in kind for ``game`` nor a registered bot.
        BotRegistryError: a malformed reference, or a bad parameter of a built-in.
    """
    from arena.players.loader import BUILTIN, BotSource
    from bots.registry import UnknownBotError, all_bot_kinds, get_bot_kind, parse_bot_spec
    from engines.registry import get_game

    kind_text, with_params, param_text = reference.partition(":")
    builtin = kind_text.strip().lower() in {kind.name for kind in all_bot_kinds()}
    if "@" in kind_text:
        return _not_human(find_bot(session, reference, game=game))
    if not (builtin or with_params):
        try:
            return _not_human(find_bot(session, reference, game=game))
        except NotFoundError:
            game_name = get_game(game).name
            kinds = ", ".join(kind.name for kind in all_bot_kinds(game_name))
            raise NotFoundError(
                f"unknown bot {reference!r}: not registered (`arena bots list`) and not a "
                f"built-in kind for {game_name} ({close_bots(session, reference, game_name)}"
                f"built-in kinds: {kinds})"
            ) from None
    try:
        kind = get_bot_kind(kind_text, game)
    except UnknownBotError as exc:
        # With parameters it can only be a built-in kind: the kind is the problem.
        raise NotFoundError(f"bot {reference!r}: {exc}") from None
    try:
        _, given = parse_bot_spec(f"{kind.name}:{param_text}")
        raw = kind.canonical_params(given)
        params = kind.validate_params(raw)
    except UnknownBotError as exc:
        raise BotRegistryError(f"bot {reference!r}: {exc}") from None
    name = builtin_name(kind.name, {key: params[key] for key in raw})
    bot, _ = add_bot(session, name=name, game=game, source=BotSource(BUILTIN, kind.name, params))
    return bot


def _not_human(bot: BotVersion) -> BotVersion:
    """Raises NotFoundError for a person's version (arena/web/humans.py): no program
    plays a person's seat."""
    from arena.players.loader import HUMAN

    if bot.kind == HUMAN:
        raise NotFoundError(f"{bot.label} is a person playing in the browser, not a bot")
    return bot


def games_played(session: Session, bot_id: int) -> int:
    return int(session.exec(select(func.count()).where(GameSeat.bot_id == bot_id)).one())


def remove_bot(session: Session, reference: str, *, game: str | None = None) -> list[BotVersion]:
    """Retire ``NAME@V`` or every version of ``NAME``: hidden from lists and new
    tournaments; its games and ratings stay. Returns the versions retired.

    Raises:
        NotFoundError: no such bot, or an ambiguous name.
    """
    name, version = parse_reference(reference)
    game_name = _named(session, name, game)
    query = select(BotVersion).where(BotVersion.name == name, BotVersion.game == game_name)
    if version is not None:
        query = query.where(BotVersion.version == version)
    bots = list(session.exec(query).all())
    if not bots:
        close = did_you_mean(name, _names(session, game_name)) if version is None else ""
        raise NotFoundError(f"no bot {reference!r} for {game_name} ({close}see `arena bots list`)")
    for bot in bots:
        bot.retired = True
        session.add(bot)
    return bots


def spec_of(bot: BotVersion) -> BotSpec:
    """The picklable spec workers build the bot from."""
    from arena.players.loader import BotSource, BotSpec

    assert bot.id is not None
    return BotSpec(
        bot_id=bot.id,
        label=bot.label,
        game=bot.game,
        source=BotSource(bot.kind, bot.entry, dict(bot.params), bot.code),
    )
