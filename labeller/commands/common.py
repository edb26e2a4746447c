"""Options and helpers the sub-commands share: project root, output format, record filters, consoles.

Commands never import each other; what two of them need lives here or in a small module
next to this one (``refusals``, ``review_status``, ``annotations``).
"""

from __future__ import annotations

import argparse

from rich.console import Console

from labeller.config import ProjectConfig, load_config
from labeller.core.models import Question
from labeller.core.project import Project
from labeller.core.vocab import SPLITS
from labeller.diagnostics import TerminalConsole
from labeller.errors import InvalidInput


def add_project_options(p: argparse.ArgumentParser, *, questions: bool = True, inherited: bool = False) -> None:
    """``add_root_options``, ``--corpus`` and ``--questions``; ``inherited`` as for ``add_root_options``."""
    add_root_options(p, inherited=inherited)
    unset = argparse.SUPPRESS if inherited else None
    p.add_argument("--corpus", default=unset, help="corpus folder (default: corpus/ or labeller.toml)")
    if questions:
        p.add_argument("--questions", default=unset, help="questions.jsonl (default: golden/questions.jsonl)")


def add_root_options(p: argparse.ArgumentParser, *, inherited: bool = False) -> None:
    """``--root``, and ``--allow-outside``: the one way to let configured paths leave the
    project's tree, given on the command line only (never by a file a pull request can change).
    ``inherited``: a sub-command's copy of its parent's options, with no default of its own,
    since argparse lets a sub-command's default overwrite a value given before it."""
    p.add_argument("--root", default=argparse.SUPPRESS if inherited else ".", help="project root (default: current "
                   "folder)")
    p.add_argument("--allow-outside", action="store_true", default=argparse.SUPPRESS if inherited else False,
                   help="let labeller.toml and the path flags name places outside the project's tree (its git "
                   "work tree, else the root); refused by default")


def add_format_option(p: argparse.ArgumentParser, *more: str, inherited: bool = False) -> None:
    """``--format text|json``, and the ``more`` formats this command also writes (``markdown``);
    ``inherited`` as for ``add_root_options``."""
    p.add_argument("--format", choices=("text", "json", *more), default=argparse.SUPPRESS if inherited else "text",
                   help="output format (default text)" if inherited else "output format")


def refuse_action_format(args: argparse.Namespace, action: str, *formats: str) -> None:
    """Refuse (exit 2) a ``--format`` only the sub-action ``action`` writes, given to its parent
    command alone (``labeller chunkers --format markdown``): the parent accepts it only so that
    it may stand before the action's name (``chunkers --format markdown compare A B``)."""
    if args.format in formats:
        raise InvalidInput(f"--format {args.format} is written by `{action}` only")


def add_filter_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tag", action="append", default=[], metavar="T",
                   help="only records carrying this tag (repeat for any of several)")
    p.add_argument("--split", choices=SPLITS, help="only records of this split")


def select(questions: list[Question], args: argparse.Namespace) -> list[Question]:
    """The records the --tag / --split filters keep, in file order."""
    tags = set(args.tag)
    return [q for q in questions if (not tags or tags & set(q.tags)) and (args.split is None or q.split == args.split)]


def config_from(args: argparse.Namespace) -> ProjectConfig:
    return load_config(args.root, corpus=getattr(args, "corpus", None), questions=getattr(args, "questions", None),
                       out=getattr(args, "out", None), hit_rule=getattr(args, "hit_rule", None),
                       allow_outside=args.allow_outside)


def project_from(args: argparse.Namespace) -> Project:
    from labeller.core.cache import DigestCache

    cfg = config_from(args)
    return Project(cfg, DigestCache(cfg.layout.cache_dir))


def console(stderr: bool = False) -> Console:
    return TerminalConsole(stderr=stderr, highlight=False, soft_wrap=False, emoji=False)  # ":smile:" in a query stays text


def placement_line(counts: dict[str, int]) -> str:
    """How a chunk file's chunks were placed (SPEC §10.1), as eval, chunkers compare and
    chunks --locate print it: every tier's count, in tier order."""
    return ", ".join(f"{kind} {n}" for kind, n in counts.items())
