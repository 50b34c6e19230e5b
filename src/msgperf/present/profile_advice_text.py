"""``msgperf advise --profile`` in words: the program's predicted against measured communication
time, then what to change in order of payoff, each figure with the model or measurement it came
from. Rendering only: every number is a field of the ``ProfileAdvice`` (analysis/advice/profile_advice.py).
``advice_sections`` is the wording; the terminal prints it and the HTML report shows the same lines."""

from __future__ import annotations

from rich.console import Console

from msgperf import units
from msgperf.analysis.advice import (MIN_SAMPLED, RESOLUTION_MIN_RUNS, CombineAdvice, Estimate, ProfileAdvice,
                                     ProfileRunsAdvice)
from msgperf.data_text import printable
from msgperf.records.profile_format import FAULT_SAMPLE_BYTES, FAULT_SAMPLE_ONE_IN

MAX_COMBINE = 5
MAX_BUFFERING = 6
MAX_RANKS = 16
MAX_FAULT_ROWS = 6


def estimate(e: Estimate) -> str:
    if e.low_s is None or e.high_s is None:
        return units.seconds(e.value_s)
    return f"{units.seconds(e.value_s)} [{units.seconds(e.low_s)} – {units.seconds(e.high_s)}]"


def _sizes(c: CombineAdvice) -> str:
    if c.sizes_assumed:
        return f"{units.size(c.mean_bytes)} each on average (sizes not recorded exactly)"
    return ", ".join(f"{units.size(b)} ×{n}" for b, n in c.sizes)


def model_words(a: ProfileAdvice) -> str:
    b = a.basis
    return (f"the piecewise model of {b.series} in {b.run} ({b.time_words}; {b.mpi or 'MPI unknown'} on "
            f"{', '.join(b.hosts) or 'unknown hosts'}; {len(b.segments)} segment(s), "
            f"{b.confidence:.0%} intervals of the fit within that run)")


def heading(a: ProfileAdvice) -> str:
    return (f"{a.program or 'the program'} · {a.profile} · {a.nranks} rank(s)"
            + ("" if a.complete else " · partial profile"))


def time_lines(a: ProfileAdvice) -> list[str]:
    slow = next(r for r in a.ranks if r.rank == a.predicted_rank)
    meas = next(r for r in a.ranks if r.rank == a.measured_rank)
    which = "sends" if slow.sent_s >= slow.received_s else "receives"
    phases = (f", plus {units.count(slow.phases)} exchange phases × half a one-way time "
              f"({units.seconds(slow.phase_s)}: the peer's last message in flight)" if slow.phases else "")
    waiting = (f"; + {units.seconds(slow.waiting_added_s)} waiting for the rank that computes longest (measured: "
               "the ranks' times outside MPI, in lockstep)" if slow.waiting_added_s > 0 else "")
    lines = [
        f"predicted  {estimate(a.predicted)} (rank {a.predicted_rank}: transfers {estimate(slow.transfers)} — "
        f"the model's T(s) summed over its {which}, the larger side{phases}; from {model_words(a)}{waiting})",
        f"measured   {units.seconds(a.measured_s)} inside point-to-point calls, waits and tests (rank "
        f"{a.measured_rank}, of which "
        f"{units.seconds(meas.wait_s)} in MPI_Wait*/MPI_Test*; {units.seconds(meas.wall_s)} from MPI_Init to "
        f"MPI_Finalize; from the profile {a.profile})",
    ]
    if a.ratio is not None:
        lines.append(f"measured / predicted  {units.ratio(a.ratio)}"
                     + (": the time inside MPI holds more than the transfers the model predicts — waiting "
                        "for a peer that computes or is descheduled, contention, unwrapped calls' effects"
                        if a.ratio_reading == "more" else
                        ": the program moves its messages faster than one ping-pong at a time (pipelined or "
                        "overlapped sends)" if a.ratio_reading == "less" else ""))
    return lines


