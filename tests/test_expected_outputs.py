"""Every number identical whatever the machine (issue 37.1): the bundled example built and
evaluated on a copy gives, byte for byte, the outputs committed in ``tests/fixtures/expected/``
(eval) and ``golden/`` (the build artifact).

The expected files were written on CI's Python (3.11) by ``scripts/expected_outputs.py``; the
same bytes must come from 3.12, 3.13, any CPU (AVX-512 or not), any BLAS kernel and thread
count. When a change is *meant* to move a number or the report's shape (a metric, the chunker,
the BM25 default, a question of the bundled golden set), regenerate and commit them with it:

    labeller build                         # only if the bundled golden set or the chunker changed
    python scripts/expected_outputs.py     # then `git diff --stat tests/fixtures/expected`

A failure names the first line and the JSON path that differ. One that no such change explains
is drift: a float added in another order (Python 3.12's compensated ``sum``, a BLAS or SIMD
kernel's order), which the unrounded report shows in the last bit (docs/development.md, "Which
Pythons"). Seen red: with nDCG's ideal DCG added by the built-in ``sum`` on 3.12, and with a
report mean added by ``sum`` instead of ``math.fsum`` on 3.11.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import REPO

from labeller.cli import main

sys.path.insert(0, str(REPO / "scripts"))
try:
    import expected_outputs
finally:
    sys.path.remove(str(REPO / "scripts"))

REGENERATE = "python scripts/expected_outputs.py"


def _first_difference(got: bytes, want: bytes) -> str:
    """Where two reports part: the first differing line and, for JSON, the first differing value's path."""
    g, w = got.decode("utf-8").splitlines(), want.decode("utf-8").splitlines()
    line = next((i for i, (a, b) in enumerate(zip(g, w)) if a != b), min(len(g), len(w)))
    where = _path(json.loads(got), json.loads(want), "$")
    return (f"first difference at line {line + 1}: got {g[line] if line < len(g) else '<end>'!r}, "
            f"expected {w[line] if line < len(w) else '<end>'!r}; at {where}")


def _path(a, b, at: str) -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if a.get(k, ...) != b.get(k, ...):
                return _path(a.get(k), b.get(k), f"{at}.{k}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _path(x, y, f"{at}[{i}]")
    return f"{at}: {a!r} != {b!r}"


def test_a_fresh_build_of_the_bundled_example_is_its_committed_artifact_byte_for_byte(tmp_path, capsys):
    example = expected_outputs.copy_example(tmp_path / "example")
    committed = {p.name: p.read_bytes() for p in (example / "golden").glob("golden-set.v1.*")}
    assert len(committed) == 2
    assert main(["build", "--root", str(example)]) == 0, capsys.readouterr().err
    fresh = {name: (example / "golden" / name).read_bytes() for name in committed}
    assert fresh == committed, "a fresh build differs from golden/: `labeller build`, if the change is intended"


def test_the_bundled_examples_eval_reports_are_the_committed_bytes(tmp_path):
    """``eval.json`` as a user gets it, and ``eval-fine-unrounded.json`` (80-character chunks,
    ``--power``, the rounding left out), where a last-bit drift cannot hide under the sixth
    decimal (``scripts/expected_outputs.py`` says what each case exercises)."""
    got = expected_outputs.eval_reports(tmp_path)
    assert sorted(got) == sorted(expected_outputs.CASES) == ["eval-fine-unrounded.json", "eval.json"]
    for name, data in got.items():
        want = (expected_outputs.EXPECTED / name).read_bytes()
        assert data == want, f"{name}: {_first_difference(data, want)} (intended? {REGENERATE})"


# Another machine's kernels, run here: OpenBLAS's Sandybridge kernel (AVX, no FMA) on one thread, and
# numpy without its AVX2 and AVX-512 loops (names of numpy 1.x and 2.x; a name a CPU lacks is ignored)
OTHER_CPU = {"OPENBLAS_CORETYPE": "Sandybridge", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
             "NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR AVX2 FMA3 AVX512F AVX512CD "
                                         "AVX512_SKX AVX512_CLX AVX512_CNL"}


def test_the_reports_are_the_same_bytes_under_another_cpus_kernels():
    """What an older CPU would run (``OTHER_CPU``), in a fresh interpreter: the same bytes. A
    float matrix product or a numpy reduction on a reported value would part here on an AVX-512
    or AVX2 machine even where the committed files were written on it."""
    env = {**os.environ, **OTHER_CPU}
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "expected_outputs.py"), "--check"], env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_unrounded_report_is_unrounded():
    """Else the unrounded comparison is the rounded one again: some value has more than six decimals."""
    text = (expected_outputs.EXPECTED / "eval-fine-unrounded.json").read_text(encoding="utf-8")
    floats = [v for v in _floats(json.loads(text)) if v != round(v, 6)]
    assert len(floats) > 1000, len(floats)


def _floats(value):
    if isinstance(value, float):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _floats(v)
    elif isinstance(value, list):
        for v in value:
            yield from _floats(v)
