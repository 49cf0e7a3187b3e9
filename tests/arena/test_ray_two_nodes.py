"""A second Ray node for real: a head and a second node as separate processes, each with
its own temporary directory (its session, logs and sockets), the second one, where the
machine allows it (root, ``ip netns``), in a network namespace of its own, so that it
reaches the head only over its own address, as a second machine would (docs/cluster.md).

A tournament of a submitted Python bot whose file is gone plays on both nodes; killing
the second node mid-run loses no game and stores none twice. Every process a test starts
is stopped when it ends, passed or failed.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import sqlalchemy as sa

from arena.store.db import open_database
from tests.arena.test_ray_cluster import free_port
from tests.waiting import GENEROUS_SECONDS, wait_until

# Starts Ray clusters: one test at a time, and slow.
pytestmark = [
    pytest.mark.xdist_group("ray"),
    pytest.mark.slow,
    pytest.mark.timeout(3 * GENEROUS_SECONDS),
]

RAY = Path(sys.executable).with_name("ray")

SLOW_BOT = '''
import time


class SlowBot:
    """Takes the first legal action, slowly enough for a run to outlast a node's death."""

    name = "slow"
    games = ("koenigsgarten",)

    def act(self, observation, legal_actions, time_left):
        time.sleep(0.02)
        return legal_actions[0]
