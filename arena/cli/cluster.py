"""``arena cluster start|stop|status``: a local Ray cluster kept warm between runs, which
``--executor ray`` joins instead of starting Ray each time (docs/cluster.md)."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.console import console

app = typer.Typer(help="Keep a local Ray cluster warm for `--executor ray`: start, stop, status.")

EXIT_NOT_RUNNING = 1


@app.command("start")
def start(
    cpus: Annotated[
        int | None, typer.Option(min=1, help="CPUs the cluster plays on (default: all)")
    ] = None,
    port: Annotated[
        int, typer.Option(help="the head's port, which other machines join; 0 for a free one")
    ] = 6379,
) -> None:
    """Start a local Ray head in the background; wait until it answers.

    Tournaments with `--executor ray` (and no --ray-address) then join it. Starting it
    when it runs says so."""
    from arena.tournament import cluster

    running = cluster.read_state()
    if running is not None and running.alive():
        _say(f"the warm local cluster runs already at {running.address}")
        return
    if running is not None:
        _say(f"replacing the stale state of the cluster that ran at {running.address}")
    started = cluster.start(cpus=cpus, port=port)
    _say(
        f"started the warm local cluster at {started.address} ({started.cpus} CPUs, "
        f"pid {started.pid}, state in {cluster.state_file()})"
    )
    _say(
        "use it: arena tournament run … --executor ray (it joins this cluster); "
        f"other machines join with: RAY_AUTH_MODE=token ray start --address={started.address}"
    )


@app.command("stop")
def stop() -> None:
    """Stop the warm local cluster.

    Ends its processes (only those naming its temp dir), removes its temp dir and its
    state file."""
    from arena.tournament import cluster

    running = cluster.read_state()
    if running is None:
        _say("no warm local cluster runs")
        return
    if not running.alive():
        _say(f"the warm local cluster at {running.address} was gone already")
    cluster.stop(running)
    _say(f"stopped the warm local cluster at {running.address}")


@app.command("status")
def status(
    address: Annotated[
        str | None, typer.Option(help="a cluster's HOST:PORT (default: the warm local one)")
    ] = None,
) -> None:
    """Whether the cluster runs (exit code 0) or not (1).

    Prints its address, nodes and CPUs, and how long the warm local one is up."""
    from arena.tournament import cluster

    if address is None:
        running = cluster.read_state()
        if running is None:
            _say("not running: no warm local cluster (arena cluster start starts one)")
            raise typer.Exit(EXIT_NOT_RUNNING)
        if not running.alive():
            _say(
                f"not running: the warm local cluster at {running.address} is gone (pid "
                f"{running.pid}); its state file {cluster.state_file()} is stale, and "
                "`arena cluster start` replaces it"
            )
            raise typer.Exit(EXIT_NOT_RUNNING)
        address = running.address
        _say(
            f"running: the warm local cluster at {address}, up {_duration(running.uptime())} "
            f"(pid {running.pid}, {running.python or 'Python unknown'})"
        )
    elif cluster.port_answers(address):
        _say(f"running: the Ray cluster at {address}")
    else:
        _say(f"not running: nothing answers at {address}")
        raise typer.Exit(EXIT_NOT_RUNNING)
    nodes = cluster.nodes(address)
    _say(f"nodes: {len(nodes)}, CPUs: {sum(node.cpus for node in nodes):g}")
    for node in nodes:
        _say(f"  {node.ip}  {node.node_id}  {node.cpus:g} CPUs")


def _say(line: str) -> None:
    console.print(line, markup=False, soft_wrap=True)


def _duration(seconds: float) -> str:
    minutes, seconds = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min {seconds} s" if minutes else f"{seconds} s"
