"""The layer contract: which part of labeller may import which.

This file is the documentation of the layers. Every ``import`` statement of every module under
``labeller/`` is read from the source (module level, inside functions, under ``TYPE_CHECKING``:
an import made lazily or for a type annotation is still a dependency) and checked against the
tables below. A rule broken anywhere fails with the module, the line and the rule:

* layers: nothing imports upward (LAYERS), nor sideways between independent siblings;
* islands: no sub-command module imports another (shared helpers live beside them);
* registries: chunkers and retrievers are reached through their package, never by module;
* app: inside the app, shell > screens > widgets > session, and only the UI imports Textual;
* private: no module takes another's ``_private`` name;
* forbidden: the few named imports that would put a higher layer's job in a lower one;
* cycles: no import circle, however lazily imported;
* third-party privates: no ``textual``/``whoosh`` private module, no ``x._name`` on an object that
  is not ``self``/``cls`` in the app (nor in an eval module that uses whoosh), and no app class
  that touches a private name of the Textual class it extends: all of that lives in the one
  adapter module (``ADAPTER``), each use naming its upstream issue (issue 26).
* registry targets: every ``"module:attr"`` string of a ``Registry(__name__, {...})`` or a
  ``ModeSpec`` names a module that exists and that its registry may import (the layers above);
* importlib: only ``labeller.registry`` imports by name (every other lazy import goes through it,
  so the strings above are the whole of what is imported by name).

``python tests/test_architecture.py`` prints today's violations, one per line.

Decisions the issue left open (issue 13, item 2):

* The issue writes ``app → commands/cli``, yet names "the app imports ``commands/review``" as a
  wrong-way import, and ``labeller app`` must construct the app. So the commands sit *above* the
  app: a command may launch a screen or the app; the app never reaches back into a command.
* ``eval``, ``review`` and ``interop`` are siblings: none imports another (none does today).
* ``config`` sits below the core (the brief's ``core → config/io/errors``): the configuration
  is plain data the core may read, so it imports nothing of the core; the core never calls the
  loader that reads ``labeller.toml`` (a project is handed its configuration).
* Inside the app, state lives in plain models outside the UI: the app's non-UI modules never
  import Textual, widgets never reach into screens or the App.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "labeller"

# ---------------------------------------------------------------------------------------------
# The contract, as data.
#
# Layers, top to bottom. A module may import from its own layer or any layer below it, never
# from a layer above. A module belongs to the entry naming it or its package (longest match);
# "labeller" names only the package's own ``__init__`` (the version).
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("cli", ("labeller.cli",)),
    ("commands", ("labeller.commands",)),
    ("app", ("labeller.app",)),
    ("services", ("labeller.eval", "labeller.review", "labeller.interop", "labeller.traffic")),
    ("core", ("labeller.core",)),
    ("config", ("labeller.config", "labeller.layout")),  # settings, and every path they name
    ("io", ("labeller.io",)),
    ("base", ("labeller.errors", "labeller.display", "labeller.diagnostics", "labeller.registry", "labeller")),  # registry: the lazy "module:attr" loader
]

# Siblings inside one layer that must not import one another.
INDEPENDENT: list[tuple[str, ...]] = [
    ("labeller.eval", "labeller.review", "labeller.interop", "labeller.traffic"),
    ("labeller.errors", "labeller.display"),
]

# Packages of islands -> the function that marks an island: a module of the package that
# defines it at top level (a sub-command's ``register(subparsers)``) is imported by no other
# module; shared helpers (which do not define it) may be imported by any.
ISLANDS: dict[str, str] = {"labeller.commands": "register"}

# Registries: implementations are reached by name through the package (``get_chunker``,
# ``make_retriever``), so that adding one is one new file plus one registration line. Outside
# the package nobody imports an implementation module.
REGISTRIES: tuple[str, ...] = ("labeller.core.chunkers", "labeller.core.hitrules", "labeller.eval.retrievers")

# Sub-layers of the app, top to bottom (same rule as LAYERS, applied inside ``labeller.app``).
APP_LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("shell", ("labeller.app.app", "labeller.app.review_app", "labeller.app.pilot")),
    ("screens", ("labeller.app.screens",)),
    ("widgets", ("labeller.app.widgets",)),
    ("session", ("labeller.app",)),  # the rest of the app: plain models, no UI
]

# Only these sub-layers of the app may import Textual (or a textual-* plug-in): the UI.
UI_LAYERS: tuple[str, ...] = ("shell", "screens", "widgets")

# (importer prefix, imported module, names it must not take, why). ``None`` forbids the module.
FORBIDDEN: list[tuple[str, str, tuple[str, ...] | None, str]] = [
    ("labeller.core", "labeller.config", ("load_config",),
     "the core is handed its configuration; reading labeller.toml is the commands' job"),
    ("labeller.core", "labeller.errors", ("EXIT_OK", "EXIT_REFUSED", "EXIT_INVALID"),
     "process exit codes belong to the CLI; the core returns results and raises errors"),
]
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Import:
    importer: str
    line: int
    target: str  # the labeller module (or third-party top-level name) imported
    names: tuple[str, ...]  # names taken with ``from ... import``; () for ``import x``
    type_only: bool


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else ""
            if name == "TYPE_CHECKING":
                for child in node.body:
                    for sub in ast.walk(child):
                        if hasattr(sub, "lineno"):
                            lines.add(sub.lineno)
    return lines


def imports_of(source: str, module: str, is_package: bool, known: set[str]) -> list[Import]:
    """Every import statement anywhere in ``source``, relative ones resolved, ``from pkg import
    sub`` resolved to the submodule when ``pkg.sub`` is a module."""
    tree = ast.parse(source)
    type_lines = _type_checking_lines(tree)
    package = module if is_package else module.rpartition(".")[0]
    found: list[Import] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append(Import(module, node.lineno, alias.name, (), node.lineno in type_lines))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                source_mod = ".".join(base + ([node.module] if node.module else []))
            else:
                source_mod = node.module or ""
            plain: list[str] = []
            for alias in node.names:
                sub = f"{source_mod}.{alias.name}"
                if sub in known:
                    found.append(Import(module, node.lineno, sub, (), node.lineno in type_lines))
                else:
                    plain.append(alias.name)
            if plain:
                found.append(Import(module, node.lineno, source_mod, tuple(plain), node.lineno in type_lines))
    return found


def top_level_functions(source: str) -> set[str]:
    return {n.name for n in ast.parse(source).body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


_TARGET = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")
SPEC_FIELDS = ("screen_at", "open_at")  # ModeSpec's "module:attr" fields (positional: 5th and 6th)


def registry_targets(source: str, module: str, is_package: bool) -> list[Import]:
    """The ``"module:attr"`` strings of the module's registries, as the imports they become
    when loaded: a ``Registry(...)`` call's dict values and a ``ModeSpec(...)``'s targets. A
    module without a dot is one of the registering package (``load_target``)."""
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        values: list[ast.expr] = []
        if node.func.id == "Registry" and len(node.args) > 1 and isinstance(node.args[1], ast.Dict):
            values = list(node.args[1].values)
        elif node.func.id == "ModeSpec":
            values = node.args[4:6] + [k.value for k in node.keywords if k.arg in SPEC_FIELDS]
        for v in values:
            if isinstance(v, ast.Constant) and isinstance(v.value, str) and _TARGET.fullmatch(v.value):
                target = v.value.partition(":")[0]
                found.append(Import(module, v.lineno, target if "." in target else f"{package}.{target}", (), False))
    return found


@dataclass
class Tree:
    modules: set[str]
    imports: list[Import]
    defines: dict[str, set[str]]  # module -> its top-level functions
    targets: list[Import] = field(default_factory=list)  # registry strings, as the imports they become


def read_tree(sources: dict[str, tuple[str, bool]]) -> Tree:
    """``sources``: module name -> (source text, is a package ``__init__``)."""
    known = set(sources)
    imports = [i for m, (src, pkg) in sorted(sources.items()) for i in imports_of(src, m, pkg, known)]
    targets = [t for m, (src, pkg) in sorted(sources.items()) for t in registry_targets(src, m, pkg)]
    return Tree(known, imports, {m: top_level_functions(src) for m, (src, _) in sources.items()}, targets)


def walk(root: Path = ROOT) -> Tree:
    return read_tree({module_name(p, root): (p.read_text(encoding="utf-8"), p.name == "__init__.py")
                      for p in sorted((root / "labeller").rglob("*.py"))})


def _owner(module: str, table: list[tuple[str, tuple[str, ...]]]) -> tuple[int, str] | None:
    """(layer index, matching entry) by longest match; "labeller" matches only itself."""
    best: tuple[int, str] | None = None
    for index, (_, entries) in enumerate(table):
        for entry in entries:
            hit = module == entry or (entry != "labeller" and module.startswith(entry + "."))
            if hit and (best is None or len(entry) > len(best[1])):
                best = (index, entry)
    return best


def _internal(imp: Import) -> bool:
    return imp.target == "labeller" or imp.target.startswith("labeller.")


def _where(imp: Import) -> str:
    return f"{imp.importer}:{imp.line} imports {imp.target}" + (" (TYPE_CHECKING)" if imp.type_only else "")


def unmapped(known: set[str]) -> list[str]:
    return sorted(m for m in known if _owner(m, LAYERS) is None)


def layer_violations(tree: Tree) -> list[str]:
    out = []
    for imp in filter(_internal, tree.imports):
        src, dst = _owner(imp.importer, LAYERS), _owner(imp.target, LAYERS)
        if src is None or dst is None:
            continue
        if dst[0] < src[0]:
            out.append(f"{_where(imp)}: upward, {LAYERS[src[0]][0]} -> {LAYERS[dst[0]][0]}")
        for group in INDEPENDENT:
            a = next((g for g in group if imp.importer == g or imp.importer.startswith(g + ".")), None)
            b = next((g for g in group if imp.target == g or imp.target.startswith(g + ".")), None)
            if a and b and a != b:
                out.append(f"{_where(imp)}: sideways, {a} and {b} are independent")
    return out


def island_violations(tree: Tree) -> list[str]:
    out = []
    for imp in filter(_internal, tree.imports):
        for package, mark in ISLANDS.items():
            island = imp.target.startswith(package + ".") and mark in tree.defines.get(imp.target, set())
            if island and imp.importer != imp.target:
                out.append(f"{_where(imp)}: a {package} module defining {mark}() is imported by no other")
    return out


def registry_violations(tree: Tree) -> list[str]:
    out = []
    for imp in filter(_internal, tree.imports):
        for package in REGISTRIES:
            if imp.target.startswith(package + ".") and not (
                    imp.importer == package or imp.importer.startswith(package + ".")):
                out.append(f"{_where(imp)}: an implementation behind the {package} registry")
    return out


def target_violations(tree: Tree) -> list[str]:
    """Registry strings: the module must exist and its registry may import it."""
    missing = [f"{_where(t)}: no such module (a registry string)" for t in tree.targets if t.target not in tree.modules]
    as_imports = Tree(tree.modules, tree.targets, tree.defines)
    return missing + [f"{v} (a registry string)" for check in (layer_violations, app_violations, ui_violations)
                      for v in check(as_imports)]


def importlib_violations(tree: Tree) -> list[str]:
    return [f"{_where(i)}: import by name only through labeller.registry" for i in tree.imports
            if (i.target == "importlib" or i.target.startswith("importlib.")) and i.importer != "labeller.registry"]


def app_violations(tree: Tree) -> list[str]:
    out = []
    for imp in filter(_internal, tree.imports):
        if not imp.importer.startswith("labeller.app"):
            continue
        src, dst = _owner(imp.importer, APP_LAYERS), _owner(imp.target, APP_LAYERS)
        if src is not None and dst is not None and dst[0] < src[0]:
            out.append(f"{_where(imp)}: upward inside the app, {APP_LAYERS[src[0]][0]} -> {APP_LAYERS[dst[0]][0]}")
    return out


def _is_ui(module: str) -> bool:
    owner = _owner(module, APP_LAYERS) if module.startswith("labeller.app.") else None
    return owner is not None and APP_LAYERS[owner[0]][0] in UI_LAYERS


def ui_violations(tree: Tree) -> list[str]:
    out = []
    for imp in tree.imports:
        top = imp.target.split(".")[0]
        if (top == "textual" or top.startswith("textual_")) and not _is_ui(imp.importer):
            out.append(f"{_where(imp)}: only the UI (the app's {', '.join(UI_LAYERS)}) imports Textual")
    return out


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_violations(tree: Tree) -> list[str]:
    out = []
    for imp in filter(_internal, tree.imports):
        if imp.target == imp.importer:
            continue
        private = [n for n in imp.names if _private(n)]
        private_mod = [p for p in imp.target.split(".") if _private(p)]
        if private or private_mod:
            out.append(f"{_where(imp)}: takes private {', '.join(private + private_mod)}")
    return out


def forbidden_violations(tree: Tree) -> list[str]:
    out = []
    for imp in filter(_internal, tree.imports):
        for prefix, target, names, why in FORBIDDEN:
            if not (imp.importer == prefix or imp.importer.startswith(prefix + ".")):
                continue
            if not (imp.target == target or imp.target.startswith(target + ".")):
                continue
            taken = imp.names if names is None else tuple(n for n in imp.names if n in names)
            if names is None or taken:
                out.append(f"{_where(imp)} {', '.join(taken)}: {why}")
    return out


def cycles(tree: Tree) -> list[list[str]]:
    """Import circles between labeller modules (strongly connected components, Tarjan)."""
    graph: dict[str, set[str]] = {}
    for imp in filter(_internal, tree.imports):
        if imp.target != imp.importer:
            graph.setdefault(imp.importer, set()).add(imp.target)
            graph.setdefault(imp.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


CHECKS = {
    "layers": layer_violations,
    "islands": island_violations,
    "registries": registry_violations,
    "app": app_violations,
    "ui": ui_violations,
    "private": private_violations,
    "forbidden": forbidden_violations,
    "registry targets": target_violations,
    "importlib": importlib_violations,
}


@pytest.fixture(scope="module")
def tree() -> Tree:
    return walk()


def test_the_walk_sees_the_whole_package(tree):
    files = list(PACKAGE.rglob("*.py"))
    assert len(tree.modules) == len(files) > 40
    importers = {i.importer for i in tree.imports if _internal(i)}
    assert len(importers) > len(files) // 2
    assert "labeller.core.build" in importers and "labeller.cli" in importers
    registering = {t.importer for t in tree.targets}  # the registry strings are read too
    assert {"labeller.core.chunkers", "labeller.core.hitrules", "labeller.eval.retrievers", "labeller.eval.measures",
            "labeller.app.screens.modes"} <= registering


def test_every_module_has_a_layer(tree):
    assert unmapped(tree.modules) == [], "add these modules to LAYERS (this file documents the layers)"


@pytest.mark.parametrize("rule", sorted(CHECKS))
def test_layer_contract(tree, rule):
    bad = sorted(set(CHECKS[rule](tree)))
    assert not bad, f"{len(bad)} import(s) break the '{rule}' rule:\n" + "\n".join(bad)


def test_no_import_cycles(tree):
    found = cycles(tree)
    assert not found, "import circles:\n" + "\n".join(" <-> ".join(c) for c in found)


# The checker itself must be able to fail: each rule on modules written to break it.
SYNTHETIC = {
    "labeller.core.x": (
        "from typing import TYPE_CHECKING\n"
        "from labeller.errors import EXIT_OK\n"
        "if TYPE_CHECKING:\n"
        "    from labeller.app.state import S\n"
        "def f():\n"
        "    from labeller.config import load_config\n"
        "    from labeller.core.chunkers.md_struct_v1 import _is_blank\n"
        "    import textual.app\n"
        "    from . import y\n"
    ),
    "labeller.core.y": "from labeller.core import x\n",
    "labeller.eval.a": "from labeller.review import log\n",
    "labeller.commands.build": ("from labeller.commands.review import run\n"
                                "from labeller.commands.common import c\n"
                                "def register(sub): pass\n"),
    "labeller.commands.review": "def register(sub): pass\n",
    "labeller.commands.common": "def c(): pass\n",
    "labeller.app.state": "from labeller.app.widgets import w\nfrom textual.widget import Widget\n",
    "labeller.core.chunkers": "",
    "labeller.core.chunkers.md_struct_v1": "",
    "labeller.review": "",
    "labeller.review.log": "",
    "labeller.app.widgets": "",
    "labeller.eval.m": ("import importlib\n"
                        "R = Registry(__name__, {'a': 'labeller.app.state:S', 'b': 'gone:G', 'c': 'labeller.review:x'})\n"),
}


def _synthetic() -> Tree:
    packages = {"labeller.core.chunkers", "labeller.review", "labeller.app.widgets"}
    return read_tree({m: (src, m in packages) for m, src in SYNTHETIC.items()})


def test_the_walk_reads_lazy_and_type_only_imports():
    x = {(i.target, i.type_only) for i in _synthetic().imports if i.importer == "labeller.core.x"}
    assert ("labeller.app.state", True) in x
    assert ("labeller.config", False) in x
    assert ("labeller.core.y", False) in x  # relative, resolved to the submodule
    assert ("textual.app", False) in x


@pytest.mark.parametrize("rule,expected", [
    ("layers", ["labeller.core.x:4 imports labeller.app.state (TYPE_CHECKING): upward",
                "labeller.eval.a:1 imports labeller.review.log: sideways"]),
    ("islands", ["labeller.commands.build:1 imports labeller.commands.review"]),
    ("registries", ["labeller.core.x:7 imports labeller.core.chunkers.md_struct_v1"]),
    ("app", ["labeller.app.state:1 imports labeller.app.widgets: upward inside the app"]),
    ("ui", ["labeller.core.x:8 imports textual.app", "labeller.app.state:2 imports textual.widget"]),
    ("private", ["labeller.core.x:7 imports labeller.core.chunkers.md_struct_v1: takes private _is_blank"]),
    ("forbidden", ["labeller.core.x:2 imports labeller.errors EXIT_OK",
                   "labeller.core.x:6 imports labeller.config load_config"]),
    ("registry targets", ["labeller.eval.m:2 imports labeller.eval.gone: no such module",
                          "labeller.eval.m:2 imports labeller.app.state: upward",
                          "labeller.eval.m:2 imports labeller.review: sideways"]),
    ("importlib", ["labeller.eval.m:1 imports importlib: import by name only"]),
])
def test_each_rule_catches_a_planted_violation(rule, expected):
    found = CHECKS[rule](_synthetic())
    for want in expected:
        assert any(f.startswith(want) for f in found), (want, found)
    assert len(found) == len(expected), found


def test_cycles_are_found():
    assert cycles(_synthetic()) == [["labeller.core.x", "labeller.core.y"]]


# -- file reads: one way in ----------------------------------------------------------------------
# Every file a person or another tool may have placed is opened by ``labeller.io.open_untrusted``
# (no symlink, never blocking on a FIFO, regular and bounded by ``fstat`` on the descriptor).
# So outside ``labeller.io`` no module opens a file for reading by itself: no ``open()``,
# ``io.open``, ``Path.open()/read_text()/read_bytes()``, read-mode ``os.fdopen``, and ``os.open``
# only with a write flag (``O_WRONLY``/``O_RDWR``) in its flags.
READ_HELPER_MODULES: tuple[str, ...] = ("labeller.io",)
_READ_ATTRS = {"read_text", "read_bytes"}
_WRITE_FLAGS = {"O_WRONLY", "O_RDWR"}


def _names_in(node: ast.AST) -> set[str]:
    return {n.attr if isinstance(n, ast.Attribute) else n.id
            for n in ast.walk(node) if isinstance(n, (ast.Attribute, ast.Name))}


def _reading_mode(call: ast.Call, index: int) -> bool:
    """Whether ``call``'s mode (positional ``index`` or ``mode=``) is a read: a literal with no
    w/a/x/+, or no mode at all (the default is ``"r"``)."""
    mode = call.args[index] if len(call.args) > index else next(
        (k.value for k in call.keywords if k.arg == "mode"), None)
    if mode is None:
        return True
    return not (isinstance(mode, ast.Constant) and isinstance(mode.value, str) and set(mode.value) & set("wax+"))


def file_read_violations(sources: dict[str, str]) -> list[str]:
    """``module:line what`` for every file opened for reading outside the read helpers."""
    found: list[str] = []
    for module, source in sorted(sources.items()):
        if module in READ_HELPER_MODULES:
            continue
        tree = ast.parse(source)
        assigned: dict[str, set[str]] = {}  # ``flags = os.O_RDWR | ...``: the names a variable holds
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        assigned.setdefault(target.id, set()).update(_names_in(node.value))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            what = None
            if isinstance(func, ast.Name) and func.id == "open" and _reading_mode(node, 1):
                what = "open()"
            elif isinstance(func, ast.Attribute):
                owner = func.value.id if isinstance(func.value, ast.Name) else ""
                if func.attr in _READ_ATTRS:
                    what = f".{func.attr}()"
                elif func.attr == "open" and owner == "os":
                    flags = _names_in(node.args[1]) if len(node.args) > 1 else set()
                    if not _WRITE_FLAGS & flags.union(*(assigned.get(name, set()) for name in flags)):
                        what = "os.open() without a write flag"
                elif func.attr == "open" and owner == "io" and _reading_mode(node, 1):
                    what = "io.open()"
                elif func.attr == "open" and (not node.args or isinstance(node.args[0], ast.Constant)) \
                        and _reading_mode(node, 0) and not node.keywords:
                    what = "Path.open()"
                elif func.attr == "fdopen" and owner == "os" and _reading_mode(node, 1):
                    what = "os.fdopen() for reading"
            if what:
                found.append(f"{module}:{node.lineno} {what}: read through labeller.io.open_untrusted")
    return found


def _package_sources() -> dict[str, str]:
    return {module_name(p, ROOT): p.read_text(encoding="utf-8") for p in sorted(PACKAGE.rglob("*.py"))}


def test_files_are_read_only_through_open_untrusted():
    bad = file_read_violations(_package_sources())
    assert not bad, "files opened for reading outside labeller.io:\n" + "\n".join(bad)


def test_the_file_read_rule_catches_planted_reads():
    planted = {
        "labeller.app.settings": ("def f(p):\n"
                                  "    open(p, 'rb')\n"
                                  "    p.read_text(encoding='utf-8')\n"
                                  "    p.read_bytes()\n"
                                  "    os.open(p, os.O_RDONLY | os.O_NOFOLLOW)\n"
                                  "    p.open()\n"
                                  "    os.fdopen(fd, 'rb')\n"
                                  "    open(p, 'w')\n"
                                  "    os.open(p, os.O_WRONLY | os.O_CREAT)\n"
                                  "    os.fdopen(fd, 'wb')\n"
                                  "    session.open(root)\n"
                                  "    flags = os.O_RDWR | os.O_APPEND\n"
                                  "    os.open(p, flags)\n"),
        "labeller.io": "def g(p):\n    open(p, 'rb')\n",
    }
    assert [v.split(":")[1].split(" ")[0] for v in file_read_violations(planted)] == ["2", "3", "4", "5", "6", "7"]


# -- JSON out: one escaping writer ------------------------------------------------------------------
# ``json.dumps(..., ensure_ascii=False)`` writes U+202E, C1 controls and U+2028 raw; every JSON
# labeller writes or prints goes through ``labeller.display.json_dumps``, which escapes them. The
# functions below use it for text no person reads and nothing writes out as it is: digests and
# comparisons of records, the cache's MAC'd bodies, a value quoted in an error that is escaped
# when shown, and the run history's database column.
RAW_JSON_ALLOWED: set[str] = {
    "labeller.review.log.record_digest", "labeller.eval.report.canonical_json", "labeller.core.check._changed.dumped",
    "labeller.core.cache.DigestCache.put", "labeller.config._plain", "labeller.eval.history.append_run",
}


def _raw_json_dumps(call: ast.Call) -> bool:
    func = call.func
    return (isinstance(func, ast.Attribute) and func.attr == "dumps" and isinstance(func.value, ast.Name)
            and func.value.id == "json" and any(k.arg == "ensure_ascii" and isinstance(k.value, ast.Constant)
                                                and k.value.value is False for k in call.keywords))


def raw_json_calls(sources: dict[str, str]) -> list[tuple[str, int]]:
    """``(module.function, line)`` of every raw-Unicode ``json.dumps`` outside ``labeller.display``."""
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                visit(child, f"{where}.{child.name}")
                continue
            if isinstance(child, ast.Call) and _raw_json_dumps(child):
                found.append((where, child.lineno))
            visit(child, where)

    for module, source in sorted(sources.items()):
        if module != "labeller.display":
            visit(ast.parse(source), module)
    return found


def raw_json_violations(sources: dict[str, str]) -> list[str]:
    return [f"{where}:{line} json.dumps(ensure_ascii=False): use labeller.display.json_dumps"
            for where, line in raw_json_calls(sources) if where not in RAW_JSON_ALLOWED]


def test_json_is_written_only_through_the_escaping_writer():
    bad = raw_json_violations(_package_sources())
    assert not bad, "JSON written with raw control and bidi characters:\n" + "\n".join(bad)


def test_the_raw_json_rule_catches_a_planted_writer():
    planted = {"labeller.review.log": ("import json\n"
                                       "def record_digest(q):\n    return json.dumps(q, ensure_ascii=False)\n"
                                       "def append_review(e):\n    line = json.dumps(e, ensure_ascii=False)\n"
                                       "    safe = json.dumps(e)\n"),
               "labeller.display": "def json_dumps(v):\n    return json.dumps(v, ensure_ascii=False)\n"}
    assert raw_json_violations(planted) == [
        "labeller.review.log.append_review:5 json.dumps(ensure_ascii=False): use labeller.display.json_dumps"]
# ---------------------------------------------------------------------------------------------
# Third-party privates (issue 26): Textual's and whoosh's private modules and attributes may
# change in any patch release, so the app reaches them only through ONE adapter module, where
# each use names the upstream issue that would make it public.
ADAPTER = "labeller.app.widgets.textual_adapter"
GUARDED = ("textual", "whoosh")


def third_party_private_imports(tree: Tree) -> list[str]:
    out = []
    for imp in tree.imports:
        if imp.target.split(".")[0] not in GUARDED or imp.importer == ADAPTER:
            continue
        private = [p for p in imp.target.split(".") if _private(p)] + [n for n in imp.names if _private(n)]
        if private:
            out.append(f"{_where(imp)}: takes private {', '.join(private)}")
    return out


def _is_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def _guarded_by_attributes(module: str, tree: ast.AST) -> bool:
    """The app (it extends Textual everywhere) and the eval modules that import whoosh."""
    if module == ADAPTER:
        return False
    if module.startswith("labeller.app."):
        return True
    return module.startswith("labeller.eval") and any(
        isinstance(n, ast.Import) and any(a.name.split(".")[0] == "whoosh" for a in n.names)
        or isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] == "whoosh" for n in ast.walk(tree))


def foreign_private_attributes(found: dict[str, str]) -> list[str]:
    """``x._name`` where ``x`` is not ``self``/``cls`` (``super()._m``, ``self.app._flag``,
    ``reader._perdoc``): a private of an object the module does not own."""
    out = []
    for module, source in sorted(found.items()):
        tree = ast.parse(source)
        if not _guarded_by_attributes(module, tree):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _private(node.attr) and not _is_self(node.value):
                out.append(f"{module}:{node.lineno} reads {ast.unparse(node)}")
    return out


def _privates_used(node: ast.ClassDef) -> dict[str, int]:
    """Private names a class defines (methods, class attributes) or reads and writes on
    ``self``/``cls``, with the first line each appears on."""
    used: dict[str, int] = {}
    for sub in ast.walk(node):
        names: list[tuple[str, int]] = []
        if isinstance(sub, ast.Attribute) and _is_self(sub.value):
            names = [(sub.attr, sub.lineno)]
        elif isinstance(sub, ast.ClassDef):
            for item in sub.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names.append((item.name, item.lineno))
                elif isinstance(item, (ast.Assign, ast.AnnAssign)):
                    targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                    names += [(t.id, item.lineno) for t in targets if isinstance(t, ast.Name)]
        for name, line in names:
            if _private(name) and name.strip("_"):
                used.setdefault(name, line)
    return used


_THIRD_PARTY_PRIVATES: dict[type, frozenset[str]] = {}


def _third_party_privates(klass: type) -> frozenset[str]:
    """The private names a third-party class owns: in its namespace, or set on ``self`` in its source."""
    if klass not in _THIRD_PARTY_PRIVATES:
        import inspect
        import textwrap
        names = {n for n in vars(klass) if _private(n)}
        try:
            parsed = ast.parse(textwrap.dedent(inspect.getsource(klass))).body[0]
            names |= set(_privates_used(parsed)) if isinstance(parsed, ast.ClassDef) else set()
        except (OSError, TypeError, SyntaxError, IndentationError):
            pass
        _THIRD_PARTY_PRIVATES[klass] = frozenset(names)
    return _THIRD_PARTY_PRIVATES[klass]


def subclass_private_uses(found: dict[str, str], load: Callable[[str], object] | None = None) -> list[str]:
    """An app class defining or reading on ``self`` a private name of a Textual (or other
    third-party) class it extends: an override of ``_set_document``, a read of ``self._line_cache``.
    The classes are imported (``load``) to walk their bases."""
    import importlib
    out = []
    for module, source in sorted(found.items()):
        if not module.startswith("labeller.app") or module == ADAPTER:
            continue
        loaded = (load or importlib.import_module)(module)
        for node in ast.parse(source).body:
            klass = getattr(loaded, node.name, None) if isinstance(node, ast.ClassDef) else None
            if not isinstance(klass, type):
                continue
            theirs: set[str] = set()
            for base in klass.__mro__:
                if base is not object and not base.__module__.startswith("labeller"):
                    theirs |= _third_party_privates(base)
            for name, line in sorted(_privates_used(node).items()):
                if name in theirs:
                    out.append(f"{module}:{line} {node.name} uses its third-party base's private {name}")
    return out


def test_third_party_privates_only_in_the_adapter(tree):
    found = _package_sources()
    bad = third_party_private_imports(tree) + foreign_private_attributes(found) + subclass_private_uses(found)
    assert not bad, f"{len(bad)} use(s) of a third-party private outside {ADAPTER}:\n" + "\n".join(bad)


PLANTED_PRIVATES = {
    "labeller.app.widgets.planted": (
        "from textual.widgets import DataTable\n"
        "from textual.widgets._footer import FooterKey\n"
        "class Planted(DataTable):\n"
        "    _mine = 0\n"
        "    def _update_dimensions(self, rows):\n"
        "        super()._update_dimensions(rows)\n"
        "        self._update_count += self._mine\n"
        "        return self.app._exit\n"
    ),
    "labeller.eval.planted": "import whoosh.index\ndef f(reader):\n    return reader._perdoc\n",
    "labeller.eval.plain": "def f(other):\n    return other._own\n",  # no whoosh: labeller's own objects
}


def test_the_privates_check_catches_planted_uses():
    import types

    def load(module: str) -> object:
        loaded = types.ModuleType(module)
        exec(PLANTED_PRIVATES[module], loaded.__dict__)
        return loaded

    planted = {m: (src, False) for m, src in PLANTED_PRIVATES.items()}
    found = (third_party_private_imports(read_tree(planted)) + foreign_private_attributes(PLANTED_PRIVATES)
             + subclass_private_uses(PLANTED_PRIVATES, load))
    assert sorted(found) == sorted([
        "labeller.app.widgets.planted:2 imports textual.widgets._footer: takes private _footer",
        "labeller.app.widgets.planted:6 reads super()._update_dimensions",
        "labeller.app.widgets.planted:8 reads self.app._exit",
        "labeller.eval.planted:3 reads reader._perdoc",
        "labeller.app.widgets.planted:5 Planted uses its third-party base's private _update_dimensions",
        "labeller.app.widgets.planted:7 Planted uses its third-party base's private _update_count",
    ]), found


# What the adapter may still reach: each name is in its docstring with why no public way exists.
# The document view (issue 26.1) needs none of TextArea's privates nor textual._wrap /
# textual.document._*; a new private use is added to this set deliberately or not at all.
ADAPTER_ALLOWANCE = frozenset({"_footer", "_bindings_ready", "_init_mode", "_css_update_count",
                               "_update_dimensions", "_update_count"})


def adapter_privates(source: str) -> set[str]:
    """Every private name the adapter reaches: imported modules and names, attributes, and the
    methods its classes define (an override of a Textual private)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            names.add(node.attr)
        elif isinstance(node, ast.ImportFrom):
            names |= {p for p in (node.module or "").split(".") if _private(p)}
            names |= {a.name for a in node.names if _private(a.name)}
        elif isinstance(node, ast.Import):
            names |= {p for a in node.names for p in a.name.split(".") if _private(p)}
        elif isinstance(node, ast.ClassDef):
            names |= {f.name for f in node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                      and _private(f.name)}
    return names


