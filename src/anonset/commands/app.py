"""``anonset app``: the local web workbench — open a table, edit the proposed configuration, run, report, release."""

from __future__ import annotations

import socket
from pathlib import Path

import click

from anonset.commands import user_errors
from anonset.errors import ConfigError

__all__ = ["app"]


@click.command()
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option("--port", type=int, default=0, show_default=True, help="The port to serve on (0: a free one).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to bind; anything but the loopback interface exposes the page (and your data) to"
                   " every machine that can reach this one.")
@click.option("--no-browser", is_flag=True, help="Print the URL only; do not open a browser.")
@user_errors
def app(path: Path | None, port: int, host: str, no_browser: bool) -> None:
    """Serve the workbench for the tables under PATH's folder (PATH: a table or a folder; default: here).

    It prints its URL with a token; every request without the token is
    refused, and files are read and written only under that folder (see
    docs/app.md).  Stop it with Ctrl-C.

    \b
    Example:
      anonset app patients.csv            # opens http://127.0.0.1:PORT/?token=... in a browser
    """
    import uvicorn

    from anonset.app.server import workbench

    target = (path or Path.cwd()).resolve()
    if not target.exists():
        raise ConfigError(f"{target}: no such file or folder; give a table or the folder of your tables")
    root = target if target.is_dir() else target.parent
    if port == 0:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.bind((host, 0))
            port = int(probe.getsockname()[1])
    guard = workbench(root, host, port)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/?token={guard.token}"
    click.echo(f"anonset workbench for {root}: {url}")
    if host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(f"warning: bound to {host}, not the loopback interface: anyone who can reach it and has the URL"
                   " can read your tables", err=True)
    if not no_browser:
        import webbrowser

        webbrowser.open(url)
    uvicorn.run(guard, host=host, port=port, log_level="warning")
