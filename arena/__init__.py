"""arena: tournaments and ratings for bots playing card games."""

from typing import Any

__version__ = "0.1.0"


def run(game: str, agents: Any, **keywords: Any) -> Any:
    """Play one game in a notebook: see :func:`arena.notebook.run` (imported on first
    use, so ``import arena`` stays light)."""
    from arena.notebook import run as play

    return play(game, agents, **keywords)
