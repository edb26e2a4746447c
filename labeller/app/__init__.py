"""The Textual authoring app (``labeller`` / ``labeller app``).

``app.py`` is the shell, ``screens/`` the modes and dialogs, ``widgets/`` the pieces that
show things and post messages, ``session/`` the plain model they all read, ``journal.py``
the autosave that keeps unsaved work, and ``labeller.tcss`` the stylesheet of the first
screen, the dialogs and focus (each other screen reads its own ``screens/*.tcss``).
"""
