"""The default BM25's settings on evidence (issues 29.4, 37.6): labeller's recall@5 for each setting
tried, on every outside set at hand, beside tantivy and bm25s out of the box on the same chunks.

    python benchmarks/bm25_tuning.py [--corpora ../shared/corpora/textual-docs] [--questions 1000]
    python benchmarks/bm25_tuning.py --project DIR [--grid small]   # a project with its own questions
    python benchmarks/bm25_tuning.py --sentences BOOK/src --sentence-questions 1000 --seed 1 --seed 2

Sets: the bundled handbook (``corpus/`` + ``golden/``) and ``tests/fixtures/mixed_ja``, both
copied to a temporary folder (never touched where they are), and each real corpus given
with ``--corpora`` with a generated question set (``run.real_project``, the benchmark's own:
queries are words of the answer's line), each corpus given with ``--sentences`` with
sentence-style questions (``synth.sentence_questions_for_corpus``: 4–6 content words of one
prose sentence in order, code identifiers as written; issue 37.6, e.g. a technical book read
from a path, never copied into this repository), and each project given with ``--project`` (corpus/ +
golden/, its own questions, e.g. an outside set converted by ``outside_sets.py``; copied; the
Textual docs are then left out unless ``--corpora`` or ``--sentences`` names a corpus). Sets
held out of a choice are a second run after it, with other seeds (and corpora). Recall@5 is ``peers``' (answer-bearing chunks in
the top 5, mean over answerable records), the same number for every engine. A setting is
field weights (heading, breadcrumb; body 1) × analyzer × k1/b. The table it prints is the one in
docs/performance.md; the bar is the best peer configuration of each set, and a setting's
worst gap to it over the sets is what the default is chosen by (within 0.01, or better).
"""

from __future__ import annotations

import argparse
import itertools
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import peers  # noqa: E402
import run  # noqa: E402
import synth  # noqa: E402

HEADING = (0.1, 0.15, 0.25, 0.35)
BREADCRUMB = (0.05, 0.1, 0.15, 0.2, 0.25)
ANALYZERS = ("labeller-auto-v3", "labeller-auto-v2")  # stop words kept, and dropped
# whoosh's and tantivy's defaults (1.2, 0.75), Lucene's/Anserini's (0.9, 0.4), bm25s's (1.5, 0.75),
# the v2 default (0.9, 0.3), and a grid around them
K1_B = (*itertools.product((0.9, 1.0, 1.2, 1.5), (0.5, 0.6, 0.75, 0.85)), (0.9, 0.3), (0.9, 0.4))
# --grid small: the default and its neighbours (48 settings; a set of 500 questions takes
# minutes instead of most of an hour on a shared core)
SMALL = {"analyzers": ANALYZERS[:1], "k1_b": ((0.9, 0.85), (1.0, 0.85), (0.9, 0.75), (1.2, 0.75)),
         "heading": (0.15, 0.25, 0.35), "breadcrumb": (0.05, 0.1, 0.15, 0.2)}
FULL = {"analyzers": ANALYZERS, "k1_b": K1_B, "heading": HEADING, "breadcrumb": BREADCRUMB}
# --grid fine: a finer step around the small grid's best (issue 37.6; 192 settings)
FINE = {"analyzers": ANALYZERS[:1], "k1_b": tuple(itertools.product((0.8, 0.9, 1.0, 1.1), (0.7, 0.75, 0.8, 0.85))),
        "heading": (0.2, 0.25, 0.3), "breadcrumb": (0.05, 0.1, 0.15, 0.2)}
GRIDS = {"full": FULL, "small": SMALL, "fine": FINE}


def sets(work: Path, corpora: list[Path], n_questions: int, seeds: Sequence[int],
         projects: Sequence[Path] = (), sentences: Sequence[Path] = (), n_sentences: int = 200,
         cjk_sentences: Sequence[Path] = ()) -> dict[str, Path]:
    """Each set's project folder (a copy), by name: one generated question set per corpus and
    seed (named ``corpus@seed`` when there are several seeds), and one sentence-style set per
    ``sentences`` folder and seed (``synth.sentence_questions_for_corpus``; named after the
    folder, or its parent's name when the folder is an mdBook's ``src``), and the same for each
    ``cjk_sentences`` folder, a Japanese or Chinese corpus (``synth.cjk_sentence_questions_for_corpus``)."""
    found = {}
    bundled = work / "bundled"
    for part in ("corpus", "golden"):
        shutil.copytree(REPO / part, bundled / part)
    found["bundled handbook"] = bundled
    shutil.copytree(REPO / "tests" / "fixtures" / "mixed_ja", work / "mixed_ja")
    found["mixed_ja"] = work / "mixed_ja"
    for src in corpora:
        if not src.is_dir():
            print(f"skipping {src}: folder not found")
            continue
        for seed in seeds:
            name = src.name if len(seeds) == 1 else f"{src.name}@{seed}"
            run.real_project(src, work / name, n_questions, seed)
            found[name] = work / name
    for src, make in [*((s, synth.sentence_questions_for_corpus) for s in sentences),
                      *((s, synth.cjk_sentence_questions_for_corpus) for s in cjk_sentences)]:
        for seed in seeds:
            label = f"{(src.parent if src.name == 'src' else src).name} sentences"
            name = label if len(seeds) == 1 else f"{label}@{seed}"
            run.real_project(src, work / name, n_sentences, seed, make)
            found[name] = work / name
    for src in projects:
        for part in ("corpus", "golden"):
            shutil.copytree(src / part, work / f"project-{src.name}" / part)
        found[src.name] = work / f"project-{src.name}"
    return found


