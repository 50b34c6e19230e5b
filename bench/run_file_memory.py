"""Peak memory and time of the commands that read a large run file, for one or two checkouts side
by side (bench/RESULTS.md, "Reading in bounded memory").

Writes a run file of MEASUREMENTS x SAMPLES (bench/big_run_file.py; the default is ~200 MiB) and a
4-measurement one for the interpreter's own size, then runs each command REPEATS times in a fresh
interpreter per checkout (its own ru_maxrss, so nothing else the machine runs is counted), the
checkouts alternating so that load falls on both alike.

    .venv/bin/python bench/run_file_memory.py [--other PATH_TO_OTHER_CHECKOUT] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PEAK = """
import resource, sys
from msgperf.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    if exc.code not in (None, 0):
        raise
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
"""

COMMANDS = (("show", "{big}"), ("show", "{big}", "--json"), ("fit", "{big}"), ("summary", "{big}"),
            ("compare", "{big}", "{big}", "--no-history"), ("report", "{big}", "-o", "{tmp}/r-{n}.html"),
            ("export", "{big}", "--format", "run"), ("export", "{big}", "--format", "csv"),
            ("import", "{big}", "--db", "{tmp}/m-{n}.db"), ("show", "{small}"))


def run_once(src: Path, argv: list[str], home: str) -> tuple[int, float]:
    env = {**os.environ, "PYTHONPATH": str(src), "MSGPERF_NO_CACHE": "1", "MSGPERF_HOME": home}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PEAK, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, env=env)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({src}): {done.stderr.strip().splitlines()[-1:]}")
    return int(done.stderr.strip().splitlines()[-1]), wall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--other", type=Path, help="another checkout to run side by side (its src/ is used)")
    ap.add_argument("--measurements", type=int, default=45)
    ap.add_argument("--samples", type=int, default=200_000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    checkouts = [("this", ROOT / "src")] + ([("other", args.other / "src")] if args.other else [])
    with tempfile.TemporaryDirectory(prefix="msgperf-memory-") as tmp:
        big, small = Path(tmp) / "big.jsonl", Path(tmp) / "small.jsonl"
        for out, n, k in ((big, args.measurements, args.samples), (small, 4, 1000)):
            subprocess.run([sys.executable, ROOT / "bench" / "big_run_file.py", out, "--measurements", str(n),
                            "--samples", str(k)], check=True, stdout=subprocess.DEVNULL)
        print(f"run file: {big.stat().st_size / 2**20:.0f} MiB, {args.measurements} measurements x "
              f"{args.samples} samples; python {sys.version.split()[0]}; {args.repeats} runs each, median")
        print("| command | " + " | ".join(f"{name}: peak MiB | {name}: s" for name, _ in checkouts) + " |")
        print("|---|" + "---|---|" * len(checkouts))
        counter = 0
        for command in COMMANDS:
            results: dict[str, list[tuple[int, float]]] = {name: [] for name, _ in checkouts}
            for _ in range(args.repeats):
                for name, src in checkouts:
                    counter += 1
                    argv = [a.format(big=big, small=small, tmp=tmp, n=counter) for a in command]
                    results[name].append(run_once(src, argv, tmp))
            shown = " ".join(command).replace("{big}", "BIG").replace("{small}", "SMALL").replace("{tmp}/", "") \
                .replace("-{n}", "")
            cells = []
            for name, _ in checkouts:
                peaks, walls = zip(*results[name])
                cells += [f"{statistics.median(peaks) / 1024:.0f} [{min(peaks) / 1024:.0f}–{max(peaks) / 1024:.0f}]",
                          f"{statistics.median(walls):.2f} [{min(walls):.2f}–{max(walls):.2f}]"]
            print(f"| `{shown}` | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
