"""Holds memory in several processes at once, each under the per-process limit.

memory_split.py N MIB  forks N children that each fill MIB MiB and keep it, and prints
as one JSON line how many held their share at once and how many died; then waits for
its input to end.
"""

import json
import os
import select
import sys
import time

CHILDREN, MIB = int(sys.argv[1]), int(sys.argv[2])

read_end, write_end = os.pipe()
for _ in range(CHILDREN):
    if os.fork() == 0:
        os.close(read_end)
        block = b"x" * (MIB << 20)
        os.write(write_end, b"1")
        time.sleep(3600 + len(block) % 2)
os.close(write_end)
held = died = 0
deadline = time.monotonic() + 60
while held + died < CHILDREN and time.monotonic() < deadline:
    if select.select([read_end], [], [], 0.05)[0]:
        held += len(os.read(read_end, CHILDREN))
    while died < CHILDREN:
        pid, _ = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            break
        died += 1
print(json.dumps({"held": held, "died": died}), flush=True)
sys.stdin.read()
