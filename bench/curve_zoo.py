"""Curve zoo: does the model find the switches that were set on purpose, and only those?

    .venv/bin/python bench/curve_zoo.py [--only TEXT ...] [--no-openmpi] [--no-cluster] [--keep DIR] [--realtime]
                                        [--no-threshold-anchors]

Each case is a real sweep whose truth is known because it was set: PyPI's MPICH with its
shared-memory cell size (the eager limit: MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE) and its
single-copy threshold (MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD) moved, Debian's Open MPI with its
shared-memory eager limit moved (OMPI_MCA_btl_vader_eager_limit), and, as root, the emulated
two-host cluster (tools/netns-cluster) with every link shaped by tbf: no switch, a known rate.
Every case runs ``msgperf run --pattern pingpong --pattern eager-probe`` (plus memcpy, whose
knees tell a cache from a protocol) and analyses the run with msgperf's own functions.

Per case it prints the values set, the breakpoint intervals found with their labels (by the
evidence the run holds: analysis.breakpoint_labels), the eager limit the probe measured, and
the fitted against the expected bandwidth (shaped links). Then the totals: switches found with
the set value inside the interval / switches set (only switches with at least three measured
sizes on either side count: a regime needs three sizes), and false "protocol switch" claims
(a breakpoint labelled eager/single-copy with no set switch inside); breakpoints left
"unexplained" or labelled cache/memory are listed apart. The load average is printed with each
case: figures taken on a busy machine say so.

A switch lies in (low, high] bytes: for a threshold "sizes >= T use the new protocol" at T
itself; for a cell or eager-limit size S, whose payload is S less a header, in (S - 1024, S].
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from msgperf.analysis import AnalysisError, analyze_series  # noqa: E402
from msgperf.analysis.result import analyze  # noqa: E402
from msgperf.analysis.model.breakpoint_labels import (BreakpointEvidence, known_thresholds,  # noqa: E402
                                                label_breakpoints)
from msgperf.records.runfile_read import read_run  # noqa: E402

MSGPERF = [sys.executable, "-m", "msgperf"]
TOOL = ROOT / "tools" / "netns-cluster"
OPENMPI_CC = "/usr/bin/mpicc.openmpi"
PACK = {"MPIR_CVAR_CH4_PACK_BUFFER_SIZE": "262144"}  # >= the cell size, or MPI_Init aborts
NO_CMA = {"MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD": "16777216"}  # keep CMA out of the way
HEADER = 1024


@dataclass(frozen=True)
class Truth:
    what: str  # "CELL_SIZE = 32768"
    low: int  # the switch lies in (low, high]
    high: int


@dataclass(frozen=True)
class Case:
    name: str
    mpi: str  # "mpich", "openmpi" or "cluster"
    sizes: str
    env: dict[str, str]
    truths: tuple[Truth, ...]
    rate_bit_s: float = 0.0  # shaped links: the tbf rate
    mtu: int = 1500
    args: tuple[str, ...] = ()


def cell(value: int) -> Truth:
    return Truth(f"IQUEUE_CELL_SIZE = {value}", value - HEADER, value)


def cma(value: int) -> Truth:
    return Truth(f"CMA_P2P_THRESHOLD = {value}", value - 1, value)


def vader(value: int) -> Truth:
    return Truth(f"btl_vader_eager_limit = {value}", value - HEADER, value)


def mpich_cell(value: int) -> dict[str, str]:
    return {**PACK, **NO_CMA, "MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE": str(value)}


CASES = (
    Case("mpich cell 16K", "mpich", "2K:512K", mpich_cell(16384), (cell(16384),)),
    Case("mpich cell 32K", "mpich", "4K:1M", mpich_cell(32768), (cell(32768),)),
    Case("mpich cell 64K", "mpich", "8K:2M", mpich_cell(65536), (cell(65536),)),
    Case("mpich cell 32K + CMA 256K", "mpich", "2K:2M",
         {**PACK, "MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE": "32768",
          "MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD": "262144"}, (cell(32768), cma(262144))),
    Case("mpich CMA 64K (default cell 8K)", "mpich", "1K:1M",
         {"MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD": "65536"},
         (Truth("IQUEUE_CELL_SIZE = 8192 (default)", 8192 - HEADER, 8192), cma(65536))),
    Case("openmpi vader eager 8K", "openmpi", "1K:512K",
         {"OMPI_MCA_btl_vader_eager_limit": "8192"}, (vader(8192),)),
    Case("openmpi vader eager 16K", "openmpi", "1K:512K",
         {"OMPI_MCA_btl_vader_eager_limit": "16384"}, (vader(16384),)),
    Case("cluster tbf 100 Mbit/s", "cluster", "256K:4M", {}, (), rate_bit_s=100e6,
         args=("--time-budget", "0.5", "--min-samples", "10")),
    Case("cluster tbf 300 Mbit/s", "cluster", "256K:4M", {}, (), rate_bit_s=300e6,
         args=("--time-budget", "0.5", "--min-samples", "10")),
)


@dataclass
class Result:
    case: Case
    skipped: str = ""
    found: list[tuple[int, int, str, bool]] = field(default_factory=list)  # low, high, label, protocol
    probe: str = "-"
    fitted_bandwidth: float | None = None
    measured_bandwidth: float | None = None
    expected_bandwidth: float | None = None
    visible: list[bool] = field(default_factory=list)  # per truth: >= 3 sizes on either side
    hits: list[bool] = field(default_factory=list)  # per visible truth
    false_claims: int = 0
    others: int = 0  # breakpoints at no set switch, not claimed as protocol switches
    no_step: list[str] = field(default_factory=list)  # "no step at the eager-probe's limit" caveats
    flat: list[bool] = field(default_factory=list)  # per visible truth missed: the probe inside it, no step said
    load: tuple[float, float] = (0.0, 0.0)
    seconds: float = 0.0


def expected_goodput(rate_bit_s: float, mtu: int) -> float:
    """TCP payload rate of a tbf-shaped link (as tests/launch/cluster/test_bandwidth.py)."""
    return rate_bit_s / 8 * (mtu - 52) / (mtu + 14)


def _measure(case: Case, out: Path) -> subprocess.CompletedProcess:
    args = ["run", "--sizes", case.sizes, "--pattern", "pingpong", "--pattern", "eager-probe",
            "--no-report", "--no-store", "-q", "-o", str(out), *case.args]
    env = {**os.environ, "MSGPERF_HOME": str(out.parent / "home"), **case.env}
    if case.mpi == "openmpi":
        args += ["--mpicc", OPENMPI_CC]
    if case.mpi != "cluster":
        args += ["--pattern", "memcpy"]
        return subprocess.run(MSGPERF + args, capture_output=True, text=True, env=env, timeout=600)
    name, net = f"zoo{os.getpid() % 10000}", str(150 + os.getpid() % 50)
    cenv = {**env, "NETNS_CLUSTER_NAME": name, "NETNS_CLUSTER_NET": net}
    tool = lambda *a: subprocess.run([str(TOOL), *a], capture_output=True, text=True, env=cenv,  # noqa: E731
                                     timeout=120, check=True)
    try:
        tool("down")
        tool("up", "2", str(case.mtu))
        tool("shape", f"{case.rate_bit_s / 1e6:g}mbit", "64kb", "tbf")
        for line in tool("env").stdout.splitlines():
            key, _, value = line.removeprefix("export ").partition("=")
            cenv[key] = value
        cenv["PATH"] = f"{Path(sys.executable).parent}:{cenv.get('PATH', '')}"
        args += ["--np", "2", "--hosts", "h0,h1", "--placement", "inter"]
        return subprocess.run([str(TOOL), "exec", "h0", *MSGPERF, *args], capture_output=True,
                              text=True, env=cenv, timeout=600, cwd=ROOT)
    finally:
        subprocess.run([str(TOOL), "down"], capture_output=True, env=cenv, timeout=120)


def _unavailable(case: Case, no_openmpi: bool, no_cluster: bool) -> str:
    if case.mpi == "openmpi" and (no_openmpi or not Path(OPENMPI_CC).exists()):
        return "Open MPI not installed" if not no_openmpi else "--no-openmpi"
    if case.mpi == "cluster":
        if no_cluster:
            return "--no-cluster"
        if os.geteuid() != 0:
            return "the emulated cluster needs root"
    return ""


def run_case(case: Case, workdir: Path, no_openmpi: bool = False, no_cluster: bool = False) -> Result:
    result = Result(case)
    result.skipped = _unavailable(case, no_openmpi, no_cluster)
    if result.skipped:
        return result
    out = workdir / (case.name.replace(" ", "-").replace("/", "") + ".jsonl")
    before = os.getloadavg()[0]
    t0 = time.perf_counter()
    proc = _measure(case, out)
    result.seconds = time.perf_counter() - t0
    result.load = (before, os.getloadavg()[0])
    if proc.returncode != 0 or not out.exists():
        result.skipped = "run failed: " + (proc.stderr or proc.stdout).strip().splitlines()[-1][:120]
        return result
    evaluate(read_run(out).run, case, result)
    return result


def evaluate(run, case: Case, result: Result) -> None:
    """Fill ``result`` from a run of ``case`` with msgperf's own analysis."""
    probe = next((m.extra for m in run.measurements if m.pattern == "eager-probe"), {})
    low, high = probe.get("eager_limit_low_bytes"), probe.get("eager_limit_high_bytes")
    eager = (int(low), int(high)) if isinstance(low, int) and isinstance(high, int) else None
    # as msgperf fit does: the whole run, the eager-probe's limit included
    ping = next(s for s in analyze(run).series if s.key.pattern == "pingpong" and not s.key.variant)
    if ping.model is None:
        raise AnalysisError(f"pingpong: {ping.not_modelled}")
    sweep = ping.model.sweep
    if eager:
        result.probe = f"{eager[0]} B" if eager[1] == eager[0] + 1 else f"{eager[0]}–{eager[1]} B"
    elif isinstance(low, int):  # no size up to the probe's range was sent other than eagerly
        result.probe = f"above {low} B (every probed size was eager)"
    try:
        memcpy = analyze_series(run, "memcpy").sweep.piecewise.breakpoints
    except AnalysisError:
        memcpy = ()
    evidence = BreakpointEvidence(eager_limit=eager, memcpy_breakpoints=memcpy,
                                  thresholds=known_thresholds(run.launches[0].environment))
    labels = label_breakpoints(sweep.piecewise.breakpoints, evidence)
    sizes = [p.bytes for p in sweep.points]
    result.visible = [sum(s <= t.low for s in sizes) >= 3 and sum(s >= t.high for s in sizes) >= 3
                      for t in case.truths]
    counted = [t for t, v in zip(case.truths, result.visible) if v]
    result.hits = [any(max(b.low_bytes, t.low) < min(b.high_bytes, t.high)
                       for b in sweep.piecewise.breakpoints) for t in counted]
    result.no_step = [c.message for c in sweep.caveats if c.kind == "no_step_at_eager_limit"]
    said = eager is not None and any("no step there" in m for m in result.no_step)  # not "cannot tell"
    result.flat = [not hit and said and t.low < eager[0] + 1 <= t.high for t, hit in zip(counted, result.hits)]
    for label in labels:
        b = label.breakpoint
        at_truth = any(max(b.low_bytes, t.low) < min(b.high_bytes, t.high) for t in case.truths)
        result.found.append((b.low_bytes, b.high_bytes, label.text, label.is_protocol_switch))
        if label.is_protocol_switch and not at_truth:
            result.false_claims += 1
        elif not at_truth:
            result.others += 1
    ch = sweep.characteristics
    result.fitted_bandwidth = ch.line_bandwidth.value
    result.measured_bandwidth = ch.asymptotic_bandwidth.value
    if case.rate_bit_s:
        result.expected_bandwidth = expected_goodput(case.rate_bit_s, case.mtu)


