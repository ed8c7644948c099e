"""The one boundary between boardlab and its optional dependencies.

The core needs platformdirs and Rich only. The extras add the rest:

* ``fast`` (numba, numpy): the compiled kernels, the compiled MCTS and alpha-beta, the
  compiled perft and the solvers (``boardlab.fast``, ``boardlab.solve`` and the games'
  ``kernel`` modules, which import numba at their top);
* ``openspiel`` (open-spiel): ``boardlab.rl.openspiel``;
* ``play`` (Rich, now a plain dependency; the extra stays for old install commands);
* ``ray`` (Ray): ``--backend ray`` for matches, tournaments and studies;
* ``study`` (matplotlib): the plots of ``boardlab study``'s report;
* ``rl`` (PettingZoo, Gymnasium, numpy, numba): ``boardlab.rl.pettingzoo``,
  ``boardlab.rl.gymnasium`` and the batched environment;
* ``web`` (FastAPI, uvicorn, SQLAlchemy, Alembic, Jinja2): ``boardlab.web``, the
  browser app of ``boardlab serve``.

Code that a light install (``pip install boardlab``) can reach enters those modules only
through this one: ``has`` to choose a path (a Python agent when numba is absent),
``require`` before importing a module built on an extra, ``import_extra`` to import
one. What is missing becomes a ``MissingExtraError``: a ``BoardlabError``, so the
command line shows it as one line, and an ``ImportError``, so ``except ImportError``
still sees it.

>>> from boardlab.extras import MissingExtraError, has
>>> has("fast") in (True, False)
True
>>> print(MissingExtraError("agent 'mcts' with tree=compiled", "fast"))
agent 'mcts' with tree=compiled needs numba: pip install 'boardlab[fast]'
"""

from __future__ import annotations

import importlib
from importlib.util import find_spec
from types import ModuleType

from boardlab.core.errors import BoardlabError
from boardlab.core.i18n import N_, _

#: The modules each extra installs, as imported (numba brings llvmlite with it).
EXTRAS: dict[str, tuple[str, ...]] = {
    "fast": ("numba", "numpy"),
    "openspiel": ("pyspiel",),
    "play": ("rich",),
    "ray": ("ray",),
    "rl": ("pettingzoo", "gymnasium"),
    "study": ("matplotlib",),
    "web": (
        "fastapi",
        "uvicorn",
        "sqlalchemy",
        "alembic",
        "jinja2",
        "python_multipart",
        "babel",
        "orjson",
    ),
}
#: The extra that installs a module (its top-level name).
EXTRA_OF: dict[str, str] = {
    **{module: extra for extra, modules in EXTRAS.items() for module in modules},
    "llvmlite": "fast",
    "open_spiel": "openspiel",
}
#: How a message names what an extra brings (words marked with ``N_``, shown with ``_``).
NAMES: dict[str, str] = {
    "fast": "numba",
    "openspiel": "OpenSpiel",
    "play": "Rich",
    "ray": "Ray",
    "rl": N_("PettingZoo and Gymnasium"),
    "study": "matplotlib",
    "web": N_("the web app's libraries (FastAPI, SQLAlchemy, ...)"),
}


class MissingExtraError(BoardlabError, ImportError):
    """Something needs an optional dependency that is not installed; the message says
    what needs it and the ``pip install`` command of the extra that brings it.
    ``needed_by`` and ``what`` are shown as they are given: a caller passes them in the
    current language (``_("the solvers")``), each able to stand as a sentence's subject
    or object (``boardlab play``, ``the solvers``)."""

    def __init__(self, needed_by: str, extra: str, what: str | None = None) -> None:
        self.needed_by = needed_by
        self.extra = extra
        self.what = what
        needs = what or _(NAMES[extra])
        super().__init__(
            _("{needed_by} needs {needs}: pip install 'boardlab[{extra}]'").format(
                needed_by=needed_by, needs=needs, extra=extra
            )
        )

    def __reduce__(self) -> tuple[type[MissingExtraError], tuple[str, str, str | None]]:
        return type(self), (self.needed_by, self.extra, self.what)


def missing(extra: str) -> str | None:
    """The first module of ``extra`` that is not installed, or None. Cheap: nothing is
    imported."""
    for module in EXTRAS[extra]:
        try:
            if find_spec(module) is None:
                return module
        except (ImportError, ValueError):  # a broken or half-imported module
            return module
    return None


def has(extra: str) -> bool:
    """Whether ``extra`` (``fast``, ``openspiel``, ``play``) is installed."""
    return missing(extra) is None


def require(extra: str, needed_by: str, what: str | None = None) -> None:
    """Raise ``MissingExtraError`` unless ``extra`` is installed. ``needed_by`` names what
    needs it (``"boardlab play"``), ``what`` what it needs if not the extra's
    main module (``"the solvers"`` rather than ``"numba"``)."""
    if not has(extra):
        raise MissingExtraError(needed_by, extra, what)


def import_extra(module: str, needed_by: str, what: str | None = None) -> ModuleType:
    """Import ``module``: an optional dependency (``pyspiel``) or a boardlab module built
    on one (``boardlab.fast.perft``). A missing optional dependency becomes
    ``MissingExtraError``; any other import error goes through as it is."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        if isinstance(error, MissingExtraError):
            raise
        top = (error.name or "").partition(".")[0]
        extra = EXTRA_OF.get(top)
        if extra is None:
            raise
        raise MissingExtraError(needed_by, extra, what) from error


__all__ = ["EXTRAS", "MissingExtraError", "has", "import_extra", "missing", "require"]
