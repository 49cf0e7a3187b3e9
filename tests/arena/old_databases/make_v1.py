"""Makes ``v1.db``: a database as the first release with migrations wrote it (commit
e6cda5b, schema 1, the oldest schema arena migrates), for the upgrade tests.

Run with that release's code, not this one's::

    git worktree add --detach /tmp/old e6cda5b
    cd /tmp/old && PYTHONPATH=$PWD python $THIS /tmp/v1.db && sqlite3 /tmp/v1.db vacuum

That release had Königsgarten only. The database holds a submitted bot named like a
built-in (``greedy``, which migration 5 renames ``greedy.submitted``), a built-in with
parameters, since retired, and a round robin and a gauntlet with their games.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BOT = """from bots.base import Bot


class First(Bot):
    def act(self, observation, legal_actions, time_left):
        return legal_actions[0]
"""


def arena(*args: str, db: str) -> None:
    subprocess.run([sys.executable, "-m", "arena", *args, "--db", db], check=True)


def main(db: str) -> None:
    bot = Path(db).parent / "first_bot.py"
    bot.write_text(BOT)
    arena("bots", "add", "greedy", "-g", "koenigsgarten", "--python", f"{bot}:First", db=db)
    arena(
        "bots", "add", "rnd2", "-g", "koenigsgarten", "--builtin", "random", "-p", "seed=3", db=db
    )
    run = ["tournament", "run", "--game", "koenigsgarten", "--executor", "local"]
    arena(
        *run,
        "--format",
        "round-robin",
        "-b",
        "random",
        "-b",
        "greedy",
        "-b",
        "first-legal",
        "-b",
        "rnd2",
        "--games",
        "10",
        "--seed",
        "7",
        db=db,
    )
    arena(
        *run,
        "--format",
        "gauntlet",
        "--candidate",
        "greedy",
        "--opponent",
        "random",
        "--opponent",
        "first-legal",
        "--games",
        "6",
        "--seed",
        "8",
        db=db,
    )
    arena("bots", "remove", "rnd2", db=db)


if __name__ == "__main__":
    main(sys.argv[1])
