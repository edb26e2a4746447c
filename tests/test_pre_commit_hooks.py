"""The pre-commit hooks of ``.pre-commit-hooks.yaml``, run by pre-commit itself.

``pre-commit try-repo`` would build a virtualenv and pip-install labeller with all its
dependencies (minutes, and a network), so the test runs the manifest's hooks as they are,
only switched to ``language: system`` (the labeller already installed) in a ``repo: local``
configuration: the entry, ``files``, ``pass_filenames`` and the rest are the manifest's own.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from tests.conftest import REPO


def run(repo: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "HOME": str(repo.parent), "GIT_CONFIG_NOSYSTEM": "1", "PYTHONPATH": str(REPO),
           "PRE_COMMIT_HOME": str(repo.parent / "pre-commit-home"),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x"}
    return subprocess.run(args, cwd=repo, env=env, capture_output=True, text=True)


def test_the_manifest_hooks_pass_on_the_bundled_example_and_fail_on_a_rotted_label(tmp_path):
    repo = tmp_path / "golden-repo"
    for folder in ("corpus", "golden"):
        shutil.copytree(REPO / folder, repo / folder)
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert [h["id"] for h in hooks] == ["labeller-check", "labeller-leaks"]
    local = [{**hook, "language": "system"} for hook in hooks]
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump({"repos": [{"repo": "local", "hooks": local}]}))
    run(repo, "git", "init", "-q")
    run(repo, "git", "add", "-A")

    clean = run(repo, sys.executable, "-m", "pre_commit", "run", "--all-files")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "labeller build --check" in clean.stdout and "Passed" in clean.stdout
    assert "clean:" in clean.stdout  # labeller-leaks is verbose: its report shows even when it passes

    # Rot a label: reword the sentence hb-001 quotes.
    doc = repo / "corpus" / "index.md"
    doc.write_text(doc.read_text().replace("It does not embed anything or call a model", "It embeds nothing"))
    rotted = run(repo, sys.executable, "-m", "pre_commit", "run", "labeller-check", "--all-files")
    assert rotted.returncode == 1
    assert "Failed" in rotted.stdout and "hb-001" in rotted.stdout
