"""At the end of each game, changes what it can of its zygote from outside: ``how`` is
its constructor's parameter. The sandbox's /proc does not show the zygote to a game,
so it tries every low process id of its PID namespace but its own (the zygote's is one
of them; the others belong to the arena and refuse)."""

import contextlib
import fcntl
import os
import resource
import signal

TARGETS = range(2, 10)


class Tamper:
    def __init__(self, how="nice"):
        self.how = how

    def act(self, observation, legal_actions, time_left):
        return legal_actions[0]

    def game_over(self, outcome):
        if self.how == "flags":
            flags = fcntl.fcntl(0, fcntl.F_GETFL)
            fcntl.fcntl(0, fcntl.F_SETFL, flags | os.O_NONBLOCK)
            return
        for target in TARGETS:
            if target != os.getpid():
                with contextlib.suppress(OSError):
                    self._tamper(target)

    def _tamper(self, target):
        if self.how == "nice":
            os.setpriority(os.PRIO_PROCESS, target, 19)
        elif self.how == "limit":
            resource.prlimit(target, resource.RLIMIT_NOFILE, (100, 100))
        elif self.how == "affinity":
            os.sched_setaffinity(target, {0})
        elif self.how == "wake":
            os.kill(target, signal.SIGCONT)
        elif self.how == "signal":
            os.kill(target, signal.SIGUSR1)