def action_lines(a: ProfileAdvice) -> list[str]:
    if not a.actions:
        return ["nothing to gain that the model can see: no back-to-back sends, no sizes just above the "
                "eager limit, no buffered sends" + (", no collective faulting its pages in at every call"
                                                    if a.page_faults is not None and not a.page_faults.rows else "")]
    return [f"{i}. {act.words}: saves {units.seconds(act.saving_s)} (predicted, {_source(act.kind, a)})"
            for i, act in enumerate(a.actions, start=1)]


def _source(kind: str, a: ProfileAdvice) -> str:
    return {"combine": "inside MPI, less the copies of packing them",
            "eager": f"eager limit {units.exact_bytes(a.basis.eager_limit_bytes)} from the eager-probe of {a.basis.run}",
            "buffering": f"copies at {a.basis.copy_from}",
            "page faults": "the profile's page faults inside collectives, at the page cost each rank measured; "
                           "below"}[kind]


def combine_lines(a: ProfileAdvice, one_run: bool = True) -> list[str]:
    if not a.combine:
        return ["no back-to-back sends in the profile: nothing to combine"]
    lines = []
    for c in a.combine[:MAX_COMBINE]:
        copy = (f"; packing and unpacking them cost {units.seconds(c.copy_s)} outside MPI" if c.copy_s is not None
                else "")
        lines.append(f"rank {c.rank} → {c.peer}: {units.count(c.sequences)} × {c.length} messages ({_sizes(c)}) "
                     f"as one of {units.size(c.bytes)}: {units.seconds(c.apart_s)} → {units.seconds(c.combined_s)} "
                     f"each ({units.ratio(c.speedup)}); saves {estimate(c.saving)}{copy}")
    if len(a.combine) > MAX_COMBINE:
        rest = a.combine[MAX_COMBINE:]
        lines.append(f"… {len(rest)} more shapes, saving {units.seconds(a.combine_saving_after_s(MAX_COMBINE))}")
    gap = ("the one-way sends after a sequence's first cost the LogGP gap g + G·s (loggp pattern)"
           if a.basis.gap is not None
           else "each message at T(s), one after the other (the run did not measure the LogGP gap)")
    gap += "; the waiting for a slower rank stays" if any(r.waiting_added_s > 0 for r in a.ranks) else ""
    lines.append(f"all combined: the slowest rank's predicted time {estimate(a.predicted)} → "
                 f"{units.seconds(a.predicted_combined_s)} inside MPI, "
                 f"{units.ratio(a.predicted_speedup)} faster (predicted; {gap})")
    if one_run:  # over several runs, the runs' own line says it with their spread
        lines.append(program_line(a))
    return lines


def program_line(a: ProfileAdvice) -> str:
    """The whole program's speedup of combining every sequence, with how its saving was found."""
    head = f"the whole program (the slowest rank's MPI_Init to MPI_Finalize, {units.seconds(a.program_wall_s)}):"
    if a.program_speedup is None:
        return f"{head} cannot tell ({a.program_cannot_tell})"
    if a.saving_scale < 1:
        how = (f"the saving above × {a.saving_scale:.3g}, the program's measured / predicted: its messages cost less "
               "than the model's, and combining them saves less alike")
    else:
        how = "the saving above as predicted: the program's time inside MPI is not below the model's"
    copies = f", less {units.seconds(a.program_copies_s)} of packing and unpacking" if a.program_copies_s else ""
    return (f"{head} {units.ratio(a.program_speedup)} faster, {units.seconds(a.program_saving_s)} saved (predicted; "
            f"{how}{copies}); one run says nothing of the program's run-to-run spread: profile it several times")


