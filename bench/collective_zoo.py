"""Collective zoo: does the model name the algorithm the MPI was told to use, and only that one?

    .venv/bin/python bench/collective_zoo.py [--only TEXT ...] [--np P] [--no-openmpi] [--keep DIR]
                                             [--sizes 8:1M] [--total-time 40s] [--realtime] [--iteration-barrier]
                                             [--keep-pages] [--reuse]

Each case is a real run whose truth is known because it was set: PyPI's MPICH with each algorithm
forced by its CVARs (MPIR_CVAR_DEVICE_COLLECTIVES=none, so that ch4 hands every collective to the
generic layer, and MPIR_CVAR_<COLL>_INTRA_ALGORITHM=<name>), Debian's Open MPI with its tuned
component's dynamic rules (OMPI_MCA_coll_tuned_use_dynamic_rules=1,
OMPI_MCA_coll_tuned_<coll>_algorithm=<n>). One run per case measures the ping-pong, sendrecv, memcpy,
reduce-local, sendrecv-reduce, sendrecv-indexed, self-message, exchange-init and send-stream (the
point-to-point model: one-way and both-ways steps, local copies, γ, an exchange that combines what it
received and one through a datatype built for it, both measured whole, a rank's message to itself,
an exchange whose requests are made every call, one-way sends back to back), in two launches (a
name needs both, each analysed alone, to give it), size by size beside
allreduce, bcast and alltoall, each with the algorithm the case sets for it (the variables are
per collective), calls back to back (the kernels' default; --iteration-barrier puts a barrier
before each, as OSU, which adds the skew of leaving it), and is analysed with msgperf's own
functions (RunResult.collectives).

Per case and collective it prints the algorithm set, then per size range the algorithm named and
predicted / measured of the set algorithm. Per size a verdict is
- right: the set algorithm named;
- cannot tell, honest: "cannot tell" (where no name is given every algorithm stays a candidate);
- wrong: another algorithm named;
- none: "none of these" (the times point to none).
A name is given only where every other prediction is outside the model's band (0.5-1.8 x measured,
analysis/collectives/naming.py) at two sizes in a row, at 2 ranks, on an undisturbed launch;
elsewhere the verdict is "cannot tell" with what the times alone point to, which is counted apart
(right, another), and so are the sizes of launches the run saw disturbed (busy machine, ranks on
one core, oversubscribed).
A size is *separable* when the set algorithm's prediction differs from every other's by more than
the measured interval (the goal: right there, "cannot tell" elsewhere). Totals: sizes right /
separable sizes, wrong names, and per (MPI, collective, algorithm) whether the set algorithm was
named at some size and no other ever was; the median of predicted / measured of the set
algorithm (goal: within 25 %). The load average is printed with each case.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from msgperf.analysis.collectives import CANNOT_TELL, NONE  # noqa: E402
from msgperf.analysis.collectives.selection import selection  # noqa: E402
from msgperf.analysis.result import analyze  # noqa: E402
from msgperf.records.runfile_read import read_run  # noqa: E402

MSGPERF = [sys.executable, "-m", "msgperf"]
OPENMPI_CC = "/usr/bin/mpicc.openmpi"
COLLECTIVES = ("allreduce", "bcast", "alltoall")
BARRIER = False  # --iteration-barrier: a barrier before each call (outside the timing)
REUSE = False  # --reuse: the run files of an earlier --keep DIR, analysed again
# --keep-pages: glibc keeps freed memory (no mmap per allocation, no trim), so that an MPI's temporary
# buffer of each call does not fault its pages in again each call (the model leaves that cost out)
KEEP_PAGES = {"MALLOC_MMAP_THRESHOLD_": "1073741824", "MALLOC_TRIM_THRESHOLD_": "1073741824"}
EXTRA_ENV: dict[str, str] = {}


@dataclass(frozen=True)
class Case:
    name: str
    mpi: str  # "mpich" or "openmpi"
    algorithms: dict[str, str]  # collective -> the algorithm set (msgperf's key)

    @property
    def env(self) -> dict[str, str]:
        # Open MPI 4.1.4's op/avx sums MPI_UNSIGNED_CHAR with saturation (255 + 1 = 255): the payload
        # check of reduce-local and allreduce fails; without that component the sums are right
        env: dict[str, str] = {"OMPI_MCA_op": "^avx"} if self.mpi == "openmpi" else {}
        for collective, algorithm in self.algorithms.items():
            env.update(selection(self.mpi, collective, algorithm))
        return env


CASES = (
    Case("mpich 1", "mpich", {"allreduce": "recursive_doubling", "bcast": "binomial", "alltoall": "bruck"}),
    Case("mpich 2", "mpich", {"allreduce": "reduce_scatter_allgather",
                              "bcast": "scatter_recursive_doubling_allgather", "alltoall": "pairwise"}),
    Case("mpich 3", "mpich", {"allreduce": "ring", "bcast": "scatter_ring_allgather", "alltoall": "scattered"}),
    Case("openmpi 1", "openmpi", {"allreduce": "recursive_doubling", "bcast": "binomial", "alltoall": "bruck"}),
    Case("openmpi 2", "openmpi", {"allreduce": "reduce_scatter_allgather",
                                  "bcast": "scatter_recursive_doubling_allgather", "alltoall": "pairwise"}),
    Case("openmpi 3", "openmpi", {"allreduce": "ring", "bcast": "scatter_ring_allgather", "alltoall": "scattered"}),
    Case("openmpi 4", "openmpi", {"allreduce": "reduce_bcast"}),
)


@dataclass
class Outcome:
    collective: str
    algorithm: str
    ranges: list[tuple[int, int, str, float | None]] = field(default_factory=list)  # lo, hi, named, set's ratio
    right: int = 0
    honest: int = 0  # cannot tell, the set one among the candidates
    wrong: int = 0
    none: int = 0
    separable: int = 0
    right_separable: int = 0
    ratios: list[float] = field(default_factory=list)  # predicted / measured of the set algorithm, per size
    # where no name is given ("cannot tell"), what the times alone point to: an algorithm at ``pointed``
    # sizes (the set one at ``evidence_right``), of which ``disturbed`` on a launch the run saw disturbed
    pointed: int = 0
    disturbed: int = 0
    evidence_right: int = 0
    evidence_wrong: int = 0
    wrong_names: list[str] = field(default_factory=list)

    @property
    def named_right(self) -> bool:
        return self.right > 0 and self.wrong == 0


@dataclass
class Result:
    case: Case
    ranks: int
    skipped: str = ""
    outcomes: list[Outcome] = field(default_factory=list)
    load: tuple[float, float] = (0.0, 0.0)
    seconds: float = 0.0
    retried: str = ""  # the first try's error, where the case was measured again after a hang


def score(fit, algorithm: str) -> Outcome:
    """Every size of one collective's fit against the algorithm that was set."""
    out = Outcome(fit.collective, algorithm)
    for v in fit.sizes:
        mine = v.prediction(algorithm)
        others = [p for p in v.predictions if p.algorithm != algorithm]
        width = (v.high_s - v.low_s) if v.low_s is not None and v.high_s is not None else 0.0
        separable = mine is not None and all(abs(p.predicted_s - mine.predicted_s) > width for p in others)
        out.separable += separable
        if mine is not None:
            out.ratios.append(mine.ratio(v.measured_s))
        none = v.verdict == NONE or v.evidence == NONE  # no prediction fits, the name withheld or not
        pointed = "" if none or v.verdict != CANNOT_TELL else v.evidence
        out.pointed += bool(pointed)
        out.disturbed += bool(pointed) and "interference" in v.why
        out.evidence_right += pointed == algorithm
        out.evidence_wrong += bool(pointed) and pointed != algorithm
        if v.verdict == algorithm:
            out.right += 1
            out.right_separable += separable
        elif none:
            out.none += 1
        elif v.verdict == CANNOT_TELL and (algorithm in v.candidates or v.evidence):
            out.honest += 1  # the set one among the candidates, or a name withheld (counted apart)
        else:
            out.wrong += 1
            out.wrong_names.append(f"{v.bytes} B: {v.verdict} {'/'.join(v.candidates)}")
    for r in fit.ranges:
        named = r.verdict if r.verdict != CANNOT_TELL else "cannot tell (" + " or ".join(r.candidates) + ")"
        group = [v for v in fit.sizes if r.from_bytes <= v.bytes <= r.to_bytes]
        ratios = [v.prediction(algorithm).ratio(v.measured_s) for v in group if v.prediction(algorithm)]
        out.ranges.append((r.from_bytes, r.to_bytes, named, statistics.median(ratios) if ratios else None))
    return out


