"""The golden-set core: corpus, chunking, anchors, expansion, hit rules, build.

Nothing under ``labeller.core`` imports Textual; the app and the CLI both call it, so
every rule is implemented exactly once.
"""