def eager_lines(a: ProfileAdvice) -> list[str]:
    limit = a.basis.eager_limit_bytes
    if limit is None:
        return ["the run did not measure the eager limit (eager-probe): run msgperf run without --no-probe"]
    head = f"eager limit {units.exact_bytes(limit)} (eager-probe of {a.basis.run})"
    if a.eager_why_not:
        return [f"{head}: what sending a size just above it eagerly saves cannot tell (crossing it: "
                f"{a.eager_why_not})"]
    if not a.eager:
        return [f"{head}: no size sent lies just above it (up to {units.exact_bytes(a.just_above_bytes)})"]
    lines = [head]
    for e in a.eager:
        lines.append(f"{units.exact_bytes(e.bytes)} ×{units.count(e.messages)} (ranks {', '.join(map(str, e.ranks))}): "
                     f"{units.seconds(e.time_s)} each by rendezvous, {units.seconds(e.eager_time_s)} on the eager "
                     f"segment's line; sent eagerly (a raised limit, or trimmed to {units.exact_bytes(limit)}) "
                     f"saves {estimate(e.saving)}")
    return lines


def buffering_lines(a: ProfileAdvice) -> list[str]:
    if not a.basis.copy_from:
        return ["the run has no memcpy measurement: what a copy costs is unknown (msgperf run --pattern memcpy)"]
    if not a.buffering:
        return ["no message sent at a size counted exactly: nothing to price"]
    lines = [f"one extra copy per message (Bsend, or a pack into a buffer), at {a.basis.copy_from}:"]
    for b in a.buffering[:MAX_BUFFERING]:
        now = f"; {units.count(b.buffered_messages)} buffered now cost {units.seconds(b.cost_now_s)}" \
            if b.buffered_messages else ""
        lines.append(f"{units.exact_bytes(b.bytes)} ×{units.count(b.messages)}: copy {units.seconds(b.copy_s)} on "
                     f"T(s) = {units.seconds(b.time_s)} ({units.ratio(b.slowdown, 4)} as long buffered); all of them "
                     f"buffered: {units.seconds(b.cost_if_all_s)}{now}")
    if len(a.buffering) > MAX_BUFFERING:
        lines.append(f"… {len(a.buffering) - MAX_BUFFERING} more sizes")
    return lines


def page_fault_lines(a: ProfileAdvice) -> list[str]:
    """The collectives that fault their pages in at every call (``ProfileAdvice.page_faults``); none
    where the profile counted no faults (format 3 or older, no call of 64 KiB or more)."""
    f = a.page_faults
    if f is None:
        return []
    lines = []
    for r in f.rows[:MAX_FAULT_ROWS]:
        cost = (f"≈ {units.seconds(r.faulting_s)} faulting at {units.seconds(r.page_s)} a page "
                f"({units.percent(r.share)} of the calls' time)" if r.faulting_s is not None
                else "what a page costs was not measured")
        lines.append(f"rank {r.rank}: {r.call} P={r.comm_size} {units.size(r.bytes)} ×{units.count(r.calls)}: "
                     f"{r.faults_per_call:,.0f} page faults a call ({units.count(r.sampled)} calls counted"
                     + (f", {units.count(r.preempted)} of them descheduled" if r.preempted else "") + f"); {cost}")
    if len(f.rows) > MAX_FAULT_ROWS:
        lines.append(f"… {len(f.rows) - MAX_FAULT_ROWS} more in --json (page_faults)")
    if f.saving_s is not None:
        speedup = f"; the program {units.ratio(f.speedup)} as fast" if f.speedup is not None else ""
        lines.append(f"with the pages kept ({f.setting}): saves {units.seconds(f.saving_s)}, rank {f.saving_rank}'s "
                     f"time faulting (every rank of a collective waits for it){speedup}; predicted, a suggestion "
                     "to measure")
    elif f.rows:
        lines.append(f"saving: cannot tell ({f.cannot_tell})")
    else:
        lines.append(f"no collective faulted pages in at every call (calls of {units.size(FAULT_SAMPLE_BYTES)} or "
                     f"more, one in {FAULT_SAMPLE_ONE_IN} counted)")
    if f.unsampled_rows:
        lines.append(f"{f.unsampled_rows} row(s) of {units.size(FAULT_SAMPLE_BYTES)} or more had fewer than "
                     f"{MIN_SAMPLED} calls counted: not estimated")
    if f.rows:
        lines.append("the MPI frees a temporary buffer at the end of each call and the next call faults it in "
                     "again; the collective models have no term for this")
    return lines


