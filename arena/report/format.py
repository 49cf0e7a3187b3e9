"""Rendering a :class:`~arena.report.build.Report`: text, Markdown, HTML, JSON, CSV.

The report is first laid out as plain tables of strings (:func:`layout`), each column
knowing its alignment and how much it matters; the formats only decide how to draw
them, so all formats show the same figures. JSON and CSV carry the numbers themselves
(:func:`to_data`, :func:`standings_records`), not the formatted strings.

Text keeps to the terminal's width (80 columns when piped): it drops the least
important columns, then abbreviates headers and cells, and never cuts a bot's name.
"""

from __future__ import annotations

import base64
import csv
import html
import io
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from rich import box
from rich.console import Console
from rich.table import Table

from arena.ratings import Pentanomial
from arena.report.build import BotLine, Report, TournamentInfo
from arena.store.tally import FORFEIT_REASONS, OTHER_REASON, Standing
from engines.outcome import ForfeitReason

FORMATS = ("text", "md", "html", "json", "csv")

ESSENTIAL, USEFUL, DETAIL = 3, 2, 1
"""How much a column matters: text drops DETAIL columns first, then USEFUL ones."""

NOISE_MARK = "≈"
SCORE_MEANING = {"blumengarten": "cards on the foundations, 0 to 52 (52 is a won deal)"}
FORFEIT_ABBREVIATIONS = {
    ForfeitReason.CRASH: "crash",
    ForfeitReason.TIMEOUT: "time",
    ForfeitReason.ILLEGAL_ACTION: "illegal",
    ForfeitReason.MALFORMED_OUTPUT: "malformed",
    ForfeitReason.PROTOCOL_VIOLATION: "protocol",
    OTHER_REASON: "other",
}


@dataclass(frozen=True)
class Column:
    header: str
    align: Literal["left", "right"] = "right"
    importance: int = ESSENTIAL
    short: str | None = None
    """A shorter header for narrow text."""


@dataclass(frozen=True)
class PlainTable:
    title: str
    columns: list[Column]
    rows: list[list[str]]
    compact_rows: list[list[str]] | None = None
    """Shorter cells for narrow text (same shape as ``rows``)."""
    notes: list[str] = field(default_factory=list)

    @property
    def headers(self) -> list[str]:
        return [column.header for column in self.columns]

    def without(self, drop: set[int]) -> PlainTable:
        """The table without the columns numbered in ``drop``."""

        def keep(row: list[str]) -> list[str]:
            return [cell for i, cell in enumerate(row) if i not in drop]

        return replace(
            self,
            columns=keep_columns(self.columns, drop),
            rows=[keep(row) for row in self.rows],
            compact_rows=None
            if self.compact_rows is None
            else [keep(row) for row in self.compact_rows],
        )


def keep_columns(columns: list[Column], drop: set[int]) -> list[Column]:
    return [column for i, column in enumerate(columns) if i not in drop]


def _signed(value: float) -> str:
    return f"{value:+.0f}"


def _elo(line: BotLine, *, compact: bool = False) -> str:
    """``+120 ± 35`` for a symmetric interval, ``+120 [+90, +160]`` otherwise;
    ``compact``: without the spaces (``+120±35``, ``+120 [+90,+160]``)."""
    if line.elo is None or line.elo_low is None or line.elo_high is None:
        return "—"
    below, above = line.elo - line.elo_low, line.elo_high - line.elo
    space = "" if compact else " "
    if abs(below - above) < 1.0:
        return f"{_signed(line.elo)}{space}±{space}{(below + above) / 2:.0f}"
    return f"{_signed(line.elo)} [{_signed(line.elo_low)},{space}{_signed(line.elo_high)}]"


def _los_next(line: BotLine) -> str:
    if line.los_next is None:
        return ""
    mark = f" {NOISE_MARK}" if line.within_noise else ""
    return f"{100 * line.los_next:.0f}%{mark}"


def _forfeits(line: BotLine, *, short: bool = False) -> str:
    if not line.tally.forfeits:
        return "—"
    names = FORFEIT_ABBREVIATIONS if short else {}
    return ", ".join(
        f"{count} {names.get(reason, reason.replace('_', ' '))}"
        for reason, count in sorted(line.tally.forfeits.items())
    )


