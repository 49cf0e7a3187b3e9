"""The Python SDK for submitted bots: run a class with ``python -m bots.sdk FILE:Class``.

Everything lives in :mod:`bots.sdk.runtime`, a standard-library-only module that the
arena starts directly (by path) so a bot process never imports the engines it does
not need. See docs/protocol.md for the protocol and the sandbox.
"""

from bots.sdk.runtime import ANY_GAME, PROTOCOL_VERSION, BotLoadFailure, GameInfo, main

__all__ = ["ANY_GAME", "PROTOCOL_VERSION", "BotLoadFailure", "GameInfo", "main"]
