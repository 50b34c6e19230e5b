"""How the cost of the multi-rank patterns grows with the number of ranks: matrix (every ordered
pair, in rounds of disjoint pairs), pairs (1, 2, 4 ... P/2 concurrent pairs) and ring, at 2, 4,
8 and 16 ranks on the emulated cluster (tools/netns-cluster: network namespaces, 2 hosts up to
4 ranks, 4 hosts beyond; root only).

    .venv/bin/python bench/scaling.py [--ranks 2,4,8,16] [--repeats 3]

The ranks oversubscribe this machine's cores well before 16, so absolute times say little: the
figures that matter are the records (rounds, steps) per size, the iterations each rank takes
part in, and the measurement time per record. For matrix it checks that the rounds per size
are 2(P - 1), i.e. O(P), and it extrapolates on paper the wall time of a 1,024-rank all-pairs
map from the per-round cost measured at the smallest P and a stated per-message time.
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
sys.path.insert(0, str(ROOT / "src"))

from msgperf.records.runfile_read import read_run  # noqa: E402

TOOL = ROOT / "tools" / "netns-cluster"
PATTERNS = ("matrix", "pairs", "ring")
SIZES = "8,64K"
OPTIONS = ["--time-budget", "0.05", "--min-samples", "10", "--no-probe", "--no-store", "--no-report", "-q"]
ENV = {**os.environ, "NETNS_CLUSTER_NAME": "mpscale", "NETNS_CLUSTER_NET": "97"}


def tool(*args: str) -> str:
    return subprocess.run([str(TOOL), *args], check=True, capture_output=True, text=True, env=ENV).stdout


def launcher_env() -> dict[str, str]:
    env = dict(ENV)
    for line in tool("env").splitlines():
        name, _, value = line.removeprefix("export ").partition("=")
        env[name] = value
    env["PATH"] = f"{Path(sys.executable).parent}:{env.get('PATH', '')}"
    return env


def measure(pattern: str, ranks: int, out: Path, env: dict[str, str]) -> tuple[float, object]:
    hosts = ",".join(f"h{i}" for i in range(2 if ranks <= 4 else 4))
    cmd = [str(TOOL), "exec", "h0", sys.executable, "-m", "msgperf", "run", "--pattern", pattern, "--np", str(ranks),
           "--hosts", hosts, "--sizes", SIZES, *OPTIONS, "-o", str(out)]
    out.unlink(missing_ok=True)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=1800)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{pattern} at {ranks} ranks failed: {done.stderr.strip()}")
    return wall, read_run(out).run


def iterations_per_rank(run, ranks: int) -> float:
    """Iterations (warm-up and timed) a rank takes part in, averaged over the ranks."""
    per_rank = [0] * ranks
    for m in run.measurements:
        for r in set(m.ranks):
            per_rank[r] += m.warmup + m.samples_s.size * m.k
    return statistics.mean(per_rank)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", default="2,4,8,16")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--per-message-us", type=float, default=2.0,
                    help="per-message time assumed for the 1,024-rank extrapolation (default 2 µs)")
    args = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("bench/scaling.py needs root (the emulated cluster: ip netns, tc, unshare)")
    counts = [int(x) for x in args.ranks.split(",")]
    tool("down")
    tool("up", "4")
    rows = []
    try:
        env = launcher_env()
        with tempfile.TemporaryDirectory() as name:
            for pattern in PATTERNS:
                for ranks in counts:
                    walls, spent, records, iters = [], [], [], []
                    for _ in range(args.repeats):
                        wall, run = measure(pattern, ranks, Path(name) / f"{pattern}-{ranks}.jsonl", env)
                        walls.append(wall)
                        spent.append(sum(m.elapsed_s for m in run.measurements))
                        records.append(len(run.measurements) / len(run.info.plan.sizes))
                        iters.append(iterations_per_rank(run, ranks))
                    rows.append((pattern, ranks, records[0], statistics.median(iters), walls, spent))
                    print(f"{pattern} {ranks} ranks done", file=sys.stderr)
    finally:
        tool("down")
    print(f"sizes {SIZES}, {' '.join(OPTIONS[:4])}, {args.repeats} repetitions, {os.cpu_count()} cores "
          "(ranks beyond them oversubscribe); medians [min-max]")
    print(f"{'pattern':8} {'ranks':>5} {'records/size':>12} {'iter/rank':>10} {'measure s':>18} {'s/record':>9} "
          f"{'wall s':>18}")
    for pattern, ranks, per_size, iters, walls, spent in rows:
        med = statistics.median(spent)
        print(f"{pattern:8} {ranks:>5} {per_size:>12.0f} {iters:>10.0f} "
              f"{med:>7.2f} [{min(spent):.2f}-{max(spent):.2f}] {med / (per_size * 2):>9.3f} "
              f"{statistics.median(walls):>7.2f} [{min(walls):.2f}-{max(walls):.2f}]")
    matrix = [(r, p) for pattern, r, p, *_ in rows if pattern == "matrix"]
    linear = all(p == 2 * (r - 1) for r, p in matrix)
    print(f"matrix rounds per size = 2(P - 1) at every P measured: {'yes' if linear else 'NO'} "
          f"({', '.join(f'P={r}: {p:.0f}' for r, p in matrix)})")
    first = next((r for r in rows if r[0] == "matrix"), None)
    if first:
        rounds = 2 * (1024 - 1)
        measured = statistics.median(first[5]) / (first[2] * 2)
        t = args.per_message_us * 1e-6
        # A round on paper, when its interval reaches the target with the minimum samples: the
        # warm-up (>= 2 ms, driver.c), 20 samples of >= 20 µs (schedule.c), and about 20
        # reductions and broadcasts over the round's ranks, each log2(P) message steps.
        paper = 2e-3 + 20 * max(20e-6, 2 * t) + 20 * 10 * t
        print(f"1,024-rank all-pairs map, per size: {rounds} rounds of 512 disjoint pairs. On paper, at "
              f"{args.per_message_us:g} µs per message: a round = 2 ms warm-up + 20 samples x 20 µs + "
              f"20 collectives x 10 steps x {args.per_message_us:g} µs = {paper * 1e3:.1f} ms, so "
              f"{rounds * paper:.1f} s per small size ({28 * rounds * paper / 60:.0f} min for 28 sizes if every "
              f"size were as cheap); with this bench's per-round cost measured at P={first[1]} "
              f"({measured * 1e3:.1f} ms: warm-up, calibration and samples to the precision or the budget): "
              f"{rounds * measured:.0f} s per size")
    return 0


if __name__ == "__main__":
    sys.exit(main())
