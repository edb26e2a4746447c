"""The traffic queue in the app (issue 39.4): from a queue file to labelled traffic questions,
with the keyboard alone at 80×24, and the session model under it."""

from __future__ import annotations

import json

import pytest

from helpers_app import make_app, run_async, settle, write_small_project
from labeller.app.session.session import AuthoringSession
from labeller.app.session.traffic_queue import TrafficQueue, attach_queue, queue_path
from labeller.errors import InvalidInput
from labeller.traffic.queue import QueueItem, Retrieved, read_queue, write_queue

SIZE = (80, 24)
PASSAGE = "Run `keys rotate` to issue a new API key, then redeploy every service."


def items() -> list[QueueItem]:
    return [
        QueueItem(id="t-000000000001", query="how long does the old key stay valid", key="key long old stay valid",
                  frequency=40, stratum="head", pi=0.5, split="dev", log_hash="a" * 32, tenant="acme",
                  retrieved=[Retrieved(id="chunk-17", text=PASSAGE, score=0.82),
                             Retrieved(id="chunk-99", text="nothing like this is in the corpus at all", score=0.1)]),
        QueueItem(id="t-000000000002", query="what is the refund policy for annual plans",
                  key="annual plan policy refund", frequency=3, stratum="tail", pi=0.25, split="test",
                  log_hash="b" * 32),
        QueueItem(id="t-000000000003", query="call me at <PHONE> about the thing", key="call phone thing",
                  frequency=1, stratum="tail", pi=0.25, split="dev", log_hash="c" * 32),
    ]


@pytest.fixture
def project(tmp_path):
    root = write_small_project(tmp_path / "proj")
    write_queue(root / "golden" / "traffic-queue.jsonl", items())
    return root


def verdicts(path) -> dict[str, str | None]:
    return {it.id: it.verdict for it in read_queue(path, None)}


@run_async
async def test_queue_to_labelled_questions_by_keyboard(project):
    qpath = project / "golden" / "traffic-queue.jsonl"
    golden_before = (project / "golden" / "questions.jsonl").read_text(encoding="utf-8")
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f10")
        await settle(pilot)
        table = app.screen.query_one("#traffic-items")
        assert table.row_count == 3
        # 1. the first item: enter makes a draft and opens the editor, the search run on its query
        await pilot.press("enter")
        await settle(pilot)
        assert app.current_mode == "author"
        rid, _ = app.current
        d = app.session.drafts[rid]
        assert d.query == "how long does the old key stay valid" and d.split == "dev"
        assert (d.traffic.stratum, d.traffic.pi, d.traffic.frequency, d.traffic.log_hash, d.traffic.tenant) == (
            "head", 0.5, 40, "a" * 32, "acme")
        assert app.screen.query_one("#search-input").value == d.query
        assert app.screen.query_one("#search OptionList").option_count > 0  # the hits are there
        # 2. back to the queue: its retrieved passage, placed in the corpus, opens the editor on it
        await pilot.press("f10")
        await settle(pilot)
        assert app.screen.query_one("#traffic-items").get_row_at(0)[0] == rid
        await pilot.press("p")
        await settle(pilot)
        passages = app.screen.query_one("#traffic-passages")
        assert passages.option_count == 2
        assert "guide/rotate.md:" in str(passages.get_option_at_index(0).prompt)
        assert "not placed" in str(passages.get_option_at_index(1).prompt)
        await pilot.press("enter")
        await settle(pilot)
        assert app.current == (rid, 0) and len(app.session.drafts) == 5  # the same draft, no second one
        doc, start, end = app.screen.search_mark
        assert doc == "guide/rotate.md"
        assert app.session.project.corpus[doc].text[start:end] == PASSAGE
        await pilot.press("alt+w", *"The old key stays valid for 24 hours.")  # anchored as usual
        await settle(pilot)
        assert app.session.status(rid)[0] == "resolved"
        # 3. the second: a negative record, without leaving the list
        await pilot.press("f10")
        await settle(pilot)
        assert app.focused.id == "traffic-passages"  # where it was left
        await pilot.press("shift+tab", "down", "n")
        await settle(pilot)
        negatives = [x for x in app.session.drafts.values() if x.unanswerable and x.traffic is not None]
        assert [(x.query, x.locators, x.traffic.log_hash) for x in negatives] == [
            ("what is the refund policy for annual plans", (), "b" * 32)]
        # 4. the third: out of scope, written into the queue file at once, not into the golden set
        assert app.screen.query_one("#traffic-items").cursor_row == 2
        await pilot.press("o")
        await settle(pilot)
        assert verdicts(qpath) == {"t-000000000001": None, "t-000000000002": None,
                                   "t-000000000003": "out_of_scope"}
        assert "out of scope" in str(app.screen.query_one("#traffic-items").get_row_at(2)[0])
        assert (project / "golden" / "questions.jsonl").read_text(encoding="utf-8") == golden_before
        # 5. save: the two traffic records land with their provenance
        await pilot.press("ctrl+s")
        await settle(pilot)
    saved = [json.loads(line) for line in (project / "golden" / "questions.jsonl").read_text().splitlines()
             if line.startswith("{")]
    traffic = {r["query"]: r for r in saved if "traffic" in r}
    assert set(traffic) == {"how long does the old key stay valid", "what is the refund policy for annual plans"}
    neg = traffic["what is the refund policy for annual plans"]
    assert neg["unanswerable"] is True and neg["split"] == "test"
    assert neg["traffic"] == {"frequency": 3, "log_hash": "b" * 32, "pi": 0.25, "stratum": "tail"}
    assert not any("PHONE" in r["query"] for r in saved)


