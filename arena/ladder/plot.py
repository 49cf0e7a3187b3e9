"""A bot's ladder rating history as a picture: its Elo over time with the 95% band, one
line per ladder it plays (``arena bots show NAME --plot``, the bot's web page)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.store.models import Ladder, LadderRating


def history_png(label: str, histories: Sequence[tuple[Ladder, Sequence[LadderRating]]]) -> bytes:
    """Draw the histories (headless) and return the PNG's bytes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(8, 4))
    try:
        for ladder, rows in histories:
            moments: Any = [row.at for row in rows]  # matplotlib takes datetimes
            name = f"{ladder.game} {ladder.time_class}, {ladder.seats} seats"
            line = axes.plot(
                moments,
                [row.rating for row in rows],
                marker=".",
                drawstyle="steps-post",
                label=name,
            )[0]
            axes.fill_between(
                moments,
                [row.lower for row in rows],
                [row.upper for row in rows],
                step="post",
                alpha=0.2,
                color=line.get_color(),
            )
        if not histories:
            axes.text(0.5, 0.5, "no ladder games yet", ha="center", va="center")
        else:
            axes.legend(loc="best", fontsize="small")
        axes.set_ylabel("Elo (95% interval)")
        axes.set_title(f"{label}: ladder rating")
        figure.autofmt_xdate()
        figure.tight_layout()
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=100)
        return buffer.getvalue()
    finally:
        plt.close(figure)


def write_history_plot(
    path: Path, label: str, histories: Sequence[tuple[Ladder, Sequence[LadderRating]]]
) -> None:
    """Raises ArenaError when the file cannot be written."""
    data = history_png(label, histories)
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise ArenaError(f"cannot write plot {str(path)!r}: {exc.strerror or exc}") from None
