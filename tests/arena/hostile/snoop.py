import json
import os
import resource
import socket
import sys


def cgroup_lines():
    with open("/proc/self/cgroup") as file:
        return file.read().splitlines()


class Snoop:
    """Reports what it can see of the sandbox on stderr, then plays the first action."""

    def act(self, observation, legal_actions, time_left):
        try:
            socket.create_connection(("1.1.1.1", 53), timeout=0.5).close()
            network = "connected"
        except OSError as exc:
            network = type(exc).__name__
        limits = {
            name: resource.getrlimit(getattr(resource, name))[0]
            for name in ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_CORE", "RLIMIT_NPROC")
        }
        facts = {
            "uid": os.getuid(),
            "pid": os.getpid(),
            "cwd": os.getcwd(),
            "cwd_entries": os.listdir("."),
            "tmp_entries": os.listdir("/tmp"),
            "env": sorted(os.environ),
            "network": network,
            "limits": limits,
            "hostname": socket.gethostname(),
            "cgroups": sorted({line.split(":", 2)[2] for line in cgroup_lines()}),
            "root_entries": os.listdir("/"),
            "etc_entries": os.listdir("/etc"),
            "python_path": {path: os.listdir(path) for path in os.environ["PYTHONPATH"].split(":")},
        }
        print("FACTS " + json.dumps(facts), file=sys.stderr)
        print("printed to stdout")
        return legal_actions[0]
