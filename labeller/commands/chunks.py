"""``labeller chunks --chunker SPEC [--out FILE]``: write a chunking as a chunk file.

Any of labeller's chunkers, at any setting, can feed another system (an embedding job, a
vector store) as a SPEC §10 chunk file: one ``{"doc", "end", "id", "start"}`` object a line,
keys sorted, in corpus order then document order, so the same corpus and spec give the
same bytes. Offsets are code points into the canonical text; the ids are the chunker's own,
so labels and retrieval runs made with the file line up with labeller's. The file is
written atomically (stdout without ``--out``); a chunking whose ids repeat (md-struct-v1
gives identical passages of one document one id) cannot be a chunk file, and is refused
with nothing written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from labeller.commands.common import add_format_option, add_project_options, console, project_from
from labeller.core.chunkers import Chunk, chunk_corpus, chunker_spec, get_chunker
from labeller.diagnostics import listing, print_bounded, safe_short
from labeller.display import json_dumps, safe_line
from labeller.errors import EXIT_OK, EXIT_REFUSED
from labeller.io import atomic_write_bytes


def register(sub) -> None:
    p = sub.add_parser("chunks", help="write a chunking of the corpus as a chunk file (JSONL)",
                       description="Chunk the corpus with SPEC and write one {id, doc, start, end} line per chunk "
                       "(SPEC §10). `labeller chunkers` lists the chunkers and their parameters.")
    p.add_argument("--chunker", metavar="SPEC",
                   help="name or name:key=value,... e.g. recursive-v1:size=800,overlap=200 "
                   "(default: the project's chunker from labeller.toml)")
    p.add_argument("--out", dest="target", metavar="FILE", help="file to write (default: stdout)")
    add_project_options(p, questions=False)
    add_format_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    project = project_from(args)
    cfg = project.config
    chunker = get_chunker(args.chunker, max_chars=cfg.max_chars) if args.chunker else project.chunker
    spec = chunker_spec(chunker)
    chunks = [c for doc_chunks in chunk_corpus(project.corpus, chunker, project.cache).values() for c in doc_chunks]
    repeated = _repeated_ids(chunks)
    summary_out = sys.stderr if args.target is None else sys.stdout
    if repeated:
        message = (f"{spec} gives {len(repeated)} id(s) to more than one chunk, and a chunk file needs unique ids; "
                   "nothing was written")
        if args.format == "json":
            print(json_dumps({"ok": False, "chunker": spec, "errors": [
                {"kind": "duplicate_id", "id": cid, "places": places,
                 "message": f"id {cid} is shared by {len(places)} chunks, at {listing(places, 'places')}"}
                for cid, places in repeated]}, indent=2, sort_keys=True), file=summary_out)
        else:
            err = console(stderr=True)
            err.print(f"labeller: {safe_line(message)}", soft_wrap=True)
            print_bounded(err, (f"  {safe_short(cid)}: {safe_line(listing(places, 'places'))}"
                                for cid, places in repeated), len(repeated), "repeated ids")
        return EXIT_REFUSED
    data = "".join(json_dumps({"doc": c.doc_id, "end": c.end, "id": c.chunk_id, "start": c.start}, sort_keys=True)
                   + "\n" for c in chunks).encode("utf-8")
    if args.target:
        atomic_write_bytes(Path(args.target), data)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    written = args.target or "-"
    if args.format == "json":
        print(json_dumps({"ok": True, "chunker": spec, "chunks": len(chunks), "docs": len(project.corpus.docs),
                          "written": written}, indent=2, sort_keys=True), file=summary_out)
    else:
        console(stderr=summary_out is sys.stderr).print(
            f"wrote {len(chunks)} chunk(s) of {len(project.corpus.docs)} document(s) under {safe_line(spec)} "
            f"to {safe_line(written)}", soft_wrap=True)
    return EXIT_OK


def _repeated_ids(chunks: list[Chunk]) -> list[tuple[str, list[str]]]:
    """Each id given to more than one chunk, with every ``doc:start-end`` that has it."""
    places: dict[str, list[str]] = {}
    for c in chunks:
        places.setdefault(c.chunk_id, []).append(f"{c.doc_id}:{c.start}-{c.end}")
    return [(cid, where) for cid, where in sorted(places.items()) if len(where) > 1]
