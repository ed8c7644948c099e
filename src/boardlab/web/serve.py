"""``boardlab serve``: the web app on uvicorn, with the address printed first."""

from __future__ import annotations

import errno
import os
import socket

from boardlab.core.errors import BoardlabError
from boardlab.core.i18n import _


def serve(host: str, port: int, db: str | None, ai_workers: int, workers: int = 1) -> int:
    """Serve the web app on ``host:port`` in ``workers`` processes that share the
    listening socket and the database (PostgreSQL when more than one: they tell each
    other of every change), the AI searching in ``ai_workers`` processes beside each."""
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    from boardlab.web.store import Store, default_url, safe_url

    url = db or default_url()
    store = Store(url)  # a database that cannot be opened is said now, in one line
    store.engine.dispose()
    if workers > 1 and not store.announces:
        raise BoardlabError(
            _(
                "--workers {workers} needs PostgreSQL (--db postgresql+psycopg://...): "
                "processes on SQLite would not learn of each other's moves"
            ).format(workers=workers)
        )
    listener = bind(host, port)
    os.environ["BOARDLAB_DB"] = url  # for the processes of the app (and only them)
    os.environ["BOARDLAB_AI_WORKERS"] = str(ai_workers)
    shown = f"[{host}]" if ":" in host else host
    address = f"http://{shown}:{listener.getsockname()[1]}/"
    print(_("boardlab: playing at {address}").format(address=address), flush=True)
    print(
        _("  games are kept in {url}; Ctrl-C stops the server").format(url=safe_url(url)),
        flush=True,
    )
    config = uvicorn.Config(
        "boardlab.web.app:app_from_environment",
        factory=True,
        workers=workers,
        log_level="warning",
        ws_max_size=1 << 16,
    )
    if workers > 1:
        Multiprocess(config, sockets=[listener]).run()
    else:
        uvicorn.Server(config).run(sockets=[listener])
    return 0


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, or a clear error when the port is taken or the host is not
    an address of this machine."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as error:
        listener.close()
        if error.errno == errno.EADDRINUSE:
            raise BoardlabError(
                _(
                    "port {port} on {host} is in use: stop what uses it or choose another "
                    "with --port"
                ).format(port=port, host=host)
            ) from None
        raise BoardlabError(
            _("cannot listen on {host!r} port {port}: {why}").format(
                host=host, port=port, why=error.strerror
            )
        ) from None
    listener.listen(128)
    listener.set_inheritable(True)
    return listener
