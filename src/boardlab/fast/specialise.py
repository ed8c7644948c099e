"""Compiled searches that numba can cache, for any game's kernel.

A search is written once as a template whose first parameters are kernel functions
(``legal``, ``apply``...). Numba compiles such a function for each kernel passed in, but
cannot cache it on disk (the kernel functions are run-time values), so every process
would compile the search again: seconds before the first move. ``specialised`` writes,
once per template and kernel, a small module in the user's cache folder in which the
template's body calls the kernel's functions as globals, compiled with ``cache=True``:
the first process compiles and stores it, every later one loads it at once.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import inspect
import os
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import numba

_LOADED: dict[tuple[Any, ...], Any] = {}
#: Held while a template is bound and loaded: a server's worker prepares the levels in
#: a thread beside the searches it serves, which may ask for the same one.
_BINDING = threading.Lock()


def cache_dir() -> Path:
    """Where the generated modules (and numba's cache of them) live:
    ``$BOARDLAB_COMPILED``, else the user's cache folder."""
    chosen = os.environ.get("BOARDLAB_COMPILED")
    if chosen:
        return Path(chosen)
    from platformdirs import user_cache_path

    return user_cache_path("boardlab") / "compiled"


def specialised(
    template: Any,
    kernel: str,
    names: tuple[str, ...],
    parallel: bool = False,
    inline: bool = False,
    helpers: tuple[Any, ...] = (),
    defaults: tuple[tuple[str, Any], ...] = (),
) -> Any:
    """``template`` (a compiled function whose first parameters are ``names``) with the
    functions of the same names from the module ``kernel`` bound in, as a function of the
    remaining parameters, compiled and cached on disk. ``defaults`` (name, compiled
    function) stand in for functions a kernel may leave out.

    ``helpers`` are templates of the same form that ``template`` calls (passing ``names``
    on), bound to the kernel in the same module and compiled without ``parallel``. With
    ``inline`` the kernel's functions are compiled into the bodies that call them
    (numba's ``inline="always"``): worth it in a loop over many cheap calls, at the
    price of a longer first compile. A parallel template must then call them through a
    helper: numba mixes up the variables of functions inlined into a ``prange`` loop."""
    function = getattr(template, "py_func", template)
    key = (
        function.__module__,
        function.__qualname__,
        kernel,
        names,
        parallel,
        inline,
        helpers,
        defaults,
    )
    if key in _LOADED:
        return _LOADED[key]
    with _BINDING:
        if key not in _LOADED:
            _LOADED[key] = _bind(function, kernel, names, parallel, inline, helpers, defaults)
    return _LOADED[key]


def _bind(
    function: Any,
    kernel: str,
    names: tuple[str, ...],
    parallel: bool,
    inline: bool,
    helpers: tuple[Any, ...],
    defaults: tuple[tuple[str, Any], ...],
) -> Any:
    module = importlib.import_module(kernel)
    standing_in = {name: f for name, f in defaults if not hasattr(module, name)}
    if getattr(numba.config, "DISABLE_JIT", False):
        bound = [standing_in.get(name) or getattr(module, name) for name in names]
        return lambda *rest: function(*bound, *rest)  # plain Python
    plain = [getattr(helper, "py_func", helper) for helper in helpers]
    generated = _generated(function, plain, kernel, names, parallel, inline, standing_in)
    return getattr(generated, function.__name__)


def _bound(function: Any, names: tuple[str, ...], helpers: set[str]) -> ast.FunctionDef:
    """The definition of ``function`` without its first parameters ``names`` (the kernel's
    functions, globals of the generated module), and without them in its calls to
    ``helpers``."""
    definition = ast.parse(textwrap.dedent(inspect.getsource(function))).body[0]
    assert isinstance(definition, ast.FunctionDef)
    given = [arg.arg for arg in definition.args.args[: len(names)]]
    if given != list(names):
        raise ValueError(f"{function.__qualname__} does not start with parameters {names}")
    definition.args.args = definition.args.args[len(names) :]
    definition.decorator_list = []
    definition.returns = None
    for arg in definition.args.args:
        arg.annotation = None
    for call in ast.walk(definition):
        if isinstance(call, ast.Call) and getattr(call.func, "id", None) in helpers:
            passed = [getattr(arg, "id", None) for arg in call.args[: len(names)]]
            if passed != list(names):
                raise ValueError(f"{function.__qualname__} does not pass {names} first")
            call.args = call.args[len(names) :]
    return definition


def _generated(
    function: Any,
    helpers: list[Any],
    kernel: str,
    names: tuple[str, ...],
    parallel: bool,
    inline: bool,
    standing_in: dict[str, Any],
) -> Any:
    template_module = function.__module__
    own = [name for name in names if name not in standing_in]
    defined = {helper.__name__ for helper in helpers}
    used = sorted(
        {
            name
            for part in [function, *helpers]
            for name in part.__code__.co_names
            if name not in names and name not in defined and hasattr(inspect.getmodule(part), name)
        }
    )
    variant = [*(["parallel"] if parallel else []), *(["inline"] if inline else [])]
    variant += [f"with {helper.__name__}" for helper in helpers]
    head = (
        f'"""{function.__qualname__} of {template_module} over {kernel}'
        f"{' (' + ', '.join(variant) + ')' if variant else ''}: generated by"
    )
    source = "\n".join(
        [
            head,
            'boardlab.fast.specialise, do not edit."""',
            "from numba import njit",
            *(
                [f"import {kernel} as kernel", ""]
                + [f'{name} = njit(inline="always")(kernel.{name}.py_func)' for name in own]
                if inline
                else [f"from {kernel} import {', '.join(own)}"]
            ),
            *(
                f"from {f.__module__} import {f.__name__} as {name}"
                for name, f in standing_in.items()
            ),
            *([f"from {template_module} import {', '.join(used)}"] if used else []),
            *(
                f"\n\n@njit(cache=True)\n{ast.unparse(_bound(helper, names, defined))}"
                for helper in helpers
            ),
            "",
            "",
            f"@njit(cache=True{', parallel=True' if parallel else ''})",
            ast.unparse(_bound(function, names, defined)),
            "",
        ]
    )
    # Numba's cache of the generated function notices changes to its own file only, yet
    # it holds the kernel's code too: the name carries the sources it is compiled from.
    digest = hashlib.sha256(source.encode() + _sources(kernel, template_module)).hexdigest()[:12]
    name = f"_{template_module.replace('.', '_')}_{function.__name__}_{digest}"
    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.py"
    if not path.exists():  # the same source keeps its file, so numba's cache stays valid
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(source, encoding="utf-8")
        temporary.replace(path)
        _prune(path, head)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # numba finds a cached function's globals by its module
    spec.loader.exec_module(module)
    return module


def _prune(path: Path, head: str) -> None:
    """Delete the modules ``path`` supersedes, with numba's cache of them: those of the
    same template, kernel and variant (the same first line) compiled from sources that
    have since changed. Without it the folder grows by a module at every edit."""
    prefix = path.stem[: path.stem.rindex("_") + 1]
    for other in path.parent.glob(f"{prefix}*.py"):
        if other == path:
            continue
        try:
            with other.open(encoding="utf-8") as handle:
                if handle.readline().rstrip("\n") != head:
                    continue
            other.unlink()
        except OSError:  # another process pruned it first
            continue
        for cached in (path.parent / "__pycache__").glob(f"{other.stem}.*"):
            cached.unlink(missing_ok=True)


def _sources(*modules: str) -> bytes:
    """The text of every Python file in the packages of ``modules``."""
    folders = {Path(inspect.getfile(importlib.import_module(name))).parent for name in modules}
    return b"".join(
        path.read_bytes() for folder in sorted(folders) for path in sorted(folder.glob("*.py"))
    )
