"""Starting, stopping and reading ladders.

A ladder is a :class:`~arena.store.models.Tournament` of format ``ladder`` (status
``running`` while started, ``stopped`` when stopped) plus its
:class:`~arena.store.models.Ladder` row: one per game, seat count and time-control
class. Its games are ordinary games of that tournament, so replay, export, the web's
viewer and the reports read them unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa
from sqlmodel import Session, col, select

from arena.ladder.current import CurrentRating, current_ratings
from arena.ladder.errors import LadderError
from arena.play.runner import TimeControl
from arena.play.time_control import (
    CLASS_MOVE_SECONDS,
    TimeClass,
    config_time_class,
    parse_time_control,
)
from arena.ratings import RatingError
from arena.ratings.sprt import SprtSettings
from arena.store.games import set_status
from arena.store.ladders import (
    find_ladder,
    ladder_members,
    latest_ratings,
    regression_tests,
    sync_participants,
)
from arena.store.models import (
    BotVersion,
    Ladder,
    RegressionStatus,
    RegressionTest,
    Tournament,
    TournamentStatus,
    utcnow,
)
from arena.store.sealing import draw_seal
from arena.tournament.config import validate_config
from engines.registry import get_game

CLASS_CONTROLS: dict[TimeClass, str | None] = {
    time_class: None if seconds is None else f"st={seconds:g}"
    for time_class, seconds in CLASS_MOVE_SECONDS.items()
}
"""The time control a ladder named by its class plays at."""
DEFAULT_TIME_CONTROL = TimeClass.BLITZ


@dataclass(frozen=True)
class LadderSettings:
    """What ``arena ladder start`` sets; bounds of the version tests and budgets."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    game_budget: int | None = None
    owner_budget: int | None = None

    def check(self) -> None:
        """Raises LadderError naming a bad bound or budget."""
        try:
            SprtSettings(self.elo0, self.elo1, self.alpha, self.beta)
        except RatingError as exc:
            raise LadderError(f"bad regression-test bounds: {exc}") from None
        for name, value in (("game budget", self.game_budget), ("owner budget", self.owner_budget)):
            if value is not None and value < 1:
                raise LadderError(f"the {name} must be at least 1 game, got {value!r}")


def resolve_time_control(text: str | None) -> tuple[TimeClass, str | None]:
    """A time control (``st=0.5``, ``tc=60+0.5``) or a class name (``blitz``: its
    :data:`CLASS_CONTROLS`); returns the class and the control text.

    Raises:
        TimeControlError: neither a class nor a time control.
    """
    word = (text or DEFAULT_TIME_CONTROL).strip()
    if word.lower() in CLASS_CONTROLS:
        time_class = TimeClass(word.lower())
        return time_class, CLASS_CONTROLS[time_class]
    parse_time_control(word)
    return config_time_class({"each": word}), word


def ladder_time_control(ladder: Ladder) -> TimeControl:
    return TimeControl() if ladder.time_control is None else parse_time_control(ladder.time_control)


def ladder_seats(game: str, seats: int | None) -> tuple[str, int]:
    """The game's name and a seat count it allows (None: its default).

    Raises:
        UnknownGameError, GameError: an unknown game or a seat count it does not allow.
        LadderError: a one-player game (a ladder compares bots at a table).
    """
    found = get_game(game)
    count = found.check_seats(found.default_seats if seats is None else seats)
    if count < 2:
        raise LadderError(
            f"{found.name} at {count} seat is played alone: a ladder needs tables of 2 or more "
            "(compare patience bots with `arena solitaire`)"
        )
    return found.name, count


def start_ladder(
    session: Session,
    game: str,
    *,
    seats: int | None = None,
    time_control: str | None = None,
    settings: LadderSettings | None = None,
) -> tuple[Ladder, bool]:
    """Start the ladder of ``game`` (at ``seats``, in the class of ``time_control``),
    or start again a stopped one where it was (its settings replaced when given).
    Returns the ladder and whether it is new.

    Raises:
        LadderError, UnknownGameError, GameError, TimeControlError: bad settings.
    """
    name, count = ladder_seats(game, seats)
    time_class, control = resolve_time_control(time_control)
    chosen = settings or LadderSettings()
    chosen.check()
    existing = session.exec(
        select(Ladder).where(
            Ladder.game == name, Ladder.seats == count, Ladder.time_class == time_class
        )
    ).first()
    if existing is not None:
        if settings is not None:
            _apply(existing, chosen)
        if time_control is not None:
            existing.time_control = control
        session.add(existing)
        set_status(session, existing.tournament_id, TournamentStatus.RUNNING, message=None)
        sync_participants(session, existing)
        return existing, False
    config = validate_config(
        {
            "name": f"{name} {time_class} ladder ({count} seats)",
            "game": name,
            "format": "ladder",
            "seats": count,
            **({"each": control} if control is not None else {}),
        },
        "ladder",
    )
    seal = draw_seal()  # a ladder never ends: its seed stays sealed while it exists
    tournament = Tournament(
        name=config.label,
        game=name,
        options={},
        format=config.format,
        config={**config.model_dump(mode="json"), "seed": seal.seed},
        seed=seal.seed,
        seed_commitment=seal.commitment,
        seed_nonce=seal.nonce,
        status=TournamentStatus.RUNNING,
        started=utcnow(),
    )
    session.add(tournament)
    session.flush()
    assert tournament.id is not None
    ladder = Ladder(
        tournament_id=tournament.id,
        game=name,
        seats=count,
        time_class=time_class,
        time_control=control,
    )
    _apply(ladder, chosen)
    session.add(ladder)
    session.flush()
    sync_participants(session, ladder)
    return ladder, True


