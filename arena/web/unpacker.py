"""An uploaded archive is read in a child process with limits, never in the web process.

:func:`read_archive` hands the archive to ``python -m arena.web.unpacker`` on stdin
(its name and the limits as arguments); the child takes the bytes, sets its limits,
and only then looks into them with :func:`arena.web.archives.unpack`; it answers one
JSON object on stdout, the files or the refusal (whatever a parser raises on the
archive is one). No answer means the reader could not run: 503. The limits (:class:`UploadLimits`):

* ``unpack_memory_bytes`` of address space beyond what the child holds when it starts
  reading the archive (``RLIMIT_AS``; a reader that needs more gets MemoryError);
* ``unpack_cpu_seconds`` of CPU time (``RLIMIT_CPU``: the kernel stops it);
* ``unpack_seconds`` on the clock, after which the server kills it;
* no file written, no core dumped.

So an archive costs the web process what it uploads and what it holds, whatever the
archive declares; the reader refuses most bombs itself, before it holds them (see
:mod:`arena.web.archives`), and the limits stop what the reader does not foresee.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import resource
import signal
import subprocess
import sys

from arena.web.archives import unpack
from arena.web.uploads import UploadError, UploadLimits

MIB = 1024 * 1024


def read_archive(filename: str, data: bytes, limits: UploadLimits) -> dict[str, str]:
    """The archive's files as ``{relative path: text}``, read in a child process.

    Raises:
        UploadError: the reader's refusal (see :mod:`arena.web.archives`), (413) the
            reader passed one of the module's limits, or (503) it could not run.
    """
    if len(data) > limits.archive_bytes:
        raise UploadError(
            f"field 'archive': the upload is larger than {limits.archive_bytes} bytes", status=413
        )
    command = [
        sys.executable,
        "-m",
        "arena.web.unpacker",
        filename,
        json.dumps(dataclasses.asdict(limits)),
    ]
    try:
        finished = subprocess.run(
            command, input=data, capture_output=True, timeout=limits.unpack_seconds, check=False
        )
    except subprocess.TimeoutExpired:
        raise UploadError(
            f"field 'archive': reading it took longer than {limits.unpack_seconds:g} s",
            status=413,
        ) from None
    try:
        answer = json.loads(finished.stdout)
    except json.JSONDecodeError:
        raise _failed(finished, limits) from None
    if "refusal" in answer:
        raise UploadError(answer["refusal"], status=answer["status"])
    files: dict[str, str] = answer["files"]
    return files


def _failed(finished: subprocess.CompletedProcess[bytes], limits: UploadLimits) -> UploadError:
    """Why the child gave no answer: a limit, or (the server's fault: whatever an archive
    holds gets an answer) the last line it wrote."""
    if finished.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        return UploadError(
            f"field 'archive': reading it took more than {limits.unpack_cpu_seconds:g} s of "
            "CPU time",
            status=413,
        )
    lines = finished.stderr.decode("utf-8", "replace").strip().splitlines()
    why = lines[-1][:200] if lines else f"exit code {finished.returncode}"
    return UploadError(f"the archive reader failed to run: {why}", status=503)


def limit_this_process(limits: UploadLimits) -> None:
    """The child's limits, from here on (see the module's docstring)."""
    page = os.sysconf("SC_PAGE_SIZE")
    with open("/proc/self/statm", encoding="ascii") as statm:
        mapped = int(statm.read().split()[0]) * page
    _lower(resource.RLIMIT_AS, mapped + limits.unpack_memory_bytes)
    used = resource.getrusage(resource.RUSAGE_SELF)
    cpu = math.ceil(used.ru_utime + used.ru_stime + limits.unpack_cpu_seconds)
    _lower(resource.RLIMIT_CPU, cpu, hard=cpu + 1)
    _lower(resource.RLIMIT_FSIZE, 0)
    _lower(resource.RLIMIT_CORE, 0)


def _lower(kind: int, soft: int, *, hard: int | None = None) -> None:
    """Lower a limit (never above what this process was given)."""
    _, given = resource.getrlimit(kind)
    hard = soft if hard is None else hard
    if given != resource.RLIM_INFINITY:
        soft, hard = min(soft, given), min(hard, given)
    resource.setrlimit(kind, (soft, hard))


def main() -> None:
    filename, settings = sys.argv[1], json.loads(sys.argv[2])
    limits = UploadLimits(**settings)
    data = sys.stdin.buffer.read(limits.archive_bytes + 1)  # what was uploaded, no more
    limit_this_process(limits)
    try:
        answer: dict[str, object] = {"files": unpack(filename, data, limits)}
    except UploadError as exc:
        answer = {"refusal": str(exc), "status": exc.status}
    except MemoryError:
        answer = {
            "refusal": f"field 'archive': reading it needs more than "
            f"{limits.unpack_memory_bytes // MIB} MiB of memory",
            "status": 413,
        }
    except Exception as exc:  # whatever else the parsers raise on hostile bytes
        answer = {
            "refusal": f"field 'archive': not a readable {filename!r} archive "
            f"({type(exc).__name__}: {str(exc)[:200]})",
            "status": 422,
        }
    sys.stdout.write(json.dumps(answer))


if __name__ == "__main__":
    main()
