"""``boardlab serve``: the web app on uvicorn, with the address printed first."""

from __future__ import annotations

import errno
import socket

from boardlab.core.errors import BoardlabError
from boardlab.core.i18n import _


def serve(host: str, port: int, db: str | None, workers: int) -> int:
    import uvicorn

    from boardlab.web.app import create_app
    from boardlab.web.store import default_url, safe_url

    listener = bind(host, port)
    url = db or default_url()
    app = create_app(url, workers)
    shown = f"[{host}]" if ":" in host else host
    address = f"http://{shown}:{listener.getsockname()[1]}/"
    print(_("boardlab: playing at {address}").format(address=address), flush=True)
    print(
        _("  games are kept in {url}; Ctrl-C stops the server").format(url=safe_url(url)),
        flush=True,
    )
    config = uvicorn.Config(app, log_level="warning", ws_max_size=1 << 16)
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
