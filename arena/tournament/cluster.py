"""A warm local Ray cluster: one ``ray start --head`` kept running between tournaments.

Starting Ray costs a run 5–25 s; joining a running cluster costs a second or two. The
cluster runs as one ``ray start --head --block`` process in its own session, with its
own temp dir under the user's state dir (``$XDG_STATE_HOME/arena``, else
``~/.local/state/arena``); a small state file there records its address, its process and
that temp dir. ``--executor ray`` without ``--ray-address`` joins the cluster the state
file names when it is alive (:func:`live_address`). Stopping it ends the processes that
name its temp dir, and no other: never another user's or another ``ray start``'s Ray.

Nothing here imports Ray: reading the state file and checking the cluster is alive are
cheap enough for every tournament that asks for Ray.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from arena.errors import ArenaError

DEFAULT_PORT = 6379
"""Ray's usual head port: what other machines are told to join."""
RAY_WORKER_PORTS = range(10_002, 20_000)
"""Ray's default ports for its workers: the head's port may not be one of them."""
START_TIMEOUT_SECONDS = 300.0
"""How long ``start`` waits for the head to answer: it takes 5–25 s, more on a busy
machine; the bound only ends a start that is stuck."""
STOP_GRACE_SECONDS = 60.0
"""How long the head may drain (Ray allows it 30 s) before its processes are killed."""
SOCKET_PATH_ROOM = 63
"""What Ray appends to its temp dir for its longest socket path
(``/session_<date>_<time>_<pid>/sockets/plasma_store``)."""
UNIX_SOCKET_PATH_MAX = 107
STARTED_LINE = "Ray runtime started."
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


class ClusterError(ArenaError):
    """The warm cluster cannot start, or its state file cannot be read."""


@dataclass(frozen=True)
class WarmCluster:
    """What the state file records of a started cluster."""

    address: str
    """``ip:port`` of the head, as Ray's nodes and drivers reach it."""
    pid: int
    """The ``ray start --head --block`` process: it runs Ray's processes and ends them."""
    temp_dir: str
    """Ray's temp dir for this cluster: every process of the cluster names it."""
    cpus: int
    started: float
    """When it answered, in seconds since the epoch."""
    python: str = ""
    """The interpreter that runs it (``sys.executable`` of ``arena cluster start``): its
    workers play with that installation of arena and Ray."""

    def processes(self) -> list[int]:
        """The live processes of this cluster: those whose command line names its temp
        dir (so a pid reused by another program never counts)."""
        marker = f"--temp-dir={self.temp_dir}".encode()
        session = f"{self.temp_dir}/session_".encode()
        proc = Path("/proc")
        if not proc.is_dir():  # not Linux: the head alone, by its pid
            return [self.pid] if _exists(self.pid) else []
        found = []
        for entry in proc.iterdir():
            if not entry.name.isdigit():
                continue
            try:
                command = (entry / "cmdline").read_bytes()
            except OSError:
                continue  # it ended meanwhile, or is another user's
            if marker in command or session in command:
                found.append(int(entry.name))
        return found

    def alive(self) -> bool:
        """Whether the head process runs and its port answers."""
        return self.pid in self.processes() and port_answers(self.address)

    def uptime(self) -> float:
        return max(0.0, time.time() - self.started)


@dataclass(frozen=True)
class Node:
    """A live node of a cluster, as Ray lists it."""

    ip: str
    node_id: str
    cpus: float


def nodes(address: str) -> list[Node]:
    """The live nodes of the cluster at ``address``, joined as a driver for a moment.

    Raises:
        ExecutionError: the cluster cannot be reached.
        MissingExtraError: Ray (the extra ``ray``) is not installed.
    """
    from arena.tournament.execution import RayExecutor

    executor = RayExecutor(address=address)
    executor.start()
    try:
        import ray

        listed = [node for node in ray.nodes() if node.get("Alive")]  # type: ignore[no-untyped-call]
    finally:
        executor.close()
    return [
        Node(node["NodeManagerAddress"], node["NodeID"], node["Resources"].get("CPU", 0.0))
        for node in listed
    ]