def _size(n: int) -> str:
    for unit, scale in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale}{unit}"
    return str(n)


def _rate(v: float | None) -> str:
    return "-" if v is None else f"{v / 1e6:,.1f} MB/s"


def case_lines(r: Result) -> list[str]:
    c = r.case
    lines = [f"{c.name}  ({c.mpi}, sizes {c.sizes})"]
    if r.skipped:
        return lines + [f"  skipped: {r.skipped}"]
    lines.append("  set: " + (", ".join(f"{t.what} -> switch in ({t.low}, {t.high}]"
                                        + ("" if v else " [under 3 sizes on one side: not counted]")
                                        for t, v in zip(c.truths, r.visible)) or "no switch"))
    for low, high, text, _ in r.found:
        lines.append(f"  breakpoint {_size(low)}–{_size(high)}: {text}")
    if not r.found:
        lines.append("  breakpoints: none")
    lines.append(f"  eager-probe: {r.probe}")
    lines += [f"  {m}" for m in r.no_step]
    bw = f"  bandwidth: 1/β of the last segment {_rate(r.fitted_bandwidth)}, size/time at " \
         f"the largest size {_rate(r.measured_bandwidth)}"
    if r.expected_bandwidth:
        ratio = (r.fitted_bandwidth or r.measured_bandwidth or 0) / r.expected_bandwidth
        bw += f", expected {_rate(r.expected_bandwidth)} (ratio {ratio:.3f})"
    lines.append(bw)
    lines.append(f"  found {sum(r.hits)}/{len(r.hits)}; false protocol-switch claims "
                 f"{r.false_claims}; other breakpoints {r.others}; {r.seconds:.1f} s, load "
                 f"{r.load[0]:.2f} -> {r.load[1]:.2f}")
    return lines


