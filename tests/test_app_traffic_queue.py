"""The traffic queue in the app (issue 39.4): from a queue file to labelled traffic questions,
with the keyboard alone at 80×24, and the session model under it."""

from __future__ import annotations

import json

import pytest

from helpers_app import assert_focus_on_screen, make_app, run_async, settle, write_small_project
from labeller.app.session.drafts import LocatorDraft
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


SALT = "walk-salt"
EMAIL, PHONE_NO = "jane.doe@example.com", "(415) 555-0142"  # planted: never in a file labeller writes
# The log, as (query, requests, what the author does with it): a quote to type (alt+w), the
# retrieved passage to select (``passage``: words from its start), a negative, or a verdict.
# The golden set's own question is left out by the sample; the tail is drawn at π < 1, so two
# of its queries ("weather…", "call me…") are not drawn with this seed. The phone number is
# also in a retrieved passage of the first query, which is drawn.
LOG = [
    ("how long does the old key stay valid", 30, ("passage", 8)),
    ("when is the us rotation window", 12, ("quote", "Thursday")),
    ("who do I escalate to after half an hour", 6, ("quote", "duty")),
    ("how do I acknowledge all pages", 5, ("quote", "--all")),
    ("what should I announce before a rotation", 4, ("quote", "Announce")),
    ("How do I rotate the API key?", 4, None),
    ("which region rotates first", 2, ("quote", "primary")),
    ("what comes after running keys rotate", 2, ("quote", "every")),
    ("what is the office parking policy", 1, ("negative",)),
    (f"reset my password, mail {EMAIL}", 2, ("negative",)),
    ("does the pager app work offline", 1, ("negative",)),
    ("weather in berlin tomorrow", 1, ("out_of_scope",)),
    (f"call me on {PHONE_NO} asap", 1, ("unclear",)),
    ("is there a dark mode", 1, ("out_of_scope",)),
    ("asdf qwer", 1, ("unclear",)),
]
KEYS = {"out_of_scope": "o", "unclear": "u", "negative": "n"}
VERDICT_KINDS = ("out_of_scope", "unclear")
OLD_KEY = "The old key stays valid for 24 hours."  # a line of the small project's guide/rotate.md


