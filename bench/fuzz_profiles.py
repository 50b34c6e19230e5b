"""Fuzz the profile reader and the commands that read profiles, as bench/fuzz_readers.py does
for run files. The only allowed outcomes are a parsed profile or a clean one-line error; a
traceback, a multi-line error or a command over ``--hang-s`` seconds of CPU is a failure.

    .venv/bin/python bench/fuzz_profiles.py [--inputs 5000] [--seed 1] [--minutes 0]

Input i is a profile file (records/profile_format.py; small, version 1, 2 and 3, two and three
ranks) mutated by its own generator, seeded by (``--seed``, i): a byte-level edit (a cut, an
inserted token, a changed character) or, for about half of them, one field anywhere in a record
(nested ones included: a message's sizes, a sequence shape, a call's time) set to a hostile
value (2^91, 1e300, -1, a lone surrogate, 70,000 characters, a wrong type); a profile that holds a
value beyond records/limits.py (``BEYOND``) and is read counts as a failure ("accepted beyond
limits"). ``--input i`` replays one alone. Every input the reader accepts, and one in ``--refused-every`` of the others, is
driven in-process (tests/records/fuzz_commands.py's ``run_one``) through ``advise --profile FILE
--model RUN``, its ``--json`` form, and, on one accepted input in ``--report-every``, ``report RUN
--profile FILE``. The counts are printed as one JSON object at the end (bench/RESULTS.md).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

if __name__ == "__main__":  # one BLAS thread: the CPU time of a command is its own
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from msgperf.errors import MsgperfError  # noqa: E402
from msgperf.records.profile_read import parse_profile_text  # noqa: E402
from bench.fuzz_readers import mutate_bytes  # noqa: E402

TOKENS = ['"', "{", "}", "[", "]", ",", ":", "-", "NaN", "1e308", "-1", "0", "null", "true", "\n", "\\ud800",
          '"type":"rank"', '"sizes":[[', "9" * 30, "2475880078570760549798248448"]
HOSTILE = ["x", "", "\x1b[31m=1+1", "\ud800", "h" * 70_000, -1, 0, 1, 2 ** 31, 2 ** 48 + 1, 2 ** 53 + 1, 2 ** 63,
           2 ** 91, 10 ** 30, 1e-300, 1e300, 2e9, -0.0, True, False, None, [], [1], [[0, 1]], [[2 ** 91, 1]],
           [[8, 2 ** 60]], {}, {"n": 1, "time_s": 1e300}]
# Of those, the values beyond records/limits.py wherever they are planted (a count or size past
# 2^53 or 2^63, a time of 1e300 s, a lone surrogate, a string over 65,536 characters): a profile
# holding one must be refused, and one accepted counts as a failure ("accepted beyond limits").
BEYOND = [2 ** 63, 2 ** 91, 10 ** 30, 1e300, "\ud800", "h" * 70_000, [[2 ** 91, 1]], [[8, 2 ** 60]]]
COMMANDS = ("advise", "advise --json", "report")


def seeds() -> list[str]:
    from msgperf.records.profile_format import profile_text
    from tests.factories import sample_profile
    return [profile_text(sample_profile(0, nranks=2)), profile_text(sample_profile(3, nranks=3)),
            profile_text(sample_profile(1, nranks=2, version=1)),
            profile_text(sample_profile(4, nranks=3, version=3)),
            profile_text(sample_profile(2, nranks=2, complete=False))]


def _containers(value, out: list) -> list:
    """Every dict and list inside ``value`` (the record itself included)."""
    if isinstance(value, dict):
        out.append(value)
        for item in value.values():
            _containers(item, out)
    elif isinstance(value, list):
        out.append(value)
        for item in value:
            _containers(item, out)
    return out


def mutate_field(text: str, rng: random.Random) -> tuple[str, object] | None:
    """One value anywhere in one record set to a hostile one: (the text, the value), or None
    when the text is not JSON Lines."""
    try:
        records = [json.loads(line) for line in text.splitlines()]
    except ValueError:
        return None
    if not records:
        return None
    record = rng.choice(records)
    places = [c for c in _containers(record, []) if c]
    if not places:
        return None
    place = rng.choice(places)
    value = rng.choice(HOSTILE)
    if isinstance(place, dict):
        keys = [k for k in place if k != "type" or rng.random() < 0.05]
        place[rng.choice(keys)] = value
    else:
        place[rng.randrange(len(place))] = value
    return "".join(json.dumps(r, ensure_ascii=rng.random() < 0.5) + "\n" for r in records), value


def mutate(text: str, rng: random.Random) -> tuple[str, bool]:
    """The mutated text, and whether it holds a value beyond the limits (``BEYOND``)."""
    if rng.random() < 0.5:
        changed = mutate_field(text, rng)
        if changed is not None:
            return changed[0], any(changed[1] is v or changed[1] == v and type(changed[1]) is type(v)
                                   for v in BEYOND)
    return mutate_bytes(text, rng, TOKENS), False


def new_tally() -> dict:
    return {"inputs": 0, "parsed": 0, "clean error": 0, "FAILURE": 0, "accepted beyond limits": 0,
            "beyond limits planted": 0, "driven": {}}


def one_input(i: int, args, targets: list[str], work: Path, model: Path, tally: dict, say) -> None:
    """Mutate input i, read it, and drive it through the commands that read profiles."""
    rng = random.Random(f"{args.seed}:{i}")
    text, beyond = mutate(targets[i % len(targets)], rng)
    with_report = rng.randrange(args.report_every) == 0
    accepted = False
    tally["beyond limits planted"] += beyond
    try:
        parse_profile_text(text, "fuzz")
        tally["parsed"] += 1
        accepted = True
        if beyond:
            tally["accepted beyond limits"] += 1
            tally["FAILURE"] += 1
            say(f"input {i}: accepted a value beyond the limits\n{json.dumps(text[:300])}")
    except MsgperfError as exc:
        if "\n" in str(exc):
            tally["FAILURE"] += 1
            say(f"multi-line error for input {i}: {exc!r}")
        else:
            tally["clean error"] += 1
    except Exception as exc:  # noqa: BLE001 - this is what the fuzzer hunts
        tally["FAILURE"] += 1
        say(f"input {i}: {type(exc).__name__}: {exc}\n{json.dumps(text[:300])}")
    tally["inputs"] += 1
    if not args.commands or not (accepted or args.input is not None or i % args.refused_every == 0):
        return
    from tests.records.fuzz_commands import run_one  # noqa: PLC0415
    path = work / f"profile-{i}.jsonl"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    lines = {"advise": ["advise", "--profile", str(path), "--model", str(model)],
             "advise --json": ["advise", "--profile", str(path), "--model", str(model), "--json"],
             "report": ["report", str(model), "--profile", str(path), "-o", str(work / "report.html"), "--force"]}
    for name in COMMANDS:
        if name == "report" and not (with_report or args.input is not None):
            continue
        o = run_one(name, lines[name], hang_s=args.hang_s)
        counts = tally["driven"].setdefault(name, {"ok": 0, "clean error": 0, "FAILURE": 0, "HANG": 0,
                                                   "slowest CPU s": 0.0})
        counts[o.status] += 1
        counts["slowest CPU s"] = round(max(counts["slowest CPU s"], o.cpu_s), 2)
        if o.status in ("FAILURE", "HANG"):
            say(f"input {i} ({'accepted' if accepted else 'refused'}), {name}: {o.status}: {o.detail}\n"
                f"{json.dumps(text[:300])}")
    path.unlink()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--input", type=int, help="replay input number INPUT of --seed alone, through every command")
    ap.add_argument("--no-commands", dest="commands", action="store_false", help="the reader only")
    ap.add_argument("--report-every", type=int, default=20)
    ap.add_argument("--refused-every", type=int, default=50)
    ap.add_argument("--hang-s", type=float, default=10.0)
    ap.add_argument("--minutes", type=float, default=0.0, help="stop after this long (0: no limit)")
    ap.add_argument("--progress", type=int, default=1000)
    args = ap.parse_args(argv)
    targets = seeds()
    tally = new_tally()
    failures: list[str] = []

    def say(text: str) -> None:
        failures.append(text)
        print(text, file=sys.stderr, flush=True)

    deadline = time.monotonic() + 60 * args.minutes if args.minutes else 0.0
    started, cpu = time.monotonic(), time.process_time()
    saved = {name: os.environ.get(name) for name in ("MSGPERF_HOME", "MSGPERF_CACHE")}
    with tempfile.TemporaryDirectory(prefix="msgperf-fuzz-profiles-") as tmp:
        work = Path(tmp)
        # the commands' home and cache are the fuzzer's while it runs (the model run is analysed
        # once), and the caller's again after: a test that calls it in process keeps its own
        os.environ["MSGPERF_HOME"] = str(work / "home")
        os.environ["MSGPERF_CACHE"] = str(work / "cache")
        try:
            from tests.factories import rich_run, write_run  # noqa: PLC0415
            model = write_run(rich_run(), work / "model.jsonl")
            inputs = [args.input] if args.input is not None else range(args.inputs)
            for i in inputs:
                if deadline and time.monotonic() > deadline:
                    break
                one_input(i, args, targets, work, model, tally, say)
                if args.progress and tally["inputs"] % args.progress == 0:
                    print(json.dumps(tally), file=sys.stderr, flush=True)
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
    tally["wall s"] = round(time.monotonic() - started, 1)
    tally["CPU s"] = round(time.process_time() - cpu, 1)
    hangs = sum(c["HANG"] for c in tally["driven"].values())
    bad = tally["FAILURE"] + sum(c["FAILURE"] for c in tally["driven"].values()) + hangs
    print(json.dumps(tally, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
