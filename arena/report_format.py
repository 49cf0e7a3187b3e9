"""Rendering a :class:`~arena.report.Report`: text, Markdown, HTML, JSON, CSV.

The report is first laid out as plain tables of strings (:func:`layout`); each format
only decides how to draw them, so all formats show the same figures.
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.table import Table

from arena.report import BotLine, Report

FORMATS = ("text", "md", "html", "json", "csv")


@dataclass(frozen=True)
class PlainTable:
    title: str
    headers: list[str]
    rows: list[list[str]]


def _elo(line: BotLine) -> str:
    """``+120 ± 35`` for a symmetric interval, ``+120 [+90, +160]`` otherwise."""
    if line.elo is None or line.elo_low is None or line.elo_high is None:
        return "—"
    below, above = line.elo - line.elo_low, line.elo_high - line.elo
    if abs(below - above) < 1.0:
        return f"{line.elo:+.0f} ± {(below + above) / 2:.0f}"
    return f"{line.elo:+.0f} [{line.elo_low:+.0f}, {line.elo_high:+.0f}]"


def _forfeits(line: BotLine) -> str:
    if not line.forfeits:
        return "—"
    return ", ".join(
        f"{count} {reason.replace('_', ' ')}" for reason, count in sorted(line.forfeits.items())
    )


def standings(report: Report) -> PlainTable:
    """The main table: one row per bot, best first."""
    if report.solitaire:
        headers = [
            "#",
            "bot",
            "dup. Elo (95%)",
            "games",
            "wins",
            "win rate",
            "95% Wilson",
            "mean score",
            "forfeits",
        ]
        rows = [
            [
                str(rank),
                line.label,
                _elo(line),
                str(line.games),
                str(line.solitaire_wins),
                f"{100 * line.win_rate:.1f}%",
                "—"
                if line.win_rate_low is None or line.win_rate_high is None
                else f"[{100 * line.win_rate_low:.1f}%, {100 * line.win_rate_high:.1f}%]",
                f"{line.mean_score:.2f}",
                _forfeits(line),
            ]
            for rank, line in enumerate(report.lines, start=1)
        ]
    elif report.seats == 2:
        headers = ["#", "bot", "Elo (95%)", "games", "W-D-L", "score %", "forfeits"]
        rows = [
            [
                str(rank),
                line.label,
                _elo(line),
                str(line.games),
                f"{line.wins}-{line.draws}-{line.losses}",
                f"{line.score_percent:.1f}",
                _forfeits(line),
            ]
            for rank, line in enumerate(report.lines, start=1)
        ]
    else:
        headers = [
            "#",
            "bot",
            "Elo (95%)",
            "OpenSkill μ ± σ",
            "games",
            "mean place",
            "score %",
            "forfeits",
        ]
        rows = [
            [
                str(rank),
                line.label,
                _elo(line),
                "—"
                if line.openskill_mu is None
                else f"{line.openskill_mu:.1f} ± {line.openskill_sigma or 0:.1f}",
                str(line.games),
                f"{line.mean_place:.2f}",
                f"{line.score_percent:.1f}",
                _forfeits(line),
            ]
            for rank, line in enumerate(report.lines, start=1)
        ]
    return PlainTable("standings", headers, rows)


def crosstable(report: Report) -> PlainTable:
    """Row bot's score % against each column bot (games in parentheses)."""
    labels = report.labels
    rows = []
    for a in labels:
        cells = [a]
        for b in labels:
            cell = report.crosstable.get((a, b))
            cells.append(
                "·"
                if a == b or cell is None or cell.percent is None
                else f"{cell.percent:.0f}% ({cell.games})"
            )
        rows.append(cells)
    return PlainTable("head to head (row's score %)", ["", *labels], rows)


def los_table(report: Report) -> PlainTable:
    labels = report.labels
    rows = [
        [a, *("·" if a == b else f"{100 * report.los.get((a, b), 0.5):.0f}" for b in labels)]
        for a in labels
    ]
    return PlainTable(
        "likelihood of superiority (%, row stronger than column)", ["", *labels], rows
    )


def pairs_table(report: Report) -> PlainTable:
    rows = []
    for pair in report.pairs:
        tri = pair.statistics.trinomial
        penta = pair.statistics.pentanomial
        rows.append(
            [
                f"{pair.first} vs {pair.second}",
                f"{tri.wins}-{tri.draws}-{tri.losses}",
                " ".join(str(c) for c in penta.counts()) if penta.pairs else "—",
                "— (all results equal)"
                if pair.normalized_elo is None
                else f"{pair.normalized_elo:+.1f} ± {pair.normalized_error or math.nan:.1f}",
            ]
        )
    return PlainTable(
        "paired games (first's view)",
        ["pairing", "W-D-L", "pentanomial LL LD WL+DD WD WW", "normalised Elo"],
        rows,
    )


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