def write_log(path) -> None:
    """JSON lines, one request a line; the most frequent query carries its tenant and the
    pipeline's two retrieved passages (one in the corpus, one not)."""
    rows = []
    for query, n, _ in LOG:
        extra = {"tenant": "acme", "ids": ["chunk-17", "chunk-99"], "scores": [0.82, 0.1],
                 "texts": [OLD_KEY, f"nothing like this is in the corpus; call {PHONE_NO}"]} if n == 30 else {}
        rows += [{"query": query, **extra}] * n
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_from_a_log_file_to_ten_labelled_questions_by_keyboard(tmp_path, monkeypatch, capsys):
    """Issue 39's last "done when": a log file, `labeller traffic sample`, then `labeller app
    --queue` at 80×24, ten items labelled with keys alone (seven anchored, three negatives) and
    two marked out of scope / unclear; every step on screen. The records keep their provenance
    (stratum, π, salted hash), the verdicts are in the queue file, and no personal datum of the
    log reaches any file written."""
    from textual.app import App

    from labeller.app.app import LabellerApp
    from labeller.cli import main
    from labeller.traffic.sample import salted_hash

    root = write_small_project(tmp_path / "proj")
    log, qpath = tmp_path / "queries.jsonl", root / "golden" / "traffic-queue.jsonl"
    write_log(log)
    monkeypatch.setenv("LABELLER_TRAFFIC_SALT", SALT)
    assert main(["traffic", "sample", str(log), "--n", "12", "--out", str(qpath), "--root", str(root),
                 "--tenant", "tenant", "--doc-ids", "ids", "--doc-texts", "texts", "--doc-scores", "scores"]) == 0
    assert "4 requests of golden-set queries left out" in capsys.readouterr().out
    queue = read_queue(qpath, None)
    passages = next(it for it in queue if it.retrieved).retrieved
    assert passages[1].text == "nothing like this is in the corpus; call <PHONE>"
    raw_of = {q.replace(EMAIL, "<EMAIL>").replace(PHONE_NO, "<PHONE>"): q for q, _, _ in LOG}
    plan = {it.id: dict((q, a) for q, _, a in LOG)[raw_of[it.query]] for it in queue}
    assert [a[0] for a in plan.values()].count("negative") == 3 and len(plan) == 12
    before = (root / "golden" / "questions.jsonl").read_text(encoding="utf-8")
    failures: list[BaseException] = []

    async def walk(pilot):
        try:
            await label_every_item(pilot, plan, before)
        except BaseException as exc:  # an assertion inside the app: reported after it ends
            failures.append(exc)
        pilot.app.exit()

    monkeypatch.setattr(LabellerApp, "run", lambda self: App.run(self, headless=True, size=SIZE, auto_pilot=walk))
    code = main(["app", "--root", str(root), "--queue", str(qpath)])
    if failures:
        raise failures[0]
    assert code == 0

    saved = [json.loads(line) for line in (root / "golden" / "questions.jsonl").read_text().splitlines()
             if line.startswith("{")]
    new = saved[len([x for x in before.splitlines() if x.startswith("{")]):]
    assert len(new) == 10 and all("traffic" in r for r in new)
    by_item = {it.id: it for it in queue}
    for r in new:
        it = next(i for i in queue if i.query == r["query"])
        raw = raw_of[it.query]
        assert r["traffic"] == {"stratum": it.stratum, "pi": it.pi, "frequency": it.frequency,  # and no text
                                "log_hash": salted_hash(SALT.encode(), raw),
                                **({"tenant": "acme"} if it.tenant else {})}
        assert r["split"] == it.split
        action = plan[it.id]
        if action[0] == "negative":
            assert r["unanswerable"] is True and r["locators"] == []
        elif action[0] == "quote":
            assert [loc["quote"] for loc in r["locators"]] == [action[1]]
        else:
            assert r["locators"][0]["quote"].startswith(OLD_KEY[:-1])
    assert {by_item[i].query: v for i, v in verdicts(qpath).items() if v} == {
        "is there a dark mode": "out_of_scope", "asdf qwer": "unclear"}
    assert sum(1 for r in new if r.get("unanswerable")) == 3 and "<EMAIL>" in " ".join(r["query"] for r in new)
    for path in root.rglob("*"):  # every file labeller wrote: queue, questions, golden set, journal, caches
        if path.is_file():
            data = path.read_bytes()
            assert EMAIL.encode() not in data and PHONE_NO.encode() not in data, path


