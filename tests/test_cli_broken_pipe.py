"""A reader that closes labeller's output early (``labeller build | head -1``) ends the command
quietly, with the status a shell gives a process SIGPIPE ended, in every command.

Each command runs in a real subprocess whose stdout is a pipe whose reading end is closed
before the command starts, so the first write fails, whatever the size of the output (a
reader that read one line first would race with a pipe buffer large enough for it all).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from helpers_app import write_small_project
from labeller.errors import EXIT_BROKEN_PIPE

COMMANDS = [
    ("build",),
    ("build", "--check"),
    ("build", "--format", "json"),
    ("chunks",),
    ("eval",),
    ("runs",),
    ("config",),
    ("repair", "--dry-run", "--format", "json"),  # its text summary goes to stderr
    ("repair", "--dry-run", "--format", "markdown"),  # a pull request's body, on stdout
]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A built project (``build --check`` compares with its artifact): built here, not by the
    ``build`` case, which another worker may run (the check then found no artifact, exit 1)."""
    root = write_small_project(tmp_path_factory.mktemp("pipe") / "proj")
    subprocess.run([sys.executable, "-m", "labeller.cli", "build", "--root", str(root)], capture_output=True,
                   check=True, timeout=120)
    return root


def run_into_closed_pipe(*args: str) -> subprocess.CompletedProcess:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the command writes a byte
    try:
        return subprocess.run([sys.executable, "-m", "labeller.cli", *args], stdout=write_end,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write_end)


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_closed_pipe_ends_quietly_with_the_sigpipe_status(project, args):
    done = run_into_closed_pipe(*args, "--root", str(project))
    assert done.returncode == EXIT_BROKEN_PIPE == 128 + 13
    assert done.stderr == ""  # no traceback, no "Exception ignored" from the exit-time flush


def test_build_writes_its_artifacts_before_the_pipe_matters(tmp_path):
    root = write_small_project(tmp_path / "proj")
    done = run_into_closed_pipe("build", "--root", str(root))
    assert done.returncode == EXIT_BROKEN_PIPE
    assert (root / "golden" / "golden-set.v1.jsonl").is_file()
    assert (root / "golden" / "golden-set.v1.manifest.json").is_file()


def test_an_open_pipe_is_unchanged(project):
    done = subprocess.run([sys.executable, "-m", "labeller.cli", "schema"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and done.stdout
