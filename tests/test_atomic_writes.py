"""Every file msgperf writes whole goes to a temporary name and is renamed (writing.py), so a
full disk or a crash never leaves half a file or destroys the previous one. This test reads the
sources: a new place that opens a file for writing fails it until it is either made atomic or
listed below with the reason it may write in place."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "msgperf"
WRITES = re.compile(r"""write_text\(|write_bytes\(|open\([^)]*['"]([wax]\+?b?|[wax]?b?\+|r\+b?|rb\+)['"]|\.open\(['"]([wax]|r\+|rb\+)"""
                    r"""|os\.open\(""")

# (file, the line's code) -> why it may write where it does
ALLOWED = {
    ("writing.py", 'with temporary.open("w", encoding="utf-8", newline="") as out:'): "the temporary name itself",
    ("commands/export.py", 'with tmp.open("w", encoding="utf-8", newline="") as out:'): "atomic_path's temporary",
    ("commands/export.py", 'with table_tmp.open("w", encoding="utf-8", newline="") as table, \\'): "atomic_path's temporary",
    ("commands/export.py", 'samples_tmp.open("w", encoding="utf-8", newline="") as samples:'): "atomic_path's temporary",
    ("analysis_cache.py", 'fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)'):
        "a new private temporary, renamed over the cache entry (removed if the write fails)",
    ("analysis_cache.py", 'with os.fdopen(fd, "wb") as f:'): "writes that temporary",
    ("analysis_cache.py", 'fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0))'):
        "reads an entry (opened read-only; os.open is how it refuses a link)",
    ("analysis_cache.py", 'fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0), mode)'):
        "a large run's samples file: read-only, or a new private temporary (O_EXCL) renamed beside its entry",
    ("analysis_cache.py", 'f = os.fdopen(fd, "rb" if flags == os.O_RDONLY else "w+b", buffering=0)'):
        "wraps that descriptor",
    ("records/runfile_write.py", 'with path.open("a") as f:'): "a run file grows by whole records, flushed one at a time",
    ("launch/profiled.py", 'output.open("x").close()'): "claims a new name exclusively; never replaces a file",
    ("launch/run_file_guard.py", 'path.open("x").close()'): "claims a new name exclusively; never replaces a file",
    ("launch/run_file_guard.py", 'path.open("w").close()'): "empties a run file --force replaces, under its lock",
    ("launch/build.py", 'probe.write_text("#include <mpi.h>\\n")'): "a probe in its own temporary directory",
    ("launch/job.py", 'with log_path.open("w+") as log:'): "the launch log mkstemp created, written as the job runs",
    ("records/runfile_write.py", 'with path.open("rb+") as f:'): "--resume cuts a killed writer's partial last line, under the run file's lock",
    ("launch/run_file_guard.py", "fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)"): "the lock file beside a run file (holds a pid)",
    ("launch/run_file_guard.py", "fd = os.open(self.run_file, os.O_RDONLY | os.O_CLOEXEC)"): "read-only: flock on the run file's inode",
}


def test_every_write_is_atomic_or_listed_with_its_reason():
    found = set()
    for path in sorted(SRC.rglob("*.py")):
        for line in path.read_text().splitlines():
            code = line.strip()
            if WRITES.search(code) and not code.startswith("#"):
                found.add((str(path.relative_to(SRC)), code))
    unlisted = sorted(found - set(ALLOWED))
    assert not unlisted, f"writes a file in place; use writing.atomic_write or list it with its reason: {unlisted}"
    assert not set(ALLOWED) - found, f"listed but gone (remove from ALLOWED): {sorted(set(ALLOWED) - found)}"


# Files that write whole without the guard: msgperf's own files, not a file a user named over
# something that exists (the guard's job, writing.output), or a writer the guard checked already.
OWN_FILES = {
    "records/runfile_write.py": "a run file msgperf assembles (msgperf run -o has its own guard, launch/run_file_guard.py)",
    "launch/profiled.py": "the merged profile, over the placeholder msgperf profile claimed itself",
    "launch/build.py": "the kernels' build cache",
    "launch/budget.py": "the finish times in the cache",
    "commands/export.py": "export_run and the tidy pair write through atomic_path with the guard's recheck from output()",
}


def test_user_files_are_written_through_the_one_writing_face():
    """A report, plot, batch script or export is checked by writing.output (the guard) and
    written whole; nothing outside writing.py asks the guard itself or writes whole unlisted."""
    asks_guard, writes_whole = set(), set()
    for path in sorted(SRC.rglob("*.py")):
        name = str(path.relative_to(SRC))
        if name == "writing.py":
            continue
        text = path.read_text()
        if "check_replace(" in text:
            asks_guard.add(name)
        if re.search(r"\batomic_(write|path)\(", text):
            writes_whole.add(name)
    assert not asks_guard, f"ask writing.output, not check_replace: {sorted(asks_guard)}"
    assert writes_whole <= set(OWN_FILES), f"write through writing.output(...): {sorted(writes_whole - set(OWN_FILES))}"
