"""Does msgperf's advice on a profile predict what the program does? End to end, with the CLI:

1. a ping-pong model run on this machine (``msgperf run --pattern pingpong --pattern memcpy``,
   pip MPICH, with the eager probe), unless ``--model RUN`` gives one;
2. ``tests/apps/halo.c`` (many small messages per neighbour) and ``halo_combined.c`` (the same
   data, one message per neighbour per step) profiled with ``msgperf profile`` on 2 ranks,
   ``--repeats`` times each, interleaved, the order alternating;
3. ``msgperf advise --profile P --model RUN --json`` on every profile.

Prints per repetition and then as medians [min–max] over the repetitions: the predicted
communication time of halo (slowest rank, with the model's interval) against the time its
profile measured inside MPI (slowest rank), their ratio; the predicted speedup of combining
(the advice on halo's profile: its predicted time over its predicted time with every
back-to-back sequence combined; and halo's prediction over halo_combined's) against the
measured one (halo's time inside MPI over halo_combined's, paired by repetition). The load
average before and after; the machine may be shared.

    .venv/bin/python bench/profile_advice.py [--model RUN] [--repeats 5] [--steps 4000]
                                             [--messages 16] [--bytes 8,64,256] [--compute-us 20]
                                             [--loggp] [--bibw] [--realtime]

``--steps`` is 4000 by default: the first steps of a job are slower (cold caches, first messages),
about 0.6 ms in all on this machine, which at 500 steps is a quarter of halo_combined's time inside
MPI and which the message model does not predict. ``--loggp`` adds the loggp pattern to the model
run (the advice then pipelines one-way back-to-back sends at the LogGP gap); ``--bibw`` the
osu-bibw pattern (sends to a peer that sends back at once then pipeline at its time per message).

Any program and a change made to it (issue 31: advice checked on code nobody here wrote):

    .venv/bin/python bench/profile_advice.py --model RUN --repeats 5 --realtime \
        --before 'mpiexec -n 2 ./app_split ARGS' --after 'mpiexec -n 2 ./app_combined ARGS'

profiles both commands in turn instead of halo/halo_combined and prints the same figures, and
the whole program's speedup: the slowest rank's MPI_Init→MPI_Finalize time before over after,
measured, against the advice's (``whole_program_combining.speedup`` in its JSON: that time less the
saving it predicts for the slowest rank, scaled by the program's measured/predicted when below 1,
less the copies of packing)
and against the same with the model's saving unscaled.

``--realtime`` runs the model run and the programs' launchers at ``chrt -f 10`` (SCHED_FIFO;
root): on a machine shared with other jobs it keeps them from descheduling the two ranks, which
otherwise turns most of a step into waiting (bench/RESULTS.md §10b). Linux's real-time throttling
(``/proc/sys/kernel/sched_rt_runtime_us``, 95 % by default) still leaves the other jobs a share,
and every run lasts seconds.
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from msgperf.launch.build import find_mpicc, find_mpiexec  # noqa: E402

MSGPERF = [sys.executable, "-m", "msgperf"]


def load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def run(argv: list[str], **kw) -> subprocess.CompletedProcess:
    done = subprocess.run(argv, capture_output=True, text=True, **kw)
    if done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}): {shlex.join(argv)}\n{done.stderr[-2000:]}")
    return done


def spread(values: list[float], scale: float = 1.0, digits: int = 3) -> str:
    v = [x * scale for x in values if not math.isnan(x)]  # NaN: a repetition the advice could not tell
    if not v:
        return "cannot tell"
    return f"{statistics.median(v):.{digits}g} [{min(v):.{digits}g}–{max(v):.{digits}g}]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", help="ping-pong run file or stored id (default: measure one now)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--steps", type=int, default=4000)
    ap.add_argument("--messages", type=int, default=16)
    ap.add_argument("--bytes", default="8,64,256")
    ap.add_argument("--compute-us", default="20")
    ap.add_argument("--loggp", action="store_true", help="measure the model with the loggp pattern too (the gap)")
    ap.add_argument("--bibw", action="store_true",
                    help="measure the model with the osu-bibw pattern too (the pace of sends to a peer that sends back)")
    ap.add_argument("--realtime", action="store_true", help="run the MPI jobs at SCHED_FIFO (chrt -f 10)")
    ap.add_argument("--before", help="a program's command line (launcher included) to advise on, instead of halo")
    ap.add_argument("--after", help="the same program after the change the advice suggests, instead of halo_combined")
    args = ap.parse_args()
    rt = ["chrt", "-f", "10"] if args.realtime else []
    work = Path(tempfile.mkdtemp(prefix="msgperf-profile-advice-"))
    mpicc_path = find_mpicc()
    mpicc, mpiexec = str(mpicc_path), str(find_mpiexec(mpicc_path) or "mpiexec")
    if bool(args.before) != bool(args.after):
        raise SystemExit("--before and --after go together")
    apps = {}
    if args.before:
        commands = {"halo": shlex.split(args.before), "halo_combined": shlex.split(args.after)}
    else:
        for name in ("halo", "halo_combined"):
            apps[name] = work / name
            run([mpicc, "-O2", "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-o", str(apps[name]),
                 str(ROOT / "tests" / "apps" / f"{name}.c")])
        app_args = ["--steps", str(args.steps), "--messages", str(args.messages), "--bytes", args.bytes,
                    "--compute-us", args.compute_us]
        commands = {name: [mpiexec, "-n", "2", str(apps[name]), *app_args] for name in apps}
    print(f"load average before: {load()}" + ("; MPI jobs at SCHED_FIFO (chrt -f 10)" if rt else ""))
    model = args.model
    if model is None:
        model = str(work / "model.jsonl")
        argv = [*rt, *MSGPERF, "run", "--pattern", "pingpong", "--pattern", "memcpy",
                *(["--pattern", "loggp"] if args.loggp else []), *(["--pattern", "osu-bibw"] if args.bibw else []),
                "--sizes", "0:256K",
                "--time-budget", "300ms", "-o", model, "--no-store", "--no-report", "-q"]
        print("model:", shlex.join(argv))
        run(argv)
    for name, argv in commands.items():
        print(f"{'before' if name == 'halo' else 'after'}: {shlex.join(argv)}")
    print(f"profile: msgperf profile -o P --no-store -- {shlex.join(rt)} COMMAND; advice: msgperf advise "
          f"--profile P --model {model} --json")
    rows = []
    for i in range(args.repeats):
        order = ("halo", "halo_combined") if i % 2 == 0 else ("halo_combined", "halo")
        advice = {}
        for name in order:
            out = work / f"{name}-{i}.jsonl"
            run([*MSGPERF, "profile", "-o", str(out), "--no-store", "--", *rt, *commands[name]])
            advice[name] = json.loads(run([*MSGPERF, "advise", "--profile", str(out), "--model", model,
                                           "--json"]).stdout)
        h, c = advice["halo"], advice["halo_combined"]
        # the model's own test: its transfers against the rank that waited least for the other
        least_h = min(h["ranks"], key=lambda r: r["waiting_added_s"])
        least_c = min(c["ranks"], key=lambda r: r["waiting_added_s"])
        row = {
            "transfers": least_h["transfers"]["value_s"], "least": least_h["measured_s"],
            "transfers_combined": least_c["transfers"]["value_s"], "least_combined": least_c["measured_s"],
            "waiting": max(r["waiting_added_s"] for r in h["ranks"]),
            "waiting_combined": max(r["waiting_added_s"] for r in c["ranks"]),
            "predicted": h["predicted"]["value_s"], "low": h["predicted"]["low_s"], "high": h["predicted"]["high_s"],
            "measured": h["measured_s"], "wait": max(r["wait_s"] for r in h["ranks"]),
            "pred_combined_prog": c["predicted"]["value_s"], "measured_combined": c["measured_s"],
            "advice_speedup": h["predicted_speedup_of_combining"],
            "saving": h["combine_saving_s"],
            # the whole program (the advice's whole_program_combining): the slowest rank's MPI_Init→
            # MPI_Finalize, the saving (scaled by measured/predicted when below 1, less the copies)
            "wall": h["whole_program_combining"]["wall_s"],
            "wall_combined": c["whole_program_combining"]["wall_s"],
            "saving_slowest": h["whole_program_combining"]["saving_s"],
            "scale": h["whole_program_combining"]["saving_scale"],
            "copies": h["whole_program_combining"]["copies_s"],
        }
        row["wall_speedup"] = row["wall"] / row["wall_combined"]
        row["cannot_tell"] = h["whole_program_combining"]["cannot_tell"]
        if row["saving_slowest"] is None or h["whole_program_combining"]["speedup"] is None:
            # the advice's "cannot tell" is its answer: the measured speedup is still printed against it
            print(f"rep {i}: the advice cannot tell the whole program's speedup: {row['cannot_tell']}")
            row["saving_slowest"] = row["wall_speedup_unscaled"] = row["wall_speedup_predicted"] = math.nan
        else:
            # the same with the model's saving as predicted, unscaled (the copies still taken off)
            unscaled = ((row["saving_slowest"] + row["copies"]) / row["scale"] - row["copies"]
                        if row["scale"] > 0 else math.nan)
            row["wall_speedup_unscaled"] = row["wall"] / (row["wall"] - unscaled) if row["wall"] > unscaled else math.nan
            row["wall_speedup_predicted"] = h["whole_program_combining"]["speedup"]
        row["ratio_transfers"] = row["least"] / row["transfers"]
        row["ratio_transfers_combined"] = row["least_combined"] / row["transfers_combined"]
        row["ratio"] = row["measured"] / row["predicted"]
        row["ratio_combined"] = row["measured_combined"] / row["pred_combined_prog"]
        row["pred_speedup_programs"] = row["predicted"] / row["pred_combined_prog"]
        row["measured_speedup"] = row["measured"] / row["measured_combined"]
        rows.append(row)
        print(f"rep {i}: halo predicted {row['predicted'] * 1e3:.3f} ms [{row['low'] * 1e3:.3f}–{row['high'] * 1e3:.3f}], "
              f"measured {row['measured'] * 1e3:.3f} ms in MPI ({row['wait'] * 1e3:.3f} ms waiting), ratio "
              f"{row['ratio']:.3g}; halo_combined predicted {row['pred_combined_prog'] * 1e3:.3f} ms, measured "
              f"{row['measured_combined'] * 1e3:.3f} ms, ratio {row['ratio_combined']:.3g}; speedup of combining "
              f"predicted {row['advice_speedup']:.3g} (advice) / {row['pred_speedup_programs']:.3g} (two predictions), "
              f"measured {row['measured_speedup']:.3g}; transfers against the rank that waited least: halo "
              f"{row['transfers'] * 1e3:.3f} ms predicted, {row['least'] * 1e3:.3f} ms measured "
              f"({row['ratio_transfers']:.3g}), halo_combined {row['transfers_combined'] * 1e3:.3f} ms, "
              f"{row['least_combined'] * 1e3:.3f} ms ({row['ratio_transfers_combined']:.3g}); waiting for the "
              f"slower rank (measured) {row['waiting'] * 1e3:.3f} / {row['waiting_combined'] * 1e3:.3f} ms", flush=True)
    col = lambda k: [r[k] for r in rows]  # noqa: E731
    print(f"\nmedians [min–max] over {len(rows)} repetitions")
    print(f"transfers (the model alone) against the rank that waited least: halo measured/predicted "
          f"{spread(col('ratio_transfers'))}, halo_combined {spread(col('ratio_transfers_combined'))}; "
          f"speedup of the transfers predicted {spread([t / u for t, u in zip(col('transfers'), col('transfers_combined'))])}, "
          f"measured {spread([t / u for t, u in zip(col('least'), col('least_combined'))])}")
    print(f"waiting for the slower rank (measured, slowest rank): halo {spread(col('waiting'), 1e3)} ms, "
          f"halo_combined {spread(col('waiting_combined'), 1e3)} ms")
    print(f"halo: predicted {spread(col('predicted'), 1e3)} ms, measured inside MPI {spread(col('measured'), 1e3)} ms, "
          f"measured/predicted {spread(col('ratio'))}")
    print(f"halo_combined: predicted {spread(col('pred_combined_prog'), 1e3)} ms, measured "
          f"{spread(col('measured_combined'), 1e3)} ms, measured/predicted {spread(col('ratio_combined'))}")
    print(f"speedup of combining: predicted by the advice {spread(col('advice_speedup'))}, by the two predictions "
          f"{spread(col('pred_speedup_programs'))}; measured {spread(col('measured_speedup'))} "
          f"(measured/predicted {spread([m / p for m, p in zip(col('measured_speedup'), col('advice_speedup'))])})")
    best_h, best_c = min(col("measured")), min(col("measured_combined"))
    print(f"best case (the smallest time inside MPI of each program): halo {best_h * 1e3:.3f} ms "
          f"(/predicted {best_h / statistics.median(col('predicted')):.3g}), halo_combined {best_c * 1e3:.3f} ms "
          f"(/predicted {best_c / statistics.median(col('pred_combined_prog')):.3g}), speedup {best_h / best_c:.3g}")
    print(f"whole program (slowest rank, MPI_Init→MPI_Finalize): before {spread(col('wall'), 1e3)} ms, after "
          f"{spread(col('wall_combined'), 1e3)} ms; speedup measured {spread(col('wall_speedup'))}, predicted by the "
          f"advice {spread(col('wall_speedup_predicted'))} (predicted/measured "
          f"{spread([p / m for p, m in zip(col('wall_speedup_predicted'), col('wall_speedup'))])}; its saving for the "
          f"slowest rank {spread(col('saving_slowest'), 1e3)} ms, scaled by {spread(col('scale'))}); with the model's "
          f"saving unscaled {spread(col('wall_speedup_unscaled'))} "
          f"(predicted/measured {spread([p / m for p, m in zip(col('wall_speedup_unscaled'), col('wall_speedup'))])})")
    told = [r for r in rows if not math.isnan(r["wall_speedup_predicted"])]
    wrong = sum(1 for r in told if (r["wall_speedup"] > 1) != (r["wall_speedup_predicted"] > 1))
    print(f"sign of the whole program's predicted speedup wrong in {wrong} of {len(told)} repetitions it was told"
          + (f"; the advice could not tell it in {len(rows) - len(told)} of {len(rows)}" if len(told) < len(rows) else ""))
    signs = sum(1 for r in rows if (r["measured_speedup"] > 1) == (r["advice_speedup"] > 1))
    print(f"sign of the advice right in {signs} of {len(rows)} repetitions")
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
