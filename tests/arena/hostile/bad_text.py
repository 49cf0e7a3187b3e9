"""A bot that speaks the protocol itself and sends text no encoder takes, as told by its
argument: lone surrogates (``\\ud800`` in its JSON), NUL characters, invalid UTF-8.

crash  shakes hands, then answers its move with invalid UTF-8 and NUL on stderr and an
       error report holding a lone surrogate and a NUL character
name   shakes hands with a name holding a lone surrogate
start  answers the handshake with such an error report
"""

import json
import os
import sys

MODE = sys.argv[1]
BAD = "boom \ud800 and \x00 end"


def send(message):
    # json.dumps writes the lone surrogate as the escape \ud800: valid JSON text.
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    kind = json.loads(line)["type"]
    if kind == "hello" and MODE == "start":
        send({"type": "error", "message": BAD})
    elif kind == "hello":
        name = "bad\ud800name" if MODE == "name" else "bad text"
        send({"type": "hello", "protocol": 1, "name": name, "games": ["*"]})
    elif kind == "new_game":
        send({"type": "ready"})
    elif kind == "act":
        os.write(2, b"stderr \xff\xfe invalid \x00 bytes\n")
        send({"type": "error", "message": BAD})
    elif kind == "quit":
        break
