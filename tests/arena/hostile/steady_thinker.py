import time

CPU_PER_MOVE = 0.1


class SteadyThinker:
    """A fair bot: thinks for 0.1 s of its own CPU time on every move."""

    def act(self, observation, legal_actions, time_left):
        until = time.process_time() + CPU_PER_MOVE
        while time.process_time() < until:
            pass
        return legal_actions[0]
