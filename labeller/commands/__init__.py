"""One module per ``labeller`` sub-command, each exposing ``register(subparsers)`` and listed
by one line in ``labeller.cli.COMMANDS``; the modules without ``register`` are the helpers
they share. No command imports another."""
