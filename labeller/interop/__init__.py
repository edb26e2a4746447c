"""Import and export of golden sets in other tools' formats.

Each format is one module ending with ``FORMAT = Format(...)`` (see ``labeller.interop.format``):
its name, summary, reader and/or exporter and its own options, from which the ``labeller
import`` / ``export`` flags are generated. The rules every format obeys alike live next to
them: ``files`` (reading untrusted files), ``records`` (what a reader returns), ``labels``
(documents, sections and chunk ids as locators), ``qrels`` (relevance judgments), ``plan``
(checking candidates against the corpus) and ``merge`` (into questions.jsonl).

To add a format, copy the module nearest to it and add one line to ``FORMATS`` below; another
package adds one through the ``labeller.formats`` entry-point group.
"""

from __future__ import annotations

from labeller.interop.format import Format
from labeller.registry import Registry

# One line per format, in --help order: its name -> "module:FORMAT", imported when first asked for.
FORMATS: Registry[Format] = Registry(__name__, {
    "jsonl": "jsonl:FORMAT",
    "yaml": "yaml_golden:FORMAT",
    "pages-json": "pages_json:FORMAT",
    "beir": "beir:FORMAT",
    "trec-qrels": "trec:FORMAT",
    "offsets": "offsets:FORMAT",
    "label-studio": "label_studio:FORMAT",
    "doccano": "doccano:FORMAT",
    "prodigy": "prodigy:FORMAT",
    "ragas": "ragas:FORMAT",
    "deepeval": "deepeval:FORMAT",
    "llamaindex": "llamaindex:FORMAT",
}, group="labeller.formats", what="format", named_by="name")


def all_formats() -> dict[str, Format]:
    """Every format by name, imported, in ``FORMATS`` order then installed plugins': import and
    export list them all in ``--help`` and make one flag per option they declare."""
    return {fmt.name: fmt for fmt in FORMATS.implementations()}
