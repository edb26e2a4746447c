"""``labeller config --show``: the effective configuration, and where each value came from.

The same loading every command does (labeller.toml checked in full, flags on top, the
chunker and hit rule checked by opening the project), so a file this prints is a file every
command accepts — and a bad one is refused here with the same message.
"""

from __future__ import annotations

import argparse

from labeller.commands.common import add_format_option, add_project_options, config_from
from labeller.core.project import Project
from labeller.display import json_dumps, visible_line


def register(sub) -> None:
    p = sub.add_parser("config",
                       description="Print every setting of the project after labeller.toml and the flags are "
                       "applied, sorted, each with where it came from (default, labeller.toml or a flag).")
    p.add_argument("--show", action="store_true", help="print the effective configuration (the default action)")
    p.add_argument("--hit-rule", help="as for build/eval: show the configuration with this hit rule")
    add_project_options(p)
    add_format_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    cfg = config_from(args)
    Project(cfg)  # the names only the core can judge (chunker, hit rule) are checked here too
    settings = cfg.effective()
    layout = cfg.layout
    file = layout.config_file if (layout.config_file.exists() or layout.config_file.is_symlink()) else None
    if args.format == "json":
        print(json_dumps({"ok": True, "file": str(file) if file else None, "settings": settings,
                          "sources": dict(sorted(cfg.sources.items()))}, indent=2, sort_keys=True))
        return 0
    print(f"# effective configuration of {visible_line(str(cfg.root))}")
    print(f"# {visible_line(str(file))} was read" if file else "# no labeller.toml: every value is a default or a flag")
    for section in sorted(settings):
        print(f"\n[{section}]")
        for key in sorted(settings[section]):
            source = cfg.sources.get(f"{section}.{key}", "default")
            if settings[section][key] is None:  # TOML has no null: an unset key is shown commented out
                print(f"# {key} = (not set)  # {source}")
                continue
            print(f"{key} = {visible_line(toml_value(settings[section][key]))}  # {source}")
    return 0


def toml_value(value) -> str:
    """A setting as TOML would spell it (strings, integers, floats, arrays, inline tables)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {toml_value(v)}" for k, v in sorted(value.items())) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return json_dumps(value)
