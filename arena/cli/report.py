"""``arena report TOURNAMENT`` and ``arena leaderboard GAME``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from arena.cli.common import DbOption, database
from arena.cli.console import console
from arena.errors import ArenaError
from arena.optional import require
from engines.errors import did_you_mean

# arena.play.time_control.TimeClass, kept here so that `arena --help` needs no engines
# (tests/arena/test_cli_imports.py checks they agree).
TIME_CLASSES = ("bullet", "blitz", "rapid", "classical", "unlimited")

if TYPE_CHECKING:
    from arena.report.build import Report

FORMATS = ("text", "md", "html", "json", "csv")
"""The report's output formats: :data:`arena.report.format.FORMATS`, named here so that
the help needs no import of the report (a test keeps the two equal)."""

FormatOption = Annotated[
    str, typer.Option("--format", "-f", help="output format: " + " | ".join(FORMATS))
]
AnchorOption = Annotated[
    str | None, typer.Option(help="fix a bot's Elo, e.g. random@1=0 (default: mean 0)")
]
IntervalOption = Annotated[
    Literal["hessian", "bootstrap"], typer.Option(help="how the 95% intervals are computed")
]
PlotOption = Annotated[
    Path | None, typer.Option(help="also draw ratings and head-to-head into this PNG")
]
OutputOption = Annotated[
    Path | None, typer.Option("--output", "-o", help="write to this file instead of the screen")
]


def emit(report: Report, fmt: str, output: Path | None, plot: Path | None) -> None:
    """Render ``report`` in ``fmt`` to ``output`` (or the screen), and draw ``plot``.

    Raises:
        ArenaError: an unknown format or a file that cannot be written.
        MissingExtraError: a plot (or an HTML page, which shows one) without
            matplotlib installed; raised before anything is written.
    """
    from arena.report.format import render_text
    from arena.report.plot import plot_report

    if fmt not in FORMATS:
        raise ArenaError(
            f"unknown format {fmt!r} ({did_you_mean(fmt, FORMATS)}formats: {', '.join(FORMATS)})"
        )
    if plot is not None or fmt == "html":
        require("matplotlib", extra="plot")
    if fmt == "text" and output is None:
        render_text(report, console)
    else:
        text = render(report, fmt)
        if output is None:
            console.out(text, end="", highlight=False)
        else:
            try:
                output.write_text(text, encoding="utf-8")
            except OSError as exc:
                raise ArenaError(f"cannot write {str(output)!r}: {exc.strerror}") from None
    if plot is not None:
        plot_report(report, plot)


def render(report: Report, fmt: str) -> str:
    """The report as text in one of :data:`FORMATS` (text in 80 columns, no colour)."""
    from arena.report.format import to_csv, to_html, to_json, to_markdown, to_text
    from arena.report.plot import plot_png

    renderers: dict[str, Callable[[Report], str]] = {
        "text": to_text,
        "md": to_markdown,
        "html": lambda r: to_html(r, plot_png(r)),
        "json": to_json,
        "csv": to_csv,
    }
    return renderers[fmt](report)


def report(
    tournament_id: Annotated[int, typer.Argument(metavar="TOURNAMENT", help="its id")],
    fmt: FormatOption = "text",
    anchor: AnchorOption = None,
    interval: IntervalOption = "hessian",
    plot: PlotOption = None,
    output: OutputOption = None,
    db: DbOption = None,
) -> None:
    """Standings with Elo ± interval, W/D/L or mean place, forfeits, head-to-head."""
    from arena.report.build import tournament_report

    emit(
        tournament_report(database(db), tournament_id, anchor=anchor, interval=interval),
        fmt,
        output,
        plot,
    )


def leaderboard(
    game: Annotated[str, typer.Argument(metavar="GAME")],
    seats: Annotated[int | None, typer.Option(help="rank games of this seat count")] = None,
    time_class: Annotated[
        str | None,
        typer.Option(
            help=f"rank tournaments of this time control: {' | '.join(TIME_CLASSES)} "
            "(default: the class with the most games)"
        ),
    ] = None,
    variant: Annotated[
        str | None,
        typer.Option(
            help="rank tournaments of this rule variant: standard, or the options it "
            "changes as NAME=VALUE,… sorted, e.g. sequences=true (default: standard, "
            "else the variant with the most games; the report lists the others)"
        ),
    ] = None,
    fmt: FormatOption = "text",
    anchor: AnchorOption = None,
    interval: IntervalOption = "hessian",
    plot: PlotOption = None,
    output: OutputOption = None,
    db: DbOption = None,
) -> None:
    """Rank every bot version across all tournaments of GAME of one seat count, one
    time-control class and one rule variant (see docs/ratings.md for what counts)."""
    from arena.report.build import game_leaderboard

    emit(
        game_leaderboard(
            database(db),
            game,
            anchor=anchor,
            interval=interval,
            seats=seats,
            time_class=time_class,
            variant=variant,
        ),
        fmt,
        output,
        plot,
    )
