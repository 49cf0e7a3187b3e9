"""Bots whose import leaves something a game's fork would inherit: a zygote must
refuse to serve them warm (each class is the bot; the import's leftover is chosen by
the module global MODE, which the test writes into the file)."""

import mmap
import os
import threading
import time

MODE = "thread"

if MODE == "thread":
    threading.Thread(target=time.sleep, args=(1000,), daemon=True).start()
elif MODE == "file":
    HELD = open("/tmp/held", "w+")  # noqa: SIM115
elif MODE == "shared":
    SHARED = mmap.mmap(-1, 4096)  # MAP_SHARED, anonymous
elif MODE == "process" and os.fork() == 0:
    time.sleep(1000)
    os._exit(0)


class Leftover:
    def act(self, observation, legal_actions, time_left):
        return legal_actions[0]
