"""Every importer, fed a valid file with one field of the wrong shape, answers 0, 1 or 2 (issue 23).

An imported file comes from another tool, or from whoever opened a pull request. Each test
starts from a file that imports cleanly (an export of the interop test project, or a
hand-written one for the import-only formats), and Hypothesis changes one thing at one place
the format reads: a value replaced by a wrong shape (nested lists, a table where a string is
expected, numbers, null, huge or overlong integers, NaN, deep nesting within the parser's
bound), a value wrapped in a list or a table, a key removed; for the tab- or space-separated
files, a cell replaced by such a value's JSON text. The import runs through the CLI
(``--dry-run --format json``): the answer is always a documented exit code with a message,
never an internal error (3).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers_interop import DOCS, cli, make
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labeller.cli import main
from labeller.interop import all_formats
from labeller.interop.format import Direction

OVERLONG_INT = "\x00overlong-int\x00"  # written as 5,000 digits: more than Python's int parser takes
_TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=10)
_SCALARS = (st.none() | st.booleans() | st.integers() | st.sampled_from([2**63, -(2**63) - 1, 10**100, OVERLONG_INT])
            | st.floats() | _TEXT | st.sampled_from(["", "q1", "faq.md", "../x.md", "ops/backup.md", "answer"]))
_DEEP = st.tuples(st.integers(1, 90), _SCALARS).map(lambda dv: _nest(*dv))
HOSTILE = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(_TEXT | st.sampled_from(["id", "text", "start", "end", "label", "doc"]), inner,
                                         max_size=3), max_leaves=8) | _DEEP


def _nest(depth: int, value: Any) -> Any:
    for _ in range(depth):
        value = [value]
    return value


BACKUP = DOCS["ops/backup.md"]
SPAN = (BACKUP.index("kept for nine days"), BACKUP.index("kept for nine days") + len("kept for nine days"))


def _import_only_seeds(folder: Path) -> dict[str, tuple[str, list[str]]]:
    """Valid files of the formats labeller does not export, as each tool writes them."""
    s, e = SPAN
    files = {
        "doccano": ("d.jsonl", [{"id": 1, "text": BACKUP, "label": [[s, e, "answer"]], "question": "how long?"},
                                {"id": 2, "text": BACKUP, "question": "how long kept?",
                                 "entities": [{"id": 9, "label": "answer", "start_offset": s, "end_offset": e}]}]),
        "prodigy": ("p.jsonl", [{"text": BACKUP, "answer": "accept", "_task_hash": 11,
                                 "spans": [{"start": s, "end": e, "label": "ANSWER", "text": BACKUP[s:e]}],
                                 "meta": {"id": "pa", "question": "how long are backups kept?"}}]),
        "deepeval": ("g.json", [{"input": "how long are backups kept?", "expected_output": "nine days",
                                 "context": ["kept for nine days"], "source_file": "ops/backup.md"}]),
    }
    out = {}
    for fmt, (name, rows) in files.items():
        text = (json.dumps(rows) if name.endswith(".json") else "".join(json.dumps(r) + "\n" for r in rows))
        (folder / name).write_text(text, encoding="utf-8")
        out[fmt] = (name, [])
    return out


EXPORTS = {  # format: (what --out names, extra export flags, import flags relative to the folder)
    "jsonl": ("x.jsonl", [], []), "yaml": ("x.yaml", [], []), "pages-json": ("x.json", [], []),
    "beir": ("beir", [], []), "trec-qrels": ("x.qrels", ["--queries-out", "x.topics"], ["--queries", "x.topics"]),
    "offsets": ("o.jsonl", [], []), "label-studio": ("ls.json", [], ["--predictions"]), "ragas": ("r.jsonl", [], []),
    "llamaindex": ("l.json", [], []),
}


@pytest.fixture(scope="module")
def seeds(tmp_path_factory) -> tuple[Path, Path, dict[str, tuple[str, list[str]]]]:
    """The project imported into (the corpus of the one exported, no questions), the folder of
    seed files, and per format: the file to import and its flags."""
    base = tmp_path_factory.mktemp("fuzz-importers")
    source = make(base / "source")
    folder = base / "seeds"
    folder.mkdir()
    out: dict[str, tuple[str, list[str]]] = {}
    for fmt, (name, flags, import_flags) in EXPORTS.items():
        extra = [str(folder / f) if f.startswith("x.") else f for f in flags]
        assert main(["export", fmt, "--root", str(source), "--out", str(folder / name), *extra]) == 0
        out[fmt] = (name, [str(folder / f) if f.startswith("x.") else f for f in import_flags])
    out.update(_import_only_seeds(folder))
    return make(base / "proj", questions=[]), folder, out


def test_every_import_format_is_fuzzed(seeds):
    assert set(seeds[2]) == {name for name, fmt in all_formats().items() if fmt.does(Direction.IMPORT)}


@pytest.mark.parametrize("fmt", sorted(n for n, f in all_formats().items() if f.does(Direction.IMPORT)))
def test_each_seed_imports_cleanly(seeds, fmt, capsys):
    """The fuzz starts from files that import: a mutation, not the seed, makes any refusal."""
    root, folder, files = seeds
    name, flags = files[fmt]
    rc, out, err = cli(capsys, "import", fmt, folder / name, *flags, "--root", root, "--dry-run", "--format", "json")
    assert rc == 0, out + err


# -- one file as data: parsed, mutated at one path, written back ---------------------------------

def _load(path: Path) -> tuple[str, Any]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return "jsonl", [json.loads(line) for line in text.splitlines() if line.strip()]
    if path.suffix == ".json":
        return "json", json.loads(text)
    if path.suffix == ".yaml":
        return "yaml", yaml.safe_load(text)
    sep = "\t" if "\t" in text else " "
    return "tsv" + sep, [line.split(sep) for line in text.splitlines()]


def _dump(kind: str, data: Any) -> str:
    if kind == "yaml":
        return yaml.safe_dump(_swap(data, OVERLONG_INT, 10**100), allow_unicode=True)
    if kind.startswith("tsv"):
        return "".join(kind[3:].join(cells) + "\n" for cells in data)
    if kind == "jsonl" and isinstance(data, list):
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in data)
    else:
        text = json.dumps(data, ensure_ascii=False)
    return text.replace(json.dumps(OVERLONG_INT), "9" * 5000)


def _swap(data: Any, old: Any, new: Any) -> Any:
    if isinstance(data, list):
        return [_swap(v, old, new) for v in data]
    if isinstance(data, dict):
        return {k: _swap(v, old, new) for k, v in data.items()}
    return new if isinstance(data, str) and data == old else data


def _paths(data: Any, at: tuple = ()) -> list[tuple]:
    """Every place in ``data``: the root, each table key's value and each list item (the first
    three items of a list, which stand for the rest)."""
    out = [at]
    if isinstance(data, dict):
        for key, value in data.items():
            out += _paths(value, (*at, key))
    elif isinstance(data, list):
        for i, value in enumerate(data[:3]):
            out += _paths(value, (*at, i))
    return out


def _mutate(data: Any, path: tuple, how: str, value: Any) -> Any:
    if not path:
        return {"replace": value, "wrap-list": [[data]], "wrap-table": {"x": data}, "drop": value}[how]
    head, rest = path[0], path[1:]
    if isinstance(data, dict):
        if how == "drop" and not rest:
            return {k: v for k, v in data.items() if k != head}
        return {**data, head: _mutate(data[head], rest, how, value)}
    copy = list(data)
    if how == "drop" and not rest:
        del copy[head]
    else:
        copy[head] = _mutate(copy[head], rest, how, value)
    return copy


def _tsv_mutate(rows: list[list[str]], row: int, cell: int, value: Any) -> list[list[str]]:
    rows = [list(r) for r in rows]
    line = rows[row % len(rows)]
    text = "9" * 5000 if value == OVERLONG_INT else json.dumps(value, ensure_ascii=False)
    line[cell % len(line)] = text
    return rows


# 30 examples a format (50 took 39 s of CPU for the suite's 8 minutes)
FUZZ = settings(max_examples=30, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@pytest.mark.parametrize("fmt", sorted(n for n, f in all_formats().items() if f.does(Direction.IMPORT)))
@FUZZ
@given(data=st.data())
def test_a_wrong_shape_anywhere_is_a_documented_answer(seeds, fmt, data, capsys):
    root, folder, files = seeds
    name, flags = files[fmt]
    seed = folder / name
    members = sorted(p for p in seed.rglob("*") if p.is_file()) if seed.is_dir() else [seed]
    member = data.draw(st.sampled_from(members), label="file")
    kind, parsed = _load(member)
    value = data.draw(HOSTILE, label="value")
    if kind.startswith("tsv"):
        mutated = _tsv_mutate(parsed, data.draw(st.integers(0, 9), label="row"),
                              data.draw(st.integers(0, 3), label="cell"), value)
    else:
        path = data.draw(st.sampled_from(_paths(parsed)), label="path")
        how = data.draw(st.sampled_from(["replace", "replace", "wrap-list", "wrap-table", "drop"]), label="how")
        mutated = _mutate(parsed, path, how, value)
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / name
        if seed.is_dir():
            for p in members:
                dest = target / p.relative_to(seed)
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(p.read_bytes())
        written = target / member.relative_to(seed) if seed.is_dir() else target
        written.write_text(_dump(kind, mutated), encoding="utf-8")
        rc, out, err = cli(capsys, "import", fmt, target, *flags, "--root", root, "--dry-run", "--format", "json")
    assert rc in (0, 1, 2), out + err
    report = json.loads(out)
    if rc == 2:
        assert report["errors"] and all(e["kind"] == "invalid" and e["message"] for e in report["errors"])


# -- type confusion: every JSON type in every position ----------------------------------------------

# One value of each JSON type, for the place of any other (the wrong-shape fuzz above draws the
# rest: empty and nested containers, huge and overlong numbers, NaN).
JSON_TYPES = [None, True, 7, 2.5, "x", [], {}]


def _first_record_paths(data: Any) -> list[tuple]:
    """Every place of the first record (the others stand for it) and of the file around it."""
    if isinstance(data, list):
        return [()] + _paths(data[:1])[1:]
    return _paths(data)


def _label_studio_annotated(folder: Path) -> Path:
    """The export with its predictions as annotations, each task asking its question in a
    TextArea result too: the keys a Label Studio project's own export has and labeller's does not."""
    tasks = json.loads((folder / "ls.json").read_text(encoding="utf-8"))
    for task in tasks:
        result = task.pop("predictions")[0]["result"]
        result.append({"from_name": "question", "type": "textarea", "value": {"text": [task["data"].pop("question")]}})
        task["annotations"] = [{"result": result, "was_cancelled": False}]
    path = folder / "ls-annotated.json"
    path.write_text(json.dumps(tasks), encoding="utf-8")
    return path


@pytest.mark.parametrize("fmt", sorted(n for n, f in all_formats().items() if f.does(Direction.IMPORT)
                                       and n != "trec-qrels")  # text cells: the test above writes JSON into them
                         + ["label-studio-annotated"])
def test_every_json_type_in_every_place_is_a_documented_answer(seeds, fmt, capsys):
    """Type confusion, exhaustively: each place of the first record (or of the file around it)
    holds, in turn, a value of each JSON type; every answer is 0, 1 or 2, never 3. (Random
    shapes and several at once: ``test_a_wrong_shape_anywhere_is_a_documented_answer``.)"""
    root, folder, files = seeds
    if fmt == "label-studio-annotated":
        fmt, seed, flags = "label-studio", _label_studio_annotated(folder), []
    else:
        name, flags = files[fmt]
        seed = folder / name
    members = sorted(p for p in seed.rglob("*") if p.suffix != ".tsv" and p.is_file()) if seed.is_dir() else [seed]
    crashes, answers = [], set()
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / seed.name
        for member in members:
            if seed.is_dir():
                shutil.rmtree(target, ignore_errors=True)
                shutil.copytree(seed, target)
            written = target / member.relative_to(seed) if seed.is_dir() else target
            kind, parsed = _load(member)
            for path in _first_record_paths(parsed):
                for value in JSON_TYPES:
                    written.write_text(_dump(kind, _mutate(parsed, path, "replace", value)), encoding="utf-8")
                    rc, out, err = cli(capsys, "import", fmt, target, *flags, "--root", root, "--dry-run", "--format",
                                       "json")
                    answers.add(rc)
                    if rc not in (0, 1, 2):
                        crashes.append((member.name, path, value, (out + err)[:300]))
    assert crashes == [], crashes
    assert 2 in answers  # the confusions were read, not ignored
