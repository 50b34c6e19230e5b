"""Tables: what a run's patterns show side by side: its rows per size, the patterns' facts from
the catalog, the side-by-side comparisons (send modes, bidirectional, barrier, overlap, floor),
the eager limit, the first message, placement, contention, Saphir's buffering and Lawlor's
combining what-ifs, the machine and its differences, where the run came from.

The face: what other rooms and msgperf's other packages may use (tests/analysis/test_rooms.py).
``result.py`` assembles the run's tables, hence the face's width."""

from msgperf.analysis.tables.buffering import (BufferingEstimate, BufferingRow, agreement, buffering_of, buffering_row, copy_speed,
                                               effective_bandwidth, estimate_buffering, memcpy_times, run_copy_speed)
from msgperf.analysis.tables.catalog_view import PatternFacts, pattern_facts
from msgperf.analysis.tables.combining import MIN_GAIN, CombiningPrediction, Gap, predict_combining
from msgperf.analysis.tables.compat_collectives import ToolRow, collective_method, tool_rows
from msgperf.analysis.tables.contention import Contention, MatrixGrid, contention, matrices
from msgperf.analysis.tables.eager import EagerLimit, eager_limit, goes_eagerly, protocol_at
from msgperf.analysis.tables.first_message import FirstMessages, first_messages
from msgperf.analysis.tables.machine import Machine, device_of, mpi_device, run_machine
from msgperf.analysis.tables.machine_diff import MachineDiff, machine_diff
from msgperf.analysis.tables.placement import PlacementModel, PlacementPair, placement_pairs
from msgperf.analysis.tables.run_source import TOOL_NAMES, RunSource, describe_source
from msgperf.analysis.tables.saphir import SaphirRow, copy_undisturbed, saphir_row, undisturbed
from msgperf.analysis.tables.side_by_side import (BarrierRow, ColumnsTable, CompatRow, Difference, FloorRow,
                                                  OverlapRow, VariantPair, barrier_rows, bidirectional, compat,
                                                  difference, floor_rows, index, overlap_rows, ratio_interval,
                                                  send_modes, variant_pairs)
from msgperf.analysis.tables.size_rows import SizeRow, size_rows, time_launches

__all__ = [
    "BarrierRow", "BufferingEstimate", "BufferingRow", "ColumnsTable", "CombiningPrediction", "CompatRow",
    "Contention", "Difference", "EagerLimit", "FirstMessages", "FloorRow", "Gap", "MIN_GAIN", "Machine",
    "MachineDiff", "MatrixGrid", "OverlapRow", "PatternFacts", "PlacementModel", "PlacementPair", "RunSource",
    "SaphirRow", "SizeRow", "TOOL_NAMES", "ToolRow", "VariantPair", "agreement", "barrier_rows", "bidirectional", "collective_method",
    "buffering_of", "buffering_row", "compat", "contention", "copy_speed", "describe_source", "device_of", "difference",
    "eager_limit", "effective_bandwidth", "estimate_buffering", "first_messages", "floor_rows", "goes_eagerly", "index",
    "machine_diff", "matrices", "memcpy_times", "overlap_rows", "pattern_facts", "placement_pairs", "predict_combining", "protocol_at",
    "ratio_interval",
    "copy_undisturbed", "mpi_device", "run_copy_speed", "run_machine", "saphir_row", "send_modes", "undisturbed", "size_rows", "time_launches", "tool_rows", "variant_pairs",
]
