"""Per-pair samples of matrix and pairs: each pair's p95/p50 and the slowest pairs and ranks, on
synthetic records whose spread is known; the records' pair samples are checked on reading."""

from __future__ import annotations

import json

import numpy as np
import pytest

from msgperf.analysis.samples.pair_spread import pair_spreads
from msgperf.analysis.result import analyze
from msgperf.present.json_view import rows_json
from msgperf.present.pattern_tables import all_tables
from msgperf.records.format import RecordError, decode_measurement, encode_measurement
from tests.factories import make_run, measurement
from tests.factories import replace

# Four ranks: the matrix's rounds of disjoint pairs (each ordered pair once).
ROUNDS = [((0, 1), (2, 3)), ((1, 0), (3, 2)), ((0, 2), (1, 3)), ((2, 0), (3, 1)), ((0, 3), (1, 2)),
          ((3, 0), (2, 1))]
N = 200
STEADY = 2e-6  # a round trip: one-way 1 µs


def samples(slow: bool) -> list[float]:
    """N round trips: a steady pair at STEADY; a slow core's pair at twice that, one sample in
    eight at ten times STEADY (so its p95 is 10x STEADY, its p50 2x: spread 5)."""
    if not slow:
        return [STEADY] * N
    return [10 * STEADY if i % 8 == 0 else 2 * STEADY for i in range(N)]


def matrix_run(size: int = 0):
    ms = []
    for r, pairs in enumerate(ROUNDS):
        pair_samples = [samples(3 in p) for p in pairs]
        extra = {"round": r, "rounds": len(ROUNDS), "pairs": [list(p) for p in pairs],
                 "pair_median_s": [float(np.median(s)) / 2 for s in pair_samples],
                 "pair_samples_s": pair_samples}
        m = measurement("matrix", size, np.max(pair_samples, axis=0))
        ms.append(replace(m, ranks=tuple(x for p in pairs for x in p), variant=f"round {r}",
                                      extra=extra))
    return make_run(ms)


def test_a_pairs_spread_is_p95_over_p50_of_its_own_per_message_samples():
    [steady, slow] = pair_spreads([[0, 1], [2, 3]], [samples(False), samples(True)], divisor=2)
    assert (steady.pair, steady.n, steady.p50_s, steady.spread) == ((0, 1), N, pytest.approx(1e-6), pytest.approx(1.0))
    assert slow.p50_s == pytest.approx(2e-6) and slow.p95_s == pytest.approx(10e-6)
    assert slow.spread == pytest.approx(5.0)
    assert pair_spreads([[0, 1]], None, 2) == ()  # an older record: no per-pair samples


def test_the_matrix_names_the_slow_core_and_its_pairs():
    result = analyze(matrix_run())
    [grid] = result.matrices
    assert grid.spread(0, 1) == pytest.approx(1.0) and grid.spread(2, 3) == pytest.approx(5.0)
    assert grid.spread(3, 0) == pytest.approx(5.0)
    assert {p.pair for p in grid.slowest} <= {(2, 3), (3, 2), (1, 3), (3, 1), (0, 3), (3, 0)}
    # Half the 12 ordered pairs hold rank 3 (2 µs), half do not (1 µs): the median pair is 1.5 µs.
    assert all(p.times_typical == pytest.approx(4 / 3) and p.spread == pytest.approx(5.0) for p in grid.slowest)
    rank, ratio = grid.slowest_rank
    assert rank == 3 and ratio == pytest.approx(4 / 3)
    assert grid.rank_ratios[0] == pytest.approx(2 / 3)
    tables = {t.heading: t for t in all_tables(result)}
    spread_table = tables["matrix: each pair's spread, 0 B"]
    assert spread_table.rows[0] == ["0", "·", "1.00", "1.00", "5.00"]
    assert "slowest rank 3" in spread_table.note
    rows = rows_json(result)
    assert "pair_samples_s" not in rows[0]  # the raw samples stay in the run file
    assert rows[0]["pair_spreads"][1]["p95_over_p50"] == pytest.approx(5.0)


def test_pairs_shows_every_pair_with_its_spread():
    pairs = [[0, 1], [2, 3]]
    pair_samples = [samples(False), samples(True)]
    m = measurement("pairs", 64, np.max(pair_samples, axis=0))
    m = replace(m, ranks=(0, 1, 2, 3), variant="2 pairs", extra={
        "active_pairs": 2, "pairs": pairs, "pair_median_s": [1e-6, 2e-6], "pair_samples_s": pair_samples})
    result = analyze(make_run([m]))
    [cell] = result.contention.rows[0].cells
    assert cell.widest.pair == (2, 3) and cell.widest.spread == pytest.approx(5.0)
    table = {t.heading: t for t in all_tables(result)}["pairs: each pair's samples"]
    assert table.rows[1][2:] == ["2→3", "2 µs", str(N), "2 µs", "10 µs", "5.00"]


def test_pair_samples_are_checked_like_samples():
    m = matrix_run().measurements[0]
    record = json.loads(json.dumps(encode_measurement(m)))
    assert decode_measurement(record, "x").extra["pair_samples_s"] == record["pair_samples_s"]
    for bad in ([[1e-6]], [[1e-6] * 3, [0.0]], [[1e-6], "x"]):
        with pytest.raises(RecordError, match="pair_samples_s"):
            decode_measurement({**record, "pair_samples_s": bad}, "x")