def _count(value: int) -> str:
    return str(value) if value else "—"


def _bot(line: BotLine) -> str:
    return line.label if line.suspended is None else f"{line.label} (suspended)"


@dataclass(frozen=True)
class _Field:
    column: Column
    cell: Callable[[BotLine], str]
    compact: Callable[[BotLine], str] | None = None
    shown: Callable[[Report], bool] = lambda report: True


def _standing_fields(report: Report) -> list[_Field]:
    fields = [
        _Field(Column("#"), lambda line: ""),  # filled with the rank
        _Field(Column("bot", "left"), _bot),
        _Field(
            Column("dup. Elo (95%)" if report.solitaire else "Elo (95%)"),
            _elo,
            lambda line: _elo(line, compact=True),
            shown=lambda r: r.rated,
        ),
        _Field(
            Column("LOS vs next", short="LOS"),
            _los_next,
            shown=lambda r: any(line.los_next is not None for line in r.lines),
        ),
        _Field(Column("games"), lambda line: str(line.games)),
    ]
    if report.solitaire:
        fields += [
            _Field(Column("wins", importance=USEFUL), lambda line: str(line.tally.wins)),
            _Field(Column("win rate"), lambda line: f"{100 * line.tally.win_rate:.1f}%"),
            _Field(Column("95% Wilson", short="Wilson"), _wilson, _wilson_compact),
            _Field(Column("mean score", short="score"), lambda ln: f"{ln.tally.mean_score:.2f}"),
        ]
    elif report.seats == 2:
        fields += [
            _Field(
                Column("W-D-L"),
                lambda line: f"{line.tally.wins}-{line.tally.draws}-{line.tally.losses}",
            ),
            _Field(Column("score %", short="%"), lambda ln: f"{ln.tally.score_percent:.1f}"),
        ]
    else:
        fields += [
            _Field(
                Column("OpenSkill μ ± σ", importance=USEFUL, short="μ ± σ"),
                lambda line: (
                    "—"
                    if line.openskill_mu is None
                    else f"{line.openskill_mu:.1f} ± {line.openskill_sigma or 0:.1f}"
                ),
            ),
            _Field(
                Column("mean place", importance=USEFUL, short="place"),
                lambda line: f"{line.tally.mean_place:.2f}",
            ),
            _Field(Column("score %", short="%"), lambda ln: f"{ln.tally.score_percent:.1f}"),
        ]
    fields += [
        _Field(
            Column("forfeits", "left"),
            _forfeits,
            lambda line: _forfeits(line, short=True),
            shown=lambda r: any(line.tally.forfeits for line in r.lines),
        ),
        _Field(
            Column("unplayed", importance=DETAIL, short="unpl."),
            lambda line: _count(line.tally.unplayed),
            shown=lambda r: r.counted[Standing.UNPLAYED] > 0,
        ),
        _Field(
            Column("host faults", importance=DETAIL, short="host"),
            lambda line: _count(line.tally.host_faults),
            shown=lambda r: r.counted[Standing.HOST_FAULT] > 0,
        ),
    ]
    return [f for f in fields if f.shown(report)]


def _wilson(line: BotLine) -> str:
    if line.win_rate_low is None or line.win_rate_high is None:
        return "—"
    return f"[{100 * line.win_rate_low:.1f}%, {100 * line.win_rate_high:.1f}%]"


def _wilson_compact(line: BotLine) -> str:
    if line.win_rate_low is None or line.win_rate_high is None:
        return "—"
    return f"{100 * line.win_rate_low:.0f}–{100 * line.win_rate_high:.0f}%"


def standings(report: Report) -> PlainTable:
    """The main table: one row per bot, best first."""
    fields = _standing_fields(report)
    rows, compact = [], []
    for rank, line in enumerate(report.lines, start=1):
        row = [f.cell(line) for f in fields]
        short = [(f.compact or f.cell)(line) for f in fields]
        row[0] = short[0] = str(rank)
        rows.append(row)
        compact.append(short)
    notes = []
    if any(line.within_noise for line in report.lines):
        notes.append(
            f"{NOISE_MARK}: the order against the next row is within the noise "
            "(likelihood of superiority below 95%)"
        )
    return PlainTable("standings", [f.column for f in fields], rows, compact, notes)


