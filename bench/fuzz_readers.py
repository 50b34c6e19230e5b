"""Fuzz the run-file reader (and the peer-output importers, where present) with a million
mutated inputs. The only allowed outcomes are a parsed result or a clean MsgperfError with a
one-line message; anything else is printed and counted as a failure.

    .venv/bin/python bench/fuzz_readers.py [--inputs 1000000] [--seed 1] [--workers 2]

With ``--commands`` every input the reader accepts is also written to a file and driven through
every command after the reader, in-process (show, show --json, fit, export csv/json/run, import,
report; tests/records/fuzz_commands.py): success or a clean one-line ``error:``, nothing else, and
no command over ``--hang-s`` seconds of CPU (or six times that of wall time: the machine may be
shared). An input the reader refuses is refused by every command through that same reader; one
in ``--refused-every`` of those is driven through the commands as well, to check that they say so
in one line. ``report`` (its figures drawn as SVG, ~0.3 s) runs on a random one accepted input in
``--report-every``; the summary says on how many. ``--minutes`` stops early and prints the real
count. With ``--commands``, ``--spill`` has the commands read every run as a large one is read (its
samples in a temporary file; the reader stage parses text and never spills).

Input i is mutated by its own generator, seeded by (``--seed``, i): the inputs do not depend on
``--workers`` (one process per core by default, each with its own temporary directory, home and
cache, over the inputs i = worker (mod workers)), and ``--input i`` replays one of them alone. A
worker stuck beyond the hard stop (in C code, where the alarm cannot interrupt it) is killed by
the parent and counted as a hang.

    .venv/bin/python bench/fuzz_readers.py --commands --inputs 1000000 --report-every 100
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

if __name__ == "__main__":  # one BLAS thread per worker: the workers are the parallelism, and the
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # CPU time is per process
        os.environ.setdefault(_var, "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from msgperf.errors import MsgperfError  # noqa: E402
from msgperf.records.runfile_read import parse_run_text  # noqa: E402

TOKENS = ['"', "{", "}", "[", "]", ",", ":", "-", "NaN", "1e308", "-1", "0", "null", "true", "\n", "\\u0000",
          '"type":"run"', '"samples_s":[', "\x1b[31m", "<script>", "9" * 30]


def small_every_family() -> str:
    """A run with a pattern of every family (the fields the analysis reads from ``extra``), few
    samples, as run-file text."""
    import dataclasses

    import msgspec
    from msgperf.records.runfile_write import run_records
    from tests.factories import every_family_run
    run = every_family_run(7)
    keep = (0, 1024, 65536)
    ms = tuple(dataclasses.replace(m, samples_s=m.samples_s[:8]) for m in run.measurements if m.bytes in keep
               or m.pattern in ("combine", "loggp"))
    plan = msgspec.structs.replace(run.info.plan, sizes=tuple(sorted({m.bytes for m in ms})))
    run = msgspec.structs.replace(run, measurements=ms, info=msgspec.structs.replace(run.info, plan=plan))
    return "".join(json.dumps(r) + "\n" for r in run_records(run))


def seeds(rich: bool = False) -> list[tuple[str, object, str | None]]:
    """(seed text, its reader, the peer tool or None for a msgperf run file)."""
    from tests.records.test_read import good_text
    run_reader = lambda text: parse_run_text(text, "fuzz")  # noqa: E731
    targets: list[tuple[str, object, str | None]] = [(good_text(), run_reader, None)]
    if rich:
        targets.append(((ROOT / "tests" / "data" / "kernel-runs" / "pingpong-unexpected-ring.jsonl").read_text(),
                        run_reader, None))
        targets.append((small_every_family(), run_reader, None))
    try:
        from msgperf.records import importers
    except ImportError:
        return targets
    peer_dir = ROOT / "tests" / "data" / "peer-outputs"
    for path in sorted(peer_dir.glob("*")):
        tool = "netpipe" if path.suffix == ".np" else path.name.split("_")[0]
        if tool in importers.TOOLS:
            targets.append((path.read_text(),
                            lambda text, tool=tool, name=path.name: importers.parse_foreign(tool, text, name), tool))
    return targets


HOSTILE_VALUES = ["x", "", "\x1b[31m=1+1", -1, 0, 1, 2 ** 53 + 1, 2 ** 63, -2 ** 63, 10 ** 30, 1e-300, 1e300, -0.0,
                  True, False, None, [], [1], [[0, 1]], [[0, 1], [1, 0]], [1e-6], ["x"], {}, {"a": 1}, [None]]


def mutate_field(text: str, rng: random.Random) -> str | None:
    """One field of one record of a JSON Lines text set to a hostile value (None: not JSON Lines)."""
    lines = text.splitlines()
    try:
        records = [json.loads(line) for line in lines]
    except ValueError:
        return None
    if not records or not all(isinstance(r, dict) for r in records):
        return None
    record = rng.choice(records)
    keys = [k for k in record if k != "type"]
    if not keys:
        return None
    record[rng.choice(keys)] = rng.choice(HOSTILE_VALUES)
    return "".join(json.dumps(r) + "\n" for r in records)


def mutate_bytes(text: str, rng: random.Random, tokens: list[str]) -> str:
    """One to four edits: a span cut, a token inserted, a character replaced, the tail cut off
    (bench/fuzz_profiles.py uses it too, with the tokens of a profile)."""
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(text) + 1)
        op = rng.random()
        if op < 0.3:
            text = text[:at] + text[at + rng.randint(1, 50):]
        elif op < 0.6:
            text = text[:at] + rng.choice(tokens) + text[at:]
        elif op < 0.8:
            text = text[:at] + chr(rng.randrange(0, 0x250)) + text[at + 1:]
        else:
            cut = rng.randrange(len(text) + 1)
            text = text[:cut]
    return text


def mutate(text: str, rng: random.Random, fields: float = 0.0) -> str:
    if fields and rng.random() < fields:
        changed = mutate_field(text, rng)
        if changed is not None:
            return changed
    return mutate_bytes(text, rng, TOKENS)


COMMANDS = ("show", "show --json", "fit", "export csv", "export json", "export run", "import", "report")
KILL_AFTER_S = 30.0  # beyond a command's own hard stop, before the parent kills its worker


def new_tally() -> dict:
    return {"done": 0, "next": None, "CPU s": 0.0, "reports": 0, "reports accepted": 0, "outcomes": {"parsed": 0, "clean error": 0, "FAILURE": 0}, "driven": {}}


def merge(tallies) -> dict:
    total = new_tally()
    for t in tallies:
        total["done"] += t["done"]
        total["reports"] += t["reports"]
        total["CPU s"] += t["CPU s"]
        total["reports accepted"] += t["reports accepted"]
        for k, v in t["outcomes"].items():
            total["outcomes"][k] += v
        for name, counts in t["driven"].items():
            into = total["driven"].setdefault(name, {k: 0 for k in counts})
            for k, v in counts.items():
                into[k] = round(max(into[k], v), 2) if k.startswith("slowest") else into[k] + v
    total["driven"] = {name: total["driven"][name] for name in COMMANDS if name in total["driven"]}
    return total


def one_input(i: int, args, targets, work: Path | None, tally: dict, say, busy=None) -> None:
    """Mutate input i (its own generator), read it, and drive it through the commands."""
    rng = random.Random(f"{args.seed}:{i}")
    seed_text, parse, tool = targets[i % len(targets)]
    text = mutate(seed_text, rng, args.fields)
    with_report = rng.randrange(args.report_every) == 0  # drawn for every input, accepted or not
    outcomes = tally["outcomes"]
    accepted = False
    try:
        parse(text)
        outcomes["parsed"] += 1
        accepted = True
    except MsgperfError as exc:
        if "\n" in str(exc):
            outcomes["FAILURE"] += 1
            say(f"multi-line error for input {i}: {exc!r}")
        else:
            outcomes["clean error"] += 1
    except Exception as exc:  # noqa: BLE001 - this is what the fuzzer hunts
        outcomes["FAILURE"] += 1
        say(f"input {i}: {type(exc).__name__}: {exc}\n{json.dumps(text[:300])}")
    tally["done"] += 1
    replay = args.input is not None  # one input replayed: through every command, report included
    if work is None or not (accepted or replay or i % args.refused_every == 0):
        return
    from tests.records.fuzz_commands import command_lines, run_one  # noqa: PLC0415
    path = work / f"input-{i}{'.txt' if tool else '.jsonl'}"  # a new name: no stale cache entry
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    lines = command_lines(path, work, tool)
    for n, name in enumerate(COMMANDS):
        if name == "report" and accepted and not (with_report or replay):
            continue
        if name == "report":
            tally["reports"] += 1
            tally["reports accepted"] += accepted
        if busy is not None:
            busy(i, n)
        o = run_one(name, lines[name], hang_s=args.hang_s)
        if busy is not None:
            busy(None, None)
        counts = tally["driven"].setdefault(o.command, {"ok": 0, "clean error": 0, "FAILURE": 0, "HANG": 0,
                                                        "slowest CPU s": 0.0, "slowest wall s": 0.0,
                                                        "CPU s": 0.0})
        counts[o.status] += 1
        counts["CPU s"] += o.cpu_s
        counts["slowest CPU s"] = round(max(counts["slowest CPU s"], o.cpu_s), 2)
        counts["slowest wall s"] = round(max(counts["slowest wall s"], o.seconds), 2)
        if o.status in ("FAILURE", "HANG"):
            say(f"input {i} ({'accepted' if accepted else 'refused'}), {o.command}: {o.status}: "
                f"{o.detail}\n{json.dumps(text[:300])}")
    path.unlink()
    for leftover in work.glob("report*.html"):
        leftover.unlink()


def _worker(k: int, workers: int, args, targets, work_root: Path | None, deadline: float, queue,
            busy_since, busy_input, busy_command) -> None:
    work = None
    if work_root is not None:
        work = work_root / f"worker-{k}"
        work.mkdir()
        os.environ["MSGPERF_HOME"] = str(work / "home")
        os.environ["MSGPERF_CACHE"] = str(work / "cache")  # show, fit and report analyse each input once

    def busy(i, n):
        busy_input[k], busy_command[k] = (i, n) if i is not None else (-1, -1)
        busy_since[k] = time.monotonic() if i is not None else 0.0

    say = lambda text: queue.put(("say", k, text))  # noqa: E731
    tally = new_tally()
    cpu = time.process_time()
    inputs = [args.input] if args.input is not None else range(args.first + k, args.inputs, workers)
    tally["next"] = inputs[0] if len(inputs) else args.inputs
    for i in inputs:
        if deadline and time.monotonic() > deadline:
            break
        one_input(i, args, targets, work, tally, say, busy)
        tally["next"] = i + workers  # this worker's next input: every one before it is done
        if tally["done"] % 250 == 0:
            tally["CPU s"] = time.process_time() - cpu
            queue.put(("tally", k, tally))
    tally["CPU s"] = time.process_time() - cpu
    queue.put(("done", k, tally))


def main(argv: list[str] | None = None) -> int:
    import multiprocessing  # noqa: PLC0415
    import queue as queues  # noqa: PLC0415
    import shutil  # noqa: PLC0415
    import tempfile  # noqa: PLC0415

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--first", type=int, default=0,
                    help="start at input FIRST (resume a run that stopped: its summary says where)")
    ap.add_argument("--input", type=int, help="replay input number INPUT of --seed alone, through every command")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: one per core)")
    ap.add_argument("--commands", action="store_true", help="also drive every command after the reader")
    ap.add_argument("--report-every", type=int, default=10, help="report on one accepted input in this many")
    ap.add_argument("--refused-every", type=int, default=100)
    ap.add_argument("--hang-s", type=float, default=10.0)
    ap.add_argument("--kill-after", type=float, default=KILL_AFTER_S,
                    help="seconds beyond a command's hard stop before its worker is killed")
    ap.add_argument("--minutes", type=float, default=0.0, help="stop after this long (0: no limit)")
    ap.add_argument("--fields", type=float, default=0.0,
                    help="this fraction of inputs: one field of one record set to a hostile value of any JSON type")
    ap.add_argument("--progress", type=int, default=10_000, help="print the counts every this many inputs")
    ap.add_argument("--spill", action="store_true",
                    help="with --commands: the commands read every run as a large one is read, its samples "
                         "in a temporary file (records/spilled_samples.py), also when stored and loaded again")
    args = ap.parse_args(argv)
    if args.spill:  # set before the fork: every worker and command reads through the spill
        from msgperf.records import runfile_read  # noqa: PLC0415
        from msgperf.store import db as store_db  # noqa: PLC0415
        runfile_read.SPILL_ABOVE_FILE_BYTES = -1
        store_db.SPILL_ABOVE_SAMPLE_BYTES = -1
    workers = 1 if args.input is not None else max(1, args.workers)
    targets = seeds(rich=args.commands)
    work_root = None
    if args.commands:
        from tests.records import fuzz_commands  # noqa: F401, PLC0415 - imported once, before the fork
        work_root = Path(tempfile.mkdtemp(prefix="msgperf-fuzz-"))
    hard_stop = args.hang_s * 6 + args.kill_after  # run_one's own stop is 6 x hang_s of wall time
    ctx = multiprocessing.get_context("fork")  # the workers inherit the seeds and the imports
    results = ctx.Queue()
    busy_since = ctx.Array("d", workers, lock=False)
    busy_input = ctx.Array("q", workers, lock=False)
    busy_command = ctx.Array("i", workers, lock=False)
    start = time.perf_counter()
    deadline = time.monotonic() + args.minutes * 60 if args.minutes else 0.0
    procs = [ctx.Process(target=_worker, args=(k, workers, args, targets, work_root, deadline, results,
                                               busy_since, busy_input, busy_command), daemon=True)
             for k in range(workers)]
    for p in procs:
        p.start()
    latest: dict[int, dict] = {k: new_tally() for k in range(workers)}
    finished: set[int] = set()
    lost: list[str] = []  # workers that died or were killed
    next_progress = args.progress
    while len(finished) < workers:
        try:
            kind, k, payload = results.get(timeout=1.0)
            if kind == "say":
                print(payload, flush=True)
            else:
                latest[k] = payload
                if kind == "done":
                    finished.add(k)
        except queues.Empty:
            pass
        now = time.monotonic()
        for k, p in enumerate(procs):
            if k in finished:
                continue
            stuck = busy_since[k] and now - busy_since[k] > hard_stop
            if stuck or (p.exitcode is not None and p.exitcode != 0):
                if stuck:
                    p.kill()
                    p.join()
                    what = (f"input {busy_input[k]}, {COMMANDS[busy_command[k]]}: HANG: still running after "
                            f"{now - busy_since[k]:.0f} s of wall time; worker {k} killed")
                    counts = latest[k]["driven"].setdefault(COMMANDS[busy_command[k]], {
                        "ok": 0, "clean error": 0, "FAILURE": 0, "HANG": 0, "slowest CPU s": 0.0, "slowest wall s": 0.0, "CPU s": 0.0})
                    counts["HANG"] += 1
                else:
                    what = f"worker {k} died (exit status {p.exitcode}) during input {busy_input[k]}"
                    latest[k]["outcomes"]["FAILURE"] += 1
                print(what + "; its inputs after the last count it sent were not run or not counted", flush=True)
                lost.append(what)
                finished.add(k)
        total = merge(latest.values())
        if total["done"] >= next_progress:
            next_progress = (total["done"] // args.progress + 1) * args.progress
            print(f"progress: {total['done']} inputs, {time.perf_counter() - start:.0f} s, "
                  f"reader {total['outcomes']}, commands {total['driven']}", flush=True)
    for p in procs:
        p.join(timeout=5)
    elapsed = time.perf_counter() - start
    if work_root is not None:
        shutil.rmtree(work_root, ignore_errors=True)
    total = merge(latest.values())
    done, outcomes = total["done"], total["outcomes"]
    print(f"{done} inputs over {len(targets)} seed files in {elapsed:.1f} s "
          f"({done / elapsed:,.0f}/s, {workers} worker{'s' if workers > 1 else ''}): "
          + ", ".join(f"{k} {v}" for k, v in outcomes.items()))
    print(f"  CPU time of the workers: {total['CPU s']:.1f} s ({1000 * total['CPU s'] / max(done, 1):.1f} ms per input)")
    if args.commands:
        print(f"  report ran on {total['reports']} inputs: {total['reports accepted']} of the {outcomes['parsed']} "
              f"accepted (one in {args.report_every}, drawn at random) and every refused input driven")
    if args.input is None and not lost:
        upto = min(min(t["next"] for t in latest.values() if t["next"] is not None), args.inputs)
        print(f"  inputs {args.first} to {upto - 1} of seed {args.seed} all run"
              + (f"; the rest: --first {upto}" if upto < args.inputs else ""))
    failures = outcomes["FAILURE"] + len(lost)
    for name, counts in total["driven"].items():
        print(f"  {name}: " + ", ".join(f"{k} {round(v, 1) if k == 'CPU s' else v}" for k, v in counts.items()))
        failures += counts["FAILURE"] + counts["HANG"]
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
