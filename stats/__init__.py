"""Statistics and skill ratings: pure functions over finished series (no I/O, no Telegram).

``stats.ratings`` rates a finished series with openskill (Plackett-Luce);
``stats.summary`` turns a series' deal results into per-seat results, a ``SeriesEnd``
that storage records and rates (``SeriesEnd.rate``). Imports nothing of ours but
``engine``.
"""