def state_dir() -> Path:
    """Where the arena keeps its state: ``$XDG_STATE_HOME/arena``, else
    ``~/.local/state/arena``."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "arena"


def state_file() -> Path:
    return state_dir() / "cluster.json"


def log_file() -> Path:
    """The output of the head's ``ray start``: where a failed start says why."""
    return state_dir() / "cluster.log"


def read_state() -> WarmCluster | None:
    """The cluster the state file records (alive or not); None without a state file.

    Raises:
        ClusterError: the state file is not one this module wrote.
    """
    path = state_file()
    try:
        data = json.loads(path.read_text())
        return WarmCluster(**data)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError) as exc:
        raise ClusterError(f"cannot read the cluster state file {str(path)!r}: {exc}") from None


def live_cluster() -> WarmCluster | None:
    """The warm local cluster when it runs, else None (no state file, a stale one, or
    one that cannot be read)."""
    try:
        cluster = read_state()
    except ClusterError:
        return None
    return cluster if cluster is not None and cluster.alive() else None


def live_address() -> str | None:
    """The address of the warm local cluster when it runs on this interpreter, else
    None: a tournament then starts its own Ray. A cluster another installation started
    (another checkout or virtual environment) would play with that one's code."""
    cluster = live_cluster()
    return cluster.address if cluster is not None and cluster.python == sys.executable else None


def port_answers(address: str, timeout: float = 5.0) -> bool:
    """Whether something accepts connections at ``host:port``."""
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            return True
    except (OSError, ValueError):
        return False


def free_port() -> int:
    """A port nothing listens on, outside Ray's worker ports."""
    while True:
        with socket.socket() as sock:
            sock.bind(("", 0))
            port = int(sock.getsockname()[1])
        if port not in RAY_WORKER_PORTS:
            return port


def check_port(port: int) -> None:
    """Raises ClusterError when the head cannot listen on ``port``."""
    if not 1024 <= port <= 65535:
        raise ClusterError(f"port {port!r} is not one a user may listen on (1024–65535)")
    if port in RAY_WORKER_PORTS:
        raise ClusterError(
            f"port {port!r} is among Ray's worker ports ({RAY_WORKER_PORTS.start}–"
            f"{RAY_WORKER_PORTS.stop - 1}); choose another, or --port 0 for a free one"
        )
    with socket.socket() as sock:
        # As Ray's server binds: a port whose last connections wait out their close
        # (TIME_WAIT, after a cluster died) is free to it.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("", port))
            sock.listen()
        except OSError as exc:
            raise ClusterError(
                f"port {port!r} is in use ({exc.strerror}); choose another with --port, "
                "or --port 0 for a free one"
            ) from None


def _temp_dir() -> Path:
    # Ray's socket paths under its temp dir must fit the 107 bytes Unix allows.
    preferred = state_dir() / "ray"
    if len(str(preferred)) + SOCKET_PATH_ROOM <= UNIX_SOCKET_PATH_MAX:
        return preferred
    return Path(tempfile.mkdtemp(prefix="arena-ray-"))


def start(*, cpus: int | None = None, port: int = DEFAULT_PORT) -> WarmCluster:
    """Start the head in the background, wait until it answers and record it.

    Raises:
        ClusterError: a warm cluster runs already (see :func:`read_state` first), the
            port is in use, or Ray did not start (the message holds its last words).
        MissingExtraError: Ray (the extra ``ray``) is not installed.
    """
    from arena.optional import require

    require("ray", extra="ray")
    with _locked():
        return _start(cpus=cpus, port=port)


