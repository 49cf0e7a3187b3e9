import contextlib
import os

CHILDREN = 60


class BusyChildren:
    """Answers at once, but on its first move starts 60 processes that spin forever."""

    def __init__(self):
        self.started = False

    def act(self, observation, legal_actions, time_left):
        if not self.started:
            self.started = True
            for _ in range(CHILDREN):
                with contextlib.suppress(OSError):
                    if os.fork() == 0:
                        while True:
                            pass
        return legal_actions[0]
