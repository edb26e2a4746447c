"""``presidio``: person names by Microsoft Presidio's analyzer (``presidio-analyzer``).

Presidio finds names with a spaCy model's named-entity recogniser. Neither is a dependency
of labeller: the two are some 250 MB, and spaCy's models are not published as ordinary
packages by their authors. Install both into labeller's environment:

    pip install presidio-analyzer   # and a spaCy English pipeline as a package, e.g. en_core_web_sm

Left to itself, Presidio downloads ``en_core_web_lg`` the first time it runs; labeller never
downloads at run time, so the model is named (``presidio:model=NAME``, default
``en_core_web_sm``) and must already be installed: the run stops with exit 2 before reading
a line if it is not, saying what to install.

Parameters: ``model`` (an installed spaCy pipeline package), ``language`` (its language
code, default ``en``), ``score`` (Presidio's confidence a span must reach, default 0.5).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from labeller.errors import InvalidInput

INSTALL = "pip install presidio-analyzer, and a spaCy pipeline as a package (e.g. en_core_web_sm)"


class PresidioNames:
    """Spans Presidio's analyzer labels ``PERSON`` at or above ``score``."""

    name: ClassVar[str] = "presidio"
    parameters: ClassVar[tuple[str, ...]] = ("model", "language", "score")

    def __init__(self, analyzer: Any, language: str, score: float) -> None:
        self.analyzer, self.language, self.score = analyzer, language, score

    @classmethod
    def from_spec(cls, params: Mapping[str, str], root: Path) -> PresidioNames:
        model, language = params.get("model", "en_core_web_sm"), params.get("language", "en")
        try:
            score = float(params.get("score", "0.5"))
        except ValueError:
            score = math.nan
        if not 0.0 <= score <= 1.0:
            raise InvalidInput(f"person-name detector 'presidio': score must be a number from 0 to 1, got "
                               f"{params['score']!r}")
        try:
            from presidio_analyzer import AnalyzerEngine
            from presidio_analyzer.nlp_engine import NlpEngineProvider
            import spacy.util
        except ImportError as exc:
            raise InvalidInput(f"person-name detector 'presidio' needs presidio-analyzer installed ({exc.name} is "
                               f"not): {INSTALL}") from None
        if not spacy.util.is_package(model):  # else Presidio would download one: never at run time
            raise InvalidInput(f"person-name detector 'presidio': the spaCy model {model!r} is not installed, and "
                               f"labeller never downloads one: pip install it as a package, or name an installed "
                               f"one (presidio:model=NAME)")
        engine = NlpEngineProvider(nlp_configuration={
            "nlp_engine_name": "spacy", "models": [{"lang_code": language, "model_name": model}]}).create_engine()
        return cls(AnalyzerEngine(nlp_engine=engine, supported_languages=[language]), language, score)

    def find(self, text: str) -> list[tuple[int, int]]:
        found = self.analyzer.analyze(text=text, entities=["PERSON"], language=self.language,
                                      score_threshold=self.score)
        return [(r.start, r.end) for r in found if r.entity_type == "PERSON"]
