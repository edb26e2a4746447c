"""``labeller export FORMAT``: write the golden set for another tool.

Every export is derived from a fresh in-memory build (the same one ``build --check``
makes), never from the committed artifact, so it cannot carry labels that no longer
resolve; a build with label errors exports nothing. Files are written atomically. A
single-file format goes to stdout without ``--out`` (the summary then goes to stderr).
"""

from __future__ import annotations

import argparse
import os
import sys
from fnmatch import fnmatchcase
from pathlib import Path

from labeller.commands.common import add_format_option, add_project_options, console, project_from
from labeller.commands.refusals import report_refusals
from labeller.config import ProjectConfig
from labeller.core.build import build
from labeller.core.outputs import check_output
from labeller.commands.format_flags import (add_format_argument, add_format_flags, chosen_options, describe_formats,
                                            folder_note)
from labeller.diagnostics import listing, print_bounded, safe_short
from labeller.display import json_dumps, safe_line
from labeller.errors import EXIT_OK, InvalidInput
from labeller.interop import all_formats
from labeller.interop.format import Direction, Exported
from labeller.io import atomic_write_bytes


def register(sub) -> None:
    p = sub.add_parser("export",
                       description="Build in memory and write the labels in FORMAT. Formats — "
                       f"{describe_formats(Direction.EXPORT)}.")
    add_format_argument(p, Direction.EXPORT)
    p.add_argument("--out", dest="target", metavar="PATH", help="file to write" + folder_note(Direction.EXPORT)
                   + "; default: stdout for single-file formats")
    p.add_argument("--hit-rule", help="build hit rule deciding the answer-bearing chunks (default: labeller.toml)")
    p.add_argument("--chunks", metavar="FILE", help="write the ids and qrels of this chunk file's chunking instead "
                   "of the project's chunks (see labeller eval --chunks)")
    add_project_options(p)
    add_format_option(p)
    add_format_flags(p, Direction.EXPORT)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    options = chosen_options(args, Direction.EXPORT)
    fmt = all_formats()[args.fmt]
    project = project_from(args)
    result = build(project, project.load_questions().questions)
    if not result.ok:
        return report_refusals(project, result, args.format, "export needs a clean build", "nothing was exported")
    if args.chunks:
        from labeller.eval.chunkset import through_chunking

        project, result = through_chunking(project, result, args.chunks)
    assert fmt.export is not None  # the parser offers only the formats that export
    exported = fmt.export(project, result, options)
    notes = exported.notes
    written = (write_folder(args, project.config, exported, fmt.folder) if fmt.folder is not None
               else write_single(args, project.config, exported))
    summary_to_stderr = args.target is None and fmt.folder is None
    if args.format == "json":
        print(json_dumps({"ok": True, "errors": [], "format": args.fmt, "records": len(result.records),
                          "hit_rule": project.hit_rule.name, "notes": notes, "written": written},
                         indent=2, sort_keys=True), file=sys.stderr if summary_to_stderr
              else sys.stdout)
    else:
        out = console(stderr=summary_to_stderr)
        out.print(f"exported {len(result.records)} record(s) as {args.fmt}: {safe_line(listing(written, 'files'))}")
        print_bounded(out, (f"  note: {safe_short(note)}" for note in notes), len(notes), "notes")
    return EXIT_OK


def write_extra(exported: Exported) -> list[str]:
    """The files the user named through a format option (TREC's ``--queries-out``), checked
    with the rest by ``check_targets`` before anything is written."""
    for path, data in exported.extra.items():
        atomic_write_bytes(Path(path), data)
    return list(exported.extra)


def check_targets(config: ProjectConfig, exported: Exported, targets: list[Path]) -> None:
    """Every file the export would write is a safe output (not an input of the project, not a
    FIFO or a symlink, no symlinked folder): all checked before the first is written."""
    for path in [*targets, *map(Path, exported.extra)]:
        check_output(config, path, "the export")


def write_single(args: argparse.Namespace, config: ProjectConfig, exported: Exported) -> list[str]:
    check_targets(config, exported, [Path(args.target)] if args.target else [])
    if args.target:
        atomic_write_bytes(Path(args.target), exported.files[""])
        written = [args.target]
    else:
        sys.stdout.buffer.write(exported.files[""])
        sys.stdout.flush()
        written = ["-"]
    return written + write_extra(exported)


def write_folder(args: argparse.Namespace, config: ProjectConfig, exported: Exported,
                 patterns: tuple[str, ...]) -> list[str]:
    """Write a multi-file export into ``--out DIR``.

    The folder must be new, empty, or hold only files an export of this format writes; those
    are replaced, and any of them this export does not write again (a split that no longer
    has records) is removed, so the folder never mixes two exports.
    """
    if not args.target:
        raise InvalidInput(f"{args.fmt} writes a folder; give it with --out DIR")
    folder = Path(args.target)
    files = exported.files
    stale = []
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise InvalidInput("--out must be a folder (not a file or a symlink)", path=str(folder))
    if folder.exists():
        for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
            for name in dirnames + filenames:
                path = Path(dirpath) / name
                rel = path.relative_to(folder).as_posix()
                if path.is_symlink():
                    raise InvalidInput("symlink in the export folder refused", path=str(path))
                if path.is_dir():
                    if not any(p.startswith(rel + "/") for p in patterns):
                        raise InvalidInput(f"the folder holds {rel}/, which no {args.fmt} export writes; choose a new "
                                           "or empty folder", path=str(folder))
                    continue
                if name.startswith(".") and name.endswith(".tmp"):
                    stale.append(path)  # the temp file of an export that was killed mid-write
                    continue
                if not any(fnmatchcase(rel, p) for p in patterns):
                    raise InvalidInput(f"the folder holds {rel}, which no {args.fmt} export writes; choose a new or "
                                       "empty folder", path=str(folder))
                if rel not in files:
                    stale.append(path)
    check_targets(config, exported, [folder / rel for rel in files])
    for rel, data in files.items():
        atomic_write_bytes(folder / rel, data)
    for path in stale:
        path.unlink()
    return [str(folder / rel) for rel in files] + write_extra(exported)
