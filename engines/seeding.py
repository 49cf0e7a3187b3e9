"""Deriving independent seeds from a base seed and a path, stable across processes."""

from __future__ import annotations

import hashlib

MAX_SEED = 2**63 - 1


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from ``parts`` (e.g. a tournament seed and a game index).

    Unlike ``hash()``, the result is the same in every process and on every machine.
    """
    text = "\x1f".join(map(str, parts)).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") & MAX_SEED
