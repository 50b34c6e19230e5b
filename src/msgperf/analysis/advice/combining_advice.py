"""``msgperf advise RUN -k K -s S``: the combining prediction (analysis/tables/combining.py) held to
the rules the answer holds its figures to (analysis/answer.py), so that advise never gives a number
where show says "cannot tell".

What each figure rests on, and when it cannot be told:

- the predicted times T(s) and T(k·s) rest on the piecewise model's segments at s and k·s: not
  where the model itself cannot tell a segment's β (``segments_cannot_tell``, the same reasons
  ``fit`` prints), where its α or β is not positive (a line that does not hold as a time: a
  truncated run's 0 B - 16 B falling at -23 ns/B predicted 433 ns for 32 B while 16 B took 875 ns),
  or where any size it is fitted to was measured while disturbed (``disturbance``, as the answer
  holds its fitted terms);
- where combining pays rests on every segment up to the largest k·s it covers, by the same rule;
- the single line's speedup on the Hockney line, as n½ = α/β does (the answer's reasons);
- the measured times at s and k·s (or the combine pattern's) on their rows: not where they were
  measured while disturbed;
- b_n of buffering on the term it is read from (asymptotic or peak bandwidth, ``Answer.disturbed``);
- "combine them" and its like only where the speedup it rests on can be told.

The warnings are the answer's lines about the launches' conditions (every disturbed launch, as
show says them), not the first one alone. The answer's rules come in as arguments (this room lies
below the answer: commands/advise.py hands them over). Pure.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import msgspec

from msgperf import units
from msgperf.analysis.tables import CombiningPrediction, SizeRow
from msgperf.values import Value

# where b_n comes from (tables/buffering.py: buffering_of's words) -> the answer's term
_NETWORK_TERMS = {"the asymptotic bandwidth": "asymptotic_bandwidth"}


class CombiningAdvice(Value):
    """The prediction, and for each figure it holds why it is no finding ("" where it is one)."""

    prediction: CombiningPrediction
    predicted_why_not: str  # the piecewise model's times at s and k·s
    line_why_not: str  # the single line α + β·b's speedup
    # why ``prediction.paying_bytes`` stop short of the sizes measured (they are cut below the first
    # segment that cannot be told, this reason); "" where they reach them
    paying_why_not: str
    measured_why_not: str  # the measured times at s and k·s, or the combine pattern's
    buffering_why_not: str  # b_n, and with it b_e and the buffered time
    # the answer's lines about the launches' conditions (show's: analysis/answer.Warning), when the
    # advice is about its series
    conditions: tuple[Any, ...] = ()
    copy_why_not: str = ""  # b_c (the run's copy speed, summary's: SaphirRow.copy_speed_why_not)

    @property
    def speedup_why_not(self) -> str:
        """Why the speedup the advice rests on (``answer_speedup``) cannot be told."""
        p = self.prediction
        return self.measured_why_not if p.measured_by_combine else self.predicted_why_not

    @property
    def verdict(self) -> str:
        """What to do, from the speedup the advice rests on; "" where that cannot be told."""
        if self.speedup_why_not:
            return ""
        p = self.prediction
        speedup = p.answer_speedup
        return ("combine them" if speedup >= 1 + p.min_gain else
                "combining gains little here" if speedup >= 1 else "send them apart")


def series_rows(rows: Sequence[SizeRow], series: Any) -> dict[int, SizeRow]:
    """The rows of show's table that ``series`` is modelled from, by size (as result._answer reads them)."""
    key = series.key
    return {r.bytes: r for r in rows if (r.pattern, r.variant) == (key.pattern, key.variant)
            and (not key.placement or r.extra.get("placement", key.placement) == key.placement)}


def _disturbed(rows: Sequence[SizeRow], measured_while: Callable[[SizeRow], str]) -> str:
    """The first reason the disturbance rule gives for one of ``rows``, with how many it holds for."""
    found = [why for why in map(measured_while, rows) if why]
    return f"{found[0]} ({len(found)} of {len(rows)} sizes)" if found else ""


