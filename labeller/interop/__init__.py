"""Import and export of golden sets in other tools' formats.

Each format is one module ending with ``FORMAT = Format(...)`` (see ``labeller.interop.format``):
its name, summary, reader and/or exporter and its own options, from which the ``labeller
import`` / ``export`` flags are generated. The rules every format obeys alike live next to
them: ``files`` (reading untrusted files), ``records`` (what a reader returns), ``labels``
(documents, sections and chunk ids as locators), ``qrels`` (relevance judgments), ``plan``
(checking candidates against the corpus) and ``merge`` (into questions.jsonl).

To add a format, copy the module nearest to it and add one line below.
"""

from __future__ import annotations

from labeller.interop import (beir, deepeval, doccano, jsonl, label_studio, llamaindex, offsets, pages_json, prodigy,
                              ragas, trec, yaml_golden)
from labeller.interop.format import Format, registry

FORMATS: dict[str, Format] = registry(
    jsonl.FORMAT,
    yaml_golden.FORMAT,
    pages_json.FORMAT,
    beir.FORMAT,
    trec.FORMAT,
    offsets.FORMAT,
    label_studio.FORMAT,
    doccano.FORMAT,
    prodigy.FORMAT,
    ragas.FORMAT,
    deepeval.FORMAT,
    llamaindex.FORMAT,
)
