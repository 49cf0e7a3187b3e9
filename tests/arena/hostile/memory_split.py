"""Holds memory in several processes at once, each under the per-process limit.

memory_split.py N MIB [LIMIT]  forks N children that each fill MIB MiB and keep it, and prints
as one JSON line, once every child has either held its share or died: how many held
it at some time (``held``), how many died (``died``), how many of those are accounted
for (``accounted``, N once all are) and how many hold their share at the end
(``holding``: held and not dead; a child that held may be killed later to make room for
another, so ``held`` alone may exceed what the limit lets live at once; with LIMIT, it
waits up to 30 s for such a victim to be reaped while more than LIMIT hold). Then it
waits for its input to end.
"""

import json
import os
import select
import sys
import time

CHILDREN, MIB = int(sys.argv[1]), int(sys.argv[2])
PID_BYTES = 4

read_end, write_end = os.pipe()
for _ in range(CHILDREN):
    if os.fork() == 0:
        os.close(read_end)
        block = b"x" * (MIB << 20)
        os.write(write_end, os.getpid().to_bytes(PID_BYTES, "little"))  # one atomic write
        time.sleep(3600 + len(block) % 2)
os.close(write_end)
held: set[int] = set()
died: set[int] = set()
pending = b""


def reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        died.add(pid)


deadline = time.monotonic() + 60
while len(held | died) < CHILDREN and time.monotonic() < deadline:
    if select.select([read_end], [], [], 0.05)[0]:
        pending += os.read(read_end, PID_BYTES * CHILDREN)
        while len(pending) >= PID_BYTES:
            held.add(int.from_bytes(pending[:PID_BYTES], "little"))
            pending = pending[PID_BYTES:]
    reap()
# A holder the kernel killed to make room for the last one may not be reapable yet: wait
# for it (a limit that holds lets at most LIMIT_HOLDERS live), generously, then report.
LIMIT_HOLDERS = int(sys.argv[3]) if len(sys.argv) > 3 else CHILDREN
settle = time.monotonic() + 30
while len(held - died) > LIMIT_HOLDERS and time.monotonic() < settle:
    time.sleep(0.05)
    reap()
report = {
    "held": len(held),
    "died": len(died),
    "accounted": len(held | died),
    "holding": len(held - died),
}
print(json.dumps(report), flush=True)
sys.stdin.read()
