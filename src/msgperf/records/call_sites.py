"""The file:line of the profile's call sites, from the debug information of the program and its
libraries, with binutils' ``addr2line`` (the profiler records each site as an object file and an
offset from its load address: records/profile_format.CallSite). A site whose object is gone,
has no debug information, or where ``addr2line`` is missing stays unresolved (None): "cannot
tell", never a guess."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path
from typing import Iterable

PT_LOAD = 1


def _link_base(path: Path) -> int | None:
    """What to add to an offset from the load address to get the address addr2line reads: 0 for
    a position-independent file (ET_DYN), the first loaded segment's page for a fixed-address
    executable (ET_EXEC); None when it is not a 64-bit little-endian ELF file."""
    try:
        with path.open("rb") as f:
            head = f.read(64)
            if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
                return None
            e_type, = struct.unpack_from("<H", head, 16)
            if e_type == 3:
                return 0
            e_phoff, = struct.unpack_from("<Q", head, 32)
            e_phentsize, e_phnum = struct.unpack_from("<HH", head, 54)
            for i in range(e_phnum):
                f.seek(e_phoff + i * e_phentsize)
                p_type, _, _, p_vaddr = struct.unpack("<IIQQ", f.read(24))
                if p_type == PT_LOAD:
                    return p_vaddr & ~0xFFF
    except OSError:
        return None
    return None


def resolve_sites(sites: Iterable[tuple[str | None, int]], cwd: Path | None = None
                  ) -> dict[tuple[str | None, int], str | None]:
    """(object, offset) -> "file:line", or None where it cannot be told."""
    out: dict[tuple[str | None, int], str | None] = {}
    by_object: dict[str, list[int]] = {}
    for obj, offset in sites:
        out[(obj, offset)] = None
        if obj:
            by_object.setdefault(obj, []).append(offset)
    tool = shutil.which("addr2line")
    if tool is None:
        return out
    for obj, offsets in by_object.items():
        path = Path(obj) if Path(obj).is_absolute() or cwd is None else cwd / obj
        base = _link_base(path)
        if base is None:
            continue
        # a return address points after the call: one byte back lies inside the call instruction
        addresses = [f"{base + max(o - 1, 0):x}" for o in offsets]
        try:
            done = subprocess.run([tool, "-e", str(path), *addresses], capture_output=True, text=True,
                                  timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            continue
        lines = done.stdout.splitlines()
        if done.returncode != 0 or len(lines) != len(offsets):
            continue
        for offset, line in zip(offsets, lines):
            where = line.split(" (discriminator")[0].strip()
            if where and not where.startswith("??") and not where.endswith(":0") and not where.endswith(":?"):
                out[(obj, offset)] = where
    return out