def _numbered(report: Report) -> list[str]:
    return [f"{rank}. {label}" for rank, label in enumerate(report.labels, start=1)]


def crosstable(report: Report) -> PlainTable:
    """Row bot's score % against each column bot (games in parentheses)."""
    labels = report.labels
    rows, compact = [], []
    for row_name, a in zip(_numbered(report), labels, strict=True):
        cells, short = [row_name], [row_name]
        for b in labels:
            cell = report.crosstable.get((a, b))
            if a == b or cell is None or cell.percent is None:
                cells.append("·")
                short.append("·")
            else:
                cells.append(f"{cell.percent:.0f}% ({cell.games})")
                short.append(f"{cell.percent:.0f}")
        rows.append(cells)
        compact.append(short)
    columns = [Column("", "left")] + [
        Column(label, short=str(rank)) for rank, label in enumerate(labels, start=1)
    ]
    return PlainTable("head to head (row's score %, games)", columns, rows, compact)


def los_table(report: Report) -> PlainTable:
    """Each rated bot's likelihood of being stronger than each other rated bot."""
    rated = [
        (rank, line.label) for rank, line in enumerate(report.lines, 1) if line.elo is not None
    ]
    rows = [
        [
            f"{rank}. {a}",
            *("·" if a == b else f"{100 * report.los.get((a, b), 0.5):.0f}" for _, b in rated),
        ]
        for rank, a in rated
    ]
    columns = [Column("", "left")] + [Column(label, short=str(rank)) for rank, label in rated]
    return PlainTable("likelihood of superiority (%, row stronger than column)", columns, rows)


PENTANOMIAL_COLUMNS = ("LL", "LD", "WL+DD", "WD", "WW")
"""The pentanomial categories, as fishtest and fastchess list them, a column each."""


def pairs_table(report: Report) -> PlainTable:
    """Per pairing, from the first bot's side, the bots named (not ranked): the
    trinomial, the pentanomial in a column per category and the normalised Elo (in
    narrow text without spaces)."""
    rows, compact = [], []
    for pair in report.pairs:
        tri = pair.statistics.trinomial
        penta = pair.statistics.pentanomial
        counts = (
            [str(c) for c in penta.counts()] if penta.pairs else ["—"] * len(PENTANOMIAL_COLUMNS)
        )
        head = [f"{pair.first} vs {pair.second}", f"{tri.wins}-{tri.draws}-{tri.losses}", *counts]
        if pair.normalized_elo is None:
            rows.append([*head, "— (all results equal)"])
            compact.append([*head, "—"])
        else:
            error = pair.normalized_error or math.nan
            rows.append([*head, f"{pair.normalized_elo:+.1f} ± {error:.1f}"])
            compact.append([*head, f"{pair.normalized_elo:+.0f}±{error:.0f}"])
    columns = [
        Column("pairing", "left"),
        Column("W-D-L", importance=USEFUL),
        *(Column(name) for name in PENTANOMIAL_COLUMNS),
        Column("normalised Elo", short="nElo"),
    ]
    return PlainTable("paired games (first's view)", columns, rows, compact)


def layout(report: Report) -> list[PlainTable]:
    tables = [standings(report)]
    if len(report.lines) > 1:
        if not report.solitaire:
            tables.append(crosstable(report))
        if report.los:
            tables.append(los_table(report))
    if report.pairs:
        tables.append(pairs_table(report))
    return tables


def _count_line(report: Report) -> str:
    counted = report.counted
    parts = [f"{report.games} rated games"]
    if counted[Standing.UNPLAYED]:
        parts.append(f"{counted[Standing.UNPLAYED]} unplayed (a bot was suspended)")
    if counted[Standing.HOST_FAULT]:
        parts.append(f"{counted[Standing.HOST_FAULT]} host faults (not counted)")
    return ", ".join(parts)


