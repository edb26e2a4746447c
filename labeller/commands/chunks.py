"""``labeller chunks --chunker SPEC [--out FILE]``: write a chunking as a chunk file;
``labeller chunks --locate FILE --out OUT``: where a pipeline's chunk file lies.

Any of labeller's chunkers, at any setting, can feed another system (an embedding job, a
vector store) as a SPEC §10 chunk file: one ``{"doc", "end", "id", "start"}`` object a line,
keys sorted, in corpus order then document order, so the same corpus and spec give the
same bytes. Offsets are code points into the canonical text; the ids are the chunker's own,
so labels and retrieval runs made with the file line up with labeller's. The file is
written atomically (stdout without ``--out``); a chunking whose ids repeat (md-struct-v1
gives identical passages of one document one id) cannot be a chunk file, and is refused
with nothing written.

``--locate`` reads a chunk file of passages (SPEC §10) and writes each chunk as offsets,
``{"doc", "end", "id", "located", "start"}`` (``share`` too when ``located`` is
``aligned``; ``added_before`` / ``added_after`` when part of its text was added by the
pipeline, SPEC §10.1), in file order, after placing every passage as ``eval --chunks``
does. It prints how many chunks each tier placed, so a user sees how much of a chunking was
found only in the rendered text or by its words, and how many carried added text. A chunk
no tier could place is left out and reported on stderr (id, line, reason: the first
``TEXT_LIMIT`` in text, every one in JSON) — one degraded chunk does not sink an index of
thousands; ``--strict`` exits 1 and writes nothing instead (a malformed file: exit 2).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from labeller.commands.common import add_format_option, add_project_options, console, placement_line, project_from
from labeller.core.chunkers import Chunk, chunk_corpus, chunker_spec, get_chunker
from labeller.core.chunkfile import place_chunk_file, read_chunk_text
from labeller.core.outputs import check_output
from labeller.core.project import Project
from labeller.diagnostics import listing, print_bounded, safe_short
from labeller.display import json_dumps, safe_line
from labeller.errors import EXIT_OK, EXIT_REFUSED
from labeller.io import atomic_write_bytes


def register(sub) -> None:
    p = sub.add_parser("chunks",
                       description="Chunk the corpus with SPEC and write one {id, doc, start, end} line per chunk "
                       "(SPEC §10). `labeller chunkers` lists the chunkers and their parameters. With --locate FILE, "
                       "place the passages of a pipeline's chunk file instead (exact, rendered, aligned: SPEC §10.1) "
                       "and write {id, doc, start, end, located, added_before?, added_after?}; a chunk that cannot be placed is "
                       "reported on stderr and left out (--strict: exit 1, nothing written).")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--chunker", metavar="SPEC",
                     help="name or name:key=value,... e.g. recursive-v1:size=800,overlap=200 "
                     "(default: the project's chunker from labeller.toml)")
    how.add_argument("--locate", metavar="FILE", help="a chunk file of {id?, doc?, text} lines to place")
    p.add_argument("--strict", action="store_true", help="with --locate: exit 1 and write nothing if any chunk "
                   "cannot be placed (default: leave it out and report it)")
    p.add_argument("--out", dest="target", metavar="FILE", help="file to write (default: stdout)")
    add_project_options(p, questions=False)
    add_format_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    project = project_from(args)
    if args.target:
        check_output(project.config, args.target, "--out")
    if args.locate:
        return _locate(args, project)
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
    written = _write(args.target, [{"doc": c.doc_id, "end": c.end, "id": c.chunk_id, "start": c.start}
                                   for c in chunks])
    if args.format == "json":
        print(json_dumps({"ok": True, "chunker": spec, "chunks": len(chunks), "docs": len(project.corpus.docs),
                          "written": written}, indent=2, sort_keys=True), file=summary_out)
    else:
        console(stderr=summary_out is sys.stderr).print(
            f"wrote {len(chunks)} chunk(s) of {len(project.corpus.docs)} document(s) under {safe_line(spec)} "
            f"to {safe_line(written)}", soft_wrap=True)
    return EXIT_OK


def _write(target: str | None, rows: list[dict]) -> str:
    """The rows as JSONL, keys sorted, to ``target`` (atomically) or stdout; where they went."""
    data = "".join(json_dumps(r, sort_keys=True) + "\n" for r in rows).encode("utf-8")
    if target:
        atomic_write_bytes(Path(target), data)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    return target or "-"


def _locate(args: argparse.Namespace, project: Project) -> int:
    cfg = project.config.eval
    placed = place_chunk_file(read_chunk_text(Path(args.locate), cfg.chunk_file_max_bytes), project.corpus,
                              max_chunks=cfg.chunk_file_max_chunks, path=args.locate, cache=project.cache)
    placed.problems.raise_if_any()  # malformed: exit 2, every problem listed
    counts = placed.counts()
    summary_out = sys.stderr if args.target is None else sys.stdout
    refused = bool(placed.unplaced) and args.strict
    written = None
    if not refused:
        written = _write(args.target, [{"doc": c.place.doc, "end": c.place.end, "id": c.id, "located": c.located,
                                        "start": c.place.start} | ({"share": c.share} if c.share is not None else {})
                                       | ({"added_after": c.added_after, "added_before": c.added_before}
                                          if c.added_before or c.added_after else {})
                                       for c in placed.chunks])
    if args.format == "json":
        print(json_dumps({"ok": not refused, "counts": counts, "added": placed.added, "unplaced": placed.unplaced,
                          "written": written}, indent=2, sort_keys=True), file=summary_out)
        return EXIT_REFUSED if refused else EXIT_OK
    out = console(stderr=summary_out is sys.stderr)
    out.print(f"placed {len(placed.chunks)} chunk(s) of {safe_line(args.locate)}: {placement_line(counts)}; "
              f"{placed.added} with text the pipeline added around the source part", soft_wrap=True)
    if placed.unplaced:
        err = console(stderr=True)
        err.print(f"labeller: {len(placed.unplaced)} chunk(s) cannot be placed; "
                  + ("nothing was written (--strict)" if refused else "they are left out"), soft_wrap=True)
        print_bounded(err, (f"  {safe_line(u['path'])}:{u['line']} {safe_short(u['id'])}: {safe_line(u['message'])}"
                            for u in placed.unplaced), len(placed.unplaced), "unplaced chunks")
    if not refused:
        out.print(f"wrote {len(placed.chunks)} placement(s) to {safe_line(written or '-')}", soft_wrap=True)
    return EXIT_REFUSED if refused else EXIT_OK


def _repeated_ids(chunks: list[Chunk]) -> list[tuple[str, list[str]]]:
    """Each id given to more than one chunk, with every ``doc:start-end`` that has it."""
    places: dict[str, list[str]] = {}
    for c in chunks:
        places.setdefault(c.chunk_id, []).append(f"{c.doc_id}:{c.start}-{c.end}")
    return [(cid, where) for cid, where in sorted(places.items()) if len(where) > 1]