def bound_lines(a: ProfileAdvice) -> list[str]:
    n_half = a.basis.n_half_bytes
    lines = [f"by the single Hockney line of {a.basis.run}: latency-bound below n½ = "
             f"{units.size(n_half) if n_half is not None else 'undefined'}, bandwidth-bound above"]
    for b in a.bound:
        lines.append(f"{b.regime}: {units.count(b.messages)} messages, {units.volume(b.bytes)} together, "
                     f"{units.seconds(b.time_s)} predicted ({units.percent(b.share, decimals=0)})")
    return lines


def rank_lines(a: ProfileAdvice) -> list[str]:
    lines = []
    for r in a.ranks[:MAX_RANKS]:
        ratio = f", {units.ratio(r.ratio)} the prediction" if r.ratio is not None else ""
        parts = [f"sends {units.seconds(r.sent_s)}", f"receives {units.seconds(r.received_s)}"]
        if r.phases:
            parts.append(f"{units.count(r.phases)} phases {units.seconds(r.phase_s)}")
        if r.waiting_s is None:
            parts.append("waiting for a slower rank: cannot tell")
        elif r.waiting_s > 0:
            held = ("" if r.waiting_added_s >= r.waiting_s else
                    f", of which {units.seconds(r.waiting_added_s)} within its point-to-point calls")
            parts.append(f"waiting for a slower rank {units.seconds(r.waiting_s)}, measured{held}")
        lines.append(f"rank {r.rank}{'' if r.finalized else '*'}: predicted {estimate(r.predicted)} "
                     f"({', '.join(parts)}); measured "
                     f"{units.seconds(r.measured_s)} inside MPI ({units.seconds(r.wait_s)} in MPI_Wait*/MPI_Test*){ratio}")
    if len(a.ranks) > MAX_RANKS:
        lines.append(f"… {len(a.ranks) - MAX_RANKS} more ranks (--json has them all)")
    return lines


def advice_sections(a: ProfileAdvice, one_run: bool = True) -> list[tuple[str, list[str]]]:
    """The advice as (title, lines), in the order it is read (``one_run`` False: a run's advice shown
    among several, whose whole-program speedup the runs' lines give)."""
    return [("Communication time (slowest rank)", time_lines(a)),
            ("What to change, in order of payoff", action_lines(a)),
            ("Back-to-back sends to combine (Lawlor's message-combining lecture)", combine_lines(a, one_run)),
            ("Sizes just above the eager limit", eager_lines(a)),
            ("Buffering (Saphir 1994)", buffering_lines(a)),
            ("Page faults inside collectives", page_fault_lines(a)),
            ("Latency- versus bandwidth-bound", bound_lines(a)),
            ("Per rank", rank_lines(a)),
            ("Notes", list(a.notes))]


def render_profile_advice(console: Console, a: ProfileAdvice) -> None:
    console.print(printable(heading(a)), style="bold", markup=False, highlight=False)
    if a.model_choice:
        console.print(printable(a.model_choice), markup=False, highlight=False)
    for title, lines in advice_sections(a):
        if not lines:
            continue
        console.print(title, style="bold", markup=False, highlight=False)
        for line in lines:
            console.print("  " + printable(line), markup=False, highlight=False)


def predicted_range(low: float | None, high: float | None, wide_spread: float | None = None) -> str:
    """A prediction: one value where the range is a point, else "low – high", said as only a range when
    the analysis found it wide (``wide_spread``: its slowest / fastest; the MPI's choice of algorithm decides)."""
    if low is None or high is None:
        return "not predicted"
    if units.seconds(high) == units.seconds(low):
        return units.seconds(low)
    text = f"{units.seconds(low)} – {units.seconds(high)}"
    return text + (f" (only a range: the algorithms differ {units.ratio(wide_spread)}, the MPI's choice decides)"
                   if wide_spread is not None else "")