def _seed_text(info: TournamentInfo) -> str:
    """``seed N``, or the commitment while the seed is sealed (hosted play)."""
    if info.seed is None:
        return f"seed sealed until the end (commitment {info.seed_commitment})"
    return f"seed {info.seed}"


def summary_lines(report: Report) -> list[str]:
    """The report's header: what was played, under which settings, and what it says."""
    lines = []
    info = report.tournament
    if info is not None:
        lines.append(
            f"game {info.game} ({info.variant} rules), type {info.type}, "
            f"{info.seats} seats, {info.schedule}, {_seed_text(info)}, "
            f"time control {info.time_control}"
        )
        bots = ", ".join(
            p.label
            + ("" if p.role == "player" else f" ({p.role})")
            + ("" if p.suspended is None else f" [suspended: {p.suspended}]")
            for p in info.bots
        )
        lines.append(f"bots: {bots}")
        dates = [f"created {_date(info.created)}"]
        if info.started is not None:
            dates.append(f"started {_date(info.started)}")
        if info.finished is not None:
            dates.append(f"finished {_date(info.finished)}")
        lines.append(", ".join(dates))
        lines.append(
            f"{info.status}: {report.stored} of {info.scheduled} scheduled games stored; "
            + _count_line(report)
        )
        if info.message and (report.sprt is None or info.message != report.sprt.description):
            lines.append(info.message)
    else:
        lines.append(f"{report.game}: " + _count_line(report))
    if report.scope is not None:
        scope = report.scope
        lines.append(
            f"{scope.seats}-seat games in the {scope.time_class} time class under the "
            f"{scope.variant} rules, from {len(scope.tournaments)} "
            f"tournament{'s' if len(scope.tournaments) != 1 else ''}"
        )
        if scope.others:
            others = "; ".join(
                f"{seats} seats, {time_class}, {rules} rules: {count} rated games "
                f"(--seats {seats} --time-class {time_class} --variant {rules})"
                for (seats, time_class, rules), count in scope.others.items()
            )
            lines.append(f"other leaderboards of {report.game}: {others}")
    if report.sprt is not None:
        lines.append(report.sprt.description)
        if report.sprt.games_after:
            lines.append(
                f"{report.sprt.games_after} games stored after the test decided (already "
                "being played) count in the standings only"
            )
    lines.extend(report.notes)
    lines.extend(report.disagreements)
    return lines


def _date(moment: Any) -> str:
    return f"{moment:%Y-%m-%d %H:%M}"


def legend(report: Report) -> list[str]:
    """What each rating and count of the report means."""
    lines = []
    if report.solitaire:
        lines.append(
            "dup. Elo: duplicate Elo, from comparing the bots deal by deal on the same deals "
            "(the higher score wins the comparison), so the luck of the deal cancels; "
            "95% interval"
        )
        meaning = SCORE_MEANING.get(report.game, "the game's score")
        lines.append(
            f"win rate: won deals over games, with its 95% Wilson interval; mean score: "
            f"the average score per deal ({meaning})"
        )
    else:
        pairs = ", each game counted as one result per pair of seats" if report.seats > 2 else ""
        lines.append(
            "Elo: Bradley–Terry maximum-likelihood rating from all rated games at once"
            f"{pairs} (mean 0 unless anchored); 95% interval clustered by deal"
        )
    if any(line.los_next is not None for line in report.lines):
        lines.append(
            "LOS vs next: the likelihood that the bot is stronger than the bot on the next "
            f"row; {NOISE_MARK} marks an order within the noise (below 95%)"
        )
    if report.seats == 2:
        lines.append("W-D-L and score %: results of the rated games, a draw counting half")
    elif report.seats > 2:
        lines.append(
            "OpenSkill μ ± σ: a second opinion, Plackett–Luce ratings updated game by game "
            "(they depend on the order of the games); the ranking follows Elo. "
            "score %: share of the other seats finished ahead of, a tie counting half"
        )
    if report.pairs:
        lines.append(
            "normalised Elo: the pair's score distance from 50% in standard deviations "
            "(pentanomial: per pair of games on one deal), as fishtest and fastchess report it"
        )
    lines.append(
        "forfeits: the bot's own faults, counted as losses; unplayed games (a bot was "
        "suspended) and host faults (engine errors, a built-in bot out of time) count for "
        "nobody (docs/ratings.md)"
    )
    return lines


