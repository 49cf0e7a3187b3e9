"""The report as a picture: ratings with error bars and a head-to-head heat map."""

from __future__ import annotations

from pathlib import Path

from arena.errors import ArenaError
from arena.report import Report


def plot_report(report: Report, path: Path) -> None:
    """Draw ``report`` into a PNG (headless).

    Raises:
        ArenaError: the file cannot be written.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    lines = [line for line in report.lines if line.elo is not None]
    labels = report.labels
    with_matrix = len(labels) > 1 and not report.solitaire
    figure, axes = plt.subplots(
        1,
        2 if with_matrix else 1,
        figsize=(13 if with_matrix else 7, max(3.0, 0.5 * len(labels) + 2)),
    )
    rating_axes = axes[0] if with_matrix else axes
    if lines:
        names = [line.label for line in lines][::-1]
        values = np.array([line.elo for line in lines][::-1], dtype=float)
        low = np.array([line.elo_low for line in lines][::-1], dtype=float)
        high = np.array([line.elo_high for line in lines][::-1], dtype=float)
        rating_axes.errorbar(
            values, range(len(names)), xerr=[values - low, high - values], fmt="o", capsize=4
        )
        rating_axes.set_yticks(range(len(names)), names)
        rating_axes.axvline(0.0, color="grey", linewidth=0.5)
        rating_axes.set_xlabel("Elo (95% interval)")
    else:
        rating_axes.text(0.5, 0.5, "no Elo fit", ha="center", va="center")
    rating_axes.set_title("duplicate Elo" if report.solitaire else "ratings")
    if with_matrix:
        size = len(labels)
        matrix = np.full((size, size), np.nan)
        for i, a in enumerate(labels):
            for j, b in enumerate(labels):
                cell = report.crosstable.get((a, b))
                if cell is not None and cell.percent is not None:
                    matrix[i, j] = cell.percent
        image = axes[1].imshow(matrix, cmap="RdYlGn", vmin=0, vmax=100)
        axes[1].set_xticks(range(size), labels, rotation=45, ha="right")
        axes[1].set_yticks(range(size), labels)
        for i in range(size):
            for j in range(size):
                if not np.isnan(matrix[i, j]):
                    axes[1].text(j, i, f"{matrix[i, j]:.0f}", ha="center", va="center", fontsize=8)
        axes[1].set_title("head to head: row's score %")
        figure.colorbar(image, ax=axes[1])
    figure.suptitle(report.title)
    figure.tight_layout()
    try:
        figure.savefig(path, dpi=110)
    except OSError as exc:
        raise ArenaError(f"cannot write plot {str(path)!r}: {exc.strerror or exc}") from None
    finally:
        plt.close(figure)
