"""A tiny sentence-transformers model built by the tests themselves, offline, for the dense retriever.

A two-layer BERT with random (seeded) weights over a WordPiece vocabulary trained with
``tokenizers`` on a copy of the bundled corpus, saved as a sentence-transformers folder
(Transformer, mean Pooling, Normalize): the same files a real model has, so the loading,
fingerprinting and embedding code labeller runs on all-MiniLM-L6-v2 runs on it, in seconds
and with no download. The dense tests need ``labeller[dense]``: CI installs it
(``.ci/run``) and sets ``LABELLER_REQUIRE_DENSE=1``, under which a missing extra fails
them; elsewhere they are skipped with the reason printed (``pytest -rs``).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from conftest import require_optional
from helpers_app import copy_bundled_example

TINY = "models/tiny"  # where a test project keeps the model: [retriever.dense] model = "models/tiny"


def require_dense() -> None:
    require_optional(importlib.util.find_spec("sentence_transformers") is not None, "LABELLER_REQUIRE_DENSE",
                     "labeller[dense]: pip install torch==2.13.0 && pip install -e '.[dense]'")


def build_tiny_model(folder: Path, corpus: Path) -> Path:
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Normalize, Pooling, Transformer
    from tokenizers import BertWordPieceTokenizer
    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast

    work = folder.parent / f".{folder.name}-parts"
    work.mkdir(parents=True)
    tokenizer = BertWordPieceTokenizer(lowercase=True)
    texts = [p.read_text(encoding="utf-8") for p in sorted(corpus.rglob("*.md"))]
    tokenizer.train_from_iterator(texts, vocab_size=3000, min_frequency=1,
                                  special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    tokenizer.save_model(str(work))
    torch.manual_seed(29)
    config = BertConfig(vocab_size=tokenizer.get_vocab_size(), hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=64, max_position_embeddings=256)
    BertModel(config).save_pretrained(work)
    # the vocabulary positionally: transformers 5 names it ``vocab`` and ignores ``vocab_file``
    # (a tokenizer of the 5 special tokens only, every word [UNK]); 4.x names it ``vocab_file``
    BertTokenizerFast(str(work / "vocab.txt"), do_lower_case=True).save_pretrained(work)
    word = Transformer(str(work), max_seq_length=128)
    model = SentenceTransformer(modules=[word, Pooling(word.get_embedding_dimension(), "mean"), Normalize()],
                                device="cpu")
    model.save(str(folder))
    return folder


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    """The tiny model's folder (built once per session, from a copy of the bundled corpus)."""
    require_dense()
    base = tmp_path_factory.mktemp("tiny-model")
    corpus = copy_bundled_example(base / "example") / "corpus"
    return build_tiny_model(base / "tiny", corpus)