# -- text -----------------------------------------------------------------------------


def _rich_table(plain: PlainTable, *, short: bool, compact: bool) -> Table:
    table = Table(title=plain.title, title_justify="left", box=box.SIMPLE_HEAD, show_edge=False)
    for column in plain.columns:
        table.add_column(
            column.short if short and column.short is not None else column.header,
            justify=column.align,
            no_wrap=True,
        )
    rows = plain.compact_rows if compact and plain.compact_rows is not None else plain.rows
    for row in rows:
        table.add_row(*row)
    return table


def _fitted(plain: PlainTable, console: Console, width: int) -> tuple[Table, list[str]] | None:
    """The table in ``width`` columns and the headers it left out: first with short
    headers and cells, then without the least important columns, one at a time from the
    right; None when even the essential columns do not fit."""
    for short in (False, True):
        table = _rich_table(plain, short=short, compact=short)
        if _natural_width(table, console) <= width:
            return table, []
    optional = sorted(
        (i for i, column in enumerate(plain.columns) if column.importance < ESSENTIAL),
        key=lambda i: (plain.columns[i].importance, -i),
    )
    dropped: set[int] = set()
    for column in optional:
        dropped.add(column)
        table = _rich_table(plain.without(dropped), short=True, compact=True)
        if _natural_width(table, console) <= width:
            return table, [plain.columns[i].header for i in sorted(dropped)]
    return None


def _natural_width(table: Table, console: Console) -> int:
    """The width ``table`` takes when nothing is cut (rich caps a measurement at the
    console's width, so measure against an unbounded one)."""
    return console.measure(table, options=console.options.update_width(1_000_000)).maximum


def render_text(report: Report, console: Console) -> None:
    """The report for a terminal, or a file: see :func:`to_text`."""
    width = console.width
    console.print(report.title, style="bold", highlight=False, markup=False)
    for line in summary_lines(report):
        console.print(line, highlight=False, markup=False)
    for plain in layout(report):
        fitted = _fitted(plain, console, width)
        if fitted is None:
            console.print(
                f"({plain.title}: {len(plain.columns) - 1} columns do not fit {width} "
                "characters; see --format html, md or json)",
                highlight=False,
                markup=False,
            )
            continue
        table, left_out = fitted
        console.print(table)
        if left_out:
            console.print(
                f"(left out to fit {width} characters: {', '.join(left_out)}; "
                "--format md, html or json show every column)",
                highlight=False,
                markup=False,
            )
        for note in plain.notes:
            console.print(note, highlight=False, markup=False)
    for line in legend(report):
        console.print(line, style="dim", highlight=False, markup=False)


def to_text(report: Report, width: int = 80) -> str:
    """The text report without colours, in ``width`` columns."""
    buffer = io.StringIO()
    render_text(report, Console(file=buffer, width=width, color_system=None, soft_wrap=True))
    return buffer.getvalue()


# -- Markdown and HTML ----------------------------------------------------------------


def to_markdown(report: Report) -> str:
    out = [f"# {report.title}", ""]
    out.extend(f"{line}  " for line in summary_lines(report))
    for plain in layout(report):
        out += [
            "",
            f"## {plain.title}",
            "",
            "| " + " | ".join(_md(h) for h in plain.headers) + " |",
            "|" + "|".join("---:" if c.align == "right" else ":---" for c in plain.columns) + "|",
        ]
        out += ["| " + " | ".join(_md(cell) for cell in row) + " |" for row in plain.rows]
        out += ["", *(f"{note}  " for note in plain.notes)] if plain.notes else []
    out += ["", "## what the numbers mean", ""]
    out += [f"* {line}" for line in legend(report)]
    return "\n".join(out) + "\n"


def _md(cell: str) -> str:
    return cell.replace("|", "\\|")


HTML_STYLE = (
    "body{font-family:sans-serif;max-width:75em}table{border-collapse:collapse;margin:1em 0}"
    "td,th{border:1px solid #ccc;padding:2px 8px}.left{text-align:left}"
    ".right{text-align:right;font-variant-numeric:tabular-nums}"
    "caption{text-align:left;font-weight:bold}img{max-width:100%}"
)


