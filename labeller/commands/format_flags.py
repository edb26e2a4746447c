"""The ``labeller import`` / ``export`` arguments generated from the formats' declared options.

Neither command names a format or one of its options: the FORMAT choices, the description,
and one ``--flag`` per declared option all come from the formats registered in ``labeller.interop.FORMATS``.
"""

from __future__ import annotations

import argparse
from types import SimpleNamespace

from labeller.interop import all_formats
from labeller.interop.format import Direction, Format, options_for, shared_options


def formats_for(direction: Direction) -> dict[str, Format]:
    return {name: fmt for name, fmt in all_formats().items() if fmt.does(direction)}


def describe_formats(direction: Direction) -> str:
    return "; ".join(f"{name}: {fmt.summary}" for name, fmt in formats_for(direction).items())


def folder_note(direction: Direction) -> str:
    """`` (a folder for beir)``: which formats read or write a folder instead of a file."""
    folders = sorted(name for name, fmt in formats_for(direction).items() if fmt.folder is not None)
    return f" (a folder for {', '.join(folders)})" if folders else ""


def add_format_argument(p: argparse.ArgumentParser, direction: Direction) -> None:
    names = sorted(formats_for(direction))
    p.add_argument("fmt", metavar="FORMAT", choices=names, help=", ".join(names))


def add_format_flags(p: argparse.ArgumentParser, direction: Direction) -> None:
    """One flag per declared option; each flag defaults to None so that ``chosen_options`` can
    tell a flag given to the wrong format from one left alone."""
    group = p.add_argument_group("format options (each applies to the formats it names)")
    for opt, users in shared_options(formats_for(direction), direction).values():
        default = "" if opt.default in (None, False) else f" (default: {opt.default!r})"
        help_text = f"{', '.join(users)}: {opt.help}{default}"
        if opt.type is bool:
            group.add_argument(opt.flag, dest=opt.dest, action="store_const", const=True, default=None,
                               help=help_text)
        else:
            group.add_argument(opt.flag, dest=opt.dest, type=opt.type, choices=opt.choices, metavar=opt.metavar,
                               default=None, help=help_text)


def chosen_options(args: argparse.Namespace, direction: Direction) -> SimpleNamespace:
    """The chosen format's own options; a flag given to a format that does not declare it is refused."""
    formats = formats_for(direction)
    return options_for(formats[args.fmt], direction, vars(args), formats)