def load(root: Path):
    """The set's distinct chunks, queries and answer-bearing chunk ids."""
    from labeller.config import load_config
    from labeller.core.build import build
    from labeller.core.project import Project
    from labeller.eval.retrievers.bm25 import distinct_chunks

    if (root / "golden").is_dir():
        project = Project(load_config(root))
    else:  # the mixed_ja fixture: questions beside the corpus
        project = Project(load_config(root, corpus="corpus", questions="questions.jsonl"))
    records = build(project, project.load_questions().questions).records
    queries = [(r.question.id, r.question.query) for r in records]
    golden = {r.question.id: r.chunk_ids for r in records if not r.question.unanswerable}
    return distinct_chunks(project.all_chunks), queries, golden


def labeller_recalls(chunks, queries, golden, grid: dict = FULL) -> dict[tuple, float]:
    """recall@5 of every setting: one index per analyzer, weights and k1/b applied at query time."""
    from labeller.eval.analysis import get_analyzer
    from labeller.eval.retrievers.bm25 import BM25Retriever, build_storage

    out = {}
    for name in grid["analyzers"]:
        analyzer = get_analyzer(name)
        storage = build_storage(chunks, analyzer)
        for (k1, b), h, bc in itertools.product(grid["k1_b"], grid["heading"], grid["breadcrumb"]):
            r = BM25Retriever(chunks, storage, analyzer, {"heading": h, "breadcrumb": bc, "body": 1.0}, k1=k1, b=b)
            ranked = {qid: [hit.chunk_id for hit in r.search_hits(text, 5)] for qid, text in queries}
            out[(name, k1, b, h, bc)] = peers._recall(ranked, golden, 5)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", action="append", type=Path,
                    help="a real corpus folder (repeatable; default ../shared/corpora/textual-docs)")
    ap.add_argument("--project", action="append", type=Path, default=[],
                    help="a project folder with its own questions (corpus/ + golden/; repeatable)")
    ap.add_argument("--sentences", action="append", type=Path, default=[],
                    help="a real corpus folder given sentence-style questions (4–6 content words of one sentence, "
                    "in order; repeatable), e.g. a technical book's src/")
    ap.add_argument("--questions", type=int, default=1000)
    ap.add_argument("--sentence-questions", type=int, default=200)
    ap.add_argument("--seed", type=int, action="append",
                    help="question-set seed (repeatable: one generated set per corpus and seed; default run.py's "
                    "20260101)")
    ap.add_argument("--top", type=int, default=15, help="settings shown, best worst-gap first")
    ap.add_argument("--grid", choices=tuple(GRIDS), default="full",
                    help="small: the default and its neighbours only (48 settings); fine: a finer step around them "
                    "(192)")
    args = ap.parse_args()
    corpora = args.corpora or ([] if args.project or args.sentences else
                               [REPO.parent / "shared" / "corpora" / "textual-docs"])
    with tempfile.TemporaryDirectory(prefix="labeller-tuning-") as tmp:
        found = sets(Path(tmp), corpora, args.questions, args.seed or [20260101], args.project, args.sentences,
                     args.sentence_questions)
        ours: dict[str, dict[tuple, float]] = {}
        bars: dict[str, list[peers.EngineRun]] = {}
        for name, root in found.items():
            chunks, queries, golden = load(root)
            print(f"{name}: {len(chunks):,} chunks, {len(golden):,} answerable of {len(queries):,} queries",
                  flush=True)
            bars[name] = peers.own_text_runs(chunks, queries, golden)
            ours[name] = labeller_recalls(chunks, queries, golden, GRIDS[args.grid])
    names = list(found)
    print("\n| peer (own tokenizer, defaults) | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for i, peer in enumerate(bars[names[0]]):
        print(f"| {peer.name} | " + " | ".join(f"{bars[n][i].recall5:.3f}" for n in names) + " |")
    best = {n: max(r.recall5 for r in bars[n]) for n in names}
    print("| **best peer** | " + " | ".join(f"**{best[n]:.3f}**" for n in names) + " |")
    gap = {s: max(best[n] - ours[n][s] for n in names) for s in ours[names[0]]}
    print("\n| analyzer | k1 | b | heading | breadcrumb | " + " | ".join(names) + " | worst gap to best peer |")
    print("|---|---:|---:|---:|---:|" + "---:|" * len(names) + "---:|")
    from labeller.eval.analysis import get_analyzer
    from labeller.eval.retrievers.bm25 import B, DEFAULT_FIELD_WEIGHTS, K1

    default = (get_analyzer("auto").name, K1, B, DEFAULT_FIELD_WEIGHTS["heading"], DEFAULT_FIELD_WEIGHTS["breadcrumb"])
    shown = sorted(gap, key=lambda s: (gap[s], s))[:args.top]
    for s in shown + ([default] if default not in shown else []):
        mark = " (the default)" if s == default else ""
        print(f"| {s[0]}{mark} | {s[1]} | {s[2]} | {s[3]} | {s[4]} | "
              + " | ".join(f"{ours[n][s]:.3f}" for n in names) + f" | {gap[s]:+.3f} |")
    print("\nthe default's gap to the best peer, and the best setting on each set alone:")
    for n in names:
        top = max(ours[n], key=lambda s: (ours[n][s], s))
        print(f"  {n}: default {ours[n][default]:.3f}, best peer {best[n]:.3f}, gap {best[n] - ours[n][default]:+.3f}; "
              f"best here {ours[n][top]:.3f} with {top}")

if __name__ == "__main__":
    main()
