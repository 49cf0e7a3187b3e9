"""``arena serve``, ``arena worker`` and ``arena users add | list | token | remove``."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from arena.cli.common import EXECUTORS, DbOption, database
from arena.cli.console import console, error_console
from arena.errors import ArenaError
from arena.optional import require
from arena.store.location import ENV_VAR, resolve_url

WORKER_STOP_SECONDS = 30.0

users_app = typer.Typer(
    help="Accounts of the web API: each has a token for submitting bots and tournaments.",
    no_args_is_help=True,
)

ExecutorOption = Annotated[
    str | None,
    typer.Option(
        help="run queued tournaments with this executor: "
        + " | ".join(EXECUTORS)
        + " (default: theirs)"
    ),
]


def serve(
    host: Annotated[str, typer.Option(help="the address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="the port to listen on")] = 8000,
    worker: Annotated[
        bool,
        typer.Option(
            help="also start a worker process that runs queued tournaments (and plays "
            "started ladders while none waits)",
        ),
    ] = True,
    executor: ExecutorOption = None,
    allow_weak_sandbox: Annotated[
        bool,
        typer.Option(
            "--allow-weak-sandbox",
            help="accept bot uploads even where the sandbox lacks isolation the docs promise "
            "(local use only)",
        ),
    ] = False,
    settings: Annotated[
        Path | None,
        typer.Option(help="a TOML file of caps and limits for web users (docs/web.md)"),
    ] = None,
    db: DbOption = None,
) -> None:
    """Serve the pages and the JSON API (docs at /api/docs) over the database. It states
    the sandbox's isolation at start, and takes bot uploads only if it is complete."""
    require("fastapi", extra="web")
    require("uvicorn", extra="web")
    import uvicorn

    from arena.web.app import WebSettings, create_app, load_settings

    if not 0 < port < 65536:
        raise ArenaError(f"--port must be between 1 and 65535, not {port}")
    if executor is not None and executor not in EXECUTORS:
        raise ArenaError(f"--executor must be one of {', '.join(EXECUTORS)}, not {executor!r}")
    web_settings = load_settings(settings) if settings is not None else None
    url = resolve_url(db)
    if allow_weak_sandbox:
        web_settings = dataclasses.replace(web_settings or WebSettings(), allow_weak_sandbox=True)
    app = create_app(database(url), settings=web_settings)
    console.print(app.state.arena.sandbox.statement(), markup=False, highlight=False)
    child = _start_worker(url, executor) if worker else None
    try:
        console.print(f"arena: serving http://{host}:{port}/ (API docs at /api/docs)")
        uvicorn.run(app, host=host, port=port, log_level="info", server_header=False)
    finally:
        if child is not None:
            _stop_worker(child)


def _start_worker(url: str, executor: str | None) -> subprocess.Popen[bytes]:
    # The URL goes through the environment, not the command line, which any local
    # user can read (it may hold a password).
    command = [sys.executable, "-m", "arena", "worker"]
    if executor is not None:
        command += ["--executor", executor]
    return subprocess.Popen(command, env={**os.environ, ENV_VAR: url})


def _stop_worker(child: subprocess.Popen[bytes]) -> None:
    """SIGTERM lets the worker requeue a running tournament; then it is killed."""
    if child.poll() is not None:
        return
    child.send_signal(signal.SIGTERM)
    try:
        child.wait(WORKER_STOP_SECONDS)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


def worker(
    poll: Annotated[float, typer.Option(help="seconds between looks at an empty queue")] = 2.0,
    executor: ExecutorOption = None,
    once: Annotated[
        bool, typer.Option("--once", help="stop when the queue is empty instead of waiting")
    ] = False,
    ladders: Annotated[
        bool, typer.Option(help="play started ladders while the queue is empty")
    ] = True,
    db: DbOption = None,
) -> None:
    """Run tournaments queued over the web, one at a time, until stopped; play started
    ladders while the queue is empty.

    SIGTERM or Ctrl-C during a tournament stores what finished and puts it back in the
    queue; the next worker plays the games still missing. During a ladder batch it
    stores the games finished."""
    from arena.web.worker import run_worker

    if not poll > 0:
        raise ArenaError(f"--poll must be positive, not {poll!r}")
    if executor is not None and executor not in EXECUTORS:
        raise ArenaError(f"--executor must be one of {', '.join(EXECUTORS)}, not {executor!r}")
    engine = database(db)
    error_console.print("worker: waiting for queued tournaments")
    ran = run_worker(
        engine,
        poll_seconds=poll,
        executor=executor,
        once=once,
        console=console,
        ladders=ladders,
    )
    error_console.print(f"worker: stopped after {ran} tournament{'s' if ran != 1 else ''}")