def _apply(ladder: Ladder, settings: LadderSettings) -> None:
    ladder.elo0, ladder.elo1 = settings.elo0, settings.elo1
    ladder.alpha, ladder.beta = settings.alpha, settings.beta
    ladder.game_budget, ladder.owner_budget = settings.game_budget, settings.owner_budget


def stop_ladder(session: Session, ladder: Ladder) -> None:
    """Workers play no more of its games; its games, ratings and tests stay."""
    set_status(session, ladder.tournament_id, TournamentStatus.STOPPED, message=None)


def select_ladder(
    session: Session, game: str, seats: int | None, time_control: str | None
) -> Ladder:
    """The ladder of ``game`` at ``seats`` in the class of ``time_control``.

    Raises:
        NotFoundError: no such ladder.
    """
    name, count = ladder_seats(game, seats)
    time_class, _ = resolve_time_control(time_control)
    return find_ladder(session, name, count, time_class)


@dataclass(frozen=True)
class LadderLine:
    """One bot of a ladder as ``arena ladder show`` and the web list it."""

    bot_id: int
    label: str
    rating: float | None
    lower: float | None
    upper: float | None
    games: int
    status: str
    """active | retired | suspended: REASON."""


def standings(session: Session, ladder: Ladder) -> list[LadderLine]:
    """The ladder's bots by their current rating (unrated ones last), the fit of the
    kept rating state; the last history rows while there is no state to read."""
    assert ladder.id is not None
    ratings = current_ratings(ladder)
    if ratings is None:
        ratings = {
            bot: CurrentRating(row.rating, row.lower, row.upper, row.games)
            for bot, row in latest_ratings(session, ladder.id).items()
        }
    lines = []
    for participant, bot in ladder_members(session, ladder):
        assert bot.id is not None
        rating = ratings.get(bot.id)
        if bot.retired:
            status = "retired"
        elif participant.suspended:
            status = f"suspended: {participant.suspended_reason or 'no reason given'}"
        else:
            status = "active"
        lines.append(
            LadderLine(
                bot_id=bot.id,
                label=bot.label,
                rating=None if rating is None else rating.rating,
                lower=None if rating is None else rating.lower,
                upper=None if rating is None else rating.upper,
                games=0 if rating is None else rating.games,
                status=status,
            )
        )
    return sorted(lines, key=lambda line: (line.rating is None, -(line.rating or 0.0), line.label))


def ladder_status(session: Session, ladder: Ladder) -> TournamentStatus:
    tournament = session.get(Tournament, ladder.tournament_id)
    assert tournament is not None
    return TournamentStatus(tournament.status)


def stored_games(session: Session, ladder: Ladder) -> int:
    """The ladder's stored games: its tournament's count, which the workers raise in the
    transaction that stores them (a count of a million game rows would take a while)."""
    tournament = session.get(Tournament, ladder.tournament_id)
    assert tournament is not None
    return tournament.scheduled


@dataclass(frozen=True)
class TestLine:
    """A regression test as the command line and the pages show it."""

    id: int
    ladder: str
    tournament_id: int
    """The ladder's tournament, whose games the test's are."""
    candidate: str
    baseline: str
    status: str
    llr: float
    lower_bound: float
    upper_bound: float
    games: int
    counts: tuple[int, ...]
    message: str | None


def describe_tests(session: Session, tests: list[RegressionTest]) -> list[TestLine]:
    ids = {t.candidate_id for t in tests} | {t.baseline_id for t in tests}
    labels = {
        bot.id: bot.label
        for bot in session.exec(select(BotVersion).where(col(BotVersion.id).in_(list(ids))))
    }
    ladders = {
        ladder.id: ladder
        for ladder in session.exec(
            select(Ladder).where(col(Ladder.id).in_(list({t.ladder_id for t in tests})))
        )
    }
    lines = []
    for test in tests:
        settings = SprtSettings(test.elo0, test.elo1, test.alpha, test.beta)
        ladder = ladders[test.ladder_id]
        assert test.id is not None
        lines.append(
            TestLine(
                id=test.id,
                ladder=f"{ladder.game} {ladder.time_class} {ladder.seats} seats",
                tournament_id=ladder.tournament_id,
                candidate=labels.get(test.candidate_id, str(test.candidate_id)),
                baseline=labels.get(test.baseline_id, str(test.baseline_id)),
                status=test.status,
                llr=test.llr,
                lower_bound=settings.lower_bound,
                upper_bound=settings.upper_bound,
                games=test.games,
                counts=tuple(test.counts),
                message=test.message,
            )
        )
    return lines


def stop_regression_tests(session: Session, bot: BotVersion, *, why: str) -> list[RegressionTest]:
    """Stop the running tests of ``bot`` as candidate (its owner's request); returns them.

    Raises:
        LadderError: the bot has no running test.
    """
    assert bot.id is not None
    tests = [
        t
        for t in regression_tests(session, bot_id=bot.id, running=True)
        if t.candidate_id == bot.id
    ]
    if not tests:
        raise LadderError(f"{bot.label!r} has no running regression test")
    for test in tests:
        end_test(session, test, RegressionStatus.STOPPED, why)
    return tests


def end_test(session: Session, test: RegressionTest, status: RegressionStatus, why: str) -> None:
    """Finish a running test (a test already over stays as it ended)."""
    session.exec(
        sa.update(RegressionTest)
        .where(
            col(RegressionTest.id) == test.id,
            col(RegressionTest.status) == RegressionStatus.RUNNING,
        )
        .values(status=status, message=why, finished=utcnow())
    )
    session.refresh(test)
