"""Call sites resolved to file:line by addr2line, or told apart as unknown (never guessed)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from msgperf.records.call_sites import resolve_sites

SOURCE = """#include <stdio.h>
__attribute__((noinline)) void callee(void) { puts("x"); }
int main(void) {
    callee();
    return 0;
}
"""


def _offset_of_return(program, symbol: str = "main") -> int:
    """The offset just after main's call of callee (a return address), from objdump."""
    dump = subprocess.run(["objdump", "-d", str(program)], capture_output=True, text=True, check=True).stdout
    lines = dump.split(f"<{symbol}>:")[1].splitlines()
    for i, line in enumerate(lines):
        if "call" in line and "callee" in line:
            return int(lines[i + 1].split(":")[0].strip(), 16)
    raise AssertionError("no call of callee in main")


@pytest.mark.parametrize("pie", ["-pie", "-no-pie"])
def test_a_return_address_is_resolved_to_the_calling_line(tmp_path, pie):
    if not (shutil.which("cc") and shutil.which("addr2line") and shutil.which("objdump")):
        pytest.skip("cc, addr2line or objdump (binutils) missing")
    src = tmp_path / "p.c"
    src.write_text(SOURCE)
    program = tmp_path / "p"
    subprocess.run(["cc", "-g", "-O0", pie, "-fPIE" if pie == "-pie" else "-fno-pie", "-o", str(program), str(src)],
                   check=True)
    address = _offset_of_return(program)
    offset = address if pie == "-pie" else address - 0x400000  # dladdr's offset from the load address
    got = resolve_sites([("p", offset), (None, 1234), ("missing", 5)], cwd=tmp_path)
    assert got[("p", offset)] == f"{src}:4"
    assert got[(None, 1234)] is None and got[("missing", 5)] is None
