# ruff: noqa: E501
"""The rows ``arena games`` prints. Written by ``python -m arena.cli.catalogue``;
do not edit (tests/arena/test_catalogue.py keeps it equal to the registries)."""

ROWS: list[tuple[str, str, str, str, str]] = [
    (
        "blumengarten\nBlumengarten (Flower Garden)",
        "1",
        "perfect, shuffled deal\nmatches: single",
        "first-legal, greedy, random, solver",
        "sequences = False  (boolean) Wildflower: a move takes the card together with every card on it when they descend by one (any suit)\ngarden_7x5 = False  (boolean) seven columns of five cards and a bouquet of seventeen\nmove_cap = 1000  (integer) the game is lost after this many moves",
    ),
    (
        "kardinal\nKardinal & König",
        "2–5 (default 4)",
        "hidden, shuffled deal\nmatches: single",
        "first-legal, greedy, ismcts, random",
        "deck = None  (Deck | null) deck data (cards and tablets); null: the default deck of the rulings (configs/kardinal/deck.toml); on the command line deck=FILE",
    ),
    (
        "kings_corner\nKings in the Corner",
        "2–4 (default 4)",
        "hidden, shuffled deal\nmatches: single, penalties-25, penalties-50",
        "first-legal, greedy, ismcts, random",
        "king_piles_to_corner = 'opening'  (\"opening\" | \"anytime\") when a side pile with a king at the bottom may move into an empty corner: only in the first player's first turn, or at any time\nmust_play = False  (boolean) Legepflicht: no draw while a hand card can be played\ndraw_first = False  (boolean) Zuerst ziehen: draw at the start of the turn, end it with 'end'\nkings_at_once = False  (boolean) Könige sofort: a king that can go to an empty corner goes there first\ncorners_in_suit = False  (boolean) Ecken in Farbe: corners are built down in the same suit\npip_values = False  (boolean) Augenwerte: penalties ace 25, faces 10, other cards their pip value\ncollect_corners = False  (boolean) Ecken sammeln: a corner completed down to the ace goes to whoever completed it; most corners win, penalties break ties\nfour_cards = False  (boolean) Vier Karten: deal 4 cards each, not 7",
    ),
    (
        "koenigsgarten\nKönigsgarten",
        "2",
        "perfect, shuffled deal\nmatches: single, first-to-3, points, points-15, points-20",
        "first-legal, greedy, mcts, random, solver",
        "—",
    ),
]
