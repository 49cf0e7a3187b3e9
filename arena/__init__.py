"""arena: tournaments and ratings for bots playing card games."""

__version__ = "0.1.0"
