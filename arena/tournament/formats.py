"""Tournament formats, one object each: what a format checks in a configuration, who
takes part in which role, what it schedules at creation and later, and how a report
describes its schedule.

The configuration (:mod:`arena.tournament.config`), the driver, the web's caps and the
report ask the format object; none of them branches on the format's name. A new format
is a subclass of :class:`TournamentFormat` listed in :data:`FORMATS` (and its name in
``config.Format``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING

from arena.errors import ConfigError
from arena.play.results import PlannedGame
from arena.tournament.adaptive import EloScheduler, PairedSprt, SprtScheduler
from arena.tournament.scheduling import (
    FixedScheduler,
    GeneratedSchedule,
    Scheduler,
    gauntlet_tables,
    round_robin_tables,
)

if TYPE_CHECKING:
    from arena.tournament.config import TournamentConfig


class FormatName(StrEnum):
    """The formats' names, as configurations and the database store them."""

    ROUND_ROBIN = "round-robin"
    GAUNTLET = "gauntlet"
    ELO = "elo"
    SPRT = "sprt"
    SOLITAIRE = "solitaire"
    LADDER = "ladder"


class Role(StrEnum):
    """A participant's role in its tournament (stored with it)."""

    PLAYER = "player"
    CANDIDATE = "candidate"
    OPPONENT = "opponent"


Roles = Sequence[tuple[int, Role]]
"""The participants' bot ids with their roles, in the configuration's order."""


class TournamentFormat:
    """A format's behaviour; the base class is a fixed schedule of tables of players."""

    name: FormatName
    solitaire = False
    """One-seat games: bots are compared deal by deal, not at a table."""
    decides_on_stored = False
    """Each batch is chosen from the rated games stored so far (``elo``)."""
    paired_test = False
    """A sequential test on pairs of games between two bots decides the end (``sprt``):
    the driver feeds it every game, and a suspended bot ends it."""
    continuous = False
    """Never ends and has no driver: a ladder's workers play it (``arena.ladder``)."""

    def check(self, config: TournamentConfig, game: str, seats: int) -> None:
        """Raises ValueError naming what ``config`` (of ``game`` at ``seats`` seats)
        lacks for this format."""
        self._check_roles(config, seats)
        self._check_seats(game, seats)
        self._check_bots(config, seats)

    def _check_roles(self, config: TournamentConfig, seats: int) -> None:
        if config.candidates or config.opponents:
            raise ValueError(f"'candidates'/'opponents' belong to a gauntlet, not {self.name}")

    def _check_seats(self, game: str, seats: int) -> None:
        if seats == 1:
            raise ValueError(f'{game} is a one-player game: use format = "solitaire"')

    def _check_bots(self, config: TournamentConfig, seats: int) -> None:
        if len(config.bots) < max(2, seats):
            raise ValueError(
                f"a {self.name} of {seats}-seat games needs at least {max(2, seats)} bots, "
                f"got {len(config.bots)}"
            )

    def groups(self, config: TournamentConfig) -> list[tuple[Role, list[str]]]:
        """The configuration's bot references by role, in order."""
        return [(Role.PLAYER, config.bots)]

    def planned_games(self, config: TournamentConfig) -> int:
        """How many games the configuration can schedule at most."""
        return math.comb(len(config.bots), config.seat_count) * config.games

    def generated_schedule(
        self, config: TournamentConfig, roles: Roles
    ) -> GeneratedSchedule | None:
        """A fixed format's whole schedule, a pure function of the configuration and the
        participants: generated whenever it is needed, never written. None for a format
        that decides its games as it goes (its schedule is written, batch by batch)."""
        tables = round_robin_tables([bot for bot, _ in roles], config.seat_count)
        return GeneratedSchedule.of_tables(tables, games_per_table=config.games, seed=config.seed)

    def first_schedule(self, config: TournamentConfig, roles: Roles) -> Iterable[PlannedGame]:
        """The games to write with the tournament when it is created: a fixed format's
        whole schedule (tournaments created before schedules were generated wrote it),
        an adaptive format's none."""
        return self.generated_schedule(config, roles) or []

    def scheduler(
        self, config: TournamentConfig, bots: Sequence[int], test: PairedSprt | None
    ) -> Scheduler:
        """What schedules the games after the first schedule (``bots`` by position; a
        paired test's format needs the test the driver feeds).

        Raises:
            ConfigError: a paired test's format without its test.
        """
        return FixedScheduler([])

    def describe_schedule(self, config: TournamentConfig) -> str:
        """The schedule in a few words, as reports show it."""
        return f"{config.games} games per table"


class RoundRobin(TournamentFormat):
    """Every table of distinct bots plays the same number of games."""

    name = FormatName.ROUND_ROBIN


