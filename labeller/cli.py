"""The ``labeller`` command line: one sub-command per module under ``labeller.commands``.

With no sub-command, ``labeller`` opens the authoring app on the project in the current
folder. Exit codes: 0 success, 1 refused build / drift / regression, 2 invalid input or an
environment error (permission denied, disk full), 3 an internal error (a bug in labeller),
141 the reader of the output went away (``labeller build | head -1``).

A sub-command is one module exposing ``register(subparsers)`` (which adds the parser of
that one name and sets ``func``) plus one line in ``COMMANDS`` below: its module, its group
and its summary for ``labeller --help``. The table, not the folder, says what is a command,
so helper modules can live next to the commands.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import NamedTuple, cast

from labeller import __version__
from labeller.diagnostics import TerminalConsole, print_bounded, safe_short, shorten
from labeller.display import json_dumps, safe
from labeller.registry import load_target
from labeller.errors import (EXIT_BROKEN_PIPE, EXIT_INTERNAL, EXIT_INVALID, LabellerError, environment_message,
                             write_crash_report)


class Command(NamedTuple):
    """A sub-command: the module whose ``register(subparsers)`` adds it, the job it serves in
    ``labeller --help`` (one of ``GROUPS``), and its line there."""

    module: str
    group: str
    summary: str


GROUPS = ("author", "check in CI", "evaluate", "review", "exchange")

# sub-command -> its Command, in ``--help`` order within each group; one line registers a sub-command.
COMMANDS: dict[str, Command] = {
    "app": Command("labeller.commands.app", "author", "open the authoring app (the default command)"),
    "new": Command("labeller.commands.new", "author", "scaffold an empty project in DIR"),
    "repair": Command("labeller.commands.repair", "author",
                   "apply moved and nearest-passage suggestions to questions.jsonl"),
    "traffic": Command("labeller.commands.traffic", "author",
                   "sample a query log into a queue of questions to label"),
    "config": Command("labeller.commands.config", "author",
                   "show the effective configuration (labeller.toml, defaults, flags)"),
    "schema": Command("labeller.commands.schema", "author", "print the JSON Schema of a questions.jsonl record"),
    "build": Command("labeller.commands.build", "check in CI",
                   "resolve every label and write the golden-set artifact and manifest"),
    "diff": Command("labeller.commands.diff", "check in CI",
                   "what changed in the golden set between two versions (git revisions or files)"),
    "leaks": Command("labeller.commands.leaks", "check in CI",
                   "find corpus documents that quote two or more golden queries"),
    "merge-driver": Command("labeller.commands.merge_driver", "check in CI",
                   "git merge driver: merge questions.jsonl (judgments, reviews) by record"),
    "eval": Command("labeller.commands.eval", "evaluate",
                   "score the golden set: recall@k, MRR, nDCG with intervals; regression gate"),
    "runs": Command("labeller.commands.runs", "evaluate", "list past eval runs and the trend of a metric"),
    "chunks": Command("labeller.commands.chunks", "evaluate",
                   "write a chunking of the corpus as a chunk file (JSONL), or place a pipeline's chunk file (--locate)"),
    "chunkers": Command("labeller.commands.chunkers", "evaluate",
                   "list the chunkers with their parameters; `chunkers compare` scores several"),
    "pool": Command("labeller.commands.pool", "evaluate",
                   "the retrieved chunks no label or judgment covers yet, to judge"),
    "judge": Command("labeller.commands.judge", "evaluate",
                   "record verdicts on pooled chunks (judgments.jsonl); judges' agreement"),
    "review": Command("labeller.commands.review", "review",
                   "review labels record by record (accept / flag / edit), or --summary"),
    "annotate": Command("labeller.commands.annotate", "review",
                   "label the queries blind as a second annotator (--as NAME)"),
    "agreement": Command("labeller.commands.agreement", "review",
                   "agreement between questions.jsonl and a second annotator (--with NAME)"),
    "adjudicate": Command("labeller.commands.adjudicate", "review",
                   "settle disagreements with a second annotator (--with NAME)"),
    "import": Command("labeller.commands.import_", "exchange",
                   "merge labels from another format into questions.jsonl"),
    "export": Command("labeller.commands.export", "exchange", "write the golden set in another format"),
}


def make_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``only``, just the module of that sub-command is imported.

    Importing every command pulls in numpy, duckdb and whoosh, which would cost a quick
    ``build --check`` a third of its time; ``--help`` and unknown names still see them all.
    """
    parser = argparse.ArgumentParser(prog="labeller", description="Author and keep golden sets for retrieval "
                                     "evaluation over Markdown corpora.")
    parser.add_argument("--version", action="version", version=f"labeller {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    names = [only] if only in COMMANDS else list(COMMANDS)
    for name in names:
        cast(Callable[[object], None], load_target(f"{COMMANDS[name].module}:register", "labeller.commands"))(sub)
    return parser


def grouped_help() -> str:
    """``labeller --help``: the commands by the job they serve, from ``COMMANDS`` alone, so it
    imports no command (every command's imports together take about a second)."""
    width = max(map(len, COMMANDS)) + 2
    out = ["usage: labeller [--version] [COMMAND] [options]", "",
           "Author and keep golden sets for retrieval evaluation over Markdown corpora.",
           "With no command, `labeller` opens the authoring app on the project in the current folder.", ""]
    for group in GROUPS:
        out.append(f"{group}:")
        out += [f"  {name:<{width}}{cmd.summary}" for name, cmd in COMMANDS.items() if cmd.group == group]
        out.append("")
    out.append("`labeller COMMAND --help` describes a command and its options.")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Run one command; a reader that closed our output ends it quietly (``EXIT_BROKEN_PIPE``).

    The handler is here, once, so every command ends alike. As the Python docs advise
    (signal module, "Note on SIGPIPE"), stdout is flushed inside it, so output still buffered
    fails here rather than at interpreter exit, and is then pointed at devnull so that the
    final flush has nowhere to fail; whatever the command wrote to files is kept.
    """
    try:
        code = _run(argv)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return EXIT_BROKEN_PIPE


def _run(argv: list[str] | None) -> int:
    argv = (sys.argv[1:] if argv is None else argv) or ["app"]
    if argv in (["-h"], ["--help"]):
        print(grouped_help())
        return 0
    args = make_parser(None if argv[0].startswith("-") else argv[0]).parse_args(argv)
    if args.command is None:  # only options, such as --root: they belong to the app
        args = make_parser("app").parse_args(["app", *argv])
    try:
        return int(args.func(args) or 0)
    except LabellerError as exc:
        if getattr(args, "format", "text") == "json":
            errors = exc.details or [{"message": str(exc)}]
            print(json_dumps({"ok": False, "errors": [{"kind": "invalid", **e} for e in errors]},
                             indent=2, sort_keys=True))
        else:
            err = TerminalConsole(stderr=True, highlight=False, soft_wrap=True, emoji=False)
            err.print(f"labeller: {safe(shorten(str(exc), 2000))}")
            print_bounded(err, (_detail_line(d) for d in exc.details), len(exc.details), "problems")
        return exc.exit_code
    except KeyboardInterrupt:
        print("labeller: interrupted; nothing was written", file=sys.stderr)
        return 130
    except BrokenPipeError:
        raise  # not the environment's fault: main ends it quietly
    except OSError as exc:  # the environment, not the input: say which path and why
        return _fail(args, "environment", environment_message(exc), EXIT_INVALID)
    except Exception as exc:  # a bug: never exit 1, which CI reads as "labels drifted"
        report = write_crash_report(exc)
        where = f"; traceback in {report}" if report else ""
        return _fail(args, "internal", f"internal error ({type(exc).__name__}: {exc}); a bug in labeller, "
                     f"not in your project{where}", EXIT_INTERNAL)


def _detail_line(d: dict) -> str:
    """One of an error's problems, on one bounded line."""
    where = f"{d.get('path')}:{d.get('line')}" if d.get("line") else (d.get("path") or "")
    rid = f" record {d['id']!r}" if d.get("id") else ""
    return f"  {safe_short(where)}{safe_short(rid)}: {safe_short(d['message'])}"


def _fail(args: argparse.Namespace, kind: str, message: str, code: int) -> int:
    """One line (or one JSON report) for an error that is not the input's."""
    message = " ".join(message.split())[:2000]
    if getattr(args, "format", "text") == "json":
        print(json_dumps({"ok": False, "errors": [{"kind": kind, "message": message}]},
                         indent=2, sort_keys=True))
    else:
        TerminalConsole(stderr=True, highlight=False, soft_wrap=True, emoji=False).print(f"labeller: {safe(message)}")
    return code


if __name__ == "__main__":
    sys.exit(main())
