"""Playing one game or match: the runner, game records, rendering, game options, decks,
time controls and solitaire evaluation. Knows engines and bots, nothing of storage."""