def summary_lines(report: Report) -> list[str]:
    lines = [
        f"{report.game}, {report.format}: {report.games} games"
        + (f" of {report.scheduled} scheduled" if report.scheduled is not None else "")
        + (f", {report.status}" if report.status else "")
    ]
    if report.message:
        lines.append(report.message)
    if report.sprt is not None:
        s = report.sprt
        lines.append(
            f"SPRT elo0={s.settings.elo0:g} elo1={s.settings.elo1:g} α={s.settings.alpha:g} "
            f"β={s.settings.beta:g}: LLR {s.llr:.2f} in [{s.lower_bound:.2f}, "
            f"{s.upper_bound:.2f}] → {s.decision.value}"
        )
    if report.errors:
        lines.append(f"{report.errors} games ended in an engine error and are not rated")
    lines.extend(report.notes)
    return lines


def render_text(report: Report, console: Console) -> None:
    console.print(f"[bold]{report.title}[/]")
    for line in summary_lines(report):
        console.print(line, highlight=False, markup=False)
    for plain in layout(report):
        table = Table(title=plain.title, title_justify="left")
        for index, header in enumerate(plain.headers):
            table.add_column(header, justify="left" if index <= 1 else "right", no_wrap=index == 1)
        for row in plain.rows:
            table.add_row(*row)
        console.print(table)


def to_markdown(report: Report) -> str:
    out = [f"# {report.title}", ""]
    out.extend(f"{line}  " for line in summary_lines(report))
    for plain in layout(report):
        out += [
            "",
            f"## {plain.title}",
            "",
            "| " + " | ".join(plain.headers) + " |",
            "|" + "|".join("---" for _ in plain.headers) + "|",
        ]
        out += [
            "| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in plain.rows
        ]
    return "\n".join(out) + "\n"


def to_html(report: Report) -> str:
    esc = html.escape
    parts = [
        "<!doctype html>",
        '<html><head><meta charset="utf-8">',
        f"<title>{esc(report.title)}</title>",
        "<style>body{font-family:sans-serif}table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}"
        "td:nth-child(2),th:nth-child(2){text-align:left}</style></head><body>",
        f"<h1>{esc(report.title)}</h1>",
    ]
    parts += [f"<p>{esc(line)}</p>" for line in summary_lines(report)]
    for plain in layout(report):
        parts.append(f"<h2>{esc(plain.title)}</h2><table><thead><tr>")
        parts += [f"<th>{esc(h)}</th>" for h in plain.headers]
        parts.append("</tr></thead><tbody>")
        for row in plain.rows:
            parts.append("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>")
        parts.append("</tbody></table>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def to_csv(report: Report) -> str:
    """The standings table as CSV."""
    plain = standings(report)
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(plain.headers)
    writer.writerows(plain.rows)
    return buffer.getvalue()


def to_data(report: Report) -> dict[str, Any]:
    """Machine-readable numbers (not the formatted strings)."""
    return {
        "title": report.title,
        "game": report.game,
        "seats": report.seats,
        "format": report.format,
        "games": report.games,
        "scheduled": report.scheduled,
        "status": report.status,
        "message": report.message,
        "notes": report.notes,
        "engine_errors": report.errors,
        "bots": [
            {
                "rank": rank,
                "bot": line.label,
                "elo": line.elo,
                "elo_low": line.elo_low,
                "elo_high": line.elo_high,
                "games": line.games,
                "wins": line.wins if report.seats == 2 else line.solitaire_wins,
                "draws": line.draws,
                "losses": line.losses,
                "mean_place": line.mean_place,
                "score_percent": line.score_percent,
                "mean_score": line.mean_score,
                "openskill_mu": line.openskill_mu,
                "openskill_sigma": line.openskill_sigma,
                "win_rate_low": line.win_rate_low,
                "win_rate_high": line.win_rate_high,
                "forfeits": dict(line.forfeits),
            }
            for rank, line in enumerate(report.lines, start=1)
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
        "sprt": None
        if report.sprt is None
        else {
            "llr": report.sprt.llr,
            "lower_bound": report.sprt.lower_bound,
            "upper_bound": report.sprt.upper_bound,
            "decision": report.sprt.decision.value,
        },
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