def _ratio_range(lo: float | None, hi: float | None) -> str:
    """measured / predicted, from the analysis' ratios against the slowest and the fastest prediction."""
    if lo is None or hi is None:
        return ""
    return f"measured / predicted {units.ratio(lo)}" if units.ratio(lo) == units.ratio(hi) else \
        f"measured / predicted {units.ratio(lo)} – {units.ratio(hi)}"


def _cannot_tell(verdict: str, why: str, less: str) -> str:
    """A part not comparable (the rank's waiting unknown or beyond the tolerance): "less" still holds."""
    if verdict == "":  # nothing predicted to hold it against (a prediction of 0)
        return ""
    if verdict == "less":
        return f"measured / predicted: {less}, even with the waiting for a slower rank in it"
    return f"measured / predicted: cannot tell ({why or 'the waiting for a slower rank'})"


_VERDICT = {"within": "within the range", "more": "more than the slowest algorithm predicts",
            "less": "less than the fastest algorithm predicts", "cannot tell": "cannot tell"}


def whole_program_lines(a: ProfileAdvice) -> list[str]:
    """The shares of the held-against rank's time inside MPI (``ProfileAdvice.whole``), which add up to it."""
    w = a.whole_held
    if w is None:
        return []
    lines = []
    for s in w.shares:
        share = f"{units.seconds(s.measured_s)} ({units.percent(s.fraction)})"
        if s.part == "waiting" and w.waits_for == w.rank:
            lines.append(f"waiting for a slower rank: {share}, measured: rank {w.rank} spends the longest outside MPI")
            continue
        if s.part == "waiting":
            lines.append(f"waiting for rank {w.waits_for}, the slowest outside MPI (load imbalance): {share}, measured"
                         " (taken out of the parts above, point-to-point first)")
            continue
        name = {"point-to-point": "point-to-point calls, waits and tests",  # the share, not a prediction:
                "collectives predicted": "collectives with a model",
                "collectives not predicted": "collectives without a model"}.get(s.part, s.part)
        if s.predicted_low_s is None:
            lines.append(f"{name} {share}: {s.how}")
            continue
        pred = predicted_range(s.predicted_low_s, s.predicted_high_s, s.spread if s.wide else None)
        p2p = s.part == "point-to-point"
        what = "the point-to-point model (above)" if p2p else "the collective models"
        ratio = (_ratio_range(s.ratio_low, s.ratio_high) if s.comparable else
                 _cannot_tell(s.verdict, s.why, "less than predicted" if p2p else _VERDICT["less"]))
        lines.append(f"{name} {share}: predicted {pred} by {what}" + (f"; {ratio}" if ratio else ""))
    if w.waiting_s is None:
        note = a.accounting.waiting_note if a.accounting is not None else ""
        lines.append("waiting for a slower rank: cannot tell (" + (note or "no lockstep") + "); each part keeps it")
    if w.calls_over_s > 0:
        lines.append(f"the calls' times add up to {units.seconds(w.calls_over_s)} more than the rank's time inside "
                     "MPI (the record's total is below its calls'): the shares above, each call's time, add up to "
                     f"{units.seconds(w.mpi_time_s + w.calls_over_s)}")
    ratio = _ratio_range(w.ratio_low, w.ratio_high)
    lines.append(f"the whole time inside MPI, predicted parts as predicted and the rest as measured: "
                 f"{predicted_range(w.predicted_low_s, w.predicted_high_s)}" + (f"; {ratio}" if ratio else ""))
    others = [o for o in a.whole if o.rank != w.rank]
    for o in others[:MAX_RANKS]:
        waited = ("waiting cannot be told" if o.waiting_s is None else
                  f"waiting for rank {o.waits_for} {units.seconds(o.waiting_s)}" if o.waits_for != o.rank else
                  "the slowest outside MPI")
        lines.append(f"rank {o.rank}: {units.seconds(o.mpi_time_s)} inside MPI, {waited}; predicted "
                     f"{predicted_range(o.predicted_low_s, o.predicted_high_s)}")
    if len(others) > MAX_RANKS:
        lines.append(f"… {len(others) - MAX_RANKS} more rank(s) in --json (whole)")
    return lines