async def label_every_item(pilot, plan: dict[str, tuple], before: str) -> None:
    """Every item of the queue, in its order, keys only; the focus drawn whole at every step.
    ``before``: questions.jsonl as it was, until the save."""
    app = pilot.app
    await settle(pilot)
    assert app.current_mode == "traffic"  # --queue: the app opens on the queue
    table = app.screen.query_one("#traffic-items")
    first = True
    for item_id, action in plan.items():
        assert app.screen.current_id == item_id, "the list is on the next item left to do"
        assert_focus_on_screen(app, "traffic-items")
        kind = action[0]
        if kind in KEYS:
            await pilot.press(KEYS[kind])
            await settle(pilot)
            if kind in VERDICT_KINDS:  # in the queue file at once; the golden set unchanged
                assert verdicts(queue_path(app.session))[item_id] == kind
                assert (app.session.config.root / "golden" / "questions.jsonl").read_text(encoding="utf-8") == before
            continue
        if kind == "passage":  # the log's retrieved passages, placed in the corpus, and jumped to
            await pilot.press("p")
            await settle(pilot)
            passages = app.screen.query_one("#traffic-passages")
            assert [passages.render_line(y).text.strip() for y in range(passages.option_count)] == [  # as drawn
                "1. chunk-17 (0.82) → guide/rotate.md:7 [exact]",
                "2. chunk-99 (0.1): not placed: text not found in the corpus (not a…"]
            assert_focus_on_screen(app, "traffic-passages")
            await pilot.press("enter")
            await settle(pilot)
            doc, start, end = app.screen.search_mark
            assert app.session.project.corpus[doc].text[start:end] == OLD_KEY
            assert_focus_on_screen(app, "document")
            await pilot.press(*["ctrl+shift+right"] * action[1])
        else:  # the search already run on the query, its hits in view (at 80 columns: the corpus view)
            await pilot.press("enter")
            await settle(pilot)
            rid, _ = app.current
            assert app.session.drafts[rid].query == app.screen.query_one("#search-input").value
            assert app.screen.query_one("#search OptionList").option_count > 0
            assert_focus_on_screen(app, "search-input")
            if first:  # back unfinished: the item stays under the cursor, its status says so
                first = False
                await pilot.press("f10")
                await settle(pilot)
                assert app.screen.current_id == item_id
                assert str(table.get_row_at(table.cursor_row)[0]) == f"{rid} incomplete"
                await pilot.press("enter")
                await settle(pilot)
                assert app.current == (rid, 0), "the item's draft again, never a second one"
            await pilot.press("alt+w", *action[1])
        await settle(pilot)
        rid, _ = app.current
        assert app.session.status(rid)[0] == "resolved", app.session.status(rid)
        await pilot.press("f10")
        await settle(pilot)
        table = app.screen.query_one("#traffic-items")
        assert str(table.get_row_at(table.get_row_index(item_id))[0]) == f"{rid} resolved"
    assert [str(table.get_row_at(i)[0]).split()[-1] for i in range(table.row_count)] == [
        {"negative": "negative", "out_of_scope": "scope", "unclear": "unclear"}.get(a[0], "resolved")
        for a in plan.values()]
    summary = str(app.screen.query_one("#traffic-summary").render())
    assert "12 items: 10 labelled, 1 out of scope, 1 unclear · 10 unsaved" in summary
    await pilot.press("ctrl+s")
    await settle(pilot)
    assert "unsaved" not in str(app.screen.query_one("#traffic-summary").render())


def test_verdict_toggles_and_refuses_a_labelled_item(project):
    session = AuthoringSession.open(project)
    qpath = queue_path(session)
    queue = TrafficQueue.open(qpath)
    queue.set_verdict("t-000000000002", "unclear", session.drafts)
    assert verdicts(qpath)["t-000000000002"] == "unclear"
    assert queue.state("t-000000000002", session).label == "unclear"
    with pytest.raises(InvalidInput, match="marked unclear"):
        queue.take("t-000000000002", session)
    queue.set_verdict("t-000000000002", None, session.drafts)
    assert verdicts(qpath)["t-000000000002"] is None
    rid = queue.take("t-000000000002", session)
    assert queue.take("t-000000000002", session) == rid  # one draft per item
    st = queue.state("t-000000000002", session)
    assert (st.record, st.label, st.kind, st.unsaved) == (rid, f"{rid} incomplete", "in progress", True)
    session.update(rid, locators=(LocatorDraft(quote="Tuesday"),))  # not resolved yet: this session read no corpus
    st = queue.state("t-000000000002", session)
    assert (st.label, st.kind, st.done) == (f"{rid} …", "resolving", False)
    session.undo()  # the locator
    with pytest.raises(InvalidInput, match=f"labelled as {rid}"):
        queue.set_verdict("t-000000000002", "out_of_scope", session.drafts)
    session.undo()  # one step: the draft gone, the item is open again (found from the drafts, never kept aside)
    assert queue.state("t-000000000002", session).label == "open" and rid not in session.drafts
    rid = queue.mark_unanswerable("t-000000000002", session)
    st = queue.state("t-000000000002", session)
    assert session.drafts[rid].unanswerable and (st.label, st.kind) == (f"{rid} negative", "labelled")
    # the next item left to do: round to the start past the labelled one, skipping the unclear one
    queue.set_verdict("t-000000000003", "unclear", session.drafts)
    assert queue.next_to_do("t-000000000002", session) == "t-000000000001"
    assert queue.next_to_do("t-000000000001", session) is None  # nothing else left: the cursor stays
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