def test_the_adapter_reaches_only_its_allowance():
    source = (PACKAGE / "app" / "widgets" / "textual_adapter.py").read_text(encoding="utf-8")
    assert adapter_privates(source) == ADAPTER_ALLOWANCE
    docstring = ast.get_docstring(ast.parse(source)) or ""
    assert all(name in docstring for name in ADAPTER_ALLOWANCE), "each use says why, in the module docstring"


def test_the_allowance_check_sees_a_planted_private():
    planted = "from textual._wrap import compute_wrap_offsets\ndef f(area):\n    area._line_cache.clear()\n"
    assert adapter_privates(planted) == {"_wrap", "_line_cache"}


def test_the_adapter_holds_what_the_check_would_refuse():
    """The adapter is exempt, not empty: read as any other app module it breaks the rule."""
    adapter = (PACKAGE / "app" / "widgets" / "textual_adapter.py").read_text(encoding="utf-8")
    assert foreign_private_attributes({"labeller.app.widgets.elsewhere": adapter})


if __name__ == "__main__":  # print today's violations, one per line
    current = walk()
    for m in unmapped(current.modules):
        print(f"unmapped: {m}")
    for rule, check in CHECKS.items():
        for line in sorted(set(check(current))):
            print(f"[{rule}] {line}")
    for c in cycles(current):
        print("[cycle] " + " <-> ".join(c))
