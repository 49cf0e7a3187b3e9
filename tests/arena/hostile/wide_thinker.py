import os
import time

CHILDREN = 3
THINK_SECONDS = 1.5


class WideThinker:
    """Thinks its first move with four processes at once: three children that spin
    forever and itself, spinning for 1.5 s before it answers."""

    def __init__(self):
        self.started = False

    def act(self, observation, legal_actions, time_left):
        if not self.started:
            self.started = True
            for _ in range(CHILDREN):
                if os.fork() == 0:
                    while True:
                        pass
            end = time.monotonic() + THINK_SECONDS
            while time.monotonic() < end:
                pass
        return legal_actions[0]
