"""The words of advise --profile: each line shows the ProfileAdvice's values, with its sources.
The model is the hand-made one of tests/analysis/advice/test_profile_advice.py."""

from __future__ import annotations

import io

from rich.console import Console

from msgperf.analysis.advice.profile_advice import advise_profile
from msgperf.present.profile_advice_text import advice_sections, render_profile_advice
from tests.analysis.advice.test_profile_advice import app_profile, model_result
from tests.factories import replace


def text_of(advice) -> str:
    out = io.StringIO()
    render_profile_advice(Console(file=out, width=400, color_system=None), advice)
    return out.getvalue()


def test_every_answer_is_worded_with_its_figures_and_sources():
    advice = advise_profile(app_profile(), model_result(), profile_label="app.jsonl", model_label="run 7")
    sections = dict(advice_sections(advice))
    assert list(sections) == ["Communication time (slowest rank)", "What to change, in order of payoff",
                              "Back-to-back sends to combine (Lawlor's message-combining lecture)",
                              "Sizes just above the eager limit", "Buffering (Saphir 1994)",
                              "Page faults inside collectives", "Latency- versus bandwidth-bound", "Per rank", "Notes"]
    time = sections["Communication time (slowest rank)"]
    assert time[0].startswith("predicted  361 µs [") and "the piecewise model of pingpong in run 7" in time[0]
    assert time[1].startswith("measured   500 µs inside point-to-point calls, waits and tests (rank 0, of which 300 µs in "
                              "MPI_Wait*/MPI_Test*")
    assert "from the profile app.jsonl" in time[1] and time[2].startswith("measured / predicted  1.38×")
    actions = sections["What to change, in order of payoff"]
    assert actions[0].startswith("1. combine the back-to-back sends (100 sequences): saves 200 µs (predicted")
    assert actions[1].startswith("2. keep 10 messages at or below the eager limit: saves 34 µs (predicted, eager "
                                 "limit 8192 B from the eager-probe of run 7)")
    assert actions[2].startswith("3. send the 5 buffered messages in standard mode (no copy): saves 50 ns")
    combine = sections["Back-to-back sends to combine (Lawlor's message-combining lecture)"]
    assert combine[0] == ("rank 0 → 1: 100 × 3 messages (8 B ×3) as one of 24 B: 3 µs → 1 µs each (3×); saves "
                          "200 µs [196 µs – 204 µs]; packing and unpacking them cost 480 ns outside MPI")
    assert sections["Sizes just above the eager limit"][1].startswith(
        "12000 B ×10 (ranks 0): 5.6 µs each by rendezvous, 2.2 µs on the eager segment's line")
    assert "latency-bound: 325 messages" in " ".join(sections["Latency- versus bandwidth-bound"])
    text = text_of(advice)
    for title, lines in advice_sections(advice):
        assert (title in text) == bool(lines) and all(line in text for line in lines)  # an empty section is left out
    assert sections["Notes"] == [] and sections["Page faults inside collectives"] == []  # none counted


def test_totals_of_bytes_are_formatted_with_units(monkeypatch):

    from msgperf.present.profile_summary import rank_table
    advice = advise_profile(app_profile(), model_result(), profile_label="app.jsonl", model_label="run 7")
    big = replace(advice, bound=tuple(replace(b, bytes=10_400_000) for b in advice.bound))
    bound = " ".join(dict(advice_sections(big))["Latency- versus bandwidth-bound"])
    assert "9.92 MiB together" in bound and "10400000 B" not in bound
    profile = app_profile()
    monkeypatch.setattr(type(profile.ranks[0]), "bytes_sent", property(lambda rank: 10_400_000))
    text = rank_table(profile).text()
    assert "9.92 MiB" in text and "10400000" not in text


def test_page_faults_inside_collectives_are_worded_with_their_setting_and_saving():

    from msgperf.records.profile_format import CollectiveCalls
    profile = app_profile()
    ranks = tuple(replace(r, collectives=(CollectiveCalls("MPI_Reduce", 2, 524288, 1000, 0.36, 125,
                                                                      125 * (129 if r.rank else 7), 125),),
                                      page_fault_s=2.5e-06) for r in profile.ranks)
    advice = advise_profile(replace(profile, ranks=ranks), model_result(), profile_label="app.jsonl",
                            model_label="run 7")
    sections = dict(advice_sections(advice))
    setting = "MALLOC_MMAP_THRESHOLD_=1048576 MALLOC_TRIM_THRESHOLD_=4194304"
    assert sections["What to change, in order of payoff"][0] == (
        f"1. keep the pages of the MPI's temporary buffers ({setting} in the job's environment: glibc then keeps "
        "freed memory up to the trim threshold; a suggestion to measure): saves 322 ms (predicted, the profile's "
        "page faults inside collectives, at the page cost each rank measured; below)")
    faults = sections["Page faults inside collectives"]
    assert faults[0] == ("rank 1: MPI_Reduce P=2 512 KiB ×1 k: 129 page faults a call (125 calls counted); ≈ 322 ms "
                         "faulting at 2.5 µs a page (89.6 % of the calls' time)")
    assert faults[1].startswith("rank 0: MPI_Reduce P=2 512 KiB ×1 k: 7 page faults a call")
    assert faults[2].startswith(f"with the pages kept ({setting}): saves 322 ms, rank 1's time faulting")
    assert "a suggestion to measure" in faults[2]
    # without faults counted (a version 3 profile) the section is left out
    assert "Page faults inside collectives" not in text_of(advise_profile(app_profile(), model_result()))