def _measure(case: Case, out: Path, ranks: int, sizes: str, total: str) -> subprocess.CompletedProcess:
    args = ["run", "--sizes", sizes, "--pattern", "pingpong", "--pattern", "sendrecv", "--pattern", "memcpy",
            "--pattern", "reduce-local", "--pattern", "sendrecv-reduce", "--pattern", "sendrecv-indexed",
            "--pattern", "self-message", "--pattern", "exchange-init", "--pattern", "send-stream",
            *[a for c in case.algorithms for a in ("--pattern", c)],
            *(["--iteration-barrier"] if BARRIER else []),
            "--np", str(ranks), "--total-time", total, "--repeat", "2", "--no-probe",
            "--no-report", "--no-store", "-q", "-o", str(out)]
    if case.mpi == "openmpi":
        args += ["--mpicc", OPENMPI_CC]
    env = {**os.environ, "MSGPERF_HOME": str(out.parent / "home"), **case.env, **EXTRA_ENV}
    return subprocess.run(MSGPERF + args, capture_output=True, text=True, env=env, timeout=900)


def run_case(case: Case, workdir: Path, ranks: int, sizes: str, total: str, no_openmpi: bool) -> Result:
    result = Result(case, ranks)
    if case.mpi == "openmpi" and (no_openmpi or not Path(OPENMPI_CC).exists()):
        result.skipped = "--no-openmpi" if no_openmpi else "Open MPI not installed"
        return result
    out = workdir / f"{case.name.replace(' ', '-')}-np{ranks}.jsonl"
    before = os.getloadavg()[0]
    t0 = time.perf_counter()
    if REUSE and out.exists():  # --reuse: analyse the run kept by an earlier --keep again
        proc = subprocess.CompletedProcess([], 0, "", "")
    else:
        proc = _measure(case, out, ranks, sizes, total)
        if proc.returncode != 0 and "hung" in (proc.stderr or ""):
            # Open MPI's launch now and then stalls at its first ping-pong under --realtime (148 s without
            # progress, twice in a day's rounds; its daemons share the SCHED_FIFO of the spinning ranks):
            # measured once more, and said
            result.retried = (proc.stderr.strip().splitlines() or ["hung"])[-1][:160]
            proc = _measure(case, out, ranks, sizes, total)
    result.seconds = time.perf_counter() - t0
    result.load = (before, os.getloadavg()[0])
    if proc.returncode != 0 or not out.exists():
        lines = (proc.stderr or proc.stdout).strip().splitlines() or ["no output"]
        result.skipped = "run failed: " + lines[-1][:160]
        return result
    collectives = analyze(read_run(out).run).collectives
    for collective, algorithm in case.algorithms.items():
        fit = collectives.find(collective) if collectives is not None else None
        if fit is None or not fit.sizes:
            result.outcomes.append(Outcome(collective, algorithm, wrong_names=["not measured or not predicted"]))
            continue
        result.outcomes.append(score(fit, algorithm))
    return result


