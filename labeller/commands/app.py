"""``labeller app`` (and plain ``labeller``): open the authoring app on a project."""

from __future__ import annotations

import argparse
from pathlib import Path

from labeller.commands.common import add_root_options


def register(sub) -> None:
    p = sub.add_parser("app",
                       description="Open the terminal app on the project in the current folder (or --root): "
                       "write questions, anchor them in the corpus, watch them resolve, save and rebuild.")
    add_root_options(p)
    p.add_argument("--queue", type=Path, metavar="QUEUE",
                   help="the traffic queue to label (`labeller traffic sample --out`): the app opens on it (F10); "
                        "default: golden/traffic-queue.jsonl when the project has one")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # labeller.toml and questions.jsonl are read before the UI starts, so a malformed one is a
    # clean message and exit code 2 on the terminal, not a crash inside the app. The corpus is
    # read by the app while the question list shows; one refused then ends the app, and its
    # refusal is raised here to be reported the same way.
    from labeller.app.app import LabellerApp
    from labeller.app.session.session import AuthoringSession
    from labeller.commands.committed_corpus import last_build

    # the committed build, read through git here (the app never imports a command): where each
    # label stood, so that the app's suggestions are `labeller repair`'s
    session = AuthoringSession.open(args.root, allow_outside=args.allow_outside, last_build_reader=last_build)
    first_mode = None
    if getattr(args, "queue", None) is not None:  # plain `labeller` has no --queue
        from labeller.app.session.traffic_queue import attach_queue

        attach_queue(session, args.queue)
        first_mode = "traffic"  # asked for a queue: it is what the app opens on
    app = LabellerApp(session, first_mode=first_mode)
    app.run()
    if app.refusal is not None:
        raise app.refusal
    return int(app.return_code or 0)
