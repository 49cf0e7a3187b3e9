"""Train a small Königsgarten policy against a fixed bot and write it out as a bot file.

    python -m bots.examples.rl.train_koenigsgarten --episodes 3000 --out learned.py
    arena bots add learned --game koenigsgarten --python learned.py:LearnedKoenigsgarten
    arena tournament run --game koenigsgarten -b learned -b random -b greedy --games 200

The learner plays through the Gymnasium environment ``bots.envs.versus_bots_env`` (its
seat changes with the deal), choosing among the legal cards of ``info["action_mask"]``
with a softmax over a linear score of what taking each card does
(:mod:`bots.examples.rl.koenigsgarten_policy`). It learns by REINFORCE: after each game
the weights move along the log-probability gradient of the cards it took, scaled by the
game's return (+1 won, 0 drawn, -1 lost) less a running average. A few thousand games
take seconds on one core; the weights start at zero, i.e. at a uniformly random player.
Needs the rl extra (pettingzoo, gymnasium).
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bots.envs import versus_bots_env
from bots.examples.rl import koenigsgarten_policy as policy
from engines.envs import SingleAgentEnv

Weights = npt.NDArray[np.float64]
_WEIGHTS_LINE = re.compile(r"^WEIGHTS: tuple\[float, \.\.\.\] = .*$", re.M)


@dataclass(frozen=True)
class Record:
    """Games won, drawn and lost by the learner."""

    won: int
    drawn: int
    lost: int

    @property
    def games(self) -> int:
        return self.won + self.drawn + self.lost

    @property
    def score(self) -> float:
        """Points per game: a win 1, a draw ½."""
        return (self.won + self.drawn / 2) / self.games

    def __str__(self) -> str:
        return f"{self.won} won, {self.drawn} drawn, {self.lost} lost (score {self.score:.1%})"


def _choices(
    environment: SingleAgentEnv, info: dict[str, Any]
) -> tuple[npt.NDArray[np.intp], Weights]:
    """The legal action numbers and a row of features for each."""
    legal = np.flatnonzero(info["action_mask"])
    texts = environment.game_spec.actions.texts
    rows = [policy.features(info["observation"], texts[number]) for number in legal]
    return legal, np.array(rows)


def train(
    episodes: int,
    *,
    seed: int = 0,
    opponent: str = "random",
    learning_rate: float = 0.1,
    report_every: int = 0,
) -> Weights:
    """Weights learned in ``episodes`` games against ``opponent`` (a built-in kind)."""
    environment = versus_bots_env("koenigsgarten", [opponent])
    rng = np.random.default_rng(seed)
    weights = np.zeros(len(policy.FEATURES))
    baseline = 0.0
    results: list[float] = []
    _, info = environment.reset(seed=seed)
    for episode in range(episodes):
        if episode:
            _, info = environment.reset()
        gradient = np.zeros_like(weights)
        finished, reward = False, 0.0
        while not finished:
            legal, rows = _choices(environment, info)
            logits = rows @ weights
            probabilities = np.exp(logits - logits.max())
            probabilities /= probabilities.sum()
            chosen = rng.choice(len(legal), p=probabilities)
            gradient += rows[chosen] - probabilities @ rows
            _, reward, finished, _, info = environment.step(int(legal[chosen]))
        weights += learning_rate * (reward - baseline) * gradient
        baseline += 0.05 * (reward - baseline)
        results.append(reward)
        if report_every and (episode + 1) % report_every == 0:
            recent = results[-report_every:]
            print(
                f"games {episode + 1 - report_every + 1}–{episode + 1}: "
                f"{sum(r > 0 for r in recent)} won, {sum(r < 0 for r in recent)} lost"
            )
    return weights


def evaluate(weights: Weights, games: int, *, seed: int, opponent: str = "random") -> Record:
    """Play ``games`` games as the bot would (the best-scoring card, no sampling)."""
    environment = versus_bots_env("koenigsgarten", [opponent])
    outcomes = []
    for game in range(games):
        _, info = environment.reset(seed=seed) if game == 0 else environment.reset()
        finished, reward = False, 0.0
        while not finished:
            legal, rows = _choices(environment, info)
            _, reward, finished, _, info = environment.step(int(legal[np.argmax(rows @ weights)]))
        outcomes.append(reward)
    return Record(
        sum(r > 0 for r in outcomes), sum(r == 0 for r in outcomes), sum(r < 0 for r in outcomes)
    )


def bot_source(weights: Weights) -> str:
    """The policy module's code with ``weights`` as its WEIGHTS: a bot file."""
    template = Path(policy.__file__).read_text(encoding="utf-8")
    numbers = ", ".join(f"{w:.4f}" for w in weights)
    line = f"WEIGHTS: tuple[float, ...] = ({numbers})"
    source, count = _WEIGHTS_LINE.subn(line, template)
    assert count == 1, "the policy module must define WEIGHTS on one line"
    return source


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=3000, help="training games")
    parser.add_argument("--seed", type=int, default=0, help="seeds the deals and the sampling")
    parser.add_argument("--opponent", default="random", help="the built-in bot to train against")
    parser.add_argument("--eval-games", type=int, default=400, help="games to evaluate on")
    parser.add_argument("--out", type=Path, default=Path("learned_koenigsgarten.py"))
    args = parser.parse_args(argv)
    if args.episodes < 1 or args.eval_games < 1:
        parser.error("--episodes and --eval-games must be at least 1")
    untrained = evaluate(np.zeros(len(policy.FEATURES)), args.eval_games, seed=args.seed + 1)
    weights = train(
        args.episodes,
        seed=args.seed,
        opponent=args.opponent,
        report_every=max(1, args.episodes // 5),
    )
    trained = evaluate(weights, args.eval_games, seed=args.seed + 1, opponent=args.opponent)
    print(f"before training, against {args.opponent}: {untrained}")
    print(f"after {args.episodes} games, against {args.opponent}: {trained}")
    for name, value in zip(policy.FEATURES, weights, strict=True):
        print(f"  {name:>18} {value:+.3f}")
    args.out.write_text(bot_source(weights), encoding="utf-8")
    print(f"wrote {args.out}; register it with")
    print(f"  arena bots add learned --game koenigsgarten --python {args.out}:LearnedKoenigsgarten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
