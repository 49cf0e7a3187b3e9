"""The rule variant's key (issue 31 point 3): canonical, defaults left out, short."""

from __future__ import annotations

import re

from arena.play.variant import STANDARD, variant_key
from engines.registry import get_game


def test_the_key_names_the_changed_options_sorted_and_leaves_defaults_out() -> None:
    corner = get_game("kings_corner")
    assert variant_key(corner, {}) == variant_key(corner, {"must_play": False}) == STANDARD
    key = variant_key(corner, {"pip_values": "true", "draw_first": True, "must_play": False})
    assert key == "draw_first=true,pip_values=true"
    assert variant_key(corner, {"king_piles_to_corner": "anytime"}) == (
        "king_piles_to_corner=anytime"
    )


def test_a_kardinal_deck_is_keyed_by_a_short_digest_of_its_data() -> None:
    kardinal = get_game("kardinal")
    assert variant_key(kardinal, {}) == STANDARD
    (variant,) = (v for name, v in kardinal.variants().items() if name != "standard")
    options = kardinal.options_to_dict(variant)
    key = variant_key(kardinal, options)
    assert re.fullmatch(r"deck=sha256:[0-9a-f]{12}", key)
    assert variant_key(kardinal, dict(reversed(list(options.items())))) == key
