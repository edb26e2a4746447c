"""Placing a pipeline's chunk texts (SPEC §10.1): ``labeller chunks --locate`` of 20,000
passages over the benchmark corpus, cold (the project's cache cleared before each run).

Two chunk files of the same windows: one copied from the source (every passage placed by
the exact tier: the reference figure), one cut from each document's rendered text, as a
Markdown-to-text loader writes its passages (Haystack's ``MarkdownToDocument``,
unstructured): every document must be rendered and every passage found there. The second
is the issue 24 target (10 s on the 10 MB corpus). A third holds the source windows with
text a pipeline added before each (issue 36: a context of one to three sentences, as the
contextual-retrieval recipe prepends, generated here from the document id and the window's
position — no model): every passage is placed on its source part, the rest counted as
added; 10 s cold and 1 GB peak on the 10 MB corpus. Registered from ``run.py``'s
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


KINDS = {"exact": "source text (exact tier only)", "rendered": "rendered text (tier 2)",
         "added": "source text, a generated context of 1-3 sentences before each (added text)"}
TARGETS = {"exact": None, "rendered": 10.0, "added": 10.0}


def context(doc_id: str, i: int, n: int) -> str:
    """What a contextual-retrieval pipeline prepends, made without a model: one to three sentences."""
    sentences = [f"This passage is taken from the document {doc_id}.", f"It is part {i + 1} of {n} of it.",
                 "It continues the discussion of the section before it."]
    return " ".join(sentences[:1 + i % 3]) + "\n\n"


def chunk_file(bench, n_chunks: int, kind: str) -> tuple[str, int]:
    from labeller.core.passages.rendered import render

    project = bench.project()
    total = project.corpus.chars
    if kind == "added":  # a context before a 45-character window is most of it (refused): windows of 400 at least
        n_chunks = min(n_chunks, max(1, total // 400))
    rows = []
    for doc in project.corpus:
        text = render(doc.text).text if kind == "rendered" else doc.text
        passages = windows(text, max(1, round(n_chunks * len(doc.text) / total)))
        for i, passage in enumerate(passages):
            added = context(doc.doc_id, i, len(passages)) if kind == "added" else ""
            rows.append({"id": f"{doc.doc_id}#{i}", "doc": doc.doc_id, "text": added + passage})
    name = f"locate-{kind}.jsonl"
    (bench.root / name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return name, len(rows)


def figures(bench, n_chunks: int = 20_000) -> None:
    from run import cli, clear_cache, timed

    from run import peak_mb

    for kind, label in KINDS.items():
        name, n = chunk_file(bench, n_chunks, kind)
        fig = bench.fig(f"locate_{kind}_cold_s", f"chunks --locate, {n:,} passages cut from the {label}, cold", "s",
                        TARGETS[kind])
        cmd = cli("chunks", "--root", ".", "--locate", name, "--out", f"{name}.placed", "--format", "json")
        for _ in range(bench.repeat):
            clear_cache(bench.root)
            fig.runs.append(timed(cmd, bench.root, fig=fig))
        if kind == "added":
            mem = bench.fig("peak_locate_added_mb", f"peak memory, chunks --locate of the {n:,} passages with "
                            "added text, cold", "MB", 1024.0)
            clear_cache(bench.root)
            mem.runs.append(peak_mb(cmd, bench.root)[0])
        out = subprocess.run(cmd, cwd=bench.root, capture_output=True, text=True)  # warm: the counts
        if out.returncode == 0:
            summary = json.loads(out.stdout)
            fig.note = "placed: " + ", ".join(f"{k} {v}" for k, v in summary["counts"].items()) + \
                f"; with added text {summary['added']}"
        else:
            print(out.stdout[-2000:], out.stderr[-2000:], file=sys.stderr)
            fig.note = f"exit {out.returncode}: the file was refused"
