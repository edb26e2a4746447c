"""The bundled example's eval reports, committed as the bytes every machine and Python must give.

    python scripts/expected_outputs.py          # rewrite tests/fixtures/expected/ after an intended change
    python scripts/expected_outputs.py --check  # compare with them instead (exit 1 if any differs)

``tests/test_expected_outputs.py`` runs ``labeller eval --format json`` on copies of the
repository's ``corpus/`` and ``golden/`` and compares the reports byte for byte with the files
this script writes (it reads nothing but its copies, and writes only ``tests/fixtures/expected/``):

- ``eval.json``: the bundled example as it is, the report a user gets (six decimals);
- ``eval-fine-unrounded.json``: the same golden set over 80-character chunks, with ``--power``,
  its rounding left out (``unrounded``). A float computed in another order, on another CPU or
  Python, shows there in its last bit instead of hiding under the sixth decimal; a record then
  has up to 13 answer-bearing chunks, so nDCG's ideal DCG adds up to 13 discounts (from six on,
  Python 3.12's compensated ``sum`` gives other bits than 3.11's left to right), and ``--power``
  adds the bootstrap variances.

The build artifact's expected bytes are the committed ``golden/golden-set.v1.jsonl`` and its
manifest themselves (``labeller build --check`` holds them to a fresh build); the test checks a
fresh build of a copy against them too.

Run it after a change meant to move a number or the report's shape (a metric, a chunker, the
BM25 default, a question of the bundled golden set): ``git diff --stat tests/fixtures/expected``
then shows what moved; commit the files with the change that moved them. Run it on Python 3.11
(CI's): every other Python and machine must then give the same bytes (docs/development.md,
"Which Pythons").
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXPECTED = REPO / "tests" / "fixtures" / "expected"
EVAL_ARGS = ("eval", "--format", "json", "--no-history")


@dataclass(frozen=True)
class Case:
    """One expected report: the bundled example with this ``labeller.toml`` and these flags."""

    toml: str | None = None
    args: tuple[str, ...] = ()
    unrounded: bool = False


CASES = {
    "eval.json": Case(),
    "eval-fine-unrounded.json": Case('[build]\nchunker = "fixed-chars-v1:size=80,overlap=0"\n', ("--power", "0.05"),
                                     unrounded=True),
}


def copy_example(root: Path) -> Path:
    """A throwaway copy of the bundled example (``corpus/``, ``golden/``, ``labeller.toml`` if any)."""
    root.mkdir(parents=True, exist_ok=True)
    for part in ("corpus", "golden"):
        shutil.copytree(REPO / part, root / part)
    if (REPO / "labeller.toml").is_file():
        shutil.copy2(REPO / "labeller.toml", root / "labeller.toml")
    return root


@contextlib.contextmanager
def unrounded() -> Iterator[None]:
    """The eval report's six-decimal rounding (``labeller.eval.report``'s ``rnd``, ``rnd_values``
    and ``rnd_many``, which every rounded value of the report goes through) left out."""
    from labeller.eval import report

    saved = report.rnd, report.rnd_values, report.rnd_many
    report.rnd = lambda x: x
    report.rnd_values = dict
    report.rnd_many = lambda rows: [dict(r) for r in rows]
    try:
        yield
    finally:
        report.rnd, report.rnd_values, report.rnd_many = saved


def eval_reports(folder: Path) -> dict[str, bytes]:
    """Each case's ``labeller eval --format json`` report, by file name, each on its own copy of
    the bundled example under ``folder``."""
    from labeller.cli import main

    out: dict[str, bytes] = {}
    for name, case in CASES.items():
        root = copy_example(folder / name.removesuffix(".json"))
        if case.toml is not None:
            (root / "labeller.toml").write_text(case.toml, encoding="utf-8")
        target = root / "report.json"
        with unrounded() if case.unrounded else contextlib.nullcontext(), contextlib.redirect_stdout(io.StringIO()):
            rc = main([*EVAL_ARGS, *case.args, "--root", str(root), "--out", str(target)])
        if rc != 0:
            raise RuntimeError(f"labeller eval exited {rc} on {root}")
        out[name] = target.read_bytes()
    return out


def main(argv: list[str] | None = None) -> int:
    """Write the expected files, or with ``--check`` compare with them (exit 1 naming each that differs)."""
    check = "--check" in (sys.argv[1:] if argv is None else argv)
    with tempfile.TemporaryDirectory() as tmp:
        for var in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME"):  # nothing read from or left in this user's cache
            os.environ[var] = str(Path(tmp) / var.lower())
        differ = []
        for name, data in eval_reports(Path(tmp)).items():
            path = EXPECTED / name
            if check:
                if not path.is_file() or path.read_bytes() != data:
                    differ.append(name)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            print(f"wrote {path.relative_to(REPO)} ({len(data):,} bytes)")
    if differ:
        print(f"differ from {EXPECTED.relative_to(REPO)}: {', '.join(differ)}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
