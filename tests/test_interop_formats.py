"""The Format protocol: a format registered in one line gets its CLI flags and round-trips;
options reach only the format that declares them."""

from __future__ import annotations

import pytest

import helpers_toy_format as toy
from conftest import q
from helpers_interop import cli, cli_json, make, questions_of
from labeller.interop import FORMATS, all_formats
from labeller.interop.format import Direction, Format, Option, shared_options
from labeller.registry import Registry

QUOTES = [q("q1", {"doc": "ops/backup.md", "quote": "kept for nine days"}, query="how long are backups kept?"),
          q("q2", {"doc": "guide/install.md", "quote": "reboot twice"},
            {"doc": "faq.md", "quote": "Rayleigh scattering"}, query="what then?")]


@pytest.fixture
def with_toy(monkeypatch):
    monkeypatch.setitem(FORMATS, toy.FORMAT.name, toy.FORMAT)  # the one registration line, as in interop/__init__.py


def test_a_registered_format_appears_in_both_helps_with_its_options(with_toy, capsys):
    for direction, flags in (("import", ["--separator SEP", "--skip-header"]),
                             ("export", ["--separator SEP", "--header", "--order {id,id-descending}"])):
        with pytest.raises(SystemExit):
            cli(capsys, direction, "--help")
        out = " ".join(capsys.readouterr().out.split())
        # argparse may wrap the description after the hyphen of a format's name
        assert "quotes-tsv: one quote label a line" in out.replace("- ", "-")
        assert "quotes-tsv: field separator of the toy file (default: '\\t')" in out
        for flag in flags:
            assert flag in out, (direction, flag)


def test_a_registered_format_round_trips_with_its_options(with_toy, tmp_path, capsys):
    a = make(tmp_path / "a", questions=QUOTES)
    out = tmp_path / "quotes.txt"
    rc, report = cli_json(capsys, "export", "quotes-tsv", "--root", a, "--out", out, "--separator", "|", "--header")
    assert rc == 0 and report["notes"] == ["4 line(s)"]
    assert out.read_text(encoding="utf-8").split("\n")[:2] == ["id|query|doc|quote",
                                                               "q1|how long are backups kept?|ops/backup.md|kept for "
                                                               "nine days"]
    b = make(tmp_path / "b", questions=[])
    rc, report = cli_json(capsys, "import", "quotes-tsv", out, "--root", b, "--separator", "|", "--skip-header")
    assert rc == 0 and report["added"] == ["q1", "q2"]
    keep = ("id", "query", "locators")
    assert [{k: r[k] for k in keep} for r in questions_of(b)] == [{k: r[k] for k in keep} for r in QUOTES]


def test_defaults_apply_when_the_flag_is_left_out_and_choices_are_checked(with_toy, tmp_path, capsys):
    a = make(tmp_path / "a", questions=QUOTES)
    rc, out, err = cli(capsys, "export", "quotes-tsv", "--root", a)
    assert rc == 0 and out.split("\n")[0] == "q1\thow long are backups kept?\tops/backup.md\tkept for nine days"
    rc, out, err = cli(capsys, "export", "quotes-tsv", "--root", a, "--order", "id-descending")
    assert rc == 0 and out.split("\n")[0].startswith("q2\t")
    with pytest.raises(SystemExit) as exc:
        cli(capsys, "export", "quotes-tsv", "--root", a, "--order", "random")
    assert exc.value.code == 2 and "invalid choice" in capsys.readouterr().err


def test_an_option_given_to_another_format_is_refused(with_toy, tmp_path, capsys):
    root = make(tmp_path / "p", questions=[])
    (tmp_path / "g.yaml").write_text("queries: []\n", encoding="utf-8")
    rc, out, err = cli(capsys, "import", "yaml", tmp_path / "g.yaml", "--root", root, "--separator", ";")
    assert rc == 2 and "--separator applies to the quotes-tsv format only" in err
    rc, out, err = cli(capsys, "export", "quotes-tsv", "--root", root, "--queries-out", tmp_path / "t.tsv")
    assert rc == 2 and "--queries-out applies to the trec-qrels format only" in err


def test_every_registered_format_reads_and_exports_with_its_defaults():
    """The registry holds real formats: each declares a name, a summary, and what it does."""
    assert list(FORMATS) == ["jsonl", "yaml", "pages-json", "beir", "trec-qrels", "offsets", "label-studio", "doccano",
                             "prodigy", "ragas", "deepeval", "llamaindex"]
    import_only = {"doccano", "prodigy", "deepeval"}  # their spans go back out through offsets/label-studio/ragas
    for name, fmt in all_formats().items():
        assert fmt.name == name and fmt.summary and fmt.does(Direction.IMPORT)
        assert fmt.does(Direction.EXPORT) == (name not in import_only), name


def test_registry_refuses_clashes():
    # a registry line whose name is not the format's own is a bug in labeller, found when loaded
    clash = Registry("labeller.interop", {"x": "jsonl:FORMAT"}, named_by="name")
    with pytest.raises(TypeError, match="'x' but the class says 'jsonl'"):
        clash.load("x")
    with pytest.raises(ValueError, match="neither imports nor exports"):
        Format("y", "y")
    b = Format("z", "z", read=toy.read, import_options=(Option("separator", "other", default=","),))
    with pytest.raises(ValueError, match="declare --separator differently"):
        shared_options({"quotes-tsv": toy.FORMAT, "z": b}, Direction.IMPORT)
