"""An archive is read in a child process with limits on its memory, CPU and clock time."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from dataclasses import replace

import pytest

from arena.bench.archives import MIB, honest_archive
from arena.web.unpacker import _failed, read_archive
from arena.web.uploads import UploadError, UploadLimits

LIMITS = UploadLimits()
CPU_HOG = """
from arena.web.unpacker import limit_this_process
from arena.web.uploads import UploadLimits
limit_this_process(UploadLimits(unpack_cpu_seconds=0.5))
while True:
    pass
"""


def test_the_child_answers_the_files_or_the_refusal() -> None:
    files = read_archive("bot.tar.gz", honest_archive(MIB, files=4), LIMITS)
    assert sorted(files) == ["lib/part1.py", "lib/part2.py", "lib/part3.py", "main.py"]
    assert sum(len(text) for text in files.values()) > MIB - 200
    with pytest.raises(UploadError, match=re.escape("not a readable 'bot.zip' archive")) as caught:
        read_archive("bot.zip", b"PK but not a zip", LIMITS)
    assert caught.value.status == 422


def test_a_reader_needing_more_memory_than_allowed_is_refused() -> None:
    small = replace(LIMITS, unpack_memory_bytes=MIB)
    with pytest.raises(UploadError, match="reading it needs more than 1 MiB of memory") as caught:
        read_archive("bot.tar.gz", honest_archive(), small)
    assert caught.value.status == 413


def test_a_reader_past_its_deadline_is_killed() -> None:
    hasty = replace(LIMITS, unpack_seconds=0.001)
    with pytest.raises(
        UploadError, match=re.escape("reading it took longer than 0.001 s")
    ) as caught:
        read_archive("bot.tar.gz", honest_archive(MIB, files=4), hasty)
    assert caught.value.status == 413


def test_the_kernel_stops_a_reader_past_its_cpu_time() -> None:
    hog = subprocess.run([sys.executable, "-c", CPU_HOG], capture_output=True, timeout=300)
    assert hog.returncode == -signal.SIGXCPU, hog.stderr.decode()[-500:]


def test_a_child_without_an_answer_is_a_limit_or_the_servers_fault() -> None:
    def ended(code: int, stderr: bytes = b"") -> subprocess.CompletedProcess[bytes]:
        return subprocess.CompletedProcess([], code, b"", stderr)

    for signal_number in (signal.SIGXCPU, signal.SIGKILL):
        refusal = _failed(ended(-signal_number), LIMITS)
        assert refusal.status == 413 and "more than 5 s of CPU time" in str(refusal)
    broken = _failed(ended(1, b"Traceback ...\nModuleNotFoundError: No module named 'x'\n"), LIMITS)
    assert broken.status == 503
    assert (
        str(broken) == "the archive reader failed to run: ModuleNotFoundError: No module named 'x'"
    )
