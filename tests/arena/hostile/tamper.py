"""At the end of each game, changes what it can of its zygote (process 2 of its PID
namespace, the parent of none of its processes) from outside: ``how`` is its
constructor's parameter."""

import fcntl
import os
import resource
import signal

ZYGOTE = 2


class Tamper:
    def __init__(self, how="nice"):
        self.how = how

    def act(self, observation, legal_actions, time_left):
        return legal_actions[0]

    def game_over(self, outcome):
        if self.how == "nice":
            os.setpriority(os.PRIO_PROCESS, ZYGOTE, 19)
        elif self.how == "limit":
            resource.prlimit(ZYGOTE, resource.RLIMIT_NOFILE, (100, 100))
        elif self.how == "affinity":
            os.sched_setaffinity(ZYGOTE, {0})
        elif self.how == "wake":
            os.kill(ZYGOTE, signal.SIGCONT)
        elif self.how == "flags":
            flags = fcntl.fcntl(0, fcntl.F_GETFL)
            fcntl.fcntl(0, fcntl.F_SETFL, flags | os.O_NONBLOCK)
        elif self.how == "signal":
            os.kill(ZYGOTE, signal.SIGUSR1)
