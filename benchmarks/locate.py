"""Placing a pipeline's chunk texts (SPEC §10.1): ``labeller chunks --locate`` of 20,000
passages over the benchmark corpus, cold (the project's cache cleared before each run).

Two chunk files of the same windows: one copied from the source (every passage placed by
the exact tier: the reference figure), one cut from each document's rendered text, as a
Markdown-to-text loader writes its passages (Haystack's ``MarkdownToDocument``,
unstructured): every document must be rendered and every passage found there. The second
is the issue 24 target (10 s on the 10 MB corpus). Registered from ``run.py``'s
``foreign`` step, beside the other chunk-file figure.
"""

from __future__ import annotations

import json
import subprocess
import sys


def windows(text: str, n: int) -> list[str]:
    """``text`` cut into ``n`` passages of about equal length, each cut at a whitespace run."""
    cuts = [0]
    for i in range(1, n):
        at = max(cuts[-1], len(text) * i // n)
        while at < len(text) and not text[at].isspace():
            at += 1
        cuts.append(at)
    cuts.append(len(text))
    return [text[a:b].strip() for a, b in zip(cuts, cuts[1:]) if text[a:b].strip()]


def chunk_file(bench, n_chunks: int, rendered: bool) -> tuple[str, int]:
    from labeller.core.passages.rendered import render

    project = bench.project()
    total = project.corpus.chars
    rows = []
    for doc in project.corpus:
        text = render(doc.text).text if rendered else doc.text
        for i, passage in enumerate(windows(text, max(1, round(n_chunks * len(doc.text) / total)))):
            rows.append({"id": f"{doc.doc_id}#{i}", "doc": doc.doc_id, "text": passage})
    name = f"locate-{'rendered' if rendered else 'exact'}.jsonl"
    (bench.root / name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return name, len(rows)


def figures(bench, n_chunks: int = 20_000) -> None:
    from run import cli, clear_cache, timed

    for rendered in (False, True):
        name, n = chunk_file(bench, n_chunks, rendered)
        kind = "rendered text (tier 2)" if rendered else "source text (exact tier only)"
        fig = bench.fig(f"locate_{'rendered' if rendered else 'exact'}_cold_s",
                        f"chunks --locate, {n:,} passages cut from the {kind}, cold", "s",
                        10.0 if rendered else None)
        cmd = cli("chunks", "--root", ".", "--locate", name, "--out", f"{name}.placed", "--format", "json")
        for _ in range(bench.repeat):
            clear_cache(bench.root)
            fig.runs.append(timed(cmd, bench.root, fig=fig))
        out = subprocess.run(cmd, cwd=bench.root, capture_output=True, text=True)  # warm: the counts
        if out.returncode == 0:
            fig.note = "placed: " + ", ".join(f"{k} {v}" for k, v in json.loads(out.stdout)["counts"].items())
        else:
            print(out.stdout[-2000:], out.stderr[-2000:], file=sys.stderr)
            fig.note = f"exit {out.returncode}: some passages could not be placed"
