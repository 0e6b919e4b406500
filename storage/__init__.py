"""SQLite storage (aiosqlite): games, move logs, tallies, messages and the outbox."""
