"""Does `msgperf run --refine` locate a switch whose place was set, on real MPICH?

    .venv/bin/python bench/refine_real.py [--runs 6] [--cell 32768] [--sizes 4K:1M] [--realtime] [--keep DIR]

MPICH's shared-memory cell size (MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE) sets the eager
limit: the switch lies in (cell - 1024, cell] (payload = cell less a header). Each run is
`msgperf run --sizes S --pattern pingpong --pattern eager-probe --refine`; per run it prints the
interval the sweep alone gave (launch 0), the interval after refinement, whether that meets the
truth and is at most an eighth of an octave wide, the eager-probe's value, the level factors
of the refinement launches (analysis/launches/launch_alignment.py) and the load average.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from msgperf.analysis import AnalysisError, analyze_series  # noqa: E402
from msgperf.records.runfile_read import read_run  # noqa: E402


def intervals(model):
    return [(b.low_bytes, b.high_bytes) for b in model.sweep.piecewise.breakpoints]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=6)
    ap.add_argument("--cell", type=int, default=32768)
    ap.add_argument("--sizes", default="4K:1M")
    ap.add_argument("--realtime", action="store_true",
                    help="run msgperf at SCHED_FIFO (chrt -f 10, root): other jobs on a shared machine then "
                         "cannot deschedule the ranks")
    ap.add_argument("--keep", type=Path, help="copy each run file into this directory")
    a = ap.parse_args()
    env = {**os.environ, "MPIR_CVAR_CH4_PACK_BUFFER_SIZE": "262144",
           "MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE": str(a.cell), "MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD": "16777216"}
    low, high = a.cell - 1024, a.cell
    located = found_by_sweep = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(a.runs):
            out = Path(tmp) / f"run{i}.jsonl"
            load = os.getloadavg()[0]
            realtime = ["chrt", "-f", "10"] if a.realtime else []
            r = subprocess.run([*realtime, sys.executable, "-m", "msgperf", "run", "--sizes", a.sizes, "--pattern", "pingpong",
                                "--pattern", "eager-probe", "--refine", "--no-report", "--no-store", "-q", "-o", str(out)],
                               env=env, capture_output=True, text=True)
            if r.returncode != 0:
                print(f"run {i}: failed: {r.stderr.strip()[-300:]}")
                continue
            run = read_run(out).run
            if a.keep:
                a.keep.mkdir(parents=True, exist_ok=True)
                (a.keep / out.name).write_bytes(out.read_bytes())
            probe = next((m.extra.get("eager_limit_bytes") for m in run.measurements if m.pattern == "eager-probe"), None)
            try:
                sweep = intervals(analyze_series(run, "pingpong", launch=0))
                model = analyze_series(run, "pingpong")
            except AnalysisError as exc:
                print(f"run {i}: {exc}")
                continue
            refined = intervals(model)
            meets = lambda iv: max(iv[0], low) < min(iv[1], high)  # noqa: E731
            hit = [iv for iv in refined if meets(iv)]
            ok = bool(hit) and all(math.log2(h / l) <= 1 / 8 + 1e-9 for l, h in hit)
            located += ok
            found_by_sweep += any(meets(iv) for iv in sweep)
            factors = [re.search(r"multiplied by ([0-9.]+)", c.message).group(1)
                       for c in model.caveats if c.kind == "launch_aligned"]
            kept = [c.message for c in model.caveats if c.kind == "not_narrowed"]
            print(f"run {i}: load {load:.2f}; sweep {sweep}; refined {refined}; located {ok}; "
                  f"eager-probe {probe}; launches {len(run.launches)}; aligned x{', x'.join(factors) or ' none'}"
                  + "".join(f"; {k}" for k in kept))
    print(f"truth ({low}, {high}]: sweep alone met it in {found_by_sweep}/{a.runs}; "
          f"refined to <= 1/8 octave around it in {located}/{a.runs}")


if __name__ == "__main__":
    main()
