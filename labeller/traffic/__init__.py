"""Questions from real traffic (SPEC §14): read a query log or a trace export, redact it,
fold it, and draw a stratified sample whose every item knows its inclusion probability.

Why a package of its own: a golden set written by someone who has read the corpus misses
what users actually ask (the wrong words, things the corpus lacks, the same thing asked a
hundred ways). Sampling the log fixes that bias only if the sample's design is recorded, so
that an estimate can undo it (``labeller.eval.weighted``). This package is a service beside
``eval``, ``review`` and ``interop`` and imports none of them.

Modules: ``redact`` (personal data out before anything is written), ``normal`` (the fold
key of near-duplicate queries), ``columns`` (which log column plays which role), ``readers``
(JSONL, CSV, Parquet through DuckDB; OpenInference retriever spans), ``design`` (strata,
allocation, inclusion probabilities: pure arithmetic), ``sample`` (the streaming pass), and
``queue`` (the queue file, written and read).
"""
