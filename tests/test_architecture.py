"""The core and the eval never import Textual: they must run in CI jobs and scripts without a UI."""

import subprocess
import sys


def test_core_and_eval_do_not_import_textual():
    code = (
        "import importlib, pkgutil, sys\n"
        "import labeller.core, labeller.eval\n"
        "for pkg in (labeller.core, labeller.eval):\n"
        "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        importlib.import_module(m.name)\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(len([m for m in sys.modules if m.startswith('labeller.')]))\n"
        "sys.exit(1 if bad else 0)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert int(proc.stdout.strip()) > 10  # the walk really imported the modules
