"""The core's seams: bare resolution vs suggestions, the Chunker protocol and its
registry, chunker specs, and the import graph that keeps them apart."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from conftest import q, write_project

from labeller.cli import main
from labeller.core import chunkers
from labeller.core.chunkers import REGISTRY, chunker_spec, get_chunker, parse_spec
from labeller.core.models import Locator, Question
from labeller.core.resolve import Refusal, Span
from labeller.core.suggest import suggest
from labeller.core.vocab import SPLITS, Place, RefusalKind, Split, SplitName
from labeller.errors import ChunkerBug, InvalidInput

CORE = Path(__file__).resolve().parents[1] / "labeller" / "core"
DOC = ("# Title\n\nThe quick brown fox\njumps over the lazy dog.\n\n## Sub heading\n\n"
       "Another paragraph about the quick brown cat.\n")


# -- resolution without suggestions, suggestions on top -------------------------------------

def test_resolve_returns_bare_refusals_and_suggest_adds_the_help(make_project):
    p = make_project({"a.md": DOC})
    r = p.resolver

    ambiguous = r.resolve(Locator(quote="quick brown"), "q1")
    assert ambiguous.kind == RefusalKind.AMBIGUOUS and ambiguous.record_id == "q1"
    text = p.corpus["a.md"].text
    assert [text[pl.start:pl.end] for pl in ambiguous.places] == ["quick brown", "quick brown"]
    assert ambiguous.occurrences == [] and ambiguous.suggestions == []
    helped = suggest(r, ambiguous)
    assert [(o["line"], o["col"], o["extension"]) for o in helped.occurrences] == [
        (3, 5, "The quick brown"), (8, 29, "the quick brown")]
    assert helped.as_json()["occurrences"] == helped.occurrences
    assert ambiguous.occurrences == []  # suggest returns a new refusal, the bare one is untouched

    missing = r.resolve(Locator(quote="jumps ovr the lazy"))
    assert missing.kind == RefusalKind.NOT_FOUND and missing.suggestions == [] and missing.places == ()
    helped = suggest(r, missing)
    assert "jumps over the lazy" in helped.suggestions[0]["quote"]
    assert text[helped.suggested_places[0].start:helped.suggested_places[0].end] == helped.suggestions[0]["quote"]

    heading = r.resolve(Locator(doc="a.md", quote="Sub heading"))
    assert heading.kind == RefusalKind.HEADING_ONLY and heading.suggestions == []
    assert text[heading.places[0].start:heading.places[0].end] == "## Sub heading\n"
    assert suggest(r, heading).suggestions == [{"doc": "a.md", "heading": "Sub heading"}]

    unknown = r.resolve(Locator(doc="b.md", quote="x"))
    assert suggest(r, unknown) == unknown  # nothing to add


def test_locate_is_the_cheap_first_half(make_project):
    p = make_project({"a.md": DOC})
    r = p.resolver
    assert r.locate(Locator(quote="lazy dog")) == Place("a.md", DOC.index("lazy dog"), DOC.index("lazy dog") + 8)
    assert r.locate(Locator(quote="quick brown")).kind == RefusalKind.AMBIGUOUS
    assert r.locate(Locator(quote="zebra")).kind == RefusalKind.NOT_FOUND
    assert r.locate(Locator(doc="nope.md", quote="zebra")).kind == RefusalKind.UNKNOWN_DOC
    with pytest.raises(ValueError):
        r.locate(Locator(doc="a.md", heading="Title"))


def test_a_build_reports_refusals_with_their_suggestions(make_project):
    p = make_project({"a.md": DOC})
    from labeller.core.build import build, resolve_record

    questions = [Question(**q("q1", {"quote": "quick brown"})), Question(**q("q2", {"quote": "jumps ovr the lazy"}))]
    built = build(p, questions)
    assert [len(r.occurrences) for r in built.refusals] == [2, 0]
    assert built.refusals[1].suggestions
    bare = resolve_record(p, questions[0], suggestions=False)
    assert bare.refusals[0].occurrences == [] and len(bare.refusals[0].places) == 2


# -- the import graph ---------------------------------------------------------------------

def _core_imports() -> dict[str, set[str]]:
    """Every labeller.core module → the labeller.core modules it imports anywhere in its
    source (function bodies and TYPE_CHECKING blocks included)."""
    graph: dict[str, set[str]] = {}
    for path in CORE.rglob("*.py"):
        parts = path.relative_to(CORE.parent.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                deps.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                assert node.level == 0, f"{path}: relative import"  # the tree imports absolutely
                deps.add(node.module)
                deps.update(f"{node.module}.{a.name}" for a in node.names)
        graph[name] = {d for d in deps if d.startswith("labeller.core")}
    return {m: {d for d in deps if d in graph and d != m} for m, deps in graph.items()}


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for dep in graph[todo.pop()]:
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return seen


def test_resolution_does_not_reach_suggestions_and_core_has_no_import_cycle():
    graph = _core_imports()
    assert "labeller.core.suggest" in graph and "labeller.core.resolve" in graph["labeller.core.suggest"]
    assert "labeller.core.suggest" not in _reachable(graph, "labeller.core.resolve")
    cycles = sorted(m for m in graph if m in _reachable(graph, m))
    assert cycles == [], f"import cycles through {cycles}"


def test_resolve_names_no_chunker_module():
    tree = ast.parse((CORE / "resolve.py").read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not any(m.startswith("labeller.core.chunkers.") for m in imported)


# -- chunker specs and the registry ---------------------------------------------------------

def test_get_chunker_parses_specs_and_takes_project_defaults():
    c = get_chunker("md-struct-v1", max_chars=1800)
    assert (c.name, c.version, c.settings) == ("md-struct-v1", "md-struct-v1", {"max_chars": 1800})
    assert chunker_spec(c) == "md-struct-v1:max_chars=1800"
    assert get_chunker("md-struct-v1:max_chars=900", max_chars=1800).settings == {"max_chars": 900}
    assert get_chunker(" md-struct-v1 : max_chars = 77 ").settings == {"max_chars": 77}
    assert get_chunker("md-struct-v1", unrelated=3).settings == {"max_chars": 1800}  # default of the class
    assert get_chunker(chunker_spec(c)).settings == c.settings
    assert parse_spec("x-v1:a=1,b=two") == ("x-v1", {"a": "1", "b": "two"})


@pytest.mark.parametrize("spec, reason", [
    ("nope", "unknown chunker 'nope'"),
    ("", "the name must be"),
    ("MD-STRUCT-V1", "the name must be"),
    ("md-struct-v1:", "'' is not key=value"),
    ("md-struct-v1:max_chars", "'max_chars' is not key=value"),
    ("md-struct-v1:max_chars=", "is not key=value"),
    ("md-struct-v1:=5", "is not key=value"),
    ("md-struct-v1:max_chars=1,max_chars=2", "'max_chars' is given twice"),
    ("md-struct-v1:size=800", "unknown parameter 'size' (parameters of md-struct-v1: max_chars)"),
    ("md-struct-v1:max_chars=8.5", "max_chars='8.5' is not an integer"),
    ("md-struct-v1:max_chars=lots", "is not an integer"),
    ("md-struct-v1:max_chars=0", "max_chars must be positive"),
])
def test_bad_chunker_specs_are_invalid_input_naming_the_spec(spec, reason):
    with pytest.raises(InvalidInput) as exc:
        get_chunker(spec, max_chars=1800)
    assert reason in str(exc.value) and repr(spec) in str(exc.value)


@pytest.mark.parametrize("spec, settings", [
    ("knobs-v1", {"size": 10, "ratio": 0.5, "strict": False, "label": "x"}),
    ("knobs-v1:size=-3,ratio=2,strict=true,label=a b", {"size": -3, "ratio": 2.0, "strict": True, "label": "a b"}),
    ("knobs-v1:ratio=1e-3,strict=false", {"size": 10, "ratio": 0.001, "strict": False, "label": "x"}),
])
def test_spec_values_take_the_constructors_types(monkeypatch, spec, settings):
    monkeypatch.setitem(REGISTRY, "knobs-v1", "toys.toy_chunker:Knobs")
    c = get_chunker(spec, size=10)
    assert c.settings == settings and [type(v) for v in c.settings.values()] == [int, float, bool, str]
    assert get_chunker(chunker_spec(c)).settings == settings


@pytest.mark.parametrize("spec, reason", [
    ("knobs-v1:strict=yes", "strict='yes' is not true or false"),
    ("knobs-v1:strict=True", "strict='True' is not true or false"),
    ("knobs-v1:ratio=nan", "ratio='nan' is not a finite number"),
    ("knobs-v1:ratio=half", "ratio='half' is not a finite number"),
    ("knobs-v1:size=1e3", "size='1e3' is not an integer"),
])
def test_spec_values_of_the_wrong_type_are_refused(monkeypatch, spec, reason):
    monkeypatch.setitem(REGISTRY, "knobs-v1", "toys.toy_chunker:Knobs")
    with pytest.raises(InvalidInput) as exc:
        get_chunker(spec)
    assert reason in str(exc.value) and repr(spec) in str(exc.value)


def test_every_registered_chunker_loads_under_its_own_name():
    for name in REGISTRY:
        cls = chunkers.chunker_class(name)
        assert cls.name == name and isinstance(cls.version, str) and cls.version


def test_a_registration_that_names_the_wrong_class_is_refused(monkeypatch):
    monkeypatch.setitem(REGISTRY, "other-v1", REGISTRY["md-struct-v1"])
    with pytest.raises(TypeError):
        get_chunker("other-v1")


def test_a_bad_spec_in_labeller_toml_exits_2_naming_it(tmp_path, capsys):
    root = write_project(tmp_path / "p", {"a.md": DOC}, [q("q1", {"quote": "lazy dog"})],
                         toml='[build]\nchunker = "md-struct-v1:max_chars=zero"\n')
    assert main(["build", "--root", str(root)]) == 2
    assert "md-struct-v1:max_chars=zero" in capsys.readouterr().err


# -- a toy chunker registered in one line, end to end -----------------------------------

@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(REGISTRY, "toy-lines-v1", "toys.toy_chunker:ToyLines")


def test_a_toy_chunker_registered_in_one_line_builds(toy, tmp_path, capsys):
    root = write_project(tmp_path / "p", {"a.md": DOC},
                         [q("q1", {"quote": "jumps over"}), q("q2", {"doc": "a.md", "heading": "Sub heading"})],
                         toml='[build]\nchunker = "toy-lines-v1:skip=##,declare=true"\n')
    assert main(["build", "--root", str(root), "--format", "json"]) == 0
    capsys.readouterr()
    manifest = json.loads((root / "golden" / "golden-set.v1.manifest.json").read_text(encoding="utf-8"))
    assert manifest["chunker_version"] == "toy-lines-v1" and manifest["max_chars"] is None
    assert manifest["chunker_settings"] == {"declare": True, "skip": "##"}
    assert manifest["n_chunks"] == 4  # the non-blank lines but "## Sub heading"
    records = [json.loads(line) for line in (root / "golden" / "golden-set.v1.jsonl").read_text().splitlines()]
    assert records[0]["chunker_version"] == "toy-lines-v1"
    assert len(records[0]["answer_bearing_chunk_ids"]) == 2  # the paragraph's two lines are two chunks
    assert main(["build", "--root", str(root), "--check"]) == 0
    capsys.readouterr()


def test_the_chunker_decides_what_is_heading_only_and_what_is_a_bug(toy, make_project):
    declared = make_project({"a.md": DOC}, toml='[build]\nchunker = "toy-lines-v1:skip=The"\n', name="declared")
    r = declared.resolver.resolve(Locator(quote="quick brown fox", exact=True))
    assert isinstance(r, Refusal) and r.kind == RefusalKind.HEADING_ONLY
    assert isinstance(declared.resolver.resolve(Locator(quote="Sub heading")), Span)  # toy chunks headings
    undeclared = make_project({"a.md": DOC}, toml='[build]\nchunker = "toy-lines-v1:skip=The,declare=false"\n',
                              name="undeclared")
    with pytest.raises(ChunkerBug):
        undeclared.resolver.resolve(Locator(quote="quick brown fox", exact=True))


# -- one vocabulary ---------------------------------------------------------------------

def test_split_literal_and_enum_agree():
    from typing import get_args

    assert get_args(SplitName) == SPLITS == tuple(s.value for s in Split)

