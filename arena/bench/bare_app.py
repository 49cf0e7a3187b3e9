"""The reference for ``arena bench load``: a bare FastAPI app answering a constant JSON
list, served by uvicorn like ``arena serve`` (``python -m arena.bench.bare_app PORT``)."""

from __future__ import annotations

import sys

from fastapi import FastAPI

ITEMS: list[dict[str, object]] = [
    {"name": f"game{index}", "seats": [2, 3, 4]} for index in range(4)
]
app = FastAPI()


@app.get("/items")
def items() -> list[dict[str, object]]:
    return ITEMS


@app.get("/api/games")
def games() -> list[dict[str, object]]:
    """The path the live-server helpers poll to see that a server is up."""
    return ITEMS


if __name__ == "__main__":
    import uvicorn

    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
