"""The embedded demo tournament that ``make demo`` (``arena demo``) runs.

``configs/demo.toml`` holds the same configuration (a test keeps them equal), so the
demo can also be run as ``arena tournament run configs/demo.toml``.
"""

from __future__ import annotations

from typing import Any

DEMO_CONFIG: dict[str, Any] = {
    "name": "demo: Königsgarten round robin",
    "game": "koenigsgarten",
    "format": "round-robin",
    "bots": ["random", "first-legal", "mcts:iterations=200"],
    "games": 40,
    "seed": 2026,
    "executor": "auto",
}
