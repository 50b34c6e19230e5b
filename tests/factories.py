"""The one factory of test runs: synthetic sweeps with known parameters (curves, noise), the
small deterministic runs of the store tests, and the richer runs of the report tests. Run files
are written with msgperf's own writer (``records.runfile_write.write_run_file``)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Callable, Sequence

import msgspec
import numpy as np

from msgperf.analysis.model.points import SizePoint
from msgperf.records.format import (FORMAT_VERSION, ClockSelfTest, HostFacts, Launch, Measurement, Plan, RankPlacement, Run,
                                    RunInfo, encode_launch, encode_launch_end, encode_measurement,
                                    encode_run)
from msgperf.records.runfile_write import write_run_file

SIZES = (0,) + tuple(1 << i for i in range(27))  # 0 B and every power of two to 64 MiB
Curve = Callable[[float], float]


def replace(obj, **changes):
    """A copy of ``obj`` with ``changes``: msgperf's values are msgspec Structs, a few classes
    (Measurement, SampleSet: samples behind a property) dataclasses."""
    if isinstance(obj, msgspec.Struct):
        return msgspec.structs.replace(obj, **changes)
    return dataclasses.replace(obj, **changes)


def line(alpha: float, beta: float) -> Curve:
    return lambda b: alpha + beta * b


def broken(alpha1: float, beta1: float, alpha2: float, beta2: float, switch: float) -> Curve:
    """alpha1 + beta1·b below ``switch`` bytes, alpha2 + beta2·b from it on."""
    return lambda b: alpha1 + beta1 * b if b < switch else alpha2 + beta2 * b


LOMAX_MEDIAN = 2 ** (1 / 2.5) - 1  # median of numpy's pareto(2.5) (a Lomax distribution)


def factors(n: int, noise: float, rng: np.random.Generator, heavy: bool = False,
            gross: float = 0.0) -> np.ndarray:
    """n multiplicative noise factors with median 1: lognormal (sigma ``noise``), or with
    ``heavy`` a Pareto tail 1 + noise·(L - median L), L ~ Lomax(2.5) (infinite fourth moment);
    then a fraction ``gross`` of them multiplied by 10-100 (spikes)."""
    if heavy:
        x = 1 + noise * (rng.pareto(2.5, n) - LOMAX_MEDIAN)
    else:
        x = np.exp(noise * rng.standard_normal(n))
    if gross:
        hit = rng.random(n) < gross
        x[hit] *= rng.uniform(10, 100, int(hit.sum()))
    return x


def pairs(curve: Curve, sizes: Sequence[int], n: int, noise: float, rng: np.random.Generator,
          heavy: bool = False, gross: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """(bytes, seconds) arrays, n samples per size."""
    b = np.repeat(np.asarray(sizes, dtype=np.int64), n)
    t = np.concatenate([curve(s) * factors(n, noise, rng, heavy, gross) for s in sizes])
    return b, t


def points(curve: Curve, sizes: Sequence[int], rel_sd: float, rng: np.random.Generator,
           known: bool = True) -> list[SizePoint]:
    """Per-size medians drawn with relative standard error ``rel_sd`` (faster than samples)."""
    out = []
    for s in sizes:
        y = curve(s) * (1 + rel_sd * rng.standard_normal())
        half = 1.96 * rel_sd * y
        out.append(SizePoint(bytes=int(s), time_s=y, ci_low_s=y - half if known else None,
                             ci_high_s=y + half if known else None, n=1000 if known else 1,
                             launches=1, rel_sd=rel_sd if known else None))
    return out


# ---- run files -----------------------------------------------------------------------------

CLOCK = ClockSelfTest(source="MPI_Wtime", resolution_s=1e-8, overhead_s=2e-8, monotonic=True,
                      reported_resolution_s=1e-9, mpi_wtick_s=1e-9)


def launch(index: int, clock: ClockSelfTest = CLOCK) -> Launch:
    ranks = (RankPlacement(0, "node0", 0, 0), RankPlacement(1, "node0", 1, 0))
    return Launch(index=index, mpi_library="MPICH", mpi_version="5.0.2", nranks=2, ranks=ranks,
                  pair=(0, 1), pair_shares_node=True, clock=clock, environment={},
                  start_time="2026-01-01T00:00:00Z", end_time="2026-01-01T00:01:00Z",
                  end_cpus=(0, 1))


def measurement(pattern: str, size: int, raw: np.ndarray, launch_index: int = 0,
                divisor: int = 2, stop: str = "precision") -> Measurement:
    return Measurement(pattern=pattern, bytes=int(size), buffer="separate", ranks=(0, 1), k=1,
                       divisor=divisor, samples_s=np.asarray(raw, float), stop_reason=stop,
                       validated=True, launch=launch_index)


def make_run(measurements: Sequence[Measurement], launches: int = 1, source: str = "msgperf",
             path: str = "", catalog: bool = True) -> Run:
    """A run of these measurements; its run record carries the kernels' catalog entries of the
    patterns the kernels know (as a real run file of format 2 does), unless ``catalog`` is False."""
    from tests.catalog_data import committed_catalog  # noqa: PLC0415

    patterns = tuple(dict.fromkeys(m.pattern for m in measurements))
    sizes = tuple(sorted({m.bytes for m in measurements}))
    plan = Plan(patterns=patterns, sizes=sizes, buffer="separate", pair=(0, 1), nranks=2,
                precision=0.01, time_budget_s=10.0, min_samples=10, max_samples=100000)
    known = {e.name: e for e in committed_catalog(2)} if catalog and source == "msgperf" else {}
    info = RunInfo(format_version=FORMAT_VERSION if known else 1, msgperf_version="0.1.0",
                   command_line="msgperf run", start_time="2026-01-01T00:00:00Z", plan=plan, source=source,
                   catalog=tuple(known[p] for p in patterns if p in known))
    return Run(info=info, launches=tuple(launch(i) for i in range(launches)),
               measurements=tuple(measurements), path=path)


def sweep_run(curves: Sequence[Curve], n: int = 400, noise: float = 0.05, seed: int = 0,
              pattern: str = "pingpong", sizes: Sequence[int] = SIZES) -> Run:
    """One launch per curve, n raw round-trip samples per size (divisor 2: one-way = half)."""
    rng = np.random.default_rng(seed)
    ms = [measurement(pattern, s, 2 * curve(s) * factors(n, noise, rng), i)
          for i, curve in enumerate(curves) for s in sizes]
    return make_run(ms, launches=len(curves))


def write_run(run: Run, path: Path) -> Path:
    """``run`` as a run file at ``path`` (msgperf's own writer)."""
    return write_run_file(run, path)


# ---- machine facts (the launch record's host_facts and mpi_t_cvars) -------------------------

def host_facts(host: str = "node01", **changes) -> HostFacts:
    facts = HostFacts(host=host, cpu_model="Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz", logical_cpus=80,
                      physical_cores=40, usable_cpus=80, memory_bytes=192 << 30, ranks=2, smt="on",
                      os="Rocky Linux 9.2", kernel="Linux 5.14.0-284", arch="x86_64", governor="performance")
    return replace(facts, **changes)


def with_machine(run: Run, hosts: Sequence[HostFacts] = (), cvars: dict | None = None) -> Run:
    """``run`` with every launch recording these host facts and MPI_T variables."""
    return replace(run, launches=tuple(
        replace(l, host_facts=tuple(hosts), mpi_t_cvars=cvars) for l in run.launches))


# ---- small deterministic runs (the store tests) ---------------------------------------------

STORE_SIZES = (0, 1, 8, 1024, 65536)


def stored_run(seed: int = 0, *, hosts: tuple[str, str] = ("node01", "node01"), mpi: str = "MPICH",
             version: str = "5.0.2", start_time: str = "2026-11-20T10:00:00+00:00",
             patterns: tuple[str, ...] = ("pingpong",), sizes: tuple[int, ...] = STORE_SIZES,
             samples: int = 40, finished: bool = True) -> Run:
    rng = np.random.default_rng(seed)
    plan = Plan(patterns=patterns, sizes=sizes, buffer="separate", pair=(0, 1), nranks=2, precision=0.02,
                time_budget_s=5.0, min_samples=10, max_samples=1000)
    info = RunInfo(format_version=1, msgperf_version="0.1.0",
                   command_line=f"msgperf run --sizes {','.join(map(str, sizes))}",
                   start_time=start_time, plan=plan)
    launch = Launch(
        index=0, mpi_library=mpi, mpi_version=version, nranks=2,
        ranks=(RankPlacement(0, hosts[0], 0, 0), RankPlacement(1, hosts[1], 1, 0 if hosts[0] == hosts[1] else 1)),
        pair=(0, 1), pair_shares_node=hosts[0] == hosts[1],
        clock=ClockSelfTest(source="clock_gettime(CLOCK_MONOTONIC)", resolution_s=2.5e-8, overhead_s=1.9e-8,
                            monotonic=True, reported_resolution_s=1e-9, mpi_wtick_s=1e-9),
        environment={"MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE": "8192"}, start_time=start_time,
        end_time="2026-11-20T10:00:05+00:00" if finished else None, end_cpus=(0, 1) if finished else None)
    measurements = []
    for pattern in patterns:
        for size in sizes:
            base = 2.2e-6 + size * 1.1e-10
            values = base * 100 * (1 + rng.exponential(0.05, samples))  # k = 50 round trips
            measurements.append(Measurement(
                pattern=pattern, bytes=size, buffer="separate", ranks=(0, 1), k=50, divisor=100,
                samples_s=values, stop_reason="precision", validated=True, launch=0, timing="per_sample",
                metric="one_way", first_s=float(values.max() * 3), warmup=20, elapsed_s=float(values.sum()),
                extra={"calibration": {"reps": 50, "seed": seed}}))
    return Run(info=info, launches=(launch,), measurements=tuple(measurements))


def encoded(run: Run) -> list[str]:
    """Everything a run holds, as canonical text (Measurement compares by identity)."""
    out = [json.dumps(encode_run(run.info), sort_keys=True)]
    out += [json.dumps([encode_launch(l), encode_launch_end(l) if l.finished else None, l.aborted],
                       sort_keys=True) for l in run.launches]
    for m in run.measurements:
        record = encode_measurement(m)
        record["samples_s"] = np.asarray(m.samples_s).tobytes().hex()  # bit-exact
        out.append(json.dumps(record, sort_keys=True))
    return out


def assert_same_run(a: Run, b: Run) -> None:
    assert encoded(a) == encoded(b)


# ---- richer runs (plots, report, compare) ------------------------------------------------------
REPORT_SIZES = (0, 1, 8, 64, 512, 4096, 16384, 65536, 262144, 1 << 20)
HOSTILE = "<script>alert(1)</script>"


CURVE = broken(1e-6, 2e-10, 5e-6, 1e-10, 16384)


def pingpong_run(seed: int = 0, launches: int = 1, host: str = "node0", scale: float = 1.0):
    run = sweep_run([lambda b: scale * CURVE(b)] * launches, n=150, noise=0.04, seed=seed, sizes=REPORT_SIZES)
    ls = tuple(replace(l, ranks=tuple(replace(r, host=host) for r in l.ranks),
                                   environment={"MPICH_X": "1 & <b>2</b>"}) for l in run.launches)
    return replace(run, launches=ls)


def rich_run(seed: int = 0):
    """pingpong + memcpy + pairs + matrix + eager-probe on 4 ranks over two hosts."""
    rng = np.random.default_rng(seed)
    ms = [measurement("pingpong", s, 2 * CURVE(s) * factors(120, 0.04, rng)) for s in REPORT_SIZES]
    ms += [measurement("memcpy", s, (5e-8 + s / 2e10) * factors(60, 0.02, rng), divisor=1) for s in REPORT_SIZES]
    for s in (0, 4096, 65536):
        for p in (1, 2):
            ms.append(replace(
                measurement("pairs", s, 2 * CURVE(s) * p * factors(40, 0.03, rng)), ranks=(0, 2, 1, 3)[:2 * p],
                extra={"pairs": [[0, 2], [1, 3]][:p], "pair_median_s": [CURVE(s) * p] * p, "active_pairs": p}))
        pairs = [[a, b] for a in range(4) for b in range(4) if a != b]
        ms.append(replace(
            measurement("matrix", s, 2 * CURVE(s) * factors(40, 0.03, rng)),
            extra={"pairs": pairs, "pair_median_s": [CURVE(s) * (1 + (a // 2 != b // 2)) for a, b in pairs]}))
    ms.append(replace(measurement("eager-probe", 1024, np.full(20, 2e-6)),
                                  extra={"eager": True, "eager_limit_bytes": 16384}))
    run = make_run(ms)
    l = run.launches[0]
    ranks = tuple(replace(r, rank=i, host=f"node{i // 2}", cpu=i % 2)
                  for i, r in enumerate(l.ranks * 2))
    return replace(run, launches=(replace(l, ranks=ranks, nranks=4),))


def _variant(pattern: str, variant: str, size: int, raw: np.ndarray, divisor: int = 2, metric: str = "one_way",
             flows: int = 1, extra: dict | None = None) -> Measurement:
    return replace(measurement(pattern, size, raw, divisor=divisor), variant=variant, metric=metric,
                               flows=flows, extra=extra or {})


EVERY_SIZES = (0, 64, 1024, 4096, 16384, 65536, 262144, 1 << 20)


def every_family_run(seed: int = 0) -> Run:
    """One run with a pattern of every family, with the fields the kernels write: the ping-pong
    and a send mode, the bidirectional patterns and the synchronised exchange, a compatibility mode,
    pairs and matrix, unexpected and pack, combine, overlap, eager-probe, memcpy and floor, loggp.
    Deterministic; the ping-pong switches protocol at 16 KiB (CURVE) and the eager limit is
    measured at 16000 B."""
    rng = np.random.default_rng(seed)

    def noisy(t: float, n: int = 60) -> np.ndarray:
        return t * factors(n, 0.02, rng)

    ms = [measurement("pingpong", s, 2 * noisy(CURVE(s))) for s in EVERY_SIZES]
    ms += [measurement("pingpong-nb", s, 2 * noisy(0.95 * CURVE(s))) for s in EVERY_SIZES]
    for pattern, factor in (("sendrecv", 1.1), ("exchange", 1.2), ("exchange-sync", 1.5)):
        ms += [_variant(pattern, "", s, noisy(factor * CURVE(s)), divisor=1, metric="per_iteration", flows=2)
               for s in EVERY_SIZES]
    ms += [measurement("osu-latency", s, 2 * noisy(CURVE(s))) for s in EVERY_SIZES]
    for s in EVERY_SIZES:
        ms.append(_variant("unexpected", "preposted", s, noisy(2 * CURVE(0) + s / 5e9), divisor=1,
                           metric="per_iteration"))
        ms.append(_variant("unexpected", "late", s, noisy(2 * CURVE(0) + s / 5e9 + s / 2e10), divisor=1,
                           metric="per_iteration"))
        ms.append(_variant("pack", "direct", s, 2 * noisy(CURVE(s))))
        ms.append(_variant("pack", "packed", s, 2 * noisy(CURVE(s) + s / 1e10)))
        ms.append(measurement("memcpy", s, noisy(5e-8 + s / 2e10), divisor=1))
        ms[-1] = replace(ms[-1], metric="copy")
        ms.append(measurement("floor", s, 2 * noisy(1.5e-7 + s / 3e10)))
        for variant, t in (("comm", CURVE(s)), ("compute", 5e-6), ("both", max(CURVE(s), 5e-6) * 1.1)):
            ms.append(_variant("overlap", variant, s, noisy(t), divisor=1, metric="per_iteration", flows=2))
        ms.append(_variant("eager-probe", "", s, noisy(2e-6 if s <= 16000 else 1e-2), divisor=1, metric="probe",
                           extra={"eager": s <= 16000, "eager_limit_bytes": 16000, "eager_limit_low_bytes": 16000,
                                  "eager_limit_high_bytes": 16001, "unexpected_capacity": 256 if s <= 16000 else 0,
                                  "capacity_capped": s <= 16000, "probe_max_bytes": 1 << 20}))
    for s in (64, 1024, 4096):
        for k in (2, 8):
            ms.append(_variant("combine", f"k{k}-separate", s, 2 * noisy(CURVE(s) + (k - 1) * (3e-7 + s / 2e10)),
                               extra={"k_messages": k, "combined": False, "message_bytes": s}))
            ms.append(_variant("combine", f"k{k}-combined", s, 2 * noisy(CURVE(k * s)),
                               extra={"k_messages": k, "combined": True, "message_bytes": k * s}))
    for s in (0, 1024, 65536):
        rt = 2 * CURVE(s)
        gap = 3e-7 + s / 2e10
        ms.append(_variant("loggp", "", s, noisy(rt), divisor=1, metric="round_trip",
                           extra={"prtt_1_0_s": rt, "prtt_n_0_s": rt + 9 * gap, "prtt_n_d_s": rt + 9 * (rt + 2e-7),
                                  "n": 10, "d_s": rt, "send_call_s": 2e-7, "recv_call_s": 3e-7, "loggp_tests": 5}))
    for s in (0, 65536):
        for p in (1, 2):
            ms.append(replace(
                measurement("pairs", s, 2 * noisy(CURVE(s) * p)), ranks=(0, 2, 1, 3)[:2 * p],
                extra={"pairs": [[0, 2], [1, 3]][:p], "pair_median_s": [CURVE(s) * p] * p, "active_pairs": p}))
        pairs = [[a, b] for a in range(4) for b in range(4) if a != b]
        ms.append(replace(
            measurement("matrix", s, 2 * noisy(CURVE(s))), ranks=(0, 1, 2, 3), variant="round 0",
            extra={"pairs": pairs, "pair_median_s": [CURVE(s) * (1 + (a // 2 != b // 2)) for a, b in pairs],
                   "round": 0, "rounds": 1}))
    run = make_run(ms, path="every.jsonl")
    l = run.launches[0]
    ranks = tuple(replace(r, rank=i, host=f"node{i // 2}", cpu=i % 2) for i, r in enumerate(l.ranks * 2))
    return replace(run, launches=(replace(l, ranks=ranks, nranks=4),))


# ---- runs with launch-level random effects (compare, noise floor) ---------------------------

GATE_SIZES = (0, 1024, 65536, 1 << 20)


def launches_run(seed: int = 0, launches: int = 3, launch_sd: float = 0.03, run_sd: float = 0.0,
                 noise: float = 0.04, n: int = 200, scale: float | dict = 1.0,
                 sizes: Sequence[int] = GATE_SIZES, curve: Curve = CURVE,
                 start_time: str = "2026-01-01T00:00:00Z") -> Run:
    """One run as the machine makes it: the whole run shifted by exp(run_sd·N(0,1)) per size
    (the hour, the load), each launch by exp(launch_sd·N(0,1)) per size (placement, pages),
    then n lognormal samples of relative spread ``noise`` inside each launch. ``scale``
    multiplies the true time (a dict: per size), an injected slowdown."""
    rng = np.random.default_rng(seed)
    factor = scale if isinstance(scale, dict) else {s: scale for s in sizes}
    shift = {s: np.exp(run_sd * rng.standard_normal()) for s in sizes}
    ms = []
    for i in range(launches):
        for s in sizes:
            level = curve(s) * factor.get(s, 1.0) * shift[s] * np.exp(launch_sd * rng.standard_normal())
            ms.append(measurement("pingpong", s, 2 * level * factors(n, noise, rng), i))
    run = make_run(ms, launches=launches)
    return replace(run, info=replace(
        run.info, start_time=start_time, command_line=f"msgperf run --repeat {launches} # {seed}"))


def sample_profile(seed: int = 0, nranks: int = 2, complete: bool = True, version: int = 2):
    """A small application profile (records/profile_format.py) whose every count adds up:
    each rank sends 3 isends of 8 B and 1 of 64 B to the next rank per step, ``seed`` + 2 steps,
    in one back-to-back sequence per step, and receives the same from the previous rank.
    ``version`` 1: the first format, whose ranks do not name their clock; 4: a 512 KiB MPI_Reduce
    whose odd ranks fault 129 pages a call (half its calls counted) at 2.5 µs a page."""
    from msgperf.records.profile_format import (CallSite, CallTime, CollectiveCalls, PeerMessages, PeerSequences, Profile,
                                                ProfileInfo, RankClock, RankProfile, SequenceShape,
                                                SizeCount)
    steps = seed + 2
    sizes = (SizeCount(8, 3 * steps), SizeCount(64, steps))
    log2 = (SizeCount(8, 3 * steps), SizeCount(64, steps))
    ranks = []
    for r in range(nranks):
        nxt, prev = (r + 1) % nranks, (r - 1) % nranks
        shape = SequenceShape(count=steps, length=4, bytes=88, min_bytes=8, max_bytes=64, kinds=("isend",),
                              sizes=(SizeCount(8, 3), SizeCount(64, 1)))
        ranks.append(RankProfile(
            rank=r, host=f"node{r // 2}", pid=1000 + r, ended_by="MPI_Finalize" if complete else "MPI_Abort",
            wall_s=1.5 + seed, mpi_time_s=0.25, wait_time_s=0.125,
            calls=(CallTime("MPI_Isend", 4 * steps, 0.0625, "point-to-point", 88 * steps if version >= 3 else 0),
                   CallTime("MPI_Waitall", steps, 0.125, "wait/test"),
                   *((CallTime("MPI_Allreduce", steps, 0.03125, "collective", 8 * steps),
                      CallTime("MPI_Comm_rank", 1, 1e-07, "communicator/datatype")) if version >= 3 else ())),
            messages=(PeerMessages(nxt, "send", "isend", 4 * steps, 88 * steps, sizes, 0, 0, log2),
                      PeerMessages(prev, "recv", "irecv", 4 * steps, 88 * steps, sizes, 0, 0, log2)),
            sequences=(PeerSequences(nxt, steps, 4 * steps, 88 * steps, (shape,), 0, 0, 0, 0),),
            proc_null=0, unknown_peer=0, untracked_requests=0,
            clock=None if version < 2 else RankClock("tsc", 2.3e9 + r, 2.3e9 + 2 * r, 1.5 + seed, 1.25e-08),
            **({"sites": (CallSite("MPI_Waitall", "./halo", 4660, steps, 0.125),
                          CallSite("MPI_Allreduce", None, 0x7f0000001234, steps, 0.03125)),
                "sites_other_n": 4 * steps + 1, "sites_other_time_s": 0.0625,
                "collectives": (CollectiveCalls("MPI_Allreduce", nranks, 8, steps, 0.03125),
                                *((CollectiveCalls("MPI_Reduce", nranks, 524288, 8 * steps, 0.25,
                                                   faults_n=4 * steps, faults=516 * steps * (r % 2),
                                                   faulted_n=4 * steps * (r % 2), datatype="MPI_DOUBLE"),)
                                  if version >= 4 else ())),
                "collectives_other_n": 0, "collectives_other_time_s": 0.0,
                **({"page_fault_s": 2.5e-06 if r % 2 else None} if version >= 4 else {})} if version >= 3 else {})))
    info = ProfileInfo(format_version=version, profiler_version="0.1.0", argv=("./halo", "--steps", str(steps)),
                       mpi_library="MPICH Version:      5.0.2\nMPICH Release date: today", mpi_version="5.0",
                       nranks=nranks, hosts=tuple(f"node{r // 2}" for r in range(nranks)),
                       start_time="2026-11-23T10:00:00Z", end_time="2026-11-23T10:00:02Z",
                       thread_level="single", clock="clock_gettime(CLOCK_MONOTONIC)" if version < 2 else "tsc",
                       clock_read_s=2.1e-08 if version < 2 else 1.25e-08,
                       sequence_gap_s=1e-06, complete=complete)
    return Profile(info=info, ranks=tuple(ranks), path="")