class Gauntlet(TournamentFormat):
    """Each candidate meets every choice of opponents; opponents never meet."""

    name = FormatName.GAUNTLET

    def _check_roles(self, config: TournamentConfig, seats: int) -> None:
        if not config.candidates or not config.opponents:
            raise ValueError("a gauntlet needs 'candidates' and 'opponents'")
        if len(config.opponents) < seats - 1:
            raise ValueError(f"a {seats}-seat gauntlet needs at least {seats - 1} opponents")
        if config.bots:
            raise ValueError("a gauntlet takes 'candidates' and 'opponents', not 'bots'")

    def _check_bots(self, config: TournamentConfig, seats: int) -> None:
        pass  # the roles said it all

    def groups(self, config: TournamentConfig) -> list[tuple[Role, list[str]]]:
        return [(Role.CANDIDATE, config.candidates), (Role.OPPONENT, config.opponents)]

    def planned_games(self, config: TournamentConfig) -> int:
        seats = config.seat_count
        return len(config.candidates) * math.comb(len(config.opponents), seats - 1) * config.games

    def generated_schedule(
        self, config: TournamentConfig, roles: Roles
    ) -> GeneratedSchedule | None:
        candidates = [bot for bot, role in roles if role == Role.CANDIDATE]
        opponents = [bot for bot, role in roles if role == Role.OPPONENT]
        tables = gauntlet_tables(candidates, opponents, config.seat_count)
        return GeneratedSchedule.of_tables(tables, games_per_table=config.games, seed=config.seed)


class Solitaire(TournamentFormat):
    """Every bot plays the same deals of a one-player game."""

    name = FormatName.SOLITAIRE
    solitaire = True

    def _check_seats(self, game: str, seats: int) -> None:
        if seats != 1:
            raise ValueError(f"the solitaire format needs a one-player game, not {game}")

    def _check_bots(self, config: TournamentConfig, seats: int) -> None:
        if not config.bots:
            raise ValueError("a solitaire tournament needs at least one bot")

    def planned_games(self, config: TournamentConfig) -> int:
        return len(config.bots) * config.games

    def generated_schedule(
        self, config: TournamentConfig, roles: Roles
    ) -> GeneratedSchedule | None:
        bots = [bot for bot, _ in roles]
        return GeneratedSchedule.of_solitaire(bots, deals=config.games, seed=config.seed)

    def describe_schedule(self, config: TournamentConfig) -> str:
        return f"{config.games} deals"


class Elo(TournamentFormat):
    """Batches of games between rating neighbours until all are separated."""

    name = FormatName.ELO
    decides_on_stored = True

    def planned_games(self, config: TournamentConfig) -> int:
        return config.elo.max_games

    def generated_schedule(
        self, config: TournamentConfig, roles: Roles
    ) -> GeneratedSchedule | None:
        return None

    def scheduler(
        self, config: TournamentConfig, bots: Sequence[int], test: PairedSprt | None
    ) -> Scheduler:
        return EloScheduler(config, bots)

    def describe_schedule(self, config: TournamentConfig) -> str:
        return f"batches of {config.elo.batch}, at most {config.elo.max_games:,} games"


class Sprt(TournamentFormat):
    """Pairs of games between two bots until the sequential test decides."""

    name = FormatName.SPRT
    paired_test = True

    def _check_bots(self, config: TournamentConfig, seats: int) -> None:
        if len(config.bots) != 2:
            raise ValueError(f"sprt compares exactly 2 bots, got {len(config.bots)}")
        if seats != 2:
            raise ValueError("sprt needs two seats (set seats = 2 if the game allows it)")

    def planned_games(self, config: TournamentConfig) -> int:
        return config.sprt.max_games

    def generated_schedule(
        self, config: TournamentConfig, roles: Roles
    ) -> GeneratedSchedule | None:
        return None

    def scheduler(
        self, config: TournamentConfig, bots: Sequence[int], test: PairedSprt | None
    ) -> Scheduler:
        if test is None:
            raise ConfigError("a sprt tournament needs its test")
        return SprtScheduler(config, bots, test)

    def describe_schedule(self, config: TournamentConfig) -> str:
        return f"batches of {config.sprt.batch}, at most {config.sprt.max_games:,} games"


class Ladder(TournamentFormat):
    """A continuous ladder (:mod:`arena.ladder`): every active bot of the game, games
    chosen by its matchmaking and played by its workers for as long as it runs. Only
    ``arena ladder start`` creates one; no driver plays it."""

    name = FormatName.LADDER
    continuous = True

    def _check_bots(self, config: TournamentConfig, seats: int) -> None:
        if config.bots or config.candidates or config.opponents:
            raise ValueError("a ladder takes every active bot of its game: list no bots")

    def planned_games(self, config: TournamentConfig) -> int:
        return 0

    def generated_schedule(
        self, config: TournamentConfig, roles: Roles
    ) -> GeneratedSchedule | None:
        raise ConfigError(
            f"a ladder is not a tournament to run: start it with `arena ladder start {config.game}`"
        )

    def describe_schedule(self, config: TournamentConfig) -> str:
        return "a continuous ladder"


FORMATS: dict[str, TournamentFormat] = {
    fmt.name: fmt for fmt in (RoundRobin(), Gauntlet(), Elo(), Sprt(), Solitaire(), Ladder())
}
"""Every format by name, in the order help texts list them."""


def tournament_format(name: str) -> TournamentFormat:
    """The format called ``name``.

    Raises:
        ConfigError: no such format; the message lists them.
    """
    try:
        return FORMATS[name]
    except KeyError:
        raise ConfigError(
            f"unknown tournament format {name!r} (formats: {', '.join(FORMATS)})"
        ) from None
