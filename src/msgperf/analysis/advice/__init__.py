"""Advice: what to change in an application, from its profile and a run's model (one builder
per kind of advice), and which model a listing of runs should use.

The face: what msgperf's other packages may use (tests/analysis/test_rooms.py)."""

from msgperf.analysis.advice.combining_advice import CombiningAdvice, hold_combining, series_rows
from msgperf.analysis.advice.collective_advice import HeldCollectiveAdvice, hold_collective
from msgperf.analysis.advice.model_choice import choose, conditions_misfit, listing_misfit, refusal, wanted_of
from msgperf.analysis.advice.profile_accounting import (POINT_TO_POINT_KINDS, ProfileAccounting, account_profile,
                                                      point_to_point_time)
from msgperf.analysis.advice.profile_advice import CombineAdvice, Estimate, ProfileAdvice, advise_profile
from msgperf.analysis.advice.profile_runs import (RESOLUTION_MIN_RUNS, CallSpread, ProfileRuns, ProfileRunsAdvice,
                                                Resolution, RunTotals, Spread, advise_profile_runs,
                                                check_same_program, merge_runs, resolution)
from msgperf.analysis.advice.profile_collectives import (WIDE, CollectivePrediction, ProfileCollectives,
                                                         RankCollectives, Share, WholeProgram)
from msgperf.analysis.advice.profile_faults import MIN_SAMPLED, FaultingCalls, PageFaults

__all__ = [
    "CombiningAdvice", "hold_combining", "series_rows", "HeldCollectiveAdvice", "hold_collective",
    "CollectivePrediction", "CombineAdvice", "Estimate", "ProfileCollectives", "RankCollectives", "Share", "WIDE",
    "WholeProgram", "FaultingCalls", "MIN_SAMPLED", "PageFaults", "POINT_TO_POINT_KINDS", "ProfileAccounting", "ProfileAdvice", "account_profile",
    "advise_profile", "choose", "conditions_misfit", "point_to_point_time",
    "listing_misfit", "refusal", "wanted_of",
    "CallSpread", "ProfileRuns", "ProfileRunsAdvice", "RunTotals", "Spread", "advise_profile_runs",
    "check_same_program", "merge_runs", "RESOLUTION_MIN_RUNS", "Resolution", "resolution",
]
