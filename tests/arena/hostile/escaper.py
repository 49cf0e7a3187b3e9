import os
import time


class Escaper:
    """Leaves a sleeping process behind in a session of its own, then plays on."""

    def new_game(self, info):
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                time.sleep(10**6)
            os._exit(0)

    def act(self, observation, legal_actions, time_left):
        return legal_actions[0]