def collective_lines(a: ProfileAdvice) -> list[str]:
    """The collectives of the held-against rank, call by call (``ProfileAdvice.collectives``)."""
    c = a.collectives
    rank = next((r for r in c.ranks if r.rank == a.measured_rank), None) if c is not None else None
    if c is None or rank is None:
        return []
    lines = []
    for r in rank.rows:
        head = (f"{r.call} P={r.comm_size} {units.size(r.bytes)} ×{r.calls:,}: measured {units.seconds(r.measured_s)}"
                if r.comm_size else f"{r.call}{f' ×{r.calls:,}' if r.calls else ''}: measured "
                                    f"{units.seconds(r.measured_s)}")
        if not r.predicted:
            lines.append(f"{head}; not predicted: {r.why_not}")
        elif r.source == "model run":
            lines.append(f"{head}; predicted {units.seconds(r.low_s)} (the model run measured {r.collective} at "
                         f"{units.size(r.model_bytes)}, {r.comm_size} ranks; its algorithms: "
                         f"{predicted_range(r.algorithms_low_s, r.algorithms_high_s)})")
        else:
            ratio = _ratio_range(*rank.row_ratios(r)) or "measured / predicted: cannot tell (below)"
            lines.append(f"{head}; predicted {predicted_range(r.low_s, r.high_s, r.spread if r.wide else None)} "
                         f"({r.fastest} – {r.slowest} at n = {units.size(r.model_bytes)}); {ratio}")
    if rank.low_s > 0:
        ratio = _ratio_range(rank.ratio_low, rank.ratio_high)
        lines.append(f"predicted collectives together: "
                     f"{predicted_range(rank.low_s, rank.high_s, rank.spread if rank.wide else None)} against "
                     f"{units.seconds(rank.predicted_measured_s)} measured (waiting included): "
                     f"{_VERDICT.get(rank.verdict, rank.verdict)}" + (f" ({rank.why})" if rank.why else "")
                     + (f"; {ratio}" if ratio else ""))
    lines.append(f"from {c.model_words}")
    lines += list(c.notes)
    return lines


def render_whole_program(console: Console, a: ProfileAdvice) -> None:
    """The whole time inside MPI of the rank the advice is held against, in shares that add up to it
    (``ProfileAdvice.whole``): point-to-point (predicted above), collectives (predicted from the
    collective models, or measured with the reason), the other kinds (measured) and the waiting for
    a slower rank (measured); then that rank's collectives call by call."""
    w = a.whole_held
    if w is None:
        return
    console.print(f"Whole program: rank {w.rank}'s time inside MPI, {units.seconds(w.mpi_time_s)}, in shares that "
                  "add up to it", style="bold", markup=False, highlight=False)
    for text in whole_program_lines(a):
        console.print("  " + printable(text), markup=False, highlight=False)
    lines = collective_lines(a)
    if lines:
        console.print(f"Collectives of rank {w.rank}", style="bold", markup=False, highlight=False)
        for text in lines:
            console.print("  " + printable(text), markup=False, highlight=False)


# ---- several runs of one program (advise --profile A --profile B ...) ------------------------------

def _spread(s, fmt=units.seconds) -> str:
    from msgperf.present.profile_summary import spread_text

    return spread_text(s, fmt)


