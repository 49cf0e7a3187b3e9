"""The continuous ladder (issue 18): every active bot version of a game rated
continuously by workers, new versions tested against their predecessors.

The algorithms (matchmaking, the incremental Elo, the version SPRT) are pure modules
of this package; :mod:`arena.ladder.service` wires them to the store and the workers.
"""
