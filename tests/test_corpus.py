import os

import pytest

from labeller.core.corpus import glob_match, load_corpus
from labeller.errors import InvalidInput


def write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode())


def test_walk_sorts_filters_and_uses_posix_ids(tmp_path):
    write(tmp_path / "b" / "z.md", "z")
    write(tmp_path / "a.md", "a")
    write(tmp_path / "notes.txt", "skip")
    write(tmp_path / "drafts" / "x.md", "x")
    corpus = load_corpus(tmp_path, exclude=("drafts/**",))
    assert list(corpus.docs) == ["a.md", "b/z.md"]


def test_glob_double_star_matches_zero_or_more_folders():
    assert glob_match("a.md", "**/*.md")
    assert glob_match("x/y/a.md", "**/*.md")
    assert not glob_match("x/a.txt", "**/*.md")
    assert glob_match("x/y/a.md", "x/**")


def test_symlinked_file_is_refused(tmp_path):
    write(tmp_path / "real.md", "r")
    os.symlink(tmp_path / "real.md", tmp_path / "link.md")
    with pytest.raises(InvalidInput, match="symlink"):
        load_corpus(tmp_path)


def test_symlinked_folder_is_refused_even_if_not_selected(tmp_path):
    write(tmp_path / "outside" / "secret.md", "s")
    root = tmp_path / "corpus"
    write(root / "a.md", "a")
    os.symlink(tmp_path / "outside", root / "linked")
    with pytest.raises(InvalidInput, match="symlink"):
        load_corpus(root)


def test_undecodable_file_names_byte_offset(tmp_path):
    write(tmp_path / "bad.md", b"abc\xffdef")
    with pytest.raises(InvalidInput) as exc:
        load_corpus(tmp_path)
    assert "bad.md" in str(exc.value) and "byte offset 3" in str(exc.value)
    assert exc.value.exit_code == 2


def test_size_bound(tmp_path):
    write(tmp_path / "big.md", "x" * 100)
    with pytest.raises(InvalidInput, match="over the bound"):
        load_corpus(tmp_path, max_file_bytes=99)
    assert len(load_corpus(tmp_path, max_file_bytes=100)) == 1


def test_non_regular_file_is_refused(tmp_path):
    write(tmp_path / "a.md", "a")
    os.mkfifo(tmp_path / "pipe.md")
    with pytest.raises(InvalidInput, match="not a regular file"):
        load_corpus(tmp_path)
