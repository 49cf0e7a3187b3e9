"""A scripted bot for protocol tests, like python-chess's mock engine.

Its argument is a JSON list of steps ``[expected, replies]``: it reads one line,
checks that every key of ``expected`` has that value in it, then writes ``replies``
(each a JSON value, or a string written as it is; a number means: sleep that many
seconds). Every line it reads goes to stderr; a mismatch exits with status 3.
"""

import json
import sys
import time

for expected, replies in json.loads(sys.argv[1]):
    line = sys.stdin.readline()
    print("GOT " + line.rstrip("\n"), file=sys.stderr, flush=True)
    message = json.loads(line) if line else {}
    wrong = {k: message.get(k) for k, v in expected.items() if message.get(k) != v}
    if wrong:
        print(f"MISMATCH expected {expected!r}, got {wrong!r}", file=sys.stderr, flush=True)
        sys.exit(3)
    for reply in replies:
        if isinstance(reply, float | int):
            sys.stdout.flush()
            time.sleep(reply)
        else:
            sys.stdout.write((reply if isinstance(reply, str) else json.dumps(reply)) + "\n")
    sys.stdout.flush()
for line in sys.stdin:
    print("GOT " + line.rstrip("\n"), file=sys.stderr, flush=True)
