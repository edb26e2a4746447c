"""Evaluation: retrievers, metrics with intervals, reports, run history and the leak scan.

Nothing here imports textual: the CLI, the app and CI all score a golden set through the
same functions (``labeller.eval.runner.run_eval``), so a number means the same everywhere.
"""
