"""How the research environments show a position: the terminal's plain board and the
position string, returned (``ansi``) or printed (``human``)."""

from __future__ import annotations

from typing import Any

from boardlab.core.game import Position
from boardlab.core.i18n import _
from boardlab.extras import import_extra

RENDER_MODES = ("ansi", "human")


def check_render_mode(render_mode: str | None) -> None:
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(
            _("unknown render_mode {mode!r}: expected one of {choices} or None").format(
                mode=render_mode, choices=", ".join(RENDER_MODES)
            )
        )


def render(position: Position[Any], render_mode: str | None) -> str | None:
    if render_mode is None:
        gymnasium = import_extra("gymnasium", "boardlab.rl")
        gymnasium.logger.warn("render() was called without a render_mode: nothing to show")
        return None
    text = f"{position.game.render(position.state)}\n{position.position_string()}"
    if render_mode == "ansi":
        return text
    print(text)
    return None
