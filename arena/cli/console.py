"""The consoles all commands print to (stdout for results, stderr for errors)."""

from rich.console import Console

console = Console(highlight=False)
error_console = Console(stderr=True, highlight=False)
