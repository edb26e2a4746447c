"""What a dense model cannot read of a question (``dense.unreadable_share``), and the hybrid's
second ramp on it (issue 37.6): an English model's tokenizer maps Japanese to its unknown token,
so ``hybrid`` gives that member no say on a Japanese question, and keeps most of it on an
English question with one emoji.

Shares are counted here from the tokenizer's own tokens and vocabulary, never written down as numbers.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helpers_app import write_small_project
from helpers_dense import TINY, require_dense, tiny_model  # noqa: F401  (a fixture)
from labeller.config import FusionConfig, load_config
from labeller.core.cache import DigestCache
from labeller.core.project import Project
from labeller.eval.retrievers import make_retriever
from labeller.eval.retrievers.base import Lexical, Tokenized
from labeller.eval.retrievers.dense import DenseRetriever, unreadable_share
from labeller.eval.retrievers.fusion import coverage, ramp

ENGLISH = "How do I reset the password of my account after it expired? \U0001F680"  # one emoji


def dense_project(root: Path, model: Path) -> Project:
    write_small_project(root)
    shutil.copytree(model, root / TINY)
    (root / "labeller.toml").write_text(f'[retriever.dense]\nmodel = "{TINY}"\n', encoding="utf-8")
    config = load_config(root)
    return Project(config, DigestCache(config.layout.cache_dir))


def tokenizer_of(tiny: Path):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(tiny), local_files_only=True)


def unknown_to(tokenizer, text: str) -> str:
    """The characters of ``text`` outside the tokenizer's vocabulary (each tokenized alone is unknown)."""
    return "".join(ch for ch in text if not ch.isspace()
                   and tokenizer(ch, add_special_tokens=False)["input_ids"] == [tokenizer.unk_token_id])


def test_an_english_question_with_one_emoji_has_one_unreadable_character_and_keeps_most_of_its_weight(tiny_model):
    tokenizer = tokenizer_of(tiny_model)
    assert unknown_to(tokenizer, ENGLISH) == "\U0001F680"  # the emoji alone is outside the vocabulary
    chars = sum(not ch.isspace() for ch in ENGLISH)
    share = unreadable_share(tokenizer, ENGLISH)
    assert share == 1 / chars
    assert unreadable_share(tokenizer, ENGLISH[:-2]) == 0.0  # the emoji gone: all of it is read
    assert ramp(share, FusionConfig().unreadable_ramp) > 0.75  # the default ramp leaves it most of its weight


def test_a_word_holding_an_unknown_character_is_unreadable_whole(tiny_model):
    """Read in context, from the offsets: WordPiece maps a word it cannot spell to one unknown
    token, so all of the word counts, not just the character it lacks."""
    tokenizer = tokenizer_of(tiny_model)
    word = "pass\u2603word"  # a snowman inside a word (a symbol, not punctuation: the word stays whole)
    assert unknown_to(tokenizer, word) == "\u2603"
    assert tokenizer.tokenize(word) == [tokenizer.unk_token]
    assert unreadable_share(tokenizer, f"reset my {word}") == len(word) / len(f"resetmy{word}")


def test_a_script_the_vocabulary_lacks_is_unreadable_and_one_it_was_trained_on_is_read():
    """An English vocabulary cannot read Thai; a vocabulary trained on the same Thai and
    Japanese text (a multilingual model) reads all of it: the share is ~0, the rule does not bite."""
    require_dense()
    from tokenizers import BertWordPieceTokenizer
    from transformers import BertTokenizerFast

    thai, japanese = "ภาษาไทย", "東京へ出張するときの宿泊代"
    tokenizers = {}
    for name, texts in (("english", ["the password of the account expired", "reset it"]),
                        ("multilingual", ["the password of the account expired", thai, japanese])):
        trained = BertWordPieceTokenizer(lowercase=True)
        trained.train_from_iterator(texts, vocab_size=200, min_frequency=1,
                                    special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
        tokenizers[name] = BertTokenizerFast(tokenizer_object=trained._tokenizer, unk_token="[UNK]")
    for text in (thai, japanese, f"{japanese} password"):
        cjk = sum(not ch.isspace() and not ch.isascii() for ch in text)
        assert unreadable_share(tokenizers["english"], text) == cjk / sum(not ch.isspace() for ch in text)
        assert unreadable_share(tokenizers["multilingual"], text) == 0.0
    assert ramp(unreadable_share(tokenizers["english"], japanese), FusionConfig().unreadable_ramp) == 0.0


def test_a_tokenizer_without_an_unknown_token_reads_everything():
    """Byte-level BPE (GPT-2, RoBERTa's family) spells any text from bytes: nothing is unreadable."""
    require_dense()
    from tokenizers import ByteLevelBPETokenizer
    from transformers import PreTrainedTokenizerFast

    trained = ByteLevelBPETokenizer()
    trained.train_from_iterator(["reset the password"], vocab_size=300, min_frequency=1)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=trained._tokenizer)
    assert tokenizer.unk_token_id is None
    assert unreadable_share(tokenizer, "東京へ出張 \U0001F680 ภาษาไทย") == 0.0
    assert unreadable_share(tokenizer, "   ") == 0.0


class OneByOne:
    """A tokenizer without character offsets (not ``is_fast``): a known set of characters,
    anything else one unknown token per character."""

    is_fast = False
    unk_token_id = 0

    def __init__(self, known: str) -> None:
        self.known = known

    def __call__(self, text: str, add_special_tokens: bool = True) -> dict:
        return {"input_ids": [1 + self.known.index(ch) if ch in self.known else 0 for ch in text if not ch.isspace()]}


def test_a_tokenizer_without_offsets_is_read_one_character_at_a_time():
    tokenizer = OneByOne("abcdefghijklmnopqrstuvwxyz")
    assert unreadable_share(tokenizer, "reset ☃ now") == 1 / len("reset☃now")
    assert unreadable_share(tokenizer, "reset now") == 0.0


def test_the_real_dense_member_says_what_it_cannot_read_and_hybrid_takes_its_say_away(tmp_path, tiny_model):
    """End to end on the tiny model: the dense retriever is ``Tokenized``, its share is its
    tokenizer's, and ``coverage`` gives it the unreadable ramp's share of its weight."""
    project = dense_project(tmp_path / "p", tiny_model)
    hybrid = make_retriever("hybrid", project)
    (_, bm25, _), (_, dense, w) = hybrid.members
    assert isinstance(dense, DenseRetriever) and isinstance(dense, Tokenized) and not isinstance(dense, Lexical)
    tokenizer = tokenizer_of(tiny_model)
    thai = "ภาษาไทย"
    assert unknown_to(tokenizer, thai) == thai  # the bundled corpus has no Thai
    for query, unreadable in ((ENGLISH, 1 / sum(not ch.isspace() for ch in ENGLISH)), (thai, 1.0),
                              ("reset the password", 0.0)):
        assert dense.unreadable_share(query) == unreadable
        read = [(m, weight, m.retrieve("q", query, 10)) for _, m, weight in hybrid.members]
        held = ramp(bm25.held_share(query, read[0][2][0].chunk_id), hybrid.settings.ramp) if read[0][2] else 1.0
        weights = [wt for wt, _ in coverage(read, query, hybrid.settings)]
        assert weights == [1.0, w * held * ramp(unreadable, hybrid.settings.unreadable_ramp)]
        if unreadable == 1.0:
            assert weights[1] == 0.0