@users_app.command("add")
def add_user(
    name: Annotated[str, typer.Argument(help="the account's name")],
    operator: Annotated[
        bool, typer.Option("--operator", help="it may start and stop ladders over the web")
    ] = False,
    db: DbOption = None,
) -> None:
    """Create an account and print its token (shown once; only its hash is stored)."""
    from arena.store.db import session_scope
    from arena.web.accounts import create_account

    engine = database(db)
    with session_scope(engine) as session:
        _, token = create_account(session, name, operator=operator)
    console.print(token, markup=False, highlight=False, soft_wrap=True)
    error_console.print(
        f"account {name!r} created; send the token as 'Authorization: Bearer TOKEN'. "
        "It is not shown again (`arena users token NAME` makes a new one)."
    )


@users_app.command("grant")
def grant(
    name: Annotated[str, typer.Argument(help="the account's name")],
    operator: Annotated[
        bool,
        typer.Option(
            "--operator/--no-operator", help="may start and stop ladders over the web, or not"
        ),
    ],
    db: DbOption = None,
) -> None:
    """Grant an account the operator's right (starting and stopping ladders over the
    web), or withdraw it."""
    from arena.store.db import session_scope
    from arena.web.accounts import set_operator

    with session_scope(database(db)) as session:
        set_operator(session, name, operator)
    console.print(f"account {name!r} {'is' if operator else 'is not'} an operator", markup=False)


@users_app.command("token")
def new_user_token(
    name: Annotated[str, typer.Argument(help="the account's name")],
    db: DbOption = None,
) -> None:
    """Give an account a new token (the old one stops working) and print it."""
    from arena.store.db import session_scope
    from arena.web.accounts import new_token

    engine = database(db)
    with session_scope(engine) as session:
        token = new_token(session, name)
    console.print(token, markup=False, highlight=False, soft_wrap=True)


@users_app.command("remove")
def remove_user(
    name: Annotated[str, typer.Argument(help="the account's name")],
    db: DbOption = None,
) -> None:
    """Remove an account: its token stops working and its browser sessions end at once.
    Its bots, tournaments and games stay, and its name stays taken."""
    from arena.store.db import session_scope
    from arena.web.accounts import remove_account

    with session_scope(database(db)) as session:
        remove_account(session, name)
    console.print(f"account {name!r} removed: its token and sessions work no more", markup=False)


@users_app.command("list")
def list_users(db: DbOption = None) -> None:
    """List the accounts and how many bots and tournaments each owns."""
    from sqlmodel import Session, func, select

    from arena.store.models import BotVersion, Tournament
    from arena.web.accounts import list_accounts

    engine = database(db)
    with Session(engine) as session:
        accounts = list_accounts(session)
        table = Table(title="accounts")
        for column in ("name", "created", "operator", "bot versions", "tournaments", "removed"):
            table.add_column(column)
        for account in accounts:
            bots = session.exec(select(func.count()).where(BotVersion.owner_id == account.id)).one()
            tournaments = session.exec(
                select(func.count()).where(Tournament.owner_id == account.id)
            ).one()
            table.add_row(
                account.name,
                account.created.strftime("%Y-%m-%d %H:%M"),
                "yes" if account.operator else "",
                str(bots),
                str(tournaments),
                account.removed.strftime("%Y-%m-%d %H:%M") if account.removed else "",
            )
    console.print(table if accounts else "no accounts yet (see `arena users add --help`)")