def to_html(report: Report, plot: bytes | None = None) -> str:
    """A standalone page; ``plot`` (a PNG) is embedded in it."""
    esc = html.escape
    parts = [
        "<!doctype html>",
        '<html><head><meta charset="utf-8">',
        f"<title>{esc(report.title)}</title>",
        f"<style>{HTML_STYLE}</style></head><body>",
        f"<h1>{esc(report.title)}</h1>",
    ]
    parts += [f"<p>{esc(line)}</p>" for line in summary_lines(report)]
    if plot is not None:
        encoded = base64.b64encode(plot).decode("ascii")
        parts.append(
            f'<figure><img src="data:image/png;base64,{encoded}" '
            'alt="ratings with 95% intervals and head-to-head scores"></figure>'
        )
    for plain in layout(report):
        parts.append(f"<table><caption>{esc(plain.title)}</caption><thead><tr>")
        parts += [f'<th class="{c.align}">{esc(c.header)}</th>' for c in plain.columns]
        parts.append("</tr></thead><tbody>")
        for row in plain.rows:
            cells = "".join(
                f'<td class="{column.align}">{esc(cell)}</td>'
                for column, cell in zip(plain.columns, row, strict=True)
            )
            parts.append(f"<tr>{cells}</tr>")
        parts.append("</tbody></table>")
        parts += [f"<p>{esc(note)}</p>" for note in plain.notes]
    parts.append("<h2>What the numbers mean</h2><ul>")
    parts += [f"<li>{esc(line)}</li>" for line in legend(report)]
    parts.append("</ul></body></html>")
    return "\n".join(parts) + "\n"


# -- numbers: CSV and JSON ------------------------------------------------------------

CSV_COLUMNS = (
    "rank",
    "bot",
    "elo",
    "elo_low",
    "elo_high",
    "los_next",
    "within_noise",
    "games",
    "wins",
    "draws",
    "losses",
    "score_percent",
    "mean_place",
    "mean_score",
    "win_rate",
    "win_rate_low",
    "win_rate_high",
    "openskill_mu",
    "openskill_sigma",
    *(f"forfeits_{reason}" for reason in (*FORFEIT_REASONS, OTHER_REASON)),
    "unplayed",
    "host_faults",
    "suspended",
)


def standings_records(report: Report) -> list[dict[str, Any]]:
    """One record of numbers per bot, best first (the CSV's rows, the JSON's bots)."""
    records = []
    for rank, line in enumerate(report.lines, start=1):
        tally = line.tally
        records.append(
            {
                "rank": rank,
                "bot": line.label,
                "elo": line.elo,
                "elo_low": line.elo_low,
                "elo_high": line.elo_high,
                "los_next": line.los_next,
                "within_noise": line.within_noise if line.los_next is not None else None,
                "games": tally.games,
                "wins": tally.wins,
                "draws": tally.draws,
                "losses": tally.losses,
                "score_percent": tally.score_percent,
                "mean_place": tally.mean_place,
                "mean_score": tally.mean_score,
                "win_rate": tally.win_rate if report.solitaire else None,
                "win_rate_low": line.win_rate_low,
                "win_rate_high": line.win_rate_high,
                "openskill_mu": line.openskill_mu,
                "openskill_sigma": line.openskill_sigma,
                **{
                    f"forfeits_{reason}": tally.forfeits.get(reason, 0)
                    for reason in (*FORFEIT_REASONS, OTHER_REASON)
                },
                "unplayed": tally.unplayed,
                "host_faults": tally.host_faults,
                "suspended": line.suspended is not None,
            }
        )
    return records


def _csv_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "" if not math.isfinite(value) else f"{value:.6g}"
    return str(value)


