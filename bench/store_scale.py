"""The store with years of history: `msgperf runs` (unfiltered and filtered) and `msgperf show ID`
on a database of 100,000 synthetic runs, against the same commands on a database of one run.

    .venv/bin/python bench/store_scale.py [--runs 100000] [--repeats 5] [--keep DIR]

The database is filled fast (one transaction, executemany) through the store's own schema and
row encoders (msgperf.store.schema, msgperf.store.rows): each synthetic run is a real run record
(format 2, with its patterns' catalog entries), one launch and its measurements with raw samples,
as `msgperf run` would store them. Runs vary in hosts (40), MPI (3), patterns (1-3 of 12), time
(one every ~20 minutes, the newest on 2026-11-01: ~4 years), label (1 run in 10) and source (1 in 20 imported from OSU).
Listing reads only the runs' listing columns, so the measurements are kept small (2 sizes, 10
samples each) to fill the database quickly; `show ID` reads a full run (28 sizes, 200 samples
each) stored among them. Times are wall times of the whole command (Python start-up included),
median [min-max] over the repeats, and the median CPU time (user + system), which a machine shared
with other jobs inflates less. `show ID` runs with the caches off (MSGPERF_NO_CACHE=1): it
reads the stored run and analyses it each time. Target: `runs` under 1 s; `show ID` as with one stored run.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import msgspec

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from msgperf.store import schema  # noqa: E402
from msgperf.store.db import open_store  # noqa: E402
from msgperf.store.listing import listing_of  # noqa: E402
from msgperf.store.rows import (dumps, launch_jsons, measurement_record, run_record_json,  # noqa: E402
                                samples_blob)
from tests.catalog_data import committed_catalog  # noqa: E402
from tests.factories import SIZES, stored_run  # noqa: E402

MSGPERF = [sys.executable, "-m", "msgperf"]
PATTERNS = ("pingpong", "pingpong-nb", "sendrecv", "pingping", "exchange", "osu-latency", "osu-bw",
            "imb-pingpong", "pairs", "matrix", "ring", "memcpy")
MPIS = (("MPICH", "5.0.2"), ("MPICH", "4.2.0"), ("Open MPI", "5.0.5"))
SMALL_SIZES = (0, 65536)
END = datetime(2026, 11, 1, tzinfo=timezone.utc)  # the newest synthetic run; one every ~20 minutes before
TEMPLATE_TIME = "2026-11-20T10:00:00+00:00"


def with_catalog(run):
    """The run as format 2 writes it: the run record carries its patterns' catalog entries."""
    known = {p.name: p for p in committed_catalog(2)}
    info = msgspec.structs.replace(run.info, format_version=2,
                                   catalog=tuple(known[p] for p in run.info.plan.patterns if p in known))
    return msgspec.structs.replace(run, info=info)


def fill(db: Path, n: int, seed: int = 0) -> None:
    """``n`` synthetic runs in one transaction; templates encoded once, times and hosts varied."""
    rng = random.Random(seed)
    templates = {}
    with open_store(db) as store:
        conn = store.conn
        conn.execute("BEGIN IMMEDIATE")
        runs, launches, measurements, listings = [], [], [], []
        for run_id in range(1, n + 1):
            k = rng.choice((1, 1, 1, 2, 3))
            patterns = tuple(sorted(rng.sample(PATTERNS, k), key=PATTERNS.index))
            hosts = (f"node{rng.randrange(40):02d}",) * 2 if rng.random() < 0.7 else \
                (f"node{rng.randrange(40):02d}", f"node{rng.randrange(40):02d}")
            mpi = MPIS[rng.randrange(len(MPIS))]
            key = (patterns, hosts, mpi)
            if key not in templates:
                run = with_catalog(stored_run(len(templates), hosts=hosts, mpi=mpi[0], version=mpi[1],
                                              patterns=patterns, sizes=SMALL_SIZES, samples=10))
                templates[key] = (run, run_record_json(run.info), launch_jsons(run.launches[0]),
                                  [(m.pattern, m.bytes, m.metric, int(m.samples_s.size),
                                    dumps(measurement_record(m)), samples_blob(m.samples_s))
                                   for m in run.measurements])
            run, record, launch, rows = templates[key]
            when = (END - timedelta(minutes=20 * (n - run_id) + rng.randrange(10))).isoformat(timespec="seconds")
            source = "osu" if rng.random() < 0.05 else "msgperf"
            label = f"nightly-{run_id % 97}" if rng.random() < 0.1 else ""
            chash = hashlib.sha256(f"synthetic {run_id}".encode()).hexdigest()
            runs.append((run_id, chash, chash, source, when, when, label, f"runs/{run_id}.jsonl",
                         record.replace(TEMPLATE_TIME, when)))
            launches.append((run_id, 0, launch[0].replace(TEMPLATE_TIME, when), launch[1], launch[2]))
            measurements.extend((run_id, seq, *row) for seq, row in enumerate(rows))
            listings.append((run_id, listing_of(run.info, run.launches, [(r[0], r[1]) for r in rows])))
        conn.executemany("INSERT INTO runs (id, content_hash, identity_hash, source, start_time, added_at, "
                         "label, source_path, run_record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", runs)
        conn.executemany("INSERT INTO launches (run_id, idx, record, end_record, abort_record) "
                         "VALUES (?, ?, ?, ?, ?)", launches)
        conn.executemany("INSERT INTO measurements (run_id, seq, pattern, bytes, metric, n_samples, record, "
                         "samples) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", measurements)
        for run_id, listing in listings:
            schema.write_listing(conn, run_id, listing)
            if hasattr(schema, "write_filter_rows"):  # schema version 5 on (the bench also ran before it)
                schema.write_filter_rows(conn, run_id, listing.hosts, listing.patterns)
        conn.execute("COMMIT")


