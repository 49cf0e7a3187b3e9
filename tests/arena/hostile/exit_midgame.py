import os


class ExitMidgame:
    """Plays one move, then exits in the middle of the game."""

    moves = 0

    def act(self, observation, legal_actions, time_left):
        self.moves += 1
        if self.moves == 2:
            os._exit(3)
        return legal_actions[0]
