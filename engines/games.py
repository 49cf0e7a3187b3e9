"""The built-in games. Importing this module registers every one of them."""

from engines import koenigsgarten

__all__ = ["koenigsgarten"]