def _segment_why_not(sweep: Any, index: int, why_beta: str, rows: Mapping[int, SizeRow],
                     measured_while: Callable[[SizeRow], str]) -> str:
    seg = sweep.piecewise.segments[index]
    where = f"the model's segment {units.size(seg.from_bytes)} – {units.size(seg.to_bytes)}"
    if why_beta:
        return f"{where}: its β cannot be told ({why_beta})"
    if not (seg.alpha_s > 0 and seg.beta_s_per_byte > 0):
        return f"{where}: α or β of its line is not positive"
    fitted = [rows[p.bytes] for p in sweep.points if seg.from_bytes <= p.bytes <= seg.to_bytes and p.bytes in rows]
    said = _disturbed(fitted, measured_while)
    return f"{where}: {said}" if said else ""


def _clip(ranges: Sequence[tuple[float, float]], within: float) -> tuple[tuple[tuple[float, float], ...], bool]:
    """(the paying ranges cut at ``within``, whether the last one reaches it)."""
    kept = tuple((lo, min(hi, within)) for lo, hi in ranges if lo <= within)
    return kept, bool(kept) and kept[-1][1] >= within


def hold_combining(prediction: CombiningPrediction, series: Any, rows: Mapping[int, SizeRow],
                   measured_while: Callable[[SizeRow], str], beta_whys: Sequence[str],
                   told: Mapping[str, str], conditions: Sequence[Any] = (),
                   combine_rows: Sequence[SizeRow] = (), copy_why_not: str = "") -> CombiningAdvice:
    """``prediction`` (RunResult.advise) for ``series``, held to the answer's rules: ``rows`` the
    series' rows of show's table by size, ``measured_while`` the answer's disturbance rule for a row
    ("" when undisturbed), ``beta_whys`` why each segment's β cannot be told (answer.segments_cannot_tell),
    ``told`` the answer's terms it cannot tell (answer.disturbed_terms), ``conditions`` its warnings
    about the launches, ``combine_rows`` the combine pattern's rows at this k and s, when it measured
    them, ``copy_why_not`` why the run's copy speed b_c cannot be told (its memcpy measured while disturbed)."""
    p = prediction
    sweep = series.model.sweep
    pw = sweep.piecewise

    def segment(i: int) -> str:
        return _segment_why_not(sweep, i, beta_whys[i], rows, measured_while)

    k, s = p.messages, p.bytes
    predicted = next((why for i in dict.fromkeys((pw.segment_index(s), pw.segment_index(k * s))) if (why := segment(i))), "")
    # where combining pays, only over the sizes whose s and k·s both lie on segments that can be told:
    # below the first that cannot (a quiet run's cache regime, α < 0, says nothing about 64 B)
    paying = ""
    for i in range(len(pw.segments)):
        if why := segment(i):
            paying = why
            within = (pw.segments[i].from_bytes - 1) / k if i else 0.0
            if within < p.within_bytes:
                ranges, to_within = _clip(p.paying_bytes, within)
                p = msgspec.structs.replace(p, paying_bytes=ranges, within_bytes=within, pays_to_within=to_within)
            break
    half = sweep.characteristics.n_half
    line = ((half.note if half.value is None else "") or told.get("n_half") or told.get("alpha")
            or told.get("beta") or "")
    if p.measured_by_combine:
        measured = _disturbed(combine_rows, measured_while)
    else:
        measured = _disturbed([rows[b] for b in dict.fromkeys((s, k * s)) if b in rows], measured_while)
    b = p.buffering
    buffering = ""
    if b is not None:
        term = _NETWORK_TERMS.get(b.network_from, "peak_bandwidth")
        buffering = told.get(term, "") or (predicted and f"the combined message's time: {predicted}")
    copy = copy_why_not if b is not None and "memcpy" in b.copy_from else ""  # (a copy given with --copy stands)
    return CombiningAdvice(p, predicted, line, paying, measured, buffering or copy, tuple(conditions), copy)