def to_csv(report: Report) -> str:
    """The standings as CSV: one row per bot, numbers only, an empty cell where a
    figure does not apply (see :data:`CSV_COLUMNS`)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for record in standings_records(report):
        writer.writerow([_csv_cell(record[column]) for column in CSV_COLUMNS])
    return buffer.getvalue()


def _tournament_data(report: Report) -> dict[str, Any] | None:
    info = report.tournament
    if info is None:
        return None
    return {
        "id": info.id,
        "name": info.name,
        "type": info.type,
        "game": info.game,
        "options": info.options,
        "variant": info.variant,
        "seats": info.seats,
        "bots": [{"bot": p.label, "role": p.role, "suspended": p.suspended} for p in info.bots],
        "games_per_table": info.games_per_table,
        "seed": info.seed,
        "seed_commitment": info.seed_commitment,
        "time_control": {
            "per_move": info.time_per_move,
            "per_game": info.time_per_game,
            "each": info.config.get("each"),
            "per_bot": info.config.get("time_controls") or {},
            "text": info.time_control,
            "class": str(info.time_class),
        },
        "status": info.status,
        "scheduled": info.scheduled,
        "message": info.message,
        "created": info.created.isoformat(),
        "started": None if info.started is None else info.started.isoformat(),
        "finished": None if info.finished is None else info.finished.isoformat(),
        "config": info.config,
    }


def _sprt_data(report: Report) -> dict[str, Any] | None:
    test = report.sprt
    if test is None:
        return None
    result = test.result
    return {
        "candidate": test.candidate,
        "baseline": test.baseline,
        "elo0": result.settings.elo0,
        "elo1": result.settings.elo1,
        "alpha": result.settings.alpha,
        "beta": result.settings.beta,
        "llr": result.llr,
        "lower_bound": result.lower_bound,
        "upper_bound": result.upper_bound,
        "decision": result.decision.value,
        "pairs": test.pairs,
        "games": test.games_in_test,
        "games_after_decision": test.games_after,
        "pentanomial": list(result.counts.counts())
        if isinstance(result.counts, Pentanomial)
        else None,
        "normalized_elo": None if test.estimate is None else test.estimate.elo,
        "normalized_error": None if test.estimate is None else test.estimate.error,
        "summary": test.description,
    }


def to_data(report: Report) -> dict[str, Any]:
    """Machine-readable numbers (not the formatted strings)."""
    scope = report.scope
    return {
        "title": report.title,
        "game": report.game,
        "seats": report.seats,
        "type": report.type,
        "tournament": _tournament_data(report),
        "leaderboard": None
        if scope is None
        else {
            "seats": scope.seats,
            "time_class": str(scope.time_class),
            "variant": scope.variant,
            "tournaments": scope.tournaments,
            "others": [
                {
                    "seats": seats,
                    "time_class": str(time_class),
                    "variant": rules,
                    "games": count,
                }
                for (seats, time_class, rules), count in scope.others.items()
            ],
        },
        "games": report.games,
        "stored": report.stored,
        "unplayed": report.counted[Standing.UNPLAYED],
        "host_faults": report.counted[Standing.HOST_FAULT],
        "notes": report.notes,
        "disagreements": report.disagreements,
        "legend": legend(report),
        "bots": [
            {**record, "forfeits": dict(line.tally.forfeits)}
            for record, line in zip(standings_records(report), report.lines, strict=True)
        ],
        "head_to_head": [
            {"bot": a, "opponent": b, "games": cell.games, "points": cell.points}
            for (a, b), cell in sorted(report.crosstable.items())
        ],
        "los": [
            {"bot": a, "opponent": b, "los": value} for (a, b), value in sorted(report.los.items())
        ],
        "pairs": [
            {
                "first": pair.first,
                "second": pair.second,
                "trinomial": [
                    pair.statistics.trinomial.wins,
                    pair.statistics.trinomial.draws,
                    pair.statistics.trinomial.losses,
                ],
                "pentanomial": list(pair.statistics.pentanomial.counts()),
                "normalized_elo": pair.normalized_elo,
                "normalized_error": pair.normalized_error,
            }
            for pair in report.pairs
        ],
        "sprt": _sprt_data(report),
    }


def _finite(value: Any) -> Any:
    """JSON has no NaN or infinity: they become null."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_finite(item) for item in value]
    return value


def to_json(report: Report) -> str:
    return (
        json.dumps(_finite(to_data(report)), indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    )
