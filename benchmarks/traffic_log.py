"""The query log of the traffic figure (issue 39; ``Bench.traffic`` in run.py samples it).

The log is made by DuckDB in one SQL statement (seeded): Zipf-like question frequencies
(exponent 1.1, ids taken modulo 300,000) with each question written four ways, three tenants,
5% negative feedback, and an e-mail address (a new one each time) or a card number in 1% of
the queries, so redaction has work to do. Heavy-tailed as traffic is, it repeats itself: at 10
million lines it holds 3,786 questions, 58,263 distinct query texts (most of them the unique
e-mail lines) and 68,201 distinct (query, tenant, feedback) requests. The target is the
issue's: a 10-million-line log in at most 1 GB. ``LINES`` is ``run.py --traffic-lines``'s
default (a smoke run uses ``SMOKE_LINES``).
"""

from __future__ import annotations

from pathlib import Path

LINES = 10_000_000
SMOKE_LINES = 20_000
SAMPLE = 1_000
TARGET_MB = 1024.0

_LOG_SQL = """
SELECT setseed(0.39);
COPY (
  SELECT
    CASE (r % 4)
      WHEN 0 THEN 'how do I configure widget ' || q || ' in the layout'
      WHEN 1 THEN 'How to configure widget ' || q || ' in layout?'
      WHEN 2 THEN 'widget ' || q || ' layout configuration'
      ELSE 'configure the widget ' || q || ' layout'
    END || CASE WHEN random() < 0.005 THEN ' mail me at user' || i || '@example.com'
                WHEN random() < 0.005 THEN ' card 4111 1111 1111 1111' ELSE '' END AS query,
    ['acme', 'blue', 'cobalt'][1 + (i % 3)::INTEGER] AS tenant,
    CASE WHEN random() < 0.05 THEN 'down' ELSE 'up' END AS feedback
  FROM (SELECT i, (floor(pow(random(), -1.0 / 1.1)))::BIGINT % 300000 AS q, (random() * 4)::INTEGER AS r
        FROM range({lines}) t(i))
) TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 100000)
"""


def write_log(path: Path, lines: int) -> None:
    import duckdb

    con = duckdb.connect()
    for statement in _LOG_SQL.format(lines=lines, path=str(path).replace("'", "''")).split(";"):
        if statement.strip():
            con.execute(statement)
    con.close()