def _size(n: int) -> str:
    for unit, scale in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale}{unit}"
    return str(n)


def case_lines(r: Result) -> list[str]:
    lines = [f"{r.case.name} ({r.case.mpi}, {r.ranks} ranks{', oversubscribed' if r.ranks > (os.cpu_count() or 1) else ''})"]
    if r.skipped:
        return lines + [f"  skipped: {r.skipped}"] + ([f"  (a first try: {r.retried})"] if r.retried else [])
    for o in r.outcomes:
        setting = " ".join(f"{k}={v}" for k, v in selection(r.case.mpi, o.collective, o.algorithm)) or "-"
        lines.append(f"  {o.collective}: set {o.algorithm} ({setting})")
        for lo, hi, named, ratio in o.ranges:
            where = _size(lo) if lo == hi else f"{_size(lo)}–{_size(hi)}"
            lines.append(f"    {where:>10} B: named {named}; predicted/measured of {o.algorithm} "
                         + (f"{ratio:.2f}" if ratio is not None else "-"))
        med = statistics.median(o.ratios) if o.ratios else float("nan")
        lines.append(f"    sizes right {o.right}, cannot tell (honest) {o.honest}, wrong {o.wrong}, none {o.none}; "
                     f"right where separable {o.right_separable}/{o.separable}; median predicted/measured {med:.2f}")
        if o.pointed:
            lines.append(f"    no name, the times alone pointing to one algorithm, at {o.pointed} sizes "
                         f"({o.disturbed} on a disturbed launch): to {o.algorithm} at {o.evidence_right}, "
                         f"another at {o.evidence_wrong}")
        lines += [f"    wrong: {w}" for w in o.wrong_names[:4]]
    if r.retried:
        lines.append(f"  measured again after: {r.retried}")
    lines.append(f"  {r.seconds:.1f} s, load {r.load[0]:.2f} -> {r.load[1]:.2f}")
    return lines