def totals(results: list[Result]) -> str:
    ran = [r for r in results if not r.skipped]
    hits = sum(sum(r.hits) for r in ran)
    total = sum(len(r.hits) for r in ran)
    return (f"TOTAL: switches found with the set value inside the interval: {hits}/{total}; "
            f"false protocol-switch claims: {sum(r.false_claims for r in ran)}; other "
            f"breakpoints (cache/memory or unexplained): {sum(r.others for r in ran)}; "
            f"switches missed where the probe located the limit and the run said the time has no step there: "
            f"{sum(sum(r.flat) for r in ran)}; "
            f"cases run {len(ran)}/{len(results)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=[], help="run the cases whose name contains TEXT")
    ap.add_argument("--no-openmpi", action="store_true")
    ap.add_argument("--no-cluster", action="store_true")
    ap.add_argument("--keep", type=Path, help="keep the run files in DIR")
    ap.add_argument("--realtime", action="store_true",
                    help="run msgperf at SCHED_FIFO (chrt -f 10, root): other jobs on a shared machine then "
                         "cannot deschedule the ranks (MPICH and Open MPI cases)")
    ap.add_argument("--no-threshold-anchors", action="store_true",
                    help="do not let a threshold set to the byte in the environment tell the refinement where "
                         "to look (msgperf's own run and this script's analysis): what the sweep finds alone")
    args = ap.parse_args()
    if args.no_threshold_anchors:
        import msgperf.analysis.result as result_module  # noqa: PLC0415
        result_module.threshold_anchors = lambda run: ()
        MSGPERF[:] = [sys.executable, "-c", "import msgperf.analysis.result as r; r.threshold_anchors = lambda run: (); "
                      "from msgperf.cli import main; main()"]
    if args.realtime:
        MSGPERF[:0] = ["chrt", "-f", "10"]
    cases = [c for c in CASES if not args.only or any(t in c.name for t in args.only)]
    with tempfile.TemporaryDirectory() as name:
        workdir = args.keep or Path(name)
        workdir.mkdir(parents=True, exist_ok=True)
        print(f"curve zoo: {os.cpu_count()} CPUs, load average "
              f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}", flush=True)
        results = []
        for case in cases:
            results.append(run_case(case, workdir, args.no_openmpi, args.no_cluster))
            print("\n" + "\n".join(case_lines(results[-1])), flush=True)
        print("\n" + totals(results))
        print(f"(load average at the end: {' '.join(f'{v:.2f}' for v in os.getloadavg())} on "
              f"{os.cpu_count()} CPUs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
