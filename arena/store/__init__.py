"""Storage: the database, its tables and migrations, and the functions that read and
write games, tournaments and bots. Knows no tournament execution."""