def totals(results: list[Result]) -> str:
    outcomes = [o for r in results if not r.skipped for o in r.outcomes]
    ratios = [statistics.median(o.ratios) for o in outcomes if o.ratios]
    within = sum(0.8 <= x <= 1.25 for x in ratios)
    return (f"TOTAL: algorithms named right {sum(o.named_right for o in outcomes)}/{len(outcomes)} set "
            f"(named at some size, never another); sizes right where separable "
            f"{sum(o.right_separable for o in outcomes)}/{sum(o.separable for o in outcomes)}; "
            f"sizes named wrong {sum(o.wrong for o in outcomes)} of {sum(len(o.ratios) for o in outcomes)}; "
            f"'none of these' {sum(o.none for o in outcomes)}; no name, the times alone pointing to one algorithm: "
            f"{sum(o.pointed for o in outcomes)} ({sum(o.disturbed for o in outcomes)} on a disturbed launch; "
            f"the set one {sum(o.evidence_right for o in outcomes)}, another {sum(o.evidence_wrong for o in outcomes)}); median predicted/measured within 25 % in "
            f"{within}/{len(ratios)} (medians {', '.join(f'{x:.2f}' for x in ratios)})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=[], help="run the cases whose name contains TEXT")
    ap.add_argument("--np", type=int, default=2, help="ranks (above the CPUs: oversubscribed, a check of names)")
    ap.add_argument("--sizes", default="8:1M")
    ap.add_argument("--total-time", default="40s")
    ap.add_argument("--no-openmpi", action="store_true")
    ap.add_argument("--keep", type=Path, help="keep the run files in DIR")
    ap.add_argument("--reuse", action="store_true", help="with --keep DIR: analyse the run files already there "
                    "again instead of measuring (after a change to the analysis)")
    ap.add_argument("--keep-pages", action="store_true",
                    help="glibc keeps freed memory (MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_): an MPI's "
                         "temporary buffer no longer faults its pages in on every call")
    ap.add_argument("--iteration-barrier", action="store_true",
                    help="a barrier before each call, outside the timing (as OSU): adds the skew of leaving it")
    ap.add_argument("--realtime", action="store_true",
                    help="run msgperf at SCHED_FIFO (chrt -f 10, root), as bench/curve_zoo.py: other jobs on a "
                         "shared machine then cannot deschedule the ranks (it starves them while it runs)")
    args = ap.parse_args()
    if args.realtime:
        MSGPERF[:0] = ["chrt", "-f", "10"]
    global BARRIER, REUSE
    BARRIER, REUSE = args.iteration_barrier, args.reuse
    if args.keep_pages:
        EXTRA_ENV.update(KEEP_PAGES)
    cases = [c for c in CASES if not args.only or any(t in c.name for t in args.only)]
    with tempfile.TemporaryDirectory() as name:
        workdir = args.keep or Path(name)
        workdir.mkdir(parents=True, exist_ok=True)
        print(f"collective zoo: {args.np} ranks, sizes {args.sizes}, {os.cpu_count()} CPUs, load average "
              f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}", flush=True)
        results = []
        for case in cases:
            results.append(run_case(case, workdir, args.np, args.sizes, args.total_time, args.no_openmpi))
            print("\n" + "\n".join(case_lines(results[-1])), flush=True)
        print("\n" + totals(results))
        print(f"(load average at the end: {' '.join(f'{v:.2f}' for v in os.getloadavg())})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
