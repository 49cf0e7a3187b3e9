import time


class SlowMover:
    """Thinks 0.7 s on its first two moves of every game: too slow for blitz (0.5 s a
    move), fine for rapid (5 s)."""

    moves = 0

    def act(self, observation, legal_actions, time_left):
        self.moves += 1
        if self.moves <= 2:
            time.sleep(0.7)
        return legal_actions[0]
