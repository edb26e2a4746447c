"""One module per ``labeller`` sub-command; each exposes ``register(subparsers)``."""
