"""Creates a file in every directory it may write to, four levels down from /, prints
their paths as one JSON line, then waits for its input to end."""

import json
import os
import sys

MARKER = sys.argv[1]
SKIP = ("/proc", "/sys")


def directories(top, depth):
    yield top
    if depth == 0:
        return
    try:
        entries = list(os.scandir(top))
    except OSError:
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False) and entry.path not in SKIP:
            yield from directories(entry.path, depth - 1)


created = []
for directory in directories("/", 4):
    path = os.path.join(directory, MARKER)
    try:
        with open(path, "x") as file:
            file.write("left behind")
    except OSError:
        continue
    created.append(path)
print(json.dumps(created), flush=True)
sys.stdin.read()
