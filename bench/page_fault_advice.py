"""Does the advice on page faults inside collectives predict what keeping the pages does? End to end:

1. a ping-pong model run (``advise --profile`` needs one; the page-fault advice does not use it),
   unless ``--model RUN`` gives one;
2. the program profiled (``msgperf profile``) as it is, and again with the environment the advice
   suggests (``page_faults.setting`` of the first profile's advice, or ``--setting``), ``--repeats``
   times each, interleaved, the order alternating;
3. ``msgperf advise --profile P --model RUN --json`` on every profile.

Prints per repetition, then medians [min–max]: the slowest rank's MPI_Init→MPI_Finalize before
and after, the measured speedup (paired by repetition), the advice's predicted speedup (its
``page_faults.speedup``, from the profile before), predicted/measured, the page faults a call the
advice saw before and after (after: what is left), and how often the predicted speedup's sign was
wrong. The load average before and after; the machine may be shared.

    .venv/bin/python bench/page_fault_advice.py --realtime --repeats 5 \\
        --before 'mpiexec -n 2 ./reduce 1000 65536'     # PRK MPI1 Reduce, built by hand
    .venv/bin/python bench/page_fault_advice.py --realtime --mpicc /usr/bin/mpicc.openmpi \
        --before 'mpirun.openmpi -n 2 ./reduce_ompi 1000 65536'   # Open MPI: --mpicc of its mpicc

``--realtime`` runs the model run and the programs' launchers at ``chrt -f 10`` (SCHED_FIFO; root).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from profile_advice import MSGPERF, load, run, spread  # noqa: E402 (the same helpers as the combining bench)


def faults_per_call(advice: dict) -> float:
    """The most page faults a call of any collective row, any rank (0: none faulted)."""
    rows = (advice.get("page_faults") or {}).get("rows") or []
    return max((r["faults_per_call"] for r in rows), default=0.0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="the program's command line, launcher included")
    ap.add_argument("--setting", help="the environment to keep the pages (default: the advice's own)")
    ap.add_argument("--model", help="a ping-pong run file (default: measure one now)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--realtime", action="store_true", help="run the MPI jobs at SCHED_FIFO (chrt -f 10)")
    ap.add_argument("--mpicc", help="the program's MPI's mpicc, for msgperf profile (another MPI than the default)")
    args = ap.parse_args()
    rt = ["chrt", "-f", "10"] if args.realtime else []
    work = Path(tempfile.mkdtemp(prefix="msgperf-page-faults-"))
    print(f"load average before: {load()}" + ("; MPI jobs at SCHED_FIFO (chrt -f 10)" if rt else ""))
    model = args.model
    if model is None:
        model = str(work / "model.jsonl")
        run([*rt, *MSGPERF, "run", "--pattern", "pingpong", "--sizes", "0:64K", "--time-budget", "200ms",
             "-o", model, "--no-store", "--no-report", "-q"])
    command = shlex.split(args.before)
    setting = shlex.split(args.setting) if args.setting else None

    def profiled(name: str, env: list[str]) -> dict:
        out = work / f"{name}.jsonl"
        prefix = ["env", *env] if env else []
        run([*MSGPERF, "profile", "-o", str(out), "--no-store", *(["--mpicc", args.mpicc] if args.mpicc else []),
             "--", *prefix, *rt, *command])
        return json.loads(run([*MSGPERF, "advise", "--profile", str(out), "--model", model, "--json"]).stdout)

    rows = []
    for i in range(args.repeats):
        got = {}
        for side in (("before", "after") if i % 2 == 0 else ("after", "before")):
            if side == "after" and setting is None:  # the advice's own setting, from a profile before
                first = got.get("before") or profiled(f"setting-{i}", [])
                setting = shlex.split((first.get("page_faults") or {}).get("setting") or "")
                if not setting:
                    raise SystemExit("the advice suggests no setting (no collective faults its pages in at every "
                                     "call, or it cannot tell): nothing to check")
                print(f"after: {' '.join(setting)} {args.before}")
            got[side] = profiled(f"{side}-{i}", setting if side == "after" else [])
        b, a = got["before"], got["after"]
        pf = b.get("page_faults") or {}
        # the slowest rank's MPI_Init→MPI_Finalize, as the advice's page_faults.wall_s takes it
        wall_b, wall_a = b["whole_program_combining"]["wall_s"], a["whole_program_combining"]["wall_s"]
        pages = [r["page_s"] for r in pf.get("rows") or [] if r["rank"] == pf.get("saving_rank")]
        row = {"wall_before": wall_b, "wall_after": wall_a, "measured": wall_b / wall_a,
               "predicted": pf.get("speedup"), "saving": pf.get("saving_s"), "saved": wall_b - wall_a,
               "page_s": pages[0] if pages else None, "faults_before": faults_per_call(b),
               "faults_after": faults_per_call(a), "cannot_tell": pf.get("cannot_tell")}
        rows.append(row)
        pred = f"{row['predicted']:.3g}" if row["predicted"] is not None else f"cannot tell ({row['cannot_tell']})"
        saving = "n/a" if row["saving"] is None else f"{row['saving'] * 1e3:.1f} ms"
        page = "n/a" if row["page_s"] is None else f"{row['page_s'] * 1e6:.2f} µs"
        print(f"rep {i}: before {wall_b * 1e3:.1f} ms ({row['faults_before']:.0f} faults a call), after "
              f"{wall_a * 1e3:.1f} ms ({row['faults_after']:.0f}); speedup measured {row['measured']:.3g}, "
              f"predicted {pred}; saving measured {row['saved'] * 1e3:.1f} ms, predicted {saving} (a page {page})",
              flush=True)
    col = lambda k: [r[k] for r in rows]  # noqa: E731
    told = [r for r in rows if r["predicted"] is not None]
    print(f"\nmedians [min–max] over {len(rows)} repetitions")
    print(f"slowest rank's MPI_Init→MPI_Finalize: before {spread(col('wall_before'), 1e3)} ms, after "
          f"{spread(col('wall_after'), 1e3)} ms")
    print(f"page faults a call (the most of any row): before {spread(col('faults_before'))}, after "
          f"{spread(col('faults_after'))}")
    print(f"speedup measured {spread(col('measured'))}, predicted {spread([r['predicted'] for r in told])}, "
          f"predicted/measured {spread([r['predicted'] / r['measured'] for r in told])}")
    print(f"saving (before − after) measured {spread(col('saved'), 1e3)} ms, predicted "
          f"{spread([r['saving'] for r in told], 1e3)} ms, predicted/measured "
          f"{spread([r['saving'] / r['saved'] for r in told if r['saved'] > 0])}; a page "
          f"{spread([r['page_s'] for r in told if r['page_s']], 1e6)} µs (the saving rank's, at MPI_Finalize)")
    wrong = sum(1 for r in told if (r["predicted"] > 1) != (r["measured"] > 1))
    print(f"sign of the predicted speedup wrong in {wrong} of {len(told)} repetitions it was told"
          + (f"; cannot tell in {len(rows) - len(told)}" if len(told) < len(rows) else ""))
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
