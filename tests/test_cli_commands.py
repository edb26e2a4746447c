"""The sub-command table: one line registers a command, commands never import each other,
and ``labeller X`` imports the module of X alone."""

from __future__ import annotations

import argparse
import ast
import importlib
import subprocess
import sys
from pathlib import Path

import labeller.commands
from labeller.cli import COMMANDS, GROUPS, main

COMMANDS_DIR = Path(labeller.commands.__path__[0])



def imported_modules(path: Path, package: str) -> set[str]:
    """Every module a file imports, anywhere in it (function bodies included), as absolute names."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                mod = f"{base}.{node.module}" if node.module else base
            else:
                mod = node.module or ""
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)  # `from labeller.commands import build`
    return out


def command_imports() -> set[tuple[str, str]]:
    commands = {c.module for c in COMMANDS.values()}
    found = set()
    for path in sorted(COMMANDS_DIR.rglob("*.py")):
        rel = path.relative_to(COMMANDS_DIR.parent.parent).with_suffix("")
        name = ".".join(rel.parts).removesuffix(".__init__")
        for mod in imported_modules(path, name.rpartition(".")[0]):
            if mod in commands and mod != name:
                found.add((name, mod))
    return found


def test_no_command_module_imports_another():
    found = command_imports()
    assert found == set(), f"a command imports another command: {sorted(found)}; move what " \
                           "they share into labeller/commands/common.py or a lower layer"


def test_the_import_walk_sees_every_kind_of_import(tmp_path):
    src = tmp_path / "x.py"
    src.write_text("import labeller.commands.build\nfrom labeller.commands import review\n"
                   "def f():\n    from .export import run\n    from . import leaks\n", encoding="utf-8")
    got = imported_modules(src, "labeller.commands")
    assert {"labeller.commands.build", "labeller.commands.review", "labeller.commands.export",
            "labeller.commands.leaks"} <= got


def test_every_command_module_registers_exactly_its_own_name():
    for name, (module, _, _) in COMMANDS.items():
        parser = argparse.ArgumentParser()
        sub = parser.add_subparsers(dest="command")
        importlib.import_module(module).register(sub)
        assert list(sub.choices) == [name], module


def test_every_module_in_commands_is_a_command_or_a_shared_helper():
    """A command module left out of the table would be dead code; a helper must not register."""
    for path in COMMANDS_DIR.glob("*.py"):
        module = f"labeller.commands.{path.stem}"
        if path.stem == "__init__" or module in {c.module for c in COMMANDS.values()}:
            continue
        assert not hasattr(importlib.import_module(module), "register"), \
            f"{module} defines register() but has no line in labeller.cli.COMMANDS"


def loaded_after_parsing(command: str) -> list[str]:
    code = (f"import sys; from labeller.cli import make_parser; make_parser({command!r}); "
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('labeller.') or m in "
            "('whoosh', 'duckdb', 'numpy', 'textual'))))")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()


def test_a_sub_command_imports_only_its_own_module():
    """``labeller build --check`` must not pay for numpy, duckdb, whoosh or the app."""
    assert [m for m in loaded_after_parsing("schema") if m.startswith("labeller.commands.")] == \
        ["labeller.commands.schema"]
    loaded = loaded_after_parsing("build")
    assert [m for m in loaded if m.startswith("labeller.commands.")] == \
        ["labeller.commands.build", "labeller.commands.check_markdown", "labeller.commands.committed_corpus",
         "labeller.commands.common", "labeller.commands.git_blobs", "labeller.commands.refusals",
         "labeller.commands.review_status"]
    assert not {"whoosh", "duckdb", "numpy", "textual"} & set(loaded), loaded
    assert len(loaded_after_parsing("--help")) > len(loaded)  # everything else is there to be left out


def test_help_lists_every_command_once_under_its_job_and_imports_none():
    """``labeller --help`` is the table alone: grouped by job, every command once with its
    summary, and no command module imported (all of them together cost about a second)."""
    code = ("import sys; from labeller.cli import main; rc = main(['--help']); "
            "print('LOADED', *sorted(m for m in sys.modules if m.startswith('labeller.commands.'))); sys.exit(rc)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    text, _, loaded = done.stdout.rpartition("LOADED")
    assert loaded.split() == []
    groups = [line[:-1] for line in text.splitlines() if line.endswith(":") and not line.startswith(" ")]
    assert groups == list(GROUPS)
    listed = [line.split()[0] for line in text.splitlines() if line.startswith("  ")]
    assert sorted(listed) == sorted(COMMANDS) and len(listed) == len(set(listed))
    for name, cmd in COMMANDS.items():
        assert f"  {name} " in text and cmd.summary in text and cmd.group in GROUPS


def test_new_project_git_ignores_what_labeller_caches(tmp_path, capsys):
    """Only the caches are ignored: the corpus, the golden set and labeller.toml stay tracked."""
    root = tmp_path / "fresh"
    assert main(["new", str(root)]) == 0
    assert main(["build", "--root", str(root)]) == 0
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    made = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and ".git/" not in
            p.relative_to(root).as_posix() + "/"]
    cached = [p for p in made if p.startswith(".labeller-cache/")]
    assert cached, made  # the build really wrote its cache
    ignored = subprocess.run(["git", "-C", str(root), "check-ignore", *made, ".labeller/runs.duckdb",
                              ".labeller/journal.json"], capture_output=True, text=True).stdout.split()
    assert sorted(ignored) == sorted(cached + [".labeller/runs.duckdb", ".labeller/journal.json"])
