"""Fuzz the run-file reader (and the peer-output importers, where present) with a million
mutated inputs. The only allowed outcomes are a parsed result or a clean MsgperfError with a
one-line message; anything else is printed and counted as a failure.

    .venv/bin/python bench/fuzz_readers.py [--inputs 1000000] [--seed 1]

With ``--commands`` every input the reader accepts is also written to a file and driven through
every command after the reader, in-process (show, show --json, fit, export csv/json/run, report,
import; tests/records/fuzz_commands.py): success or a clean one-line ``error:``, nothing else, and
no command over ``--hang-s`` seconds of CPU (or six times that of wall time: the machine may be shared). An input the reader refuses is refused by every command
through that same reader; one in ``--refused-every`` of those is driven through the commands as
well, to check that they say so in one line. ``report`` (plots: ~1 s each) runs on one accepted
input in ``--report-every``. ``--minutes`` stops early and prints the real count.

    .venv/bin/python bench/fuzz_readers.py --commands --inputs 1000000 --minutes 60
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

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
    from msgperf.records.runfile_write import run_records
    from tests.factories import every_family_run
    run = every_family_run(7)
    keep = (0, 1024, 65536)
    ms = tuple(dataclasses.replace(m, samples_s=m.samples_s[:8]) for m in run.measurements if m.bytes in keep
               or m.pattern in ("combine", "loggp"))
    plan = dataclasses.replace(run.info.plan, sizes=tuple(sorted({m.bytes for m in ms})))
    run = dataclasses.replace(run, measurements=ms, info=dataclasses.replace(run.info, plan=plan))
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


def mutate(text: str, rng: random.Random, fields: float = 0.0) -> str:
    if fields and rng.random() < fields:
        changed = mutate_field(text, rng)
        if changed is not None:
            return changed
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(text) + 1)
        op = rng.random()
        if op < 0.3:
            text = text[:at] + text[at + rng.randint(1, 50):]
        elif op < 0.6:
            text = text[:at] + rng.choice(TOKENS) + text[at:]
        elif op < 0.8:
            text = text[:at] + chr(rng.randrange(0, 0x250)) + text[at + 1:]
        else:
            cut = rng.randrange(len(text) + 1)
            text = text[:cut]
    return text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--commands", action="store_true", help="also drive every command after the reader")
    ap.add_argument("--report-every", type=int, default=10)
    ap.add_argument("--refused-every", type=int, default=100)
    ap.add_argument("--hang-s", type=float, default=10.0)
    ap.add_argument("--minutes", type=float, default=0.0, help="stop after this long (0: no limit)")
    ap.add_argument("--fields", type=float, default=0.0,
                    help="this fraction of inputs: one field of one record set to a hostile value of any JSON type")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    targets = seeds(rich=args.commands)
    outcomes = {"parsed": 0, "clean error": 0, "FAILURE": 0}
    driven: dict[str, dict[str, int]] = {}
    work = None
    if args.commands:
        import os
        import tempfile
        from tests.records.fuzz_commands import drive
        work = Path(tempfile.mkdtemp(prefix="msgperf-fuzz-"))
        os.environ["MSGPERF_HOME"] = str(work / "home")
        os.environ["MSGPERF_CACHE"] = str(work / "cache")  # show, fit and report analyse each input once
    start = time.perf_counter()
    done = 0
    accepted_driven = 0
    for i in range(args.inputs):
        if args.minutes and time.perf_counter() - start > args.minutes * 60:
            break
        seed_text, parse, tool = targets[i % len(targets)]
        text = mutate(seed_text, rng, args.fields)
        accepted = False
        try:
            parse(text)
            outcomes["parsed"] += 1
            accepted = True
        except MsgperfError as exc:
            if "\n" in str(exc):
                outcomes["FAILURE"] += 1
                print(f"multi-line error for input {i}: {exc!r}")
            else:
                outcomes["clean error"] += 1
        except Exception as exc:  # noqa: BLE001 - this is what the fuzzer hunts
            outcomes["FAILURE"] += 1
            print(f"input {i}: {type(exc).__name__}: {exc}\n{json.dumps(text[:300])}")
        done += 1
        if work is not None and (accepted or i % args.refused_every == 0):
            path = work / f"input-{i}{'.txt' if tool else '.jsonl'}"  # a new name: no stale cache entry
            path.write_text(text, encoding="utf-8", errors="surrogatepass")
            only = None
            if accepted:
                accepted_driven += 1
                if accepted_driven % args.report_every:
                    only = ("show", "show --json", "fit", "export csv", "export json", "export run", "import")
            for o in drive(path, work, tool, only, hang_s=args.hang_s):
                counts = driven.setdefault(o.command, {"ok": 0, "clean error": 0, "FAILURE": 0, "HANG": 0,
                                                       "slowest CPU s": 0.0, "slowest wall s": 0.0})
                counts[o.status] += 1
                counts["slowest CPU s"] = round(max(counts["slowest CPU s"], o.cpu_s), 2)
                counts["slowest wall s"] = round(max(counts["slowest wall s"], o.seconds), 2)
                if o.status in ("FAILURE", "HANG"):
                    print(f"input {i} ({'accepted' if accepted else 'refused'}), {o.command}: {o.status}: "
                          f"{o.detail}\n{json.dumps(text[:300])}", flush=True)
            path.unlink()
            for leftover in work.glob("report*.html"):
                leftover.unlink()
        if done % 1000 == 0 and work is not None:
            print(f"progress: {done} inputs, {time.perf_counter() - start:.0f} s, reader {outcomes}, "
                  f"commands {driven}", flush=True)
    elapsed = time.perf_counter() - start
    if work is not None:
        import shutil
        shutil.rmtree(work, ignore_errors=True)
    print(f"{done} inputs over {len(targets)} seed files in {elapsed:.1f} s "
          f"({done / elapsed:,.0f}/s): " + ", ".join(f"{k} {v}" for k, v in outcomes.items()))
    failures = outcomes["FAILURE"]
    for name, counts in driven.items():
        print(f"  {name}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
        failures += counts["FAILURE"] + counts["HANG"]
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
