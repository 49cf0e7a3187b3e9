"""A bot that speaks the protocol itself and misbehaves as told by its argument.

garbage        answers a move with a line that is not JSON
peek           answers a move by asking for another seat's cards
wrong_version  shakes hands in protocol version 2
mute           never answers the handshake
flood          answers a move with 1 GB on stdout, without a newline
read FILE      copies FILE to stderr when it starts, then plays the first legal action
"""

import json
import os
import sys

MODE = sys.argv[1]
if MODE == "read":
    with open(sys.argv[2]) as file:
        sys.stderr.write(file.read())


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        if MODE == "mute":
            continue
        version = 2 if MODE == "wrong_version" else 1
        send({"type": "hello", "protocol": version, "name": MODE, "games": ["*"]})
    elif kind == "new_game":
        send({"type": "ready"})
    elif kind == "act":
        if MODE == "garbage":
            sys.stdout.write("e2e4 please\n")
            sys.stdout.flush()
        elif MODE == "peek":
            send({"type": "observe", "seat": 1 - message["observation"]["seat"]})
        elif MODE == "flood":
            chunk = b"x" * 2**20
            for _ in range(1024):
                os.write(1, chunk)
        elif MODE == "read":
            send({"type": "action", "action": message["legal_actions"][0]})
        elif MODE == "chatty":
            sys.stderr.write("chatter " * 2**17 + "done\n")
            sys.stderr.flush()
            send({"type": "action", "action": message["legal_actions"][0]})
    elif kind == "quit":
        break