def add_full_run(db: Path) -> int:
    """A full ping-pong sweep (28 sizes, 200 samples each), stored as `msgperf run` stores it."""
    run = with_catalog(stored_run(12345, sizes=SIZES, samples=200, start_time="2026-11-23T09:00:00+00:00"))
    with open_store(db) as store:
        return store.add_run(run)[0]


def timed(args: list[str], repeats: int, env: dict[str, str], timeout: float) -> tuple[list[float], list[float], str]:
    """(wall times, CPU times (user + system), the last output)."""
    times, cpus, out = [], [], ""
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        done = subprocess.run(MSGPERF + args, check=True, capture_output=True, text=True, env=env,
                              timeout=timeout)
        times.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        out = done.stdout
    return times, cpus, out


def line(label: str, t: list[float], cpu: list[float], target: float | None, out: str) -> str:
    verdict = "" if target is None else ("  ok" if statistics.median(t) < target else f"  OVER {target:g} s")
    return (f"{label:>34}: {statistics.median(t):6.2f} s [{min(t):.2f}-{max(t):.2f}]  cpu {statistics.median(cpu):5.2f} s"
            f"  {len(out.splitlines()):>6} lines{verdict}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=120.0, help="Seconds before a command is given up.")
    ap.add_argument("--keep", type=Path, help="Build the databases in this directory and keep them "
                    "(an existing big.db there is reused).")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = args.keep or Path(name)
        tmp.mkdir(parents=True, exist_ok=True)
        big, one = tmp / "big.db", tmp / "one.db"
        if not big.exists():
            t0 = time.perf_counter()
            fill(big, args.runs)
            show_big = add_full_run(big)
            print(f"filled {big.name}: {args.runs:,} runs + 1 full run in {time.perf_counter() - t0:.0f} s, "
                  f"{big.stat().st_size / 2**20:.0f} MiB")
        else:
            with open_store(big) as store:
                show_big = store.conn.execute("SELECT max(id) FROM runs").fetchone()[0]
        one.unlink(missing_ok=True)
        show_one = add_full_run(one)
        env = dict(os.environ, MSGPERF_NO_CACHE="1", XDG_CACHE_HOME=str(tmp / "cache"))
        cases = [
            ("runs", ["runs"]),
            ("runs --pattern pingpong", ["runs", "--pattern", "pingpong"]),
            ("runs --pattern 'osu-*'", ["runs", "--pattern", "osu-*"]),
            ("runs --pattern matrix --host node07", ["runs", "--pattern", "matrix", "--host", "node07"]),
            ("runs --host node07", ["runs", "--host", "node07"]),
            ("runs --label nightly-5", ["runs", "--label", "nightly-5"]),
            ("runs --mpi open", ["runs", "--mpi", "open"]),
            ("runs --since 2026-10-01", ["runs", "--since", "2026-10-01"]),
            ("runs --source osu", ["runs", "--source", "osu"]),
        ]
        print(f"{args.repeats} repeats each; {sys.executable} -m msgperf ...")
        for label, cmd in cases:
            try:
                t, cpu, out = timed(cmd + ["--db", str(big)], args.repeats, env, args.timeout)
            except subprocess.TimeoutExpired:
                print(f"{label:>34}: over {args.timeout:g} s (stopped)")
                continue
            except subprocess.CalledProcessError as exc:
                print(f"{label:>34}: failed ({exc.stderr.strip().splitlines()[-1] if exc.stderr else exc})")
                continue
            print(line(label, t, cpu, 1.0, out))
        for label, db, run_id in (("show ID (1 stored run)", one, show_one),
                                  (f"show ID ({args.runs:,} + 1 runs)", big, show_big)):
            t, cpu, out = timed(["show", str(run_id), "--db", str(db)], args.repeats, env, args.timeout)
            print(line(label, t, cpu, None, out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
