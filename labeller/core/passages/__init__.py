"""Placing a pipeline's own text on the corpus (SPEC §10.1): ``PassageLocator`` and its tiers."""

from labeller.core.passages.locator import (LOCATOR_VERSION, MIN_SHARE, TIERS, Passage, PassageLocator,
                                            Placement)

# The tag an import gives a record one of whose contexts was placed by the rendered or the
# aligned tier: its span is right by a rule looser than a quote's, so a person should look
# (the review summary counts these records until they are reviewed).
NEEDS_REVIEW_TAG = "needs-review"

__all__ = ["LOCATOR_VERSION", "MIN_SHARE", "NEEDS_REVIEW_TAG", "TIERS", "Passage", "PassageLocator", "Placement"]
