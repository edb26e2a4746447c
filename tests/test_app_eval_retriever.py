"""The eval tab's retriever choice: the eval (and the Chunkers view's comparison) use the chosen one."""

from __future__ import annotations

import shutil

from helpers_app import make_app, run_async, settle, write_small_project
from helpers_dense import TINY, tiny_model  # noqa: F401  (a fixture)
from labeller.app.screens.chunkers import ChunkersView
from labeller.app.screens.eval import EvalScreen
from labeller.app.session.drilldown import retriever_choices
from textual.widgets import Select


@run_async
async def test_the_eval_tab_scores_the_chosen_retriever(tmp_path, tiny_model):
    root = write_small_project(tmp_path / "proj")
    shutil.copytree(tiny_model, root / TINY)
    (root / "labeller.toml").write_text(f'[retriever.dense]\nmodel = "{TINY}"\n', encoding="utf-8")
    app = make_app(root)
    async with app.run_test(size=(150, 45)) as pilot:
        await settle(pilot)
        await pilot.press("f6")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, EvalScreen)
        choice = screen.query_one("#eval-retriever", Select)
        assert choice.value == "bm25"
        assert {"bm25", "dense", "hybrid"} <= set(retriever_choices()) and "run" not in retriever_choices()
        choice.value = "hybrid"
        await pilot.press("ctrl+r")
        await settle(pilot)
        retriever = screen.result.report["fingerprint"]["retriever"]
        assert retriever["name"] == "hybrid" and retriever["members"][1]["model"] == TINY
        assert screen.query_one(ChunkersView).retriever() == "hybrid"
