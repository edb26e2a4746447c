"""Placing a pipeline's own text on the corpus (SPEC §10.1): ``PassageLocator`` and its tiers."""

from labeller.core.passages.locator import (LOCATOR_VERSION, MIN_SHARE, TIERS, Passage, PassageLocator,
                                            Placement)
from labeller.core.vocab import NEEDS_REVIEW_TAG

__all__ = ["LOCATOR_VERSION", "MIN_SHARE", "NEEDS_REVIEW_TAG", "TIERS", "Passage", "PassageLocator", "Placement"]
