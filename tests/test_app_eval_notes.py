"""Issue 38's ninth rule: the app's eval says what the CLI's says. The holdout note, what
precision_Ω and all@k mean (the same words, ``eval.present``), and each run recorded in the
run history that ``labeller runs`` lists."""

from __future__ import annotations

import json

from helpers_app import make_app, run_async, settle, small  # noqa: F401  (small: a fixture)
from labeller.cli import main
from labeller.eval.present import ALL_AT_K, PRECISION_OMEGA
from test_app_reach import run_eval


@run_async
async def test_the_app_eval_has_the_cli_notes_and_is_recorded_in_the_history(small, capsys):
    app = make_app(small)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await run_eval(pilot)
        await settle(pilot)
        status = str(screen.query_one("#eval-status").render())
        chunking = str(screen.query_one("#eval-chunking").render())
        assert "(holdout excluded)" in status
        assert PRECISION_OMEGA in " ".join(chunking.split()) and ALL_AT_K in " ".join(chunking.split())
    assert main(["runs", "--root", str(small), "--format", "json"]) == 0
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert len(runs) == 1 and runs[0]["n"] == screen.result.report["config"]["records"]["scored"]
    assert main(["eval", "--root", str(small), "--no-history"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "(holdout excluded)" in text and PRECISION_OMEGA in text and ALL_AT_K in text
