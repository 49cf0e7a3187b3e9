"""Tournaments: configuration, formats and scheduling, execution on Ray or locally,
bot health, progress, and the driver that runs a tournament to the end."""
