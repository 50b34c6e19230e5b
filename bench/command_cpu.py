"""CPU time of ``show``, ``fit`` and ``show --json`` per input, in-process, on the command fuzzer's
13 seed inputs (bench/fuzz_readers.py: a run file, a real kernel run, a run of every pattern
family, 10 real OSU/IMB/NetPIPE outputs): the work the fuzzer repeats on every accepted input.

    .venv/bin/python bench/command_cpu.py [--repeats 4] [--rounds 3] CHECKOUT [CHECKOUT ...]

Each checkout (a directory holding src/ and tests/, e.g. ``git worktree add /tmp/old COMMIT``)
is measured in its own Python process, round after round, alternating, so that two versions
are compared side by side on the same machine load. Prints, per round and checkout, the mean
CPU time per seed input of each command (the first pass, a warm-up, not counted), then the
median over rounds with the range."""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

_CHILD = r"""
import json, os, sys, tempfile
root, repeats = sys.argv[1], int(sys.argv[2])
sys.path.insert(0, root + "/src"); sys.path.insert(0, root)
os.environ["MSGPERF_HOME"] = tempfile.mkdtemp()
os.environ["MSGPERF_CACHE_DIR"] = tempfile.mkdtemp()
from pathlib import Path
from bench.fuzz_readers import seeds
from tests.records.fuzz_commands import command_lines, run_one
targets, work, total = seeds(rich=True), Path(tempfile.mkdtemp()), {}
for rep in range(repeats + 1):
    for j, (text, _, tool) in enumerate(targets):
        path = work / f"seed{j}-{rep}{'.txt' if tool else '.jsonl'}"  # a new name: no cached output
        path.write_text(text)
        lines = command_lines(path, work, tool)
        for name in ("show", "fit", "show --json"):
            o = run_one(name, lines[name])
            if o.status not in ("ok", "clean error"):
                raise SystemExit(f"{name} on seed {j}: {o.status} {o.detail}")
            if rep:
                total[name] = total.get(name, 0.0) + o.cpu_s
print(json.dumps({k: 1000 * v / repeats / len(targets) for k, v in total.items()}))
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkouts", nargs="+")
    ap.add_argument("--repeats", type=int, default=4, help="passes over the seeds per round (after a warm-up)")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    results: dict[str, list[dict[str, float]]] = {c: [] for c in args.checkouts}
    for r in range(args.rounds):
        for c in args.checkouts:
            out = subprocess.run([sys.executable, "-c", _CHILD, c, str(args.repeats)], capture_output=True,
                                 text=True, check=True, env={"OPENBLAS_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
            ms = json.loads(out.stdout.strip().splitlines()[-1])
            results[c].append(ms)
            print(f"round {r + 1} {c}: " + ", ".join(f"{k} {v:.1f} ms" for k, v in ms.items()), flush=True)
    print("CPU ms per seed input, median [min-max] over rounds:")
    for c, rounds in results.items():
        print(f"  {c}: " + ", ".join(
            f"{k} {statistics.median(r[k] for r in rounds):.1f} [{min(r[k] for r in rounds):.1f}-"
            f"{max(r[k] for r in rounds):.1f}]" for k in rounds[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
