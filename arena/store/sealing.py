"""A hosted tournament's seed: drawn in secret, committed to when the tournament is
created, revealed when it is over (docs/protocol.md, "What a bot receives").

A tournament queued over the web, and a ladder, get a seed no user chose nor can
guess (:func:`draw_seal`, 63 bits from :mod:`secrets`). The database stores with it a
random nonce and the commitment, the SHA-256 of :data:`DOMAIN`, the seed, the nonce and
the digest of the deals it plays (when they were given), joined by ``\\x1f``
(:func:`commitment`). Every view shows the commitment from the start; while the
tournament is :func:`sealed` they show neither the seed, nor the deals, nor any game's
seed. Once it is over (completed or cancelled) they show the seed and the nonce, so
anyone can recompute the commitment and deal every game again.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.store.models import Tournament, TournamentStatus
from engines.seeding import MAX_SEED

DOMAIN = "arena-tournament-seed-v1"
"""Tags the hashed text, so a commitment can be mistaken for no other hash."""
NONCE_BYTES = 16
SEALED_CONFIG_FIELDS = ("seed", "deals")
"""What a sealed tournament's shown configuration leaves out."""


@dataclass(frozen=True)
class Seal:
    """A drawn seed, its nonce (hex) and the commitment to both and the deals."""

    seed: int
    nonce: str
    commitment: str


def deals_digest(deals: Sequence[Mapping[str, Any]] | None) -> str:
    """The SHA-256 (hex) of the deals as canonical JSON (sorted keys, no spaces,
    UTF-8); empty without deals."""
    if deals is None:
        return ""
    text = json.dumps(list(deals), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def commitment(seed: int, nonce: str, deals: Sequence[Mapping[str, Any]] | None = None) -> str:
    """The SHA-256 (hex) of ``DOMAIN \\x1f seed \\x1f nonce \\x1f deals_digest``, the seed
    in decimal."""
    text = "\x1f".join([DOMAIN, str(seed), nonce, deals_digest(deals)])
    return hashlib.sha256(text.encode()).hexdigest()


def draw_seal(deals: Sequence[Mapping[str, Any]] | None = None) -> Seal:
    """A secret seed below 2**63, a fresh nonce and their commitment."""
    seed = secrets.randbelow(MAX_SEED + 1)
    nonce = secrets.token_hex(NONCE_BYTES)
    return Seal(seed, nonce, commitment(seed, nonce, deals))


def sealed(tournament: Tournament) -> bool:
    """Whether the tournament's seed, deals and game seeds are hidden now: it was
    committed to and is not over (completed or cancelled) yet."""
    return sealed_while(tournament.seed_commitment, tournament.status)


def sealed_while(seed_commitment: str | None, status: str) -> bool:
    """:func:`sealed` from a tournament's two columns (a query that reads no row)."""
    return seed_commitment is not None and not TournamentStatus(status).finished


def shown_config(tournament: Tournament) -> dict[str, Any]:
    """The configuration as users may see it now: without seed and deals while sealed."""
    if not sealed(tournament):
        return dict(tournament.config)
    return {k: v for k, v in tournament.config.items() if k not in SEALED_CONFIG_FIELDS}
