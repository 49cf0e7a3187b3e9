"""The report as a picture: ratings with error bars and a head-to-head heat map; for a
patience, the win rates with their Wilson intervals beside the duplicate Elo."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.optional import require
from arena.report.build import BotLine, Report


def plot_png(report: Report) -> bytes:
    """Draw ``report`` as a PNG (headless) and return its bytes.

    Raises:
        MissingExtraError: matplotlib (the extra ``plot``) is not installed.
    """
    require("matplotlib", extra="plot")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = report.labels
    with_matrix = len(labels) > 1 and not report.solitaire
    panels = 2 if with_matrix or report.solitaire else 1
    figure, axes = plt.subplots(
        1,
        panels,
        figsize=(13 if panels == 2 else 7, max(3.0, 0.5 * len(labels) + 2)),
        squeeze=False,
    )
    try:
        _intervals(
            axes[0][0],
            [line for line in report.lines if line.elo is not None],
            lambda line: (line.elo, line.elo_low, line.elo_high),
            "Elo (95% interval)",
        )
        axes[0][0].set_title("duplicate Elo" if report.solitaire else "ratings")
        if report.solitaire:
            _intervals(
                axes[0][1],
                [line for line in report.lines if line.win_rate_low is not None],
                lambda line: (
                    100 * line.tally.win_rate,
                    100 * (line.win_rate_low or 0.0),
                    100 * (line.win_rate_high or 0.0),
                ),
                "win rate, % (95% Wilson interval)",
            )
            axes[0][1].set_title("win rate")
        elif with_matrix:
            _heat_map(axes[0][1], figure, report)
        figure.suptitle(report.title)
        figure.tight_layout()
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=110)
        return buffer.getvalue()
    finally:
        plt.close(figure)


def _intervals(axes: Any, lines: list[BotLine], value: Any, label: str) -> None:
    """A dot per bot with its interval as an error bar, best at the top."""
    import numpy as np

    if not lines:
        axes.text(0.5, 0.5, "no fit", ha="center", va="center")
        return
    names = [line.label for line in lines][::-1]
    points = np.array([value(line) for line in lines][::-1], dtype=float)
    middle, low, high = points[:, 0], points[:, 1], points[:, 2]
    axes.errorbar(middle, range(len(names)), xerr=[middle - low, high - middle], fmt="o", capsize=4)
    axes.set_yticks(range(len(names)), names)
    axes.set_xlabel(label)


def _heat_map(axes: Any, figure: Any, report: Report) -> None:
    import numpy as np

    labels = report.labels
    size = len(labels)
    matrix = np.full((size, size), np.nan)
    for i, a in enumerate(labels):
        for j, b in enumerate(labels):
            cell = report.crosstable.get((a, b))
            if cell is not None and cell.percent is not None:
                matrix[i, j] = cell.percent
    image = axes.imshow(matrix, cmap="RdYlGn", vmin=0, vmax=100)
    axes.set_xticks(range(size), labels, rotation=45, ha="right")
    axes.set_yticks(range(size), labels)
    for i in range(size):
        for j in range(size):
            if not np.isnan(matrix[i, j]):
                axes.text(j, i, f"{matrix[i, j]:.0f}", ha="center", va="center", fontsize=8)
    axes.set_title("head to head: row's score %")
    figure.colorbar(image, ax=axes)


def plot_report(report: Report, path: Path) -> None:
    """Draw ``report`` into a PNG file.

    Raises:
        ArenaError: the file cannot be written.
    """
    data = plot_png(report)
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise ArenaError(f"cannot write plot {str(path)!r}: {exc.strerror or exc}") from None
