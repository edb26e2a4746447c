"""The user's own files for the app: the keymap (``keymap.toml``) and the remembered
choices (``settings.json``), both under ``$XDG_CONFIG_HOME/labeller/``.

User-level, not in the project, because keys and looks belong to the person at the
keyboard, not to the golden set (Posting and Harlequin keep theirs the same way). The
keymap maps a binding's id (F1 lists them) to its keys; an id the app does not have is
refused with the file's name, so a typo never silently leaves a key unbound. The
settings are preferences only: an unreadable file is reported and the defaults are used,
and every write is atomic.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from labeller.app.widths import PANE_CHOICES, SIDE_PANE
from labeller.display import json_dumps
from labeller.errors import InvalidInput
from labeller.io import atomic_write_text, open_untrusted, parse_json, read_open

KEYMAP_FILE = "keymap.toml"
SETTINGS_FILE = "settings.json"
MAX_USER_FILE_BYTES = 64 * 1024
# the one global corpus-pane setting before it was kept per width class (read, never written)
OLD_TREE_CHOICES = ("auto", "shown", "hidden")


def config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "labeller"


def _read_text(path: Path, what: str) -> str | None:
    """The file's text, None when it does not exist; regular, bounded, UTF-8. Opened by
    ``open_untrusted`` (a FIFO named keymap.toml must not hang the app's start), following
    a symlink: these are the user's own files, which dotfile managers link into place."""
    try:
        with open_untrusted(path, max_bytes=MAX_USER_FILE_BYTES, what=f"the {what}", follow=True) as (fd, _):
            raw = read_open(fd, path, max_bytes=MAX_USER_FILE_BYTES, what=f"the {what}")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InvalidInput(f"cannot read the {what}: {exc.strerror}", path=str(path)) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"the {what} is not valid UTF-8 at byte {exc.start}", path=str(path)) from None


def load_keymap(known_ids: Callable[[], set[str]], path: Path | None = None) -> dict[str, str]:
    """``[keymap]`` of keymap.toml: binding id -> keys (``"ctrl+w"``, ``"f9,ctrl+o"``).

    ``known_ids`` is asked only when the file exists (listing every binding imports every
    screen, which a start without a keymap file need not wait for). Refuses (``InvalidInput``, exit 2) an unknown id, a value that is not a non-empty
    string, any other top-level key, and a file TOML cannot read."""
    path = path or config_dir() / KEYMAP_FILE
    text = _read_text(path, "keymap file")
    if text is None:
        return {}
    import tomllib  # only with a keymap file: most starts have none

    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise InvalidInput(f"cannot parse the keymap file: {exc}", path=str(path)) from None
    extra = sorted(set(data) - {"keymap"})
    if extra:
        raise InvalidInput(f"unknown key(s) {', '.join(extra)}: the file holds one [keymap] table", path=str(path))
    table = data.get("keymap", {})
    if not isinstance(table, dict):
        raise InvalidInput("[keymap] must be a table of binding id = \"keys\"", path=str(path))
    known = known_ids()
    unknown = sorted(set(table) - known)
    if unknown:
        raise InvalidInput(f"[keymap] unknown binding id(s): {', '.join(unknown)} (F1 lists each key's id; "
                           f"known: {', '.join(sorted(known))})", path=str(path))
    for binding_id, keys in table.items():
        if not isinstance(keys, str) or not keys.strip() or any(not k.strip() for k in keys.split(",")):
            raise InvalidInput(f"[keymap] {binding_id}: keys must be a string such as \"ctrl+w\" or \"f9,ctrl+o\"",
                               path=str(path))
    return {binding_id: keys.replace(" ", "") for binding_id, keys in sorted(table.items())}


@dataclass(frozen=True)
class Settings:
    theme: str | None = None  # a Textual theme name; None = Textual's default
    # the corpus pane per width class (``app.widths``): class -> shown / hidden; absent = the default
    panes: Mapping[str, str] = field(default_factory=dict)


def load_settings(path: Path | None = None) -> tuple[Settings, str | None]:
    """The remembered settings and, when the file was unusable, why (defaults are used then)."""
    path = path or config_dir() / SETTINGS_FILE
    try:
        text = _read_text(path, "settings file")
        if text is None:
            return Settings(), None
        data = parse_json(text, str(path))
    except InvalidInput as exc:
        return Settings(), f"{exc}; using the default settings"
    if not isinstance(data, dict):
        return Settings(), f"{path}: not a JSON object; using the default settings"
    theme = data.get("theme")
    panes = data["panes"] if "panes" in data else _migrated_panes(data.get("tree", "auto"))
    if (theme is not None and not isinstance(theme, str)) or not isinstance(panes, dict) or not all(
            k in SIDE_PANE and v in PANE_CHOICES for k, v in panes.items()):
        return Settings(), (f"{path}: theme must be a name, panes a table of {', '.join(SIDE_PANE)} -> "
                            f"{' or '.join(PANE_CHOICES)}; using the defaults")
    return Settings(theme=theme, panes=dict(sorted(panes.items()))), None


def _migrated_panes(tree) -> dict[str, str] | None:
    """The old global ``tree`` setting as a per-class choice. The pane's default already
    depended on the width (shown from 120 columns), so a choice tells where it was made:
    ``shown`` overrode a hidden default, on a medium terminal; ``hidden`` a shown one, on a
    wide terminal. Only that class keeps the choice; the next save drops ``tree``."""
    if tree not in OLD_TREE_CHOICES:
        return None
    return {"shown": {"medium": "shown"}, "hidden": {"wide": "hidden"}}.get(tree, {})


def save_settings(settings: Settings, path: Path | None = None) -> None:
    path = path or config_dir() / SETTINGS_FILE
    atomic_write_text(path, json_dumps(asdict(settings), sort_keys=True, indent=2) + "\n")
