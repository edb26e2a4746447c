"""Chunk files as real RAG pipelines write them: LangChain, LlamaIndex, Haystack, chonkie, semchunk over a corpus.

labeller places a pipeline's chunk texts on the canonical Markdown (SPEC §10.1); these are
the loaders and splitters users actually run, so their output is what the placement is
tested against (tests/test_pipeline_chunks.py holds committed output and regenerates it
live). Each library reads the files as a user's loader would (the raw file text) and
writes one chunk file ``{id, doc, text}`` per pipeline:

* ``langchain.jsonl`` — ``MarkdownHeaderTextSplitter`` (headings moved into metadata), then
  ``RecursiveCharacterTextSplitter`` (500 characters, 50 overlap);
* ``llamaindex-sentence.jsonl`` — ``SentenceSplitter`` (256 tokens, 20 overlap);
* ``llamaindex-markdown.jsonl`` — ``MarkdownNodeParser`` (one node per section);
* ``haystack.jsonl`` — ``MarkdownToDocument`` (Markdown rendered to plain text), then
  ``DocumentSplitter`` (100 words, 10 overlap);
* ``chonkie-token.jsonl``, ``chonkie-sentence.jsonl``, ``chonkie-recursive.jsonl`` —
  chonkie's ``TokenChunker`` (400 characters, 40 overlap), ``SentenceChunker`` (400) and
  ``RecursiveChunker`` (600), on its built-in character tokenizer (nothing downloaded);
* ``semchunk.jsonl`` — ``semchunk.chunkerify`` with a word-count token counter, 80 words;
* ``contextual.jsonl`` — the contextual-retrieval recipe (Anthropic's: a context of one to
  three sentences written for each chunk and prepended to it): chonkie's recursive chunks
  of the source, each prefixed by a context that *this script generates* from the document
  (its title, the heading above the chunk, the chunk's position) — deterministic text of the
  same shape as a model's, no model involved. Each row also holds ``source_start`` /
  ``source_end``, the chunk's offsets in the file as chonkie reported them (extra keys a chunk
  file ignores), so a test can check each placement without the locator;
* ``ragas-stripped.jsonl`` (``--ragas``) — a ragas-style test set whose reference contexts
  are paragraphs of Haystack's rendered text: contexts a loader stripped of Markdown;
* ``ragas-front-matter.jsonl`` (``--ragas``) — one whose contexts open a document's rendering:
  its front matter as plain ``key: value`` lines, then the body.

Usage: python scripts/make_pipeline_chunks.py CORPUS OUT [--docs DOC ...] [--ragas N]
The libraries are in the ``dev`` extra. Output is deterministic (sorted documents, keys).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
from pathlib import Path

os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")
os.environ.setdefault("TQDM_DISABLE", "1")

PIPELINES = ("langchain", "llamaindex-sentence", "llamaindex-markdown", "haystack", "chonkie-token",
             "chonkie-sentence", "chonkie-recursive", "semchunk")


def read_docs(corpus: Path, only: list[str] | None) -> dict[str, str]:
    ids = sorted(p.relative_to(corpus).as_posix() for p in corpus.rglob("*.md"))
    if only:
        missing = sorted(set(only) - set(ids))
        if missing:
            raise SystemExit(f"not in {corpus}: {', '.join(missing)}")
        ids = [d for d in ids if d in only]
    return {d: (corpus / d).read_text(encoding="utf-8") for d in ids}


def langchain(docs: dict[str, str]) -> list[tuple[str, str]]:
    from langchain_text_splitters import MarkdownHeaderTextSplitter, RecursiveCharacterTextSplitter

    headers = MarkdownHeaderTextSplitter([("#", "h1"), ("##", "h2"), ("###", "h3")])
    splitter = RecursiveCharacterTextSplitter(chunk_size=500, chunk_overlap=50)
    out = []
    for doc_id, text in docs.items():
        for piece in splitter.split_documents(headers.split_text(text)):
            out.append((doc_id, piece.page_content))
    return out


def _llama(docs: dict[str, str], parser) -> list[tuple[str, str]]:
    from llama_index.core import Document

    nodes = parser.get_nodes_from_documents([Document(text=t, metadata={"doc": d}) for d, t in docs.items()])
    return [(n.metadata["doc"], n.get_content()) for n in nodes]


def llamaindex_sentence(docs: dict[str, str]) -> list[tuple[str, str]]:
    from llama_index.core.node_parser import SentenceSplitter

    return _llama(docs, SentenceSplitter(chunk_size=256, chunk_overlap=20))


def llamaindex_markdown(docs: dict[str, str]) -> list[tuple[str, str]]:
    from llama_index.core.node_parser import MarkdownNodeParser

    return _llama(docs, MarkdownNodeParser())


def haystack_documents(docs: dict[str, str]) -> list:
    from haystack.components.converters import MarkdownToDocument
    from haystack.dataclasses import ByteStream

    sources = [ByteStream(data=t.encode("utf-8"), meta={"doc": d}) for d, t in docs.items()]
    return MarkdownToDocument(progress_bar=False).run(sources=sources)["documents"]


def haystack(docs: dict[str, str]) -> list[tuple[str, str]]:
    from haystack.components.preprocessors import DocumentSplitter

    splitter = DocumentSplitter(split_by="word", split_length=100, split_overlap=10)
    return [(d.meta["doc"], d.content) for d in splitter.run(documents=haystack_documents(docs))["documents"]
            if d.content and d.content.strip()]


def _chonkie(docs: dict[str, str], chunker) -> list[tuple[str, str]]:
    return [(doc_id, c.text) for doc_id, text in docs.items() for c in chunker(text)]


def chonkie_token(docs: dict[str, str]) -> list[tuple[str, str]]:
    from chonkie import TokenChunker

    return _chonkie(docs, TokenChunker(tokenizer="character", chunk_size=400, chunk_overlap=40))


def chonkie_sentence(docs: dict[str, str]) -> list[tuple[str, str]]:
    from chonkie import SentenceChunker

    return _chonkie(docs, SentenceChunker(tokenizer="character", chunk_size=400, chunk_overlap=0))


def chonkie_recursive(docs: dict[str, str]) -> list[tuple[str, str]]:
    from chonkie import RecursiveChunker

    return _chonkie(docs, RecursiveChunker(tokenizer="character", chunk_size=600))


def semchunk_words(docs: dict[str, str]) -> list[tuple[str, str]]:
    import semchunk

    chunker = semchunk.chunkerify(lambda s: len(s.split()), chunk_size=80)
    return [(doc_id, piece) for doc_id, text in docs.items() for piece in chunker(text)]


MAKERS = {"langchain": langchain, "llamaindex-sentence": llamaindex_sentence,
          "llamaindex-markdown": llamaindex_markdown, "haystack": haystack, "chonkie-token": chonkie_token,
          "chonkie-sentence": chonkie_sentence, "chonkie-recursive": chonkie_recursive, "semchunk": semchunk_words}

_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_TITLE = re.compile(r"^title:[ \t]*[\"']?(.+?)[\"']?[ \t]*$", re.MULTILINE)


def generated_context(doc_id: str, text: str, start: int, end: int, i: int, n: int) -> str:
    """The context the contextual-retrieval recipe prepends, written here without a model:
    one to three sentences (chosen by the chunk's position, so the output is deterministic)
    naming the document, the section the chunk sits in and where in the document it lies."""
    title_m = _TITLE.search(text[:400])
    title = title_m.group(1) if title_m else doc_id.rsplit("/", 1)[-1].removesuffix(".md").replace("_", " ")
    above = [m.group(1) for m in _HEADING.finditer(text, 0, start)]
    section = above[-1] if above else title
    words = " ".join(re.findall(r"[A-Za-z]{4,}", text[start:end])[:4]).lower() or "its details"
    sentences = [f"This chunk is from the document {title!r}, in the section {section!r}.",
                 f"It discusses {words}.",
                 f"It is part {i + 1} of {n} of that document."]
    return " ".join(sentences[:1 + (i % 3)])


def contextual_rows(docs: dict[str, str]) -> list[dict]:
    """Exact source chunks (chonkie's recursive chunker) with a generated context prepended,
    joined by a blank line (the recipe's) or, every other chunk, by a space, and each row's
    true source offsets."""
    from chonkie import RecursiveChunker

    chunker = RecursiveChunker(tokenizer="character", chunk_size=600)
    rows = []
    for doc_id, text in docs.items():
        chunks = [c for c in chunker(text) if c.text.strip()]
        for i, c in enumerate(chunks):
            context = generated_context(doc_id, text, c.start_index, c.end_index, i, len(chunks))
            rows.append({"doc": doc_id, "id": f"contextual-{len(rows):05d}",
                         "text": context + ("\n\n" if i % 2 == 0 else " ") + c.text,
                         "source_start": c.start_index, "source_end": c.end_index})
    return rows


def chunk_rows(name: str, pieces: list[tuple[str, str]]) -> list[dict]:
    return [{"doc": doc, "id": f"{name}-{i:05d}", "text": text} for i, (doc, text) in enumerate(pieces)
            if text.strip()]


def ragas_rows(docs: dict[str, str], per_doc: int) -> list[dict]:
    """Up to ``per_doc`` paragraphs (12 words or more) of each document's Haystack rendering
    that the rendering changed (they no longer occur in the source, whitespace aside), as
    the reference contexts of one question each."""
    rows = []
    for d in haystack_documents(docs):
        source = " ".join(docs[d.meta["doc"]].split())
        paragraphs = [p.strip() for p in re.split(r"\n\s*\n", d.content or "")]
        picked = [p for p in paragraphs if len(p.split()) >= 12 and " ".join(p.split()) not in source][:per_doc]
        for p in picked:
            words = " ".join(p.split()[:8])
            rows.append({"reference": p.split(".")[0], "reference_contexts": [p],
                         "user_input": f"In {d.meta['doc']}, what follows '{words}'?"})
    return rows


def ragas_front_matter_rows(docs: dict[str, str]) -> list[dict]:
    """One question per document that has front matter, whose reference context is the start
    of Haystack's rendering of it: the front matter as plain ``key: value`` lines (the
    rendering drops the ``---`` delimiters), then the body's first two paragraphs — what a
    test set generated over rendered documents holds."""
    rows = []
    for d in haystack_documents(docs):
        if not docs[d.meta["doc"]].startswith("---"):
            continue
        paragraphs = [p.strip() for p in re.split(r"\n\s*\n", d.content or "") if p.strip()]
        if len(paragraphs) < 3:
            continue
        rows.append({"reference": paragraphs[1], "reference_contexts": ["\n\n".join(paragraphs[:3])],
                     "user_input": f"How does {d.meta['doc']} begin?"})
    return rows


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows),
                    encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--docs", nargs="*", help="only these documents (ids relative to CORPUS)")
    ap.add_argument("--ragas", type=int, default=0, metavar="N",
                    help="also write ragas-stripped.jsonl with up to N contexts per document")
    args = ap.parse_args(argv)
    logging.disable(logging.WARNING)
    docs = read_docs(args.corpus, args.docs)
    args.out.mkdir(parents=True, exist_ok=True)
    for name in PIPELINES:
        rows = chunk_rows(name, MAKERS[name](docs))
        write_jsonl(args.out / f"{name}.jsonl", rows)
        print(f"{name}: {len(rows)} chunks")
    rows = contextual_rows(docs)
    write_jsonl(args.out / "contextual.jsonl", rows)
    print(f"contextual: {len(rows)} chunks")
    if args.ragas:
        rows = ragas_rows(docs, args.ragas)
        write_jsonl(args.out / "ragas-stripped.jsonl", rows)
        print(f"ragas-stripped: {len(rows)} records")
        rows = ragas_front_matter_rows(docs)
        write_jsonl(args.out / "ragas-front-matter.jsonl", rows)
        print(f"ragas-front-matter: {len(rows)} records")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
