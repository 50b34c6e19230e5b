"""Under load: does `msgperf run` stay right beside a disturbance, or say it cannot tell? (issue 27)

    .venv/bin/python bench/under_load.py [--runs 5] [--only TEXT ...] [--no-openmpi] [--keep DIR]
                                         [--eager MPI=BYTES ...]

Cases: the MPI (PyPI's MPICH, the default; Debian's Open MPI, `--mpicc /usr/bin/mpicc.openmpi`)
× the sizes (the default run; `--sizes 1K:64K`) × the condition:

- quiet: nothing started beside the run;
- busy: one Python process spinning (`while True: pass`) pinned to CPU 1 with
  os.sched_setaffinity, started before the run and killed after it;
- second job: a second `msgperf run --sizes 0:1K --time-budget 5s --precision 0.001% --no-probe`
  of the same MPI (two more ranks, each polling, for a minute) started before the run and stopped
  after it (SIGTERM: msgperf ends its job).

Each case runs --runs times, cases interleaved (round i runs every case once), so a change in
the machine's load spreads over all of them. Every command runs with MSGPERF_HOME and the XDG
directories in one temporary directory (the kernels are built there once per MPI before timing,
the runs use --no-store --no-report and write their run file there), so nothing lands in ~.

Per run `msgperf show RUN --json` gives the answer block; it is judged against the quiet runs of
the same MPI and sizes (the reference):

- eager limit: right when it is the quiet value (the most frequent exact value of the quiet
  runs); "cannot tell" when the answer says so (why_not) and the bracket it gives, if any, holds
  the quiet value; wrong otherwise (another value, or a bracket that excludes the quiet value);
- latency (0 B, one way) and peak bandwidth: "within" when the value lies inside the union of the
  quiet runs' intervals (for a quiet run: of the *other* quiet runs' intervals, so that the quiet
  runs are tested too); "cannot tell" when the answer gives no value (marked disturbed: since
  issue 27 item 2, a figure measured while disturbed is "cannot tell", analysis/answer.py); else
  "outside, warned only" when the answer carries a disturbance warning (busy_machine, shared_core,
  oversubscribed, refinement_disturbed, launch_spread) but still prints the value, and "outside,
  unwarned" otherwise (both miss the goal);
- switch labels: a switch labelled eager_rendezvous whose interval (low, high] does not hold the
  quiet eager limit + 1 (the first size sent by rendezvous) is a wrong label.

It prints the reference per MPI and sizes, a markdown table per case and the totals, the load
average, and the command that produced them; per-run lines go to stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

MSGPERF = [sys.executable, "-m", "msgperf"]
OPENMPI_CC = "/usr/bin/mpicc.openmpi"
MPIS = (("mpich", ()), ("openmpi", ("--mpicc", OPENMPI_CC)))
SIZES = (("default", ()), ("1K:64K", ("--sizes", "1K:64K")))
CONDITIONS = ("quiet", "busy", "second job")
DISTURBED = {"busy_machine", "shared_core", "oversubscribed", "refinement_disturbed", "launch_spread"}
BUSY_CPU = 1
BUSY = f"import os\nos.sched_setaffinity(0, {{{BUSY_CPU}}})\nwhile True: pass\n"
SETTLE_S = 1.0  # after starting a disturbance: the busy loop is spinning, the second job's ranks are up
SECOND_JOB_SETTLE_S = 3.0


@dataclass(frozen=True)
class Case:
    mpi: str
    mpi_args: tuple[str, ...]
    sizes: str
    size_args: tuple[str, ...]
    condition: str

    @property
    def name(self) -> str:
        return f"{self.mpi} {self.sizes} {self.condition}"

    @property
    def reference(self) -> tuple[str, str]:
        return self.mpi, self.sizes


@dataclass
class Figure:
    value: float | None
    low: float | None
    high: float | None
    why_not: str


@dataclass
class Run:
    case: Case
    index: int
    failed: str = ""
    note: str = ""  # e.g. the second job ended before the run did
    seconds: float = 0.0
    load: float = 0.0  # 1-min load average when the run began
    eager: Figure | None = None
    latency: Figure | None = None
    bandwidth: Figure | None = None
    eager_switches: list[tuple[int, int]] = field(default_factory=list)  # (low, high] of eager_rendezvous labels
    warnings: list[str] = field(default_factory=list)


def _figure(d: dict | None) -> Figure:
    d = d or {}
    return Figure(d.get("value"), d.get("low"), d.get("high"), d.get("why_not") or "")


def parse_answer(run: Run, answer: dict) -> None:
    run.eager = _figure(answer.get("eager_limit"))
    run.latency = _figure(answer.get("latency"))
    run.bandwidth = _figure(answer.get("peak_bandwidth"))
    run.eager_switches = [(int(s["low_bytes"]), int(s["high_bytes"])) for s in answer.get("switches") or []
                          if "eager_rendezvous" in (s.get("kinds") or [])]
    run.warnings = [w["kind"] for w in answer.get("warnings") or []]


def _env(root: Path) -> dict[str, str]:
    return {**os.environ, "MSGPERF_HOME": str(root / "home"), "XDG_CACHE_HOME": str(root / "cache"),
            "XDG_DATA_HOME": str(root / "data"), "XDG_CONFIG_HOME": str(root / "config")}


def _last_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1][:160] if lines else ""


def _start_disturbance(case: Case, where: Path, env: dict[str, str]) -> subprocess.Popen | None:
    if case.condition == "busy":
        proc = subprocess.Popen([sys.executable, "-c", BUSY], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(SETTLE_S)
        return proc
    if case.condition == "second job":
        # 12 sizes of 5 s each (the precision asked is never reached): a minute of two polling
        # ranks, longer than any run here; stopped when the run ends
        args = ["run", "--sizes", "0:1K", "--time-budget", "5s", "--precision", "0.001%", "--no-probe",
                "--no-store", "--no-report", "-q", "-o", str(where / "second.jsonl"), *case.mpi_args]
        proc = subprocess.Popen(MSGPERF + args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        time.sleep(SECOND_JOB_SETTLE_S)
        return proc
    return None


def _stop(proc: subprocess.Popen, condition: str) -> None:
    if condition == "busy":
        proc.kill()
        proc.wait()
        return
    # msgperf ends its own job on SIGTERM (launch/children.py); whatever is left of the session
    # this bench started then gets SIGKILL
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def measure(case: Case, index: int, root: Path, keep: Path | None) -> Run:
    run = Run(case, index)
    where = Path(tempfile.mkdtemp(dir=root, prefix="run"))
    env = _env(root)
    out = where / "run.jsonl"
    disturbance = _start_disturbance(case, where, env)
    try:
        if disturbance is not None and disturbance.poll() is not None:
            run.note = f"the {case.condition} ended before the run began (exit {disturbance.returncode})"
        run.load = os.getloadavg()[0]
        began = time.perf_counter()
        try:
            proc = subprocess.run(MSGPERF + ["run", *case.size_args, *case.mpi_args, "--no-store", "--no-report",
                                             "-q", "-o", str(out)], env=env, capture_output=True, text=True,
                                  timeout=600)
        except subprocess.TimeoutExpired:
            run.failed = "run: still running after 600 s"
            return run
        finally:
            run.seconds = time.perf_counter() - began
        if disturbance is not None and not run.note and disturbance.poll() is not None:
            run.note = f"the {case.condition} ended during the run (exit {disturbance.returncode})"
    finally:
        if disturbance is not None:
            _stop(disturbance, case.condition)
    if proc.returncode != 0 or not out.exists():
        run.failed = f"run: exit {proc.returncode}: {_last_line(proc.stderr or proc.stdout)}"
        return run
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        shutil.copy(out, keep / f"{case.name.replace(' ', '-')}-{index + 1}.jsonl")
    shown = subprocess.run(MSGPERF + ["show", str(out), "--json"], env=env, capture_output=True, text=True,
                           timeout=300)
    if shown.returncode != 0:
        run.failed = f"show: exit {shown.returncode}: {_last_line(shown.stderr)}"
        return run
    answer = json.loads(shown.stdout).get("answer")
    if answer is None:
        run.failed = "show --json: no answer"
        return run
    parse_answer(run, answer)
    return run


# --- judging -------------------------------------------------------------------------------------


@dataclass
class Reference:
    eager: int | None  # the most frequent exact eager limit of the quiet runs
    eager_seen: Counter  # every exact value the quiet runs gave
    latency: list[tuple[float, float]]  # the quiet runs' intervals (index-aligned with quiet)
    bandwidth: list[tuple[float, float]]
    quiet: list[Run]


def reference(quiet: list[Run], known: int | None = None) -> Reference:
    """The quiet runs' reference; ``known``: the eager limit to judge against when given (--eager:
    the quiet value of an earlier, quieter bench, for a machine whose "quiet" runs are loaded)."""
    ok = [r for r in quiet if not r.failed]
    seen = Counter(int(r.eager.value) for r in ok if r.eager.value is not None)
    eager = known if known is not None else seen.most_common(1)[0][0] if seen else None

    def intervals(get) -> list[tuple[float, float]]:
        out = []
        for r in ok:
            f = get(r)
            out.append((f.low, f.high) if f.low is not None and f.high is not None else None)
        return out

    return Reference(eager, seen, intervals(lambda r: r.latency), intervals(lambda r: r.bandwidth), ok)


def judge_eager(run: Run, ref: Reference) -> str:
    """'right', 'cannot tell', 'wrong' or 'no reference'."""
    e = run.eager
    if ref.eager is None:
        return "no reference"
    if e.value is not None:
        return "right" if int(e.value) == ref.eager else "wrong"
    if e.low is not None:  # "the probe saw LOW B sent eagerly and HIGH B not": the limit in [low, high)
        inside = e.low <= ref.eager and (e.high is None or ref.eager < e.high)
        return "cannot tell" if inside else "wrong"
    return "cannot tell"


def judge_figure(run: Run, which: str, ref: Reference) -> str:
    """'within', 'cannot tell', 'outside, warned only', 'outside, unwarned' or 'no reference'."""
    f = getattr(run, which)
    if f.value is None:
        return "cannot tell"
    intervals = [iv for r, iv in zip(ref.quiet, getattr(ref, which)) if iv is not None and r is not run]
    if not intervals:
        return "no reference"
    if any(low <= f.value <= high for low, high in intervals):
        return "within"
    return "outside, warned only" if DISTURBED & set(run.warnings) else "outside, unwarned"


def wrong_labels(run: Run, ref: Reference) -> int | None:
    if ref.eager is None:
        return None if run.eager_switches else 0
    first = ref.eager + 1
    return sum(1 for low, high in run.eager_switches if not (low < first <= high))


def _spread(values: list[float], scale: float, fmt: str) -> str:
    if not values:
        return "-"
    v = [x * scale for x in values]
    return f"{statistics.median(v):{fmt}} ({min(v):{fmt}}–{max(v):{fmt}})"


def _counts(verdicts: list[str], order: tuple[str, ...]) -> str:
    c = Counter(verdicts)
    return " / ".join(str(c.get(k, 0)) for k in order)


FIG_ORDER = ("within", "cannot tell", "outside, warned only", "outside, unwarned")


def report(cases: list[Case], runs: list[Run], argv: list[str], began: str,
           known: dict[str, int] | None = None) -> None:
    refs = {}
    for key in {c.reference for c in cases}:
        refs[key] = reference([r for r in runs if r.case.reference == key and r.case.condition == "quiet"],
                              (known or {}).get(key[0]))
    load = os.getloadavg()
    print(f"`{shlex.join(['python', 'bench/under_load.py', *argv])}`, {began} to "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average at the end "
          f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1 / 5 / 15 min), {os.cpu_count()} cores")
    print()
    print("Reference (the quiet runs):")
    print()
    print("| MPI, sizes | eager limit (values: runs) | latency intervals, µs (hull) "
          "| peak bandwidth intervals, GB/s (hull) |")
    print("|---|---|---|---|")
    for key in sorted(refs):
        ref = refs[key]
        values = ", ".join(f"{v} B: {n}" for v, n in sorted(ref.eager_seen.items())) or "none exact"
        lat = [iv for iv in ref.latency if iv]
        bw = [iv for iv in ref.bandwidth if iv]
        lat_s = f"{min(a for a, _ in lat) * 1e6:.3f}–{max(b for _, b in lat) * 1e6:.3f}" if lat else "-"
        bw_s = f"{min(a for a, _ in bw) / 1e9:.2f}–{max(b for _, b in bw) / 1e9:.2f}" if bw else "-"
        print(f"| {key[0]}, {key[1]} | {values} (reference: {ref.eager if ref.eager is not None else '-'}) "
              f"| {lat_s} | {bw_s} |")
    print()
    print("| case | runs ok | load (1 min) | eager limit seen | eager: right / cannot tell / wrong "
          "| latency µs | latency: within / cannot tell / outside, warned only / outside, unwarned "
          "| peak bandwidth GB/s | bandwidth: within / cannot tell / outside, warned only / outside, unwarned "
          "| wrong eager labels (of labelled) | warnings |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    totals = {"runs": 0, "ok": 0, "eager": [], "lat": [], "bw": [], "wrong_labels": 0, "labels": 0}
    for case in cases:
        mine = [r for r in runs if r.case == case]
        ok = [r for r in mine if not r.failed]
        ref = refs[case.reference]
        eager_v = [judge_eager(r, ref) for r in ok]
        lat_v = [judge_figure(r, "latency", ref) for r in ok]
        bw_v = [judge_figure(r, "bandwidth", ref) for r in ok]
        seen = Counter(int(r.eager.value) if r.eager.value is not None else
                       (f"cannot tell [{r.eager.low:.0f}, {r.eager.high:.0f})" if r.eager.low is not None
                        and r.eager.high is not None else "cannot tell") for r in ok)
        labels = sum(len(r.eager_switches) for r in ok)
        wrong = [wrong_labels(r, ref) for r in ok]
        wrong_n = sum(w for w in wrong if w is not None)
        unjudged = any(w is None for w in wrong)
        warns = Counter(k for r in ok for k in r.warnings)
        totals["runs"] += len(mine)
        totals["ok"] += len(ok)
        totals["eager"] += eager_v
        totals["lat"] += lat_v
        totals["bw"] += bw_v
        totals["wrong_labels"] += wrong_n
        totals["labels"] += labels
        print(f"| {case.name} | {len(ok)}/{len(mine)} | {_spread([r.load for r in mine], 1, '.1f')} "
              f"| {', '.join(f'{k}: {n}' for k, n in seen.items()) or '-'} "
              f"| {_counts(eager_v, ('right', 'cannot tell', 'wrong'))} "
              f"| {_spread([r.latency.value for r in ok if r.latency.value is not None], 1e6, '.3f')} "
              f"| {_counts(lat_v, FIG_ORDER)} "
              f"| {_spread([r.bandwidth.value for r in ok if r.bandwidth.value is not None], 1e-9, '.2f')} "
              f"| {_counts(bw_v, FIG_ORDER)} "
              f"| {wrong_n}{' (+ unjudged: no quiet value)' if unjudged else ''} ({labels}) "
              f"| {', '.join(f'{k} {n}' for k, n in sorted(warns.items())) or '-'} |")
    print(f"| **total** | {totals['ok']}/{totals['runs']} | | "
          f"| {_counts(totals['eager'], ('right', 'cannot tell', 'wrong'))} | "
          f"| {_counts(totals['lat'], FIG_ORDER)} | | {_counts(totals['bw'], FIG_ORDER)} "
          f"| {totals['wrong_labels']} ({totals['labels']}) | |")
    print()
    print("median (min–max) over the runs that completed; a quiet run's latency and bandwidth are judged "
          "against the other quiet runs' intervals")
    for r in runs:
        if r.failed:
            print(f"failed, {r.case.name} {r.index + 1}: {r.failed}")
        if r.note:
            print(f"note, {r.case.name} {r.index + 1}: {r.note}")
    for r in runs:
        if r.failed:
            continue
        ref = refs[r.case.reference]
        bad = []
        if judge_eager(r, ref) == "wrong":
            bad.append(f"eager limit {r.eager.value if r.eager.value is not None else (r.eager.low, r.eager.high)} "
                       f"({r.eager.why_not or 'a value'}) against {ref.eager}")
        for which in ("latency", "bandwidth"):
            if judge_figure(r, which, ref).startswith("outside"):
                f = getattr(r, which)
                bad.append(f"{which} {f.value:.4g} [{f.low}, {f.high}] outside the quiet intervals, "
                           f"warnings {r.warnings or 'none'}")
        if wrong_labels(r, ref):
            bad.append(f"eager_rendezvous switch(es) {r.eager_switches} against a quiet limit of {ref.eager} B")
        for b in bad:
            print(f"wrong, {r.case.name} {r.index + 1}: {b}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="runs of each case (default 5)")
    ap.add_argument("--only", nargs="*", default=[],
                    help="run the cases whose name contains every TEXT (e.g. --only openmpi 1K:64K); "
                         "the quiet case of each MPI and sizes picked runs too: it is the reference")
    ap.add_argument("--no-openmpi", action="store_true", help="PyPI's MPICH only")
    ap.add_argument("--keep", type=Path, help="keep the run files in DIR")
    ap.add_argument("--eager", action="append", default=[], metavar="MPI=BYTES",
                    help="judge MPI's eager limit against BYTES (e.g. mpich=8112), not the quiet runs' value: "
                         "for a machine so loaded that its quiet runs are disturbed too")
    args = ap.parse_args()
    try:
        known = {k: int(v) for k, v in (e.split("=", 1) for e in args.eager)}
    except ValueError:
        ap.error("--eager takes MPI=BYTES, e.g. mpich=8112")
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    cases = [Case(mpi, margs, sizes, sargs, cond) for mpi, margs in MPIS for sizes, sargs in SIZES
             for cond in CONDITIONS]
    if args.no_openmpi or not Path(OPENMPI_CC).exists():
        cases = [c for c in cases if c.mpi != "openmpi"]
    picked = [c for c in cases if all(t in c.name for t in args.only)]
    if not picked:
        ap.error("--only picks no case; the cases: " + "; ".join(c.name for c in cases))
    keys = {c.reference for c in picked}
    cases = [c for c in cases if c in picked or (c.condition == "quiet" and c.reference in keys)]
    began = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="under_load") as tmp:
        root = Path(tmp)
        for mpi_args in {c.mpi_args for c in cases}:  # build once, before timing
            subprocess.run(MSGPERF + ["build", *mpi_args], env=_env(root), check=True, capture_output=True)
        for i in range(args.runs):
            for case in cases:
                run = measure(case, i, root, args.keep)
                runs.append(run)
                eager = run.eager and (run.eager.value if run.eager.value is not None
                                       else "cannot tell: " + run.eager.why_not)
                said = run.failed or (
                    f"{run.seconds:.1f} s, load {run.load:.1f}, eager {eager}, "
                    f"latency {run.latency.value}, peak {run.bandwidth.value}, eager switches {run.eager_switches}, "
                    f"warnings {run.warnings}")
                print(f"{case.name} {i + 1}/{args.runs}: {said}{'; ' + run.note if run.note else ''}",
                      file=sys.stderr, flush=True)
    report(cases, runs, sys.argv[1:], began, known)
    return 0


if __name__ == "__main__":
    sys.exit(main())