'''


def ray_env() -> dict[str, str]:
    """The driver's environment: it sets token mode itself (arena.tournament.execution)."""
    return {k: v for k, v in os.environ.items() if k != "RAY_AUTH_MODE"}


JOINING_ENV = {**ray_env(), "RAY_AUTH_MODE": "token"}
"""A joining node's and `ray status`'s: `ray start --head` demands a token (Ray 2.59+),
and they send the one in ~/.ray/auth_token only in token mode (docs/cluster.md)."""


def run(*argv: str) -> None:
    subprocess.run(argv, check=True, capture_output=True, timeout=60)


@dataclass
class Namespace:
    """A network namespace joined to this one by a veth pair: inside it is ``inner_ip``,
    here ``outer_ip``; from inside, only the pair's two addresses are reachable."""

    name: str
    outer_ip: str
    inner_ip: str

    @property
    def outer_link(self) -> str:
        return f"{self.name}o"

    def create(self) -> None:
        inner_link = f"{self.name}i"
        run("ip", "netns", "add", self.name)
        run("ip", "link", "add", self.outer_link, "type", "veth", "peer", "name", inner_link)
        run("ip", "link", "set", inner_link, "netns", self.name)
        run("ip", "addr", "add", f"{self.outer_ip}/24", "dev", self.outer_link)
        run("ip", "link", "set", self.outer_link, "up")
        inside = ("ip", "netns", "exec", self.name)
        run(*inside, "ip", "addr", "add", f"{self.inner_ip}/24", "dev", inner_link)
        run(*inside, "ip", "link", "set", inner_link, "up")
        run(*inside, "ip", "link", "set", "lo", "up")

    def remove(self) -> None:
        for argv in (
            ("ip", "link", "del", self.outer_link),
            ("ip", "netns", "del", self.name),
        ):
            subprocess.run(argv, capture_output=True, timeout=60)


def make_namespace() -> tuple[Namespace | None, str]:
    """A fresh namespace, or None and why this machine allows none."""
    if os.geteuid() != 0:
        return None, "network namespaces need root"
    if shutil.which("ip") is None:
        return None, "no `ip` command (iproute2)"
    tag = secrets.token_hex(3)
    subnet = f"10.{200 + secrets.randbelow(50)}.{secrets.randbelow(250)}"
    namespace = Namespace(f"ar{tag}", f"{subnet}.1", f"{subnet}.2")
    try:
        namespace.create()
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        namespace.remove()
        stderr = exc.stderr.decode(errors="replace").strip() if exc.stderr else ""
        return None, f"cannot make a network namespace: {stderr or exc}"
    return namespace, ""


@dataclass
class RayNode:
    """One ``ray start --block`` and everything it spawned, found by its temp dir."""

    temp_dir: Path
    ip: str
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def node_id(self) -> str | None:
        """The node's id as its raylet logs it; None before the raylet has one."""
        log = self.temp_dir / "session_latest" / "logs" / "raylet.out"
        found = re.search(r"Setting node ID node_id=([0-9a-f]+)", _read(log))
        return found.group(1) if found else None

    def pids(self) -> list[int]:
        """Every live process of this node: each names the node's temp dir."""
        marker = str(self.temp_dir).encode()
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and int(entry.name) != os.getpid():
                try:
                    if marker in (entry / "cmdline").read_bytes():
                        found.append(int(entry.name))
                except OSError:
                    continue  # it ended meanwhile
        return found

    def kill(self) -> None:
        """SIGKILL every process of the node, as a machine that dies: no goodbye."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        for pid in self.pids():  # a process that left the group
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    def stop(self) -> None:
        self.kill()  # a graceful stop costs half a minute and leaves nothing more behind
        self.process.wait(timeout=GENEROUS_SECONDS)
        wait_until(lambda: not self.pids(), what=f"the Ray processes of {self.temp_dir}")


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except FileNotFoundError:
        return ""


@dataclass
class Cluster:
    """A head here and a second node, in its own network namespace when ``namespace``."""

    root: Path
    namespace: Namespace | None
    why_shared: str
    port: int = field(default_factory=free_port)
    nodes: list[RayNode] = field(default_factory=list)

    @property
    def head_ip(self) -> str:
        return self.namespace.outer_ip if self.namespace else "127.0.0.1"

    @property
    def address(self) -> str:
        return f"{self.head_ip}:{self.port}"

    def start_node(self, name: str, ip: str, *args: str, joining: bool) -> RayNode:
        """A head, here, or a node ``joining`` it, in the namespace when there is one."""
        temp_dir = self.root / name
        prefix = ["ip", "netns", "exec", self.namespace.name] if joining and self.namespace else []
        argv = [
            *prefix,
            str(RAY),
            "start",
            "--num-cpus=1",
            f"--node-ip-address={ip}",
            f"--temp-dir={temp_dir}",
            "--disable-usage-stats",
            "--block",
            *args,
        ]
        log = self.root / f"{name}.log"
        with log.open("wb") as output:
            process = subprocess.Popen(
                argv,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=JOINING_ENV if joining else ray_env(),
            )
        node = RayNode(temp_dir, ip, process, log)
        self.nodes.append(node)
        return node

    def start(self) -> tuple[RayNode, RayNode]:
        """Start the head and the second node; returns them once both have joined."""
        head = self.start_node(
            "head",
            self.head_ip,
            "--head",
            f"--port={self.port}",
            "--include-dashboard=false",
            joining=False,
        )
        second_ip = self.namespace.inner_ip if self.namespace else "127.0.0.1"
        second = self.start_node("second", second_ip, f"--address={self.address}", joining=True)
        wait_until(
            lambda: self.joined(head, second),
            what="the head and the second node in `ray status`",
            interval=2,
        )
        return head, second

    def joined(self, *nodes: RayNode) -> bool:
        for node in nodes:
            assert node.process.poll() is None, _read(node.log)[-3000:]
        ids = [node.node_id for node in nodes]
        if None in ids:
            return False
        status = subprocess.run(
            [str(RAY), "status", f"--address={self.address}"],
            capture_output=True,
            text=True,
            timeout=GENEROUS_SECONDS,
            env=JOINING_ENV,
        )
        active = status.stdout.split("Pending:")[0]
        return all(f"node_{node_id}" in active for node_id in ids)

    def stop(self) -> None:
        for node in reversed(self.nodes):
            node.stop()


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    # Short: Ray's socket paths under it must stay within the 107 bytes Unix allows.
    root = Path(tempfile.mkdtemp(prefix="arena-ray-"))
    namespace, why_shared = make_namespace()
    cluster = Cluster(root, namespace, why_shared)
    try:
        yield cluster
    finally:
        try:
            cluster.stop()
        finally:
            if namespace is not None:
                namespace.remove()
            shutil.rmtree(root, ignore_errors=True)


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        capture_output=True,
        text=True,
        timeout=3 * GENEROUS_SECONDS,
        env=ray_env(),
    )


def add_slow_bot(tmp_path: Path, db: str) -> None:
    """Register the slow bot from a file, then delete the file: only the store has it."""
    source = tmp_path / "slow_bot.py"
    source.write_text(textwrap.dedent(SLOW_BOT))
    added = arena("bots", "add", "slow", "-g", "koenigsgarten", "--python", str(source), "--db", db)
    assert added.returncode == 0, added.stderr
    source.unlink()


def tournament(cluster: Cluster, db: str, games: int) -> subprocess.Popen[str]:
    argv = [
        sys.executable,
        "-m",
        "arena",
        "tournament",
        "run",
        "--game",
        "koenigsgarten",
        "-b",
        "slow",
        "-b",
        "random",
        "--games",
        str(games),
        "--executor",
        "ray",
        "--ray-address",
        cluster.address,
        "--db",
        db,
    ]
    return subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ray_env()
    )


def stored_games(db: str) -> list[tuple[int, str, str]]:
    """(index, status, worker) of every stored game."""
    engine = open_database(db, migrate_schema=False)
    try:
        with engine.connect() as connection:
            rows = connection.execute(sa.text('SELECT "index", status, worker FROM game'))
            return [(int(index), str(status), str(worker)) for index, status, worker in rows]
    finally:
        engine.dispose()


def node_of(worker: str) -> tuple[str, str]:
    """(node ip, node id) from a stored worker name, host:pid@ip/id."""
    _, _, node = worker.partition("@")
    ip, _, node_id = node.partition("/")
    assert ip and node_id, f"no Ray node in the worker name {worker!r}"
    return ip, node_id


def finish(run: subprocess.Popen[str]) -> str:
    stdout, stderr = run.communicate(timeout=3 * GENEROUS_SECONDS)
    assert run.returncode == 0, stderr
    return stdout


def assert_reaches_the_head_only_over_its_address(cluster: Cluster) -> None:
    """From the second node's namespace the head's port answers on the head's address,
    and nothing answers on the loopback: it is not this host's."""
    assert cluster.namespace is not None
    probe = textwrap.dedent(
        f"""
        import socket
        socket.create_connection(("{cluster.head_ip}", {cluster.port}), timeout=30).close()
        try:
            socket.create_connection(("127.0.0.1", {cluster.port}), timeout=30).close()
        except OSError:
            pass
        else:
            raise SystemExit("the head's port answers on the namespace's loopback")
        """
    )
    inside = ["ip", "netns", "exec", cluster.namespace.name, sys.executable, "-c", probe]
    reached = subprocess.run(inside, capture_output=True, text=True, timeout=GENEROUS_SECONDS)
    assert reached.returncode == 0, reached.stderr


def test_the_namespace_reaches_this_host_only_over_its_address(cluster: Cluster) -> None:
    """What the two-node tests rely on, without Ray: a port open on every address here
    answers the namespace at the head's address only."""
    if cluster.namespace is None:
        pytest.skip(f"the nodes share this host's network: {cluster.why_shared}")
    with socket.create_server(("0.0.0.0", cluster.port)):  # as Ray's GCS listens
        assert_reaches_the_head_only_over_its_address(cluster)


def test_a_deleted_bot_file_plays_on_both_nodes_and_a_killed_node_loses_no_game(
    cluster: Cluster, tmp_path: Path
) -> None:
    """A submitted bot whose file is gone plays on the head and on a second node in its
    own network namespace; the second node is killed mid-run and the head finishes:
    every game stored once, none forfeited, games from both nodes. (One run for both
    checks: each costs minutes on two cores. SQLite only: the driver alone writes, so
    PostgreSQL adds nothing a storage test does not cover.)"""
    db = str(tmp_path / "arena.db")
    add_slow_bot(tmp_path, db)
    head, second = cluster.start()
    if cluster.namespace is not None:
        assert_reaches_the_head_only_over_its_address(cluster)
    scheduled = 200
    run = tournament(cluster, db, games=scheduled)
    try:

        def played_on_the_second_node() -> bool:
            return any(node_of(worker)[1] == second.node_id for *_, worker in stored_games(db))

        wait_until(played_on_the_second_node, what="a game stored from the second node")
        second.kill()
        at_the_kill = len(stored_games(db))
        assert run.poll() is None and at_the_kill < scheduled, "the run ended before the kill"
        wait_until(lambda: not second.pids(), what="the second node's processes to end")
        stdout = finish(run)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()

    assert f"completed, {scheduled} of {scheduled} games stored" in stdout
    games = stored_games(db)
    assert sorted(index for index, _, _ in games) == list(range(scheduled))
    assert {status for _, status, _ in games} == {"ok"}, "the submitted bot failed to load"
    nodes = {node_of(worker) for _, _, worker in games}
    assert {node_id for _, node_id in nodes} == {head.node_id, second.node_id}
    if cluster.namespace is not None:
        assert {ip for ip, _ in nodes} == {head.ip, second.ip}
