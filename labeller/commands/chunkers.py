"""``labeller chunkers``: the chunkers a spec can name, with their parameters and defaults.

What ``--chunker`` / ``[build] chunker`` accept is the registry, so this lists the registry:
each chunker's name, its rule version, its one-line summary (the first line of its module's
docstring) and each parameter with its type and default, which is how a spec such as
``recursive-v1:size=800,overlap=200`` is written.
"""

from __future__ import annotations

import argparse
import json
import sys

from labeller.commands.common import add_format_option, console
from labeller.core.chunkers import REGISTRY, chunker_class, chunker_spec, get_chunker
from labeller.display import safe_line
from labeller.errors import EXIT_OK


def register(sub) -> None:
    p = sub.add_parser("chunkers", help="list the chunkers with their parameters and defaults",
                       description="List every chunker a --chunker SPEC can name, its parameters and their "
                       "defaults. A spec is name or name:key=value,...")
    add_format_option(p)
    p.set_defaults(func=run)


def describe(name: str) -> dict:
    chunker = get_chunker(name)  # the rule's own defaults, not a project's
    cls = chunker_class(name)
    doc = (sys.modules[cls.__module__].__doc__ or "").strip().splitlines()
    summary = doc[0].removeprefix(f"{name}:").strip().replace("``", "") if doc else ""
    return {"name": name, "version": chunker.version, "summary": summary, "default_spec": chunker_spec(chunker),
            "parameters": [{"name": k, "type": type(v).__name__, "default": v} for k, v in chunker.settings.items()]}


def run(args: argparse.Namespace) -> int:
    rows = [describe(name) for name in sorted(REGISTRY)]
    if args.format == "json":
        print(json.dumps({"chunkers": rows}, ensure_ascii=False, indent=2, sort_keys=True))
        return EXIT_OK
    out = console()
    for row in rows:
        params = ", ".join(f"{p['name']}={p['default']} ({p['type']})" for p in row["parameters"]) or "none"
        out.print(f"{safe_line(row['name'])}  {safe_line(row['summary'])}", soft_wrap=True)
        out.print(f"    parameters: {safe_line(params)}", soft_wrap=True)
        out.print(f"    e.g. --chunker {safe_line(row['default_spec'])}", soft_wrap=True)
    return EXIT_OK