def runs_time_lines(m: ProfileRunsAdvice) -> list[str]:
    """The measured and predicted times over the runs: median [smallest – largest], N runs."""
    a = m.median_advice
    n = m.runs.n
    labels = ", ".join(r.label for r in m.runs.runs)
    wait = ("; each run's prediction adds its own measured waiting for a slower rank"
            if any(r.waiting_added_s > 0 for adv in m.advices for r in adv.ranks) else "")
    lines = [
        f"runs       {n} profiled runs of {a.program or 'the program'} merged: {labels}; each figure the median "
        "[smallest – largest run] (the run-to-run spread, not a confidence interval)",
        f"predicted  {_spread(m.predicted_s)} over {m.predicted_s.n} runs (the slowest rank of each run; from "
        f"{model_words(a)}{wait})",
        f"measured   {_spread(m.measured_s)} over {m.measured_s.n} runs inside point-to-point calls, waits and tests "
        f"(the slowest rank of each run); MPI_Init to MPI_Finalize {_spread(m.runs.wall_s)}",
    ]
    if m.ratio.n:
        lines.append(f"measured / predicted  {_spread(m.ratio, units.ratio)} (each run's own, median over "
                     f"{m.ratio.n} runs)")
    if m.predicted_speedup.n:
        lines.append(f"all combined: predicted {_spread(m.predicted_speedup, units.ratio)} faster inside MPI")
    untold = [a for a in m.advices if a.combine and a.program_speedup is None]
    if m.program_speedup.n and untold:
        lines.append(f"the whole program (MPI_Init to MPI_Finalize): told in {m.program_speedup.n} of {len(m.advices)} "
                     f"runs only, predicted {_spread(m.program_speedup, units.ratio)} faster in those; the others "
                     f"cannot tell (first: {untold[0].program_cannot_tell})")
    elif m.program_speedup.n:
        lines.append(f"the whole program (MPI_Init to MPI_Finalize): predicted {_spread(m.program_speedup, units.ratio)} "
                     f"faster, {_spread(m.program_saving_s)} saved; {resolution_words(m.resolution)}")
    elif m.advices[m.median_run].combine:
        lines.append(f"the whole program (MPI_Init to MPI_Finalize): cannot tell in any run (the run of median measured "
                     f"time: {m.advices[m.median_run].program_cannot_tell})")
    lines.append(f"below: the advice of {m.runs.runs[m.median_run].label}, the run of median measured time")
    return lines


def resolution_words(r) -> str:
    """Whether the medians of the runs could show the predicted saving (analysis: ``Resolution``)."""
    if r is None:
        return (f"whether that shows beyond the program's run-to-run spread: cannot tell from fewer than "
                f"{RESOLUTION_MIN_RUNS} runs (profile it more times: --profile A --profile B --profile C)")
    if r.sigma_s == 0:
        return (f"whether that shows: cannot tell, the {r.runs} runs took the same time (no spread to judge by)")
    where = (f"the medians of {r.runs} runs before and {r.runs} after detect {units.seconds(r.resolves_s)} "
             f"(the runs' spread σ {units.seconds(r.sigma_s)}; at 95 %, four times in five)")
    if r.shows:
        return f"if the prediction is right, it would show: {where}"
    more = (f"; about {r.runs_needed} runs per side would" if r.runs_needed
            else "; no practical number of runs would")
    return f"cannot tell whether it would show: {where}{more}"


def render_profile_runs_advice(console: Console, m: ProfileRunsAdvice) -> None:
    """The advice over several runs: the times over the runs, then the median run's advice (its
    first section, one run's times, left out), then every run's whole time inside MPI by kind."""
    from msgperf.present.profile_summary import render_profile_runs

    a = m.median_advice
    say = lambda text: console.print(text, markup=False, highlight=False)  # noqa: E731
    console.print(printable(f"{a.program or 'the program'} · {m.runs.n} runs · {a.nranks} rank(s)"), style="bold",
                  markup=False, highlight=False)
    if a.model_choice:
        say(printable(a.model_choice))
    sections = [("Communication time (slowest rank), over the runs", runs_time_lines(m)),
                *advice_sections(a, one_run=False)[1:]]
    sections[-1] = ("Notes", [*m.notes, *a.notes])  # the runs' own notes close the whole program below
    for title, lines in sections:
        if not lines:
            continue
        console.print(title, style="bold", markup=False, highlight=False)
        for line in lines:
            say("  " + printable(line))
    say(printable(f"below: the time inside MPI of {m.runs.runs[m.median_run].label}, the run of median measured time, "
                  "in shares, and its collectives"))
    render_whole_program(console, a)
    console.print("Whole program, every run", style="bold", markup=False, highlight=False)
    render_profile_runs(console, m.runs)
