"""labeller: author and keep golden sets for retrieval evaluation over Markdown corpora."""

__version__ = "0.1.0"
