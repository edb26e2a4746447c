"""Sampling a query log (issue 39): ``labeller traffic sample`` on a generated Parquet log,
timed with its peak memory in a subprocess, as a user runs it.

The log is made by DuckDB in one SQL statement (seeded): Zipf-like query frequencies over a
few hundred thousand distinct questions written a few ways each, three tenants, 5% negative
feedback, and an e-mail address or a card number in 1% of the queries, so redaction has
work to do. The target is the issue's: a 10-million-line log in at most 1 GB. ``LINES`` is
set by ``run.py --traffic-lines`` (a smoke run uses 20,000).
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


def measure(bench) -> None:
    """The figure, on the synthetic project only (it is about the log's size, not the corpus)."""
    if not bench.name.startswith("synthetic"):
        return
    from run import _children_cpu, cli, peak_mb

    lines = SMOKE_LINES if bench.smoke else LINES
    log = bench.root / "traffic.parquet"
    write_log(log, lines)
    label = f"traffic sample --n {SAMPLE:,}, a {lines:,}-line Parquet log ({log.stat().st_size / 2**20:,.0f} MiB)"
    secs = bench.fig("traffic_sample_s", label, "s")
    mem = bench.fig("traffic_sample_peak_mb", f"peak memory, {label}", "MB", TARGET_MB)
    cmd = cli("traffic", "sample", str(log), "--root", ".", "--n", str(SAMPLE), "--out", "traffic-queue.jsonl",
              "--tenant", "tenant", "--feedback", "feedback", "--stratify-by", "tenant", "--format", "json")
    for _ in range(1 if bench.smoke else bench.repeat):
        cpu = _children_cpu()
        peak, elapsed = peak_mb(cmd, bench.root)
        secs.cpu.append(_children_cpu() - cpu)
        secs.runs.append(elapsed)
        mem.runs.append(peak)
    log.unlink()
