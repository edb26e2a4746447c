"""Person names out of traffic (issue 39.2): a plug-in chosen by ``[traffic] names`` or ``--names``.

Two detectors ship. ``list`` (names from a file of the project) runs here for real, end to end
through ``labeller traffic sample``. ``presidio`` needs presidio-analyzer and a spaCy model,
some 250 MB that are not in the dev extra (docs/traffic.md says why): its real output, recorded
offline by ``scripts/record_presidio_names.py`` into ``tests/fixtures/presidio/``, is replayed
through labeller's adapter here, and compared with a live Presidio wherever one is installed.
A detector asked for that cannot run stops the run with exit 2 and writes nothing.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import require_optional

from labeller.cli import main
from labeller.errors import InvalidInput
from labeller.traffic.names import REGISTRY, make_detector
from labeller.traffic.names.presidio import PresidioNames
from labeller.traffic.redact import PersonNames, Redactor

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "presidio" / "person_names.json").read_text("utf-8"))
QUERIES = ["Ask Maria Garcia about the reset flow", "maria garcia cannot log in", "Maria wrote the annual report",
           "the Annual report by Ann", "Annabel asked about block quotes", "who is MARIA GARCIA?",
           "mail maria@example.com about it", "how does the parser handle block quotes"]


def redacted(text: str, spans) -> str:
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + "<PERSON>" + text[end:]
    return text


class Replay:
    """Presidio's ``AnalyzerEngine.analyze`` as recorded: its results for each recorded text,
    filtered by the threshold the caller passes, as Presidio filters them."""

    def __init__(self, cases) -> None:
        self.cases = {c["text"]: c["results"] for c in cases}

    def analyze(self, *, text, entities, language, score_threshold):
        assert entities == ["PERSON"] and language == "en"
        return [SimpleNamespace(**r) for r in self.cases[text] if r["score"] >= score_threshold]


# -- presidio -----------------------------------------------------------------------------


def test_presidio_s_recorded_output_is_redacted_span_for_span():
    red = Redactor(extra=(PersonNames(PresidioNames(Replay(FIXTURE["cases"]), "en", 0.5)),))
    for case in FIXTURE["cases"]:
        spans = [(r["start"], r["end"]) for r in case["results"] if r["score"] >= 0.5]
        assert red(case["text"]) == redacted(case["text"], spans)
    assert red.report()["PERSON"] == sum(len(c["results"]) for c in FIXTURE["cases"])
    out = {c["text"]: red(c["text"]) for c in FIXTURE["cases"][:1]}
    assert out == {"Ask Maria Garcia about the reset flow": "Ask <PERSON> about the reset flow"}


def test_presidio_s_threshold_is_passed_on():
    red = Redactor(extra=(PersonNames(PresidioNames(Replay(FIXTURE["cases"]), "en", 0.9)),))
    assert all(red(c["text"]) == c["text"] for c in FIXTURE["cases"])  # every recorded score is below 0.9


def _live_presidio() -> bool:
    """Both installed, found without importing them (spaCy is slow to import)."""
    return all(importlib.util.find_spec(name) is not None for name in ("presidio_analyzer", FIXTURE["model"]))


@pytest.fixture
def live_presidio() -> None:
    """Presidio itself, where labeller[names] is installed: skipped with its reason elsewhere
    (the recorded output above still covers the adapter), failed where CI installed it."""
    require_optional(_live_presidio(), "LABELLER_REQUIRE_PRESIDIO",
                     f"pip install -e '.[names]' (presidio-analyzer and the spaCy model {FIXTURE['model']})")


def test_a_live_presidio_says_what_was_recorded(tmp_path, live_presidio):
    detector = make_detector(f"presidio:model={FIXTURE['model']}", tmp_path)
    for case in FIXTURE["cases"]:
        assert detector.find(case["text"]) == [(r["start"], r["end"]) for r in case["results"] if r["score"] >= 0.5]


def test_a_model_not_installed_is_refused_never_downloaded(tmp_path, live_presidio):
    with pytest.raises(InvalidInput, match="never downloads"):
        make_detector("presidio:model=en_core_web_no_such_model", tmp_path)


def test_presidio_asked_for_and_not_installed_stops_the_run_with_exit_2(tmp_path, capsys, monkeypatch):
    log = _log(tmp_path)
    monkeypatch.setitem(__import__("sys").modules, "presidio_analyzer", None)  # absent, wherever it is installed
    rc = main(["traffic", "sample", str(log), "--root", str(tmp_path), "--n", "5", "--out",
               str(tmp_path / "q.jsonl"), "--names", "presidio"])
    err = capsys.readouterr().err
    assert rc == 2 and "presidio-analyzer" in err and "pip install" in err
    assert not (tmp_path / "q.jsonl").exists()


# -- the name list ------------------------------------------------------------------------


def _log(tmp_path: Path) -> Path:
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps({"query": q}) + "\n" for q in QUERIES * 3), encoding="utf-8")
    return log


def _sample(root: Path, log: Path, capsys, *extra: str) -> tuple[int, str, str]:
    rc = main(["traffic", "sample", str(log), "--root", str(root), "--n", "50", "--out", str(root / "q.jsonl"),
               "--format", "json", *extra])
    out = capsys.readouterr()
    return rc, out.out, out.out + out.err  # with --format json a refusal is the JSON's "errors"


def test_a_name_list_takes_listed_names_out_of_the_queue(tmp_path, capsys):
    (tmp_path / "names.txt").write_text("# staff\nMaria Garcia\nMaria\n\nAnn\n", encoding="utf-8")
    rc, out, err = _sample(tmp_path, _log(tmp_path), capsys, "--names", "list:file=names.txt")
    assert rc == 0, err
    queue = (tmp_path / "q.jsonl").read_text(encoding="utf-8")
    texts = {json.loads(line)["query"] for line in queue.splitlines()}
    assert {"Ask <PERSON> about the reset flow", "<PERSON> cannot log in", "<PERSON> wrote the annual report",
            "the Annual report by <PERSON>", "who is <PERSON>?", "Annabel asked about block quotes",
            "mail <EMAIL> about it"} <= texts  # whole words, any case, the longest name; an address stays <EMAIL>
    assert "maria" not in queue.lower().replace("annabel", "")
    report = json.loads(out)
    assert report["redaction"]["PERSON"] > 0 and report["person_names"] == "list:file=names.txt"


def test_the_config_names_the_detector_and_the_flag_overrides_it(tmp_path, capsys):
    (tmp_path / "names.txt").write_text("Maria\n", encoding="utf-8")
    (tmp_path / "labeller.toml").write_text('[traffic]\nnames = "list:file=names.txt"\n', encoding="utf-8")
    rc, _, err = _sample(tmp_path, _log(tmp_path), capsys)
    assert rc == 0, err
    assert "<PERSON> wrote" in (tmp_path / "q.jsonl").read_text(encoding="utf-8")
    rc, _, err = _sample(tmp_path, _log(tmp_path), capsys, "--names", "nobody")
    assert rc == 2 and "unknown person-name detector 'nobody'; known: presidio, list" in err


@pytest.mark.parametrize(("spec", "says"), [
    ("list", "needs its file"),
    ("list:file=missing.txt", "name list not found"),
    ("list:file=../outside.txt", "inside the project's tree"),
    ("list:file=empty.txt", "holds no name"),
    ("list:path=names.txt", "unknown parameter 'path' (parameters of list: file)"),
    ("presidio:score=2", "score must be a number from 0 to 1"),
])
def test_a_detector_that_cannot_run_is_refused_before_a_line_is_read(tmp_path, capsys, spec, says):
    root = tmp_path / "proj"
    root.mkdir()
    (tmp_path / "outside.txt").write_text("Maria\n", encoding="utf-8")
    (root / "empty.txt").write_text("# nobody\n\n", encoding="utf-8")
    rc, _, err = _sample(root, _log(tmp_path), capsys, "--names", spec)
    assert rc == 2 and says in err, err
    assert not (root / "q.jsonl").exists()


def test_a_new_detector_is_one_class_and_one_registry_line(tmp_path, monkeypatch):
    class Initials:
        name = "initials"
        parameters = ("marker",)

        def __init__(self, marker: str) -> None:
            self.marker = marker

        @classmethod
        def from_spec(cls, params, root):
            return cls(params.get("marker", "@"))

        def find(self, text):
            at = text.find(self.marker)
            return [] if at < 0 else [(at, at + 3)]

    monkeypatch.setitem(REGISTRY, "initials", Initials)
    red = Redactor(extra=(PersonNames(make_detector("initials:marker=~", tmp_path)),))
    assert red("ask ~JD about it") == "ask <PERSON> about it" and red.report()["PERSON"] == 1


def test_check_out_takes_the_names_out_of_a_warehouse_queue_too(tmp_path, capsys):
    (tmp_path / "names.txt").write_text("Maria Garcia\n", encoding="utf-8")
    rc, _, err = _sample(tmp_path, _log(tmp_path), capsys, "--no-redact")
    assert rc == 0, err
    assert "Maria Garcia" in (tmp_path / "q.jsonl").read_text(encoding="utf-8")
    rc = main(["traffic", "check", str(tmp_path / "q.jsonl"), "--root", str(tmp_path), "--out",
               str(tmp_path / "canonical.jsonl"), "--names", "list:file=names.txt", "--format", "json"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    assert json.loads(out.out)["redaction"]["PERSON"] == 3  # three phrasings, in any case
    written = (tmp_path / "canonical.jsonl").read_text(encoding="utf-8")
    assert "Maria Garcia" not in written and "Ask <PERSON> about the reset flow" in written