def _start(*, cpus: int | None, port: int) -> WarmCluster:
    previous = read_state()
    if previous is not None and previous.alive():
        raise ClusterError(f"a warm local cluster runs already at {previous.address}")
    if previous is not None:
        _end(previous)  # stale: whatever is left of it
        state_file().unlink(missing_ok=True)
    port = port or free_port()
    check_port(port)
    cpus = cpus or os.cpu_count() or 1
    temp_dir = _temp_dir()
    shutil.rmtree(temp_dir, ignore_errors=True)
    try:
        temp_dir.mkdir(parents=True)
    except OSError as exc:
        raise ClusterError(f"cannot make the cluster's directories: {exc}") from None
    log = log_file()
    command = [
        sys.executable,  # the arena's Python, whichever `ray` is first on the PATH
        "-m",
        "ray.scripts.scripts",
        "start",
        "--head",
        f"--port={port}",
        f"--num-cpus={cpus}",
        f"--temp-dir={temp_dir}",
        "--include-dashboard=false",
        "--disable-usage-stats",
        # Ray's fixed defaults for these would clash with another cluster on this machine.
        f"--ray-client-server-port={free_port()}",
        f"--dashboard-agent-listen-port={free_port()}",
        "--block",
    ]
    with log.open("wb") as output:
        head = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # not ended by the Ctrl-C or the exit of this shell
        )
    cluster = _await_head(head, temp_dir, port, cpus)
    state_file().write_text(json.dumps(asdict(cluster), indent=2) + "\n")
    return cluster


def _await_head(head: subprocess.Popen[bytes], temp_dir: Path, port: int, cpus: int) -> WarmCluster:
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while True:
        said = _ANSI.sub("", _read(log_file()))
        if STARTED_LINE in said:
            found = re.search(r"Local node IP: (\S+)", said)
            address = f"{found.group(1) if found else '127.0.0.1'}:{port}"
            if port_answers(address):
                return WarmCluster(
                    address, head.pid, str(temp_dir), cpus, time.time(), sys.executable
                )
        if head.poll() is not None:
            _end(WarmCluster("", head.pid, str(temp_dir), cpus, 0.0))
            raise ClusterError(f"Ray did not start: {_last_words(said)} (see {log_file()})")
        if time.monotonic() > deadline:
            _end(WarmCluster("", head.pid, str(temp_dir), cpus, 0.0))
            raise ClusterError(
                f"Ray did not answer within {START_TIMEOUT_SECONDS:g} s (see {log_file()})"
            )
        time.sleep(0.2)


def _last_words(output: str) -> str:
    """The line of Ray's output that says why it stopped: its error, else its last."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    errors = [line for line in lines if re.match(r"\w+(Error|Exception)\b", line)]
    return (errors or lines or ["no output"])[-1]


def stop(cluster: WarmCluster) -> None:
    """End the cluster's processes (the head drains first), remove its temp dir and the
    state file."""
    with _locked():
        _end(cluster)
        shutil.rmtree(cluster.temp_dir, ignore_errors=True)
        state_file().unlink(missing_ok=True)


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    """Hold the state dir's lock: two starts at once would share a temp dir (the second
    waits, then finds the first running)."""
    try:
        state_dir().mkdir(parents=True, exist_ok=True)
        lock = (state_dir() / "cluster.lock").open("w")
    except OSError as exc:
        raise ClusterError(f"cannot lock the cluster's state dir: {exc}") from None
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _end(cluster: WarmCluster) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if cluster.pid in cluster.processes():
            os.kill(cluster.pid, signal.SIGTERM)  # the head stops the processes it started
    deadline = time.monotonic() + STOP_GRACE_SECONDS
    while cluster.processes() and time.monotonic() < deadline:
        time.sleep(0.2)
    for pid in cluster.processes():  # the head gave up, or was gone before
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    while cluster.processes() and time.monotonic() < deadline + STOP_GRACE_SECONDS:
        time.sleep(0.2)


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except FileNotFoundError:
        return ""
