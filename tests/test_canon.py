from labeller.core.canon import canonical_quote, canonicalize
from labeller.core.corpus import Corpus, corpus_digest, make_document


def test_canonical_form_rules():
    assert canonicalize("\ufeffa\r\nb\rc") == "a\nb\nc\n"
    assert canonicalize("e\u0301") == "\u00e9\n"  # NFD -> NFC
    assert canonicalize("x\n") == "x\n"
    assert canonicalize("\ufeff\ufeffx") == "\ufeffx\n"  # only one BOM is dropped
    assert canonicalize("a\u2028b") == "a\u2028b\n"  # nothing else is touched


def test_canonicalize_is_idempotent():
    for raw in ["\ufeffa\r\n", "cafe\u0301\r", "", "x"]:
        once = canonicalize(raw)
        assert canonicalize(once) == once


def test_quote_canonicalisation_trims_and_normalises():
    assert canonical_quote("  cafe\u0301\r\n  ") == "caf\u00e9"


def test_corpus_digest_follows_spec():
    import hashlib

    docs = [make_document("b.md", "two"), make_document("a.md", "one")]
    corpus = Corpus.from_documents(docs)
    assert list(corpus.docs) == ["a.md", "b.md"]
    h = hashlib.sha256()
    for d in corpus:
        h.update(d.doc_id.encode() + b"\0" + d.sha256.encode() + b"\0")
    assert corpus.digest == h.hexdigest() == corpus_digest(corpus)
    assert corpus["a.md"].sha256 == hashlib.sha256(b"one\n").hexdigest()
