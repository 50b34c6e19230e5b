#!/usr/bin/env python3
"""Write the generated part of the profiler: a timing wrapper for every MPI call that the
hand-written wrappers (*.c beside this file) do not define, so that no MPI call's time counts
as time outside MPI (docs/profile.md, "Other MPI").

    other_calls.py MPICC OUTPUT.c SOURCE.c...

Reads the MPI's own declarations (its mpi.h through MPICC's preprocessor), leaves out the
calls the SOURCEs define (nm of their build), the calls whose PMPI_ symbol the MPI library
does not export (nm -D of the library a program built with MPICC loads), MPI_Wtime and
MPI_Wtick (a clock, not communication: the profiler would time its own clock twice), the
handle conversions (*_c2f, *_f2c, *_toint, *_fromint: no communication, called on every
Fortran call by some MPIs) and calls with a variable argument list (MPI_Pcontrol: it cannot be
forwarded). Each wrapper reads the clock around the PMPI call and adds to its own counter;
its kind ("collective", "one-sided", ...) follows from its name (kind_of). Python standard
library only: make and msgperf (launch/build.py) both run it.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile

P2P = {"Send", "Ssend", "Rsend", "Bsend", "Isend", "Issend", "Irsend", "Ibsend", "Recv", "Irecv",
       "Sendrecv", "Sendrecv_replace", "Isendrecv", "Isendrecv_replace", "Send_init", "Ssend_init",
       "Rsend_init", "Bsend_init", "Recv_init", "Mrecv", "Imrecv", "Cancel", "Psend_init",
       "Precv_init", "Pready", "Pready_range", "Pready_list", "Parrived", "Start", "Startall"}
WAIT = {"Wait", "Waitall", "Waitany", "Waitsome", "Test", "Testall", "Testany", "Testsome",
        "Request_get_status", "Request_get_status_all", "Request_get_status_any",
        "Request_get_status_some"}
PROBE = {"Probe", "Iprobe", "Mprobe", "Improbe"}
COLL = {"Barrier", "Bcast", "Reduce", "Allreduce", "Gather", "Gatherv", "Scatter", "Scatterv",
        "Allgather", "Allgatherv", "Alltoall", "Alltoallv", "Alltoallw", "Reduce_scatter",
        "Reduce_scatter_block", "Scan", "Exscan"}
RMA = {"Put", "Get", "Accumulate", "Get_accumulate", "Rput", "Rget", "Raccumulate",
       "Rget_accumulate", "Compare_and_swap", "Fetch_and_op"}
MAKE_PREFIXES = ("Comm_", "Type_", "Group_", "Cart_", "Graph_", "Dist_graph_", "Intercomm_")
# The order of prof.h's enum call_kind
KINDS = ("point-to-point", "wait/test", "collective", "one-sided", "probe", "communicator/datatype",
         "other MPI")
SKIP = {"MPI_Wtime", "MPI_Wtick", "MPI_Pcontrol"}


def kind_of(name: str) -> int:
    """The kind of call MPI_<name> is (an index into KINDS), by its name."""
    base = re.sub(r"_c$", "", name[len("MPI_"):])
    if base in P2P:
        return 0
    if base in WAIT:
        return 1
    plain = re.sub(r"_init$", "", base)
    if (plain in COLL or plain[:1] == "I" and plain[1:] in COLL or plain.startswith("Neighbor_")
            or plain.startswith("Ineighbor_")):
        return 2
    if base in RMA or base.startswith("Win_"):
        return 3
    if base in PROBE:
        return 4
    if base.startswith(MAKE_PREFIXES):
        return 5
    return 6


def delivers_data(name: str) -> bool:
    """Whether MPI_<name> can hand the program data (a matched receive, a completion, a
    collective, a one-sided call, a file read): such a call ends the open back-to-back
    sequences, as a completed receive does (prof.h, prof_leave_other)."""
    return kind_of(name) in (0, 1, 2, 3) or re.match(r"MPI_File_i?read", name) is not None


def _split_params(text: str) -> list[str]:
    params, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            params.append(text[start:i].strip())
            start = i + 1
    params.append(text[start:].strip())
    return [p for p in params if p]


def _without_attributes(text: str) -> str:
    """``text`` without its ``__attribute__((...))`` blocks (Open MPI puts one before each
    declaration, MPICH after), parentheses balanced, strings inside them skipped."""
    out, i = [], 0
    while True:
        j = text.find("__attribute__", i)
        if j < 0:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i:j])
        k = text.find("(", j)
        if k < 0:
            out.append(text[j:])
            return "".join(out)
        depth, k, quoted = 1, k + 1, False
        while k < len(text) and depth:
            ch = text[k]
            if ch == '"' and text[k - 1] != "\\":
                quoted = not quoted
            elif not quoted:
                depth += {"(": 1, ")": -1}.get(ch, 0)
            k += 1
        out.append(" ")
        i = k


def declarations(header: str) -> list[tuple[str, str, str, list[str]]]:
    """(return type, name, parameter text, parameter names) of each MPI_ function declared."""
    header = _without_attributes(header)
    found = {}
    for m in re.finditer(r"(?:^|[;}])\s*((?:extern\s+)?[A-Za-z_][\w \t\*]*?)\b(MPI_\w+)\s*\(", header):
        ret, name = " ".join(m.group(1).split()), m.group(2)
        if ret.startswith("typedef") or "(" in ret or name in found:
            continue
        i, depth = m.end(), 1
        while i < len(header) and depth:
            depth += {"(": 1, ")": -1}.get(header[i], 0)
            i += 1
        params = header[m.end():i - 1]
        rest = header[i:i + 400].lstrip()
        while rest.startswith("__attribute__"):  # (( ... )) after the declarator
            j, d = rest.index("(") + 1, 1
            while d:
                d += {"(": 1, ")": -1}.get(rest[j], 0)
                j += 1
            rest = rest[j:].lstrip()
        if not rest.startswith(";"):
            continue  # a definition, a macro's remains: not a plain declaration
        ret = re.sub(r"^extern\s+", "", ret)
        parts = _split_params(" ".join(params.split()))
        if parts == ["void"]:
            found[name] = (ret, name, "void", [])
            continue
        names = []
        for p in parts:
            pm = re.search(r"(\w+)\s*(?:\[[^\]]*\]\s*)*$", p)
            if p == "..." or not pm or len(re.findall(r"\w+", p)) < 2:
                names = None
                break
            names.append(pm.group(1))
        if names is not None:
            found[name] = (ret, name, ", ".join(parts), names)
    return list(found.values())


def _run(cmd: list[str], **kw) -> str:
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def _symbols(path: str, dynamic: bool) -> set[str]:
    out = _run(["nm", "-D" if dynamic else "-g", "--defined-only", path])
    return {line.split()[-1] for line in out.splitlines() if line.split()}


def wrapped(mpicc: str, sources: list[str], tmp: str) -> tuple[set[str], set[str]]:
    """The MPI_ calls the hand-written SOURCES define, and the PMPI_ symbols the MPI exports."""
    ours: set[str] = set()
    for i, src in enumerate(sources):
        obj = os.path.join(tmp, f"{i}.o")
        _run([mpicc, "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-fPIC", "-c", "-o", obj, src])
        ours |= {s for s in _symbols(obj, False) if s.startswith("MPI_")}
    program = os.path.join(tmp, "init")
    _run([mpicc, "-x", "c", "-o", program, "-"], input="#include <mpi.h>\nint main(void) { return MPI_Init(0, 0); }\n")
    exported: set[str] = set()
    for line in _run(["ldd", program]).splitlines():
        m = re.match(r"\s*(\S*mpi\S*)\s+=>\s+(\S+)", line)
        if m and os.path.exists(m.group(2)):
            exported |= {s for s in _symbols(m.group(2), True) if s.startswith("PMPI_")}
    if not exported:
        raise SystemExit(f"other_calls.py: no MPI library with PMPI_ symbols found for {mpicc} (ldd {program})")
    return ours, exported


def source(decls: list[tuple[str, str, str, list[str]]]) -> str:
    out = ["/* Generated by other_calls.py from this MPI's mpi.h: do not edit. */",
           '#include "prof.h"', "",
           "/* The deprecated calls are timed like the others: the application chose to call them. */",
           '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"', ""]
    names, kinds = [], []
    for ret, name, params, args in decls:
        i = len(names)
        names.append(name)
        kinds.append(kind_of(name))
        call = f"P{name}({', '.join(args)})"
        out += [f"{ret} {name}({params})", "{",
                f"    if (!P.active)", f"        return {call};",
                "    uint64_t t0 = prof_ticks();",
                f"    {ret} rc = {call};",
                "    uint64_t t1 = prof_ticks();",
                "    prof_lock();",
                f"    prof_leave_other(&prof_other_stat[{i}], C_COUNT + {i}, t0, t1, PROF_SITE, "
                f"{int(delivers_data(name))});",
                "    prof_unlock();",
                "    return rc;", "}", ""]
    out.append(f"const int prof_other_count = {len(names)};")
    out.append("const char *const prof_other_name[] = {" + ", ".join(f'"{n}"' for n in names) + (", " if names else "") + "0};")
    out.append("const unsigned char prof_other_kind[] = {" + ", ".join(map(str, kinds)) + (", " if kinds else "") + "0};")
    out.append(f"struct call_stat prof_other_stat[{max(len(names), 1)}];")
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[3], file=sys.stderr)
        return 2
    mpicc, output, sources = argv[0], argv[1], argv[2:]
    header = _run([mpicc, "-E", "-P", "-x", "c", "-"], input="#include <mpi.h>\n")
    with tempfile.TemporaryDirectory() as tmp:
        ours, exported = wrapped(mpicc, sources, tmp)
    decls = [d for d in declarations(header)
             if d[1] not in ours and d[1] not in SKIP and f"P{d[1]}" in exported
             and not re.search(r"(c2f|f2c|_toint|_fromint)", d[1])]
    with open(output + ".tmp", "w") as f:
        f.write(source(decls))
    os.replace(output + ".tmp", output)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