def test_verdict_toggles_and_refuses_a_labelled_item(project):
    session = AuthoringSession.open(project)
    qpath = queue_path(session)
    queue = TrafficQueue.open(qpath)
    queue.set_verdict("t-000000000002", "unclear", session.drafts)
    assert verdicts(qpath)["t-000000000002"] == "unclear"
    assert queue.status(queue.item("t-000000000002"), session.drafts) == "unclear"
    with pytest.raises(InvalidInput, match="marked unclear"):
        queue.take("t-000000000002", session)
    queue.set_verdict("t-000000000002", None, session.drafts)
    assert verdicts(qpath)["t-000000000002"] is None
    rid = queue.take("t-000000000002", session)
    assert queue.take("t-000000000002", session) == rid  # one draft per item
    assert queue.status(queue.item("t-000000000002"), session.drafts) == rid
    with pytest.raises(InvalidInput, match=f"labelled as {rid}"):
        queue.set_verdict("t-000000000002", "out_of_scope", session.drafts)
    session.undo()  # one step: the draft gone, the item is open again (found from the drafts, never kept aside)
    assert queue.status(queue.item("t-000000000002"), session.drafts) == "open" and rid not in session.drafts
    rid = queue.mark_unanswerable("t-000000000002", session)
    assert session.drafts[rid].unanswerable and queue.status(queue.item("t-000000000002"), session.drafts) == (
        f"{rid} negative")
    session.undo()
    assert rid not in session.drafts


def test_queue_flag_and_redaction_on_read(project, tmp_path):
    """``--queue`` names another file; a queue made elsewhere is redacted again when read."""
    other = tmp_path / "elsewhere.jsonl"
    raw = items()[1].model_copy(update={"query": "refund for jane.doe@example.com please"})
    other.write_text(json.dumps(raw.model_dump(exclude_defaults=True)) + "\n", encoding="utf-8")
    session = AuthoringSession.open(project)
    queue = attach_queue(session, other)
    assert queue_path(session) == other
    assert queue.items[0].query == "refund for <EMAIL> please"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "t-1"}\n', encoding="utf-8")
    with pytest.raises(InvalidInput) as exc:
        attach_queue(AuthoringSession.open(project), bad)
    assert exc.value.line == 1


def test_app_refuses_a_bad_queue_before_the_ui(project, tmp_path, capsys):
    """``labeller app --queue`` reads the file first: a bad one is exit 2 naming its line, no UI."""
    from labeller.cli import main

    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(items()[1].model_dump(exclude_defaults=True)) + '\n{"id": "t-2"}\n', encoding="utf-8")
    assert main(["app", "--root", str(project), "--queue", str(bad)]) == 2
    assert "bad.jsonl:2 record 't-2': id:" in capsys.readouterr().err
