"""Every ``--json`` output, rendered from the one analysis result: ``fit --json`` (a series'
model), ``show --json`` (the answer block's figures and the rows of the tables), ``summary --json`` (Saphir's Table 1) and
``advise --json``, ``compare --json``. Units are in the key names (``_s``, ``_bytes``,
``_bytes_per_s``); intervals are [low, high]; one rule (``number``) turns a value that does not
exist — NaN, an unbounded interval end, an undefined n½ — into null, and ``dumps`` applies it to
every number of every output (no command writes JSON another way).
"""

from __future__ import annotations

import dataclasses
import json
import math
import numbers
import re
from typing import TYPE_CHECKING, Any

import msgspec

from msgperf.analysis.answer import (Answer, disturbed_terms, held_gaps, segments_cannot_tell, segments_disturbed_of,
                                     unconfirmed_switches)
from msgperf.analysis.caveats import Caveat
from msgperf.analysis.tables import SaphirRow, SizeRow
from msgperf.analysis.model import LineFit, SeriesAnalysis, SizeAnalysis, SweepAnalysis
from msgperf.analysis.result import RunResult, SeriesResult

if TYPE_CHECKING:  # compare --json only: the other outputs do not import the comparison's statistics
    from msgperf.analysis.compare import Gate, LaunchesNeeded, MachineDiff, RunComparison


def number(value: Any) -> Any:
    """The one rule: a finite number as itself, anything else that is not a number (NaN, ±inf,
    None) as null."""
    if value is None or isinstance(value, bool):
        return value
    value = float(value)
    return value if math.isfinite(value) else None


_num = number


def _pair(values: tuple[float, float] | None) -> list[Any] | None:
    return None if values is None else [_num(values[0]), _num(values[1])]


def _line(line: LineFit) -> dict[str, Any]:
    return {
        "from_bytes": line.from_bytes, "to_bytes": line.to_bytes, "n_points": line.n_points,
        "alpha_s": _num(line.alpha_s), "alpha_ci_s": _pair(line.alpha_ci_s),
        "beta_s_per_byte": _num(line.beta_s_per_byte),
        "beta_ci_s_per_byte": _pair(line.beta_ci_s_per_byte),
        "bandwidth_bytes_per_s": _num(line.bandwidth_bytes_per_s),
        "bandwidth_ci_bytes_per_s": _pair(line.bandwidth_ci_bytes_per_s),
        "n_half_bytes": _num(line.n_half_bytes), "n_half_ci_bytes": _pair(line.n_half_ci_bytes),
    }


def _segment(line: LineFit, cannot_tell: str, disturbed: str = "") -> dict[str, Any]:
    """One segment of the piecewise model; a β that breaks its rule (piecewise.slope_cannot_tell) is
    null, with its 1/β and n½, and ``cannot_tell`` says why; ``disturbed``: its sizes were measured
    while disturbed (the answer's ``segments_disturbed``), so its α is null too."""
    out = {**_line(line), "cannot_tell": cannot_tell or None}
    if cannot_tell:
        out.update({k: None for k in ("beta_s_per_byte", "beta_ci_s_per_byte", "bandwidth_bytes_per_s",
                                      "bandwidth_ci_bytes_per_s", "n_half_bytes", "n_half_ci_bytes")})
    if disturbed:
        out.update(alpha_s=None, alpha_ci_s=None)
    return out


def _caveat(c: Caveat) -> dict[str, Any]:
    return {"kind": c.kind, "message": c.message, "advice": c.advice, "bytes": c.bytes,
            "launch": c.launch}


def sweep_to_dict(sweep: SweepAnalysis, disturbed: dict[str, str] | None = None,
                  held: dict[tuple[int, int], tuple[int, int, str]] | None = None,
                  segments: tuple[str, ...] = (), unconfirmed: dict[tuple[int, int], str] | None = None
                  ) -> dict[str, Any]:
    """The model of one sweep: the required top-level keys of ``fit --json`` and the rest.
    ``disturbed`` and ``held`` are the answer block's decisions about the sweep (analysis/answer.py
    ``disturbed_terms``, ``held_gaps``): a term it cannot tell is null, with its ``why_not``, and a
    breakpoint's most likely gap is the one held to its rule."""
    h, pw, ch = sweep.hockney, sweep.piecewise, sweep.characteristics
    disturbed, held, unconfirmed = disturbed or {}, held or {}, unconfirmed or {}
    line = _line(h.line)
    out = {
        **{k: v for k, v in line.items() if k not in ("from_bytes", "to_bytes", "n_points")},
        "fit": {"method": "Huber M-estimation on relative scale (docs/statistics.md)",
                "sizes": len(sweep.points), "rms_rel_residual": _num(h.rms_rel_residual),
                "max_rel_residual": _num(h.max_rel_residual),
                "max_rel_residual_bytes": h.max_rel_residual_bytes,
                "r_squared": _num(h.r_squared), "chi2_per_dof": _num(h.chi2_per_dof),
                "phi": _num(h.phi), "tolerance": h.tolerance, "confidence": h.line.confidence},
        "residuals": [{"bytes": b, "rel": _num(r), "z": _num(z), "weight": _num(w)}
                      for b, r, z, w in zip(h.sizes, h.residuals_rel, h.z, h.weights)],
        "breakpoints_bytes": [[bp.low_bytes, bp.high_bytes] for bp in pw.breakpoints],
        "breakpoints": [{"low_bytes": bp.low_bytes, "high_bytes": bp.high_bytes,
                         **_best(bp, held),
                         "cannot_tell": unconfirmed.get((bp.low_bytes, bp.high_bytes)) or None,
                         "confidence": bp.confidence,
                         "refinement_launches": origin.launches if origin else 0,
                         "found_by_refinement": bool(origin and origin.found),
                         "located_at_probe_limit": bool(origin and origin.at_probe),
                         "located_at_set_threshold": bool(origin and origin.at_threshold)}
                        for bp, origin in zip(pw.breakpoints, [*sweep.provenance, *[None] * len(pw.breakpoints)])],
        "suspects_bytes": [list(s) for s in sweep.suspects],
        "segments": [_segment(s, why, own) for s, why, own in zip(
            pw.segments, segments_cannot_tell(sweep, disturbed, segments), [*segments, *[""] * len(pw.segments)])],
        "criterion": [_num(v) for v in pw.criterion],  # penalised -2 log L per number of breakpoints
        # regimes between two known switches too narrow for a line: their sizes are no anomalies
        "narrow_regimes": [{"lower_bytes": n.lower, "upper_bytes": n.upper, "sizes_bytes": list(n.sizes)}
                           for n in sweep.narrow],
        "anomalies_bytes": [a.bytes for a in sweep.anomalies],
        "anomalies": [{"bytes": a.bytes, "kind": a.kind, "time_s": _num(a.time_s),
                       "predicted_s": _num(a.predicted_s), "rel_deviation": _num(a.rel_deviation),
                       "z": _num(a.z)} for a in sweep.anomalies],
        "zero_byte_latency_s": _num(ch.zero_byte_latency_s),
        "zero_byte_latency_ci_s": _pair(ch.zero_byte_latency_ci_s),
        "zero_byte_size": ch.zero_byte_size,
        "asymptotic_latency_s": _num(ch.asymptotic_latency_s),
        "asymptotic_latency_ci_s": _pair(ch.asymptotic_latency_ci_s),
        "peak_bandwidth_bytes_per_s": _num(ch.peak_bandwidth_bytes_per_s),
        "peak_bandwidth_size": ch.peak_bandwidth_size,
        "asymptotic_bandwidth_bytes_per_s": _num(ch.asymptotic_bandwidth_bytes_per_s),
        "asymptotic_bandwidth_ci_bytes_per_s": _pair(ch.asymptotic_bandwidth_ci_bytes_per_s),
        "terms": {name: _term(getattr(ch, name)) for name in
                  ("zero_byte_latency", "asymptotic_latency", "peak_bandwidth", "asymptotic_bandwidth",
                   "line_bandwidth", "n_half")},
        "fits_every_size": pw.fits_every_size,
        "off_model": [{"bytes": r.bytes, "rel_residual": _num(r.rel_residual), "excluded": r.excluded}
                      for r in pw.off_model],
        "excluded_bytes": list(pw.excluded_bytes),
    }
    for key, why in disturbed.items():
        if key in out["terms"]:  # (the line's alpha and beta are no term of Saphir's)
            out["terms"][key].update(value=None, ci=None, why_not=why)
        out.update({flat: None for flat in _FLAT[key]}, **{f"{key}_why_not": why})
    if ch.n_half.value is None and "n_half" not in disturbed:  # the line's α/β, but no n½ by its rule
        out.update(n_half_bytes=None, n_half_ci_bytes=None, n_half_why_not=ch.n_half.note)
    return out


# the flat top-level keys that repeat a term of Saphir's (or the Hockney line's α and β)
_FLAT = {"zero_byte_latency": ("zero_byte_latency_s", "zero_byte_latency_ci_s"),
         "peak_bandwidth": ("peak_bandwidth_bytes_per_s",),
         "asymptotic_bandwidth": ("asymptotic_bandwidth_bytes_per_s", "asymptotic_bandwidth_ci_bytes_per_s"),
         "asymptotic_latency": ("asymptotic_latency_s", "asymptotic_latency_ci_s"),
         "line_bandwidth": (),
         "n_half": ("n_half_bytes", "n_half_ci_bytes"),
         "alpha": ("alpha_s", "alpha_ci_s"),
         "beta": ("beta_s_per_byte", "beta_ci_s_per_byte", "bandwidth_bytes_per_s", "bandwidth_ci_bytes_per_s")}


def _best(bp: Any, held: dict[tuple[int, int], tuple[int, int, str]]) -> dict[str, Any]:
    """A breakpoint's most likely gap, as the answer held it, and why it was widened (or null)."""
    low, high, why = held.get((bp.low_bytes, bp.high_bytes), (bp.best_low_bytes, bp.best_high_bytes, ""))
    return {"best_low_bytes": low, "best_high_bytes": high, "best_why_not": why or None}


def _term(term: Any) -> dict[str, Any]:
    """One of Saphir's terms: value (null when the evidence does not support one), interval,
    the sizes it rests on, measured or fitted, where it was taken (or why not), extrapolated;
    ``why_not``: why the answer cannot tell it although the model has one (null when it can)."""
    return {"value": _num(term.value), "ci": _pair(term.ci), "sizes": list(term.sizes), "basis": term.basis,
            "note": term.note, "extrapolated": term.extrapolated, "why_not": None}


def _size(size: SizeAnalysis, sweep: SweepAnalysis, asymptote_withheld: bool = False) -> dict[str, Any]:
    s = size.stats
    regime = next(r for r in sweep.regimes if r.bytes == size.bytes)
    return {
        "bytes": size.bytes, "n": s.n, "launches": len(size.measurements),
        "mean_s": _num(s.mean), "std_s": _num(s.std), "min_s": _num(s.min), "max_s": _num(s.max),
        "median_s": _num(s.median),
        "median_ci_s": [_num(s.ci_low), _num(s.ci_high)] if s.n > 1 else None,
        "time_s": _num(size.point.time_s),
        "interval_s": _pair((size.point.ci_low_s, size.point.ci_high_s)) if size.point.ci_low_s is not None else None,
        "interval_covers": size.point.interval.covers if size.point.interval is not None else None,
        "p5_s": _num(s.p5), "p25_s": _num(s.p25), "p75_s": _num(s.p75), "p95_s": _num(s.p95),
        "p99_s": _num(s.p99), "mad_s": _num(s.mad),
        "outliers": size.outliers,
        "model_s": _num(sweep.model_at(size.bytes)),
        "regime": regime.regime, "latency_share": _num(regime.latency_share),
        "messages_per_s": _num(regime.messages_per_s),
        "bandwidth_bytes_per_s": _num(regime.bandwidth_bytes_per_s),
        "fraction_of_asymptotic_bandwidth": None if asymptote_withheld else _num(regime.fraction_of_asymptotic),
        "segment": regime.segment,
        "per_launch": [{
            "launch": m.launch, "n": m.stats.n, "median_s": _num(m.stats.median),
            "median_ci_s": [_num(m.stats.ci_low), _num(m.stats.ci_high)],
            "outliers": m.outliers.count, "outliers_high": m.outliers.high,
            "outliers_low": m.outliers.low, "outlier_rule": m.outliers.rule,
            "drift_tested": m.drift.tested, "warmup_drift": m.drift.warmup,
            "trend_drift": m.drift.trend, "bimodal": m.modality.bimodal,
            "sample_s": _num(m.sample_s), "clock_resolution_s": _num(m.clock_resolution_s),
        } for m in size.measurements],
    }


def series_model_dict(result: SeriesAnalysis, disturbed: dict[str, str] | None = None,
                      held: dict[tuple[int, int], tuple[int, int, str]] | None = None,
                      segments: tuple[str, ...] = (), unconfirmed: dict[tuple[int, int], str] | None = None
                      ) -> dict[str, Any]:
    """Everything in a ``SeriesAnalysis``, pooled model at the top level (with the answer's
    decisions about it, ``sweep_to_dict``)."""
    out: dict[str, Any] = {"pattern": result.pattern, "variant": result.variant,
                           "flows": result.flows, "source": result.source,
                           "launches": list(result.launches),
                           "one_way_note": "times are per message (one-way: half the round trip "
                                           "for a ping-pong)"}
    out.update(sweep_to_dict(result.sweep, disturbed, held, segments, unconfirmed))
    out["sizes"] = [_size(s, result.sweep, "asymptotic_bandwidth" in (disturbed or {})) for s in result.sizes]
    out["aligned_bytes"] = list(result.aligned_bytes)  # their times are on the sweep's level, not as measured
    out["caveats"] = [_caveat(c) for c in result.caveats]
    comparison = result.launch_comparison
    out["launch_comparison"] = None if comparison is None else {
        "rule": comparison.rule, "within_rel": _num(comparison.within_rel),
        "between_rel": _num(comparison.between_rel), "apart": list(comparison.apart),
        "launches": [{"launch": v.launch, "typical_ratio": _num(v.typical_ratio), "z": _num(v.z),
                      "apart": v.apart, "sizes_apart": list(v.sizes_apart)}
                     for v in comparison.verdicts],
        "sizes": [{"bytes": s.bytes, "consensus_s": _num(s.consensus_s),
                   "within_rel": _num(s.within_rel), "between_rel": _num(s.between_rel)}
                  for s in comparison.sizes],
    }
    out["per_launch"] = [{"launch": m.launch, **{k: v for k, v in sweep_to_dict(m.sweep).items()
                                                 if k != "residuals"}}
                         for m in result.per_launch]
    return out


def series_dict(s: SeriesResult, answer: Answer | None = None) -> dict[str, Any]:
    """``fit --json``: the series, what its times are, and its model, with what the run's answer
    block decided about it (``answer``: the run's ``RunResult.answer``)."""
    head = {"series": s.name, "time": s.facts.time_words, "metric": s.facts.metric,
            "placement": s.key.placement or None}
    if s.model is None:
        return {**head, "pattern": s.key.pattern, "variant": s.key.variant, "model": None,
                "not_modelled": s.not_modelled}
    out = {**head, **series_model_dict(s.model, disturbed_terms(answer, s.name), held_gaps(answer, s.name),
                                       segments_disturbed_of(answer, s.name), unconfirmed_switches(answer, s.name))}
    for entry, label in zip(out["breakpoints"], s.labels):
        entry.update({"label": label.text, "kinds": list(label.kinds), "evidence": list(label.evidence),
                      "past_limit_bytes": label.past_limit})
    return out


def row_dict(r: SizeRow) -> dict[str, Any]:
    """``show --json``: one object per row of the tables (pooled over launches)."""
    s = r.stats
    has_interval = s.n > 1
    iv = r.interval
    bounded = iv is not None and iv.low is not None
    out = {
        "pattern": r.pattern, "bytes": r.bytes, "buffer": r.buffer, "ranks": list(r.ranks),
        "metric": r.metric, "time_s": number(r.time_s), "median_s": number(s.median),
        "ci_low_s": number(iv.low) if bounded else None, "ci_high_s": number(iv.high) if bounded else None,
        "ci_halfwidth_rel": number(iv.halfwidth_rel) if bounded else None,
        "interval_covers": iv.covers if iv is not None else None,
        "samples": s.n, "k": list(r.k), "mean_s": number(s.mean), "std_s": number(s.std) if has_interval else None,
        "min_s": number(s.min), "p5_s": number(s.p5), "p25_s": number(s.p25), "p75_s": number(s.p75),
        "p95_s": number(s.p95), "p99_s": number(s.p99), "max_s": number(s.max), "mad_s": number(s.mad),
        "bandwidth_bytes_per_s": number(r.bandwidth_bytes_per_s) if r.bytes else 0.0,
        "messages_per_s": number(r.messages_per_s), "stop_reasons": list(r.stop_reasons),
        "validated": r.validated, "launches": r.launches, "first_s": number(r.first_s),
        "variant": r.variant, "flows": r.flows,
    }
    # Pattern-specific fields (eager_limit_bytes, pairs and pair_median_s, window, ...); the pairs' raw
    # samples stay in the run file (like samples_s), their spread is given per pair.
    out.update({k: v for k, v in r.extra.items() if k not in out and k != "pair_samples_s"})
    if r.first_of_job:  # the job's first message: the row's first_s, one way like every time here
        out["first_message_of_job_s"] = number(r.first_s)
    if r.pair_spreads:
        out["pair_spreads"] = [{"pair": list(s.pair), "samples": s.n, "p50_s": number(s.p50_s),
                                "p95_s": number(s.p95_s), "p95_over_p50": number(s.spread)} for s in r.pair_spreads]
    return out


def rows_json(result: RunResult) -> list[dict[str, Any]]:
    """Every row of every table, each with its table's caveats (what the machine did to it)."""
    return [{**row_dict(r), "caveats": [_caveat(c) for c in t.caveats]} for t in result.tables for r in t.rows]


def answer_dict(result: RunResult) -> dict[str, Any] | None:
    """The answer block's figures (analysis/answer.py), every number by ``number``."""
    return None if result.answer is None else plain(result.answer)


def show_json(result: RunResult) -> dict[str, Any]:
    """``show --json``: the answer block's figures, the rows of every table and, for a run with
    collectives, each one against the algorithms' predictions (the point-to-point model itself is
    ``fit``'s)."""
    out = {"answer": answer_dict(result), "rows": rows_json(result)}
    if result.collectives is not None:
        c = result.collectives
        out["collectives"] = {"fits": plain(c.fits), "mpi": c.mpi, "why_not": c.why_not,
                              "model": c.p2p.gamma_words if c.p2p is not None else None}
    return out


def saphir_dict(row: SaphirRow) -> dict[str, Any]:
    return {k: number(v) if isinstance(v, float) else v for k, v in row.as_dict().items()}


def advice_dict(a: Any, series: SeriesResult, run: str = "", misfit: str = "",
                told: dict[str, str] | None = None, segments: tuple[str, ...] = ()) -> dict[str, Any]:
    """``advise --json``: the prediction's fields, what buffering costs (with where b_c and b_n
    come from), the model it rests on, and ``model_conditions`` when the run's launches were not
    conditions to predict from (``misfit``: analysis/model_choice.conditions_misfit). A figure the
    advice cannot tell (analysis/advice/combining_advice.py) is null, its reason in ``cannot_tell``."""
    from msgperf.present.advice_text import conditions_warning, held  # noqa: PLC0415 - advise only

    a = held(a)
    p = a.prediction
    out = {k: v for k, v in msgspec.structs.asdict(p).items() if k not in ("caveats", "buffering")}
    out["measured_speedup"] = p.measured_speedup
    out["answer_speedup"] = None if a.speedup_why_not else p.answer_speedup
    withheld = {"predicted": (a.predicted_why_not, ("apart_s", "combined_s", "speedup")),
                "line": (a.line_why_not, ("line_apart_s", "line_combined_s", "line_speedup", "line_break_even_bytes")),
                "measured": (a.measured_why_not, ("measured_apart_s", "measured_combined_s", "measured_speedup"))}
    for why, fields in withheld.values():
        for field in fields if why else ():
            out[field] = None
    out["cannot_tell"] = {name: why for name, (why, _) in withheld.items() if why}
    if a.speedup_why_not:
        out["cannot_tell"]["speedup"] = a.speedup_why_not
    if a.paying_why_not:
        out["cannot_tell"]["paying_beyond_within_bytes"] = a.paying_why_not
    if a.buffering_why_not:
        out["cannot_tell"]["buffering"] = a.buffering_why_not
    out["verdict"] = a.verdict or None
    out["conditions"] = [{"kind": w.kind, "text": w.text, "fix": w.fix} for w in a.conditions]
    out["model_used"] = p.model_words
    out["series"] = series.name
    out["caveats"] = [_caveat(c) for c in p.caveats]
    b = p.buffering
    out["buffering"] = None if b is None else {k: v for k, v in msgspec.structs.asdict(b).items()
                                               if k not in ("copy_from", "network_from")}
    if b is not None and a.buffering_why_not:  # b_n (or b_c) and what rests on it cannot be told
        out["buffering"].update(dict.fromkeys(("network_bandwidth_bytes_per_s", "effective_bandwidth_bytes_per_s",
                                               "slowdown", "buffered_s"), None))
    if b is not None and a.copy_why_not:
        out["buffering"]["copy_bandwidth_bytes_per_s"] = None
        out["cannot_tell"]["copy"] = a.copy_why_not
    model = series_model_dict(series.model, told, segments=segments)  # α, β and segments as fit --json gives them
    out["model"] = {k: model[k] for k in ("alpha_s", "beta_s_per_byte", "breakpoints_bytes", "segments")}
    out["model_conditions"] = conditions_warning(run, misfit) or None
    out["copy_bandwidth_from"] = b.copy_from if b is not None else None
    out["network_bandwidth_from"] = b.network_from if b is not None else None
    return out


def plain(value: Any) -> Any:
    """A tree of Structs (or dataclasses), dicts, lists and tuples as JSON values: every real number by
    ``number`` (numpy's too), integers as integers, tuples as lists."""
    kind = type(value)  # the builtin types first, by identity: a --json output holds ~10^5 values
    if value is None or kind is str or kind is bool or kind is int:
        return value
    if kind is float:
        return value if math.isfinite(value) else None
    if kind is dict:
        return {str(k): plain(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [plain(v) for v in value]
    if isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return number(value)
    if isinstance(value, LineFit):
        return _line(value)
    if isinstance(value, msgspec.Struct):
        return {f.name: plain(getattr(value, f.name)) for f in msgspec.structs.fields(value)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):  # the few mutable or sample-holding classes
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")  # json's words


def dumps(value: Any, indent: int = 1) -> str:
    """The text of a ``--json`` output: ``value`` through ``plain`` (the one NaN -> null rule),
    never a NaN or Infinity token, ASCII only (any other character as a JSON ``\\u`` escape, as
    the standard library writes it: a terminal or file that is not UTF-8 reads it too). Written by
    msgspec, each float the shortest text that reads back to it: the standard library's indenting
    encoder is pure Python, 0.16 s of a 1.7 MB ``show --json`` against 0.01 s. A string msgspec
    cannot write (a lone surrogate from a file) goes through ``json`` instead."""
    tree = plain(value)
    try:
        text = msgspec.json.format(msgspec.json.encode(tree), indent=indent).decode()
    except (TypeError, ValueError):
        return json.dumps(tree, indent=indent, allow_nan=False)
    return text if text.isascii() else _NON_ASCII.sub(_escaped, text)


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _escaped(match: re.Match) -> str:
    """A character as JSON writes it in ASCII: ``\\uXXXX``, or a surrogate pair above U+FFFF."""
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 | code >> 10:04x}\\u{0xDC00 | code & 0x3FF:04x}"


def collective_advice_dict(advice: Any) -> dict[str, Any]:
    """``advise --collective --json``: every field of the ``CollectiveAdvice``, its measured speedup,
    and that the favoured algorithms are predictions."""
    from msgperf.analysis.advice import HeldCollectiveAdvice  # noqa: PLC0415 - advise only

    held = advice if isinstance(advice, HeldCollectiveAdvice) else HeldCollectiveAdvice(advice, "")
    out = plain(held.advice)
    out["measured_speedup"] = number(held.measured_speedup)
    out["measured_speedup_cannot_tell"] = held.measured_why_not or None
    out["conditions"] = [{"kind": w.kind, "text": w.text, "fix": w.fix} for w in held.conditions]
    for row, already in zip(out["favoured"], held.selected):
        row["selected_by_run"] = already or None
    out["suggestion"] = "the favoured algorithms are predictions: measure before choosing"
    return out


def profile_advice_dict(a: Any) -> dict[str, Any]:
    """``advise --profile --json``: every field of the ``ProfileAdvice`` (analysis/advice/profile_advice.py),
    its ``accounting`` of the whole time inside MPI, the ``collectives`` predicted and the ``whole``
    program's shares included, with the derived figures the text shows (ratios, speedup, net savings,
    each rank's time by kind, each collective's spread and whether it is only a range)."""
    out = plain(a)
    out["ratio_measured_to_predicted"] = number(a.ratio)
    out["predicted_speedup_of_combining"] = number(a.predicted_speedup)
    out["combine_saving_s"] = number(a.combine_saving_s)
    out["whole_program_combining"] = {
        "wall_s": number(a.program_wall_s), "saving_scale": number(a.saving_scale), "copies_s": number(a.program_copies_s),
        "saving_s": number(a.program_saving_s), "speedup": number(a.program_speedup),
        "cannot_tell": a.program_cannot_tell}
    for rank, row in zip(a.ranks, out["ranks"]):
        row["ratio_measured_to_predicted"] = number(rank.ratio)
    for c, row in zip(a.combine, out["combine"]):
        row["net_saving_s"] = number(c.net_saving_s)
    for b, row in zip(a.buffering, out["buffering"]):
        row["slowdown"] = number(b.slowdown)
    if a.page_faults is not None:  # what keeping the MPI's temporary buffers' pages would save
        out["page_faults"]["speedup"] = number(a.page_faults.speedup)
        out["page_faults"]["setting"] = a.page_faults.setting
        for r, row in zip(a.page_faults.rows, out["page_faults"]["rows"]):
            row["faulting_s"], row["share"] = number(r.faulting_s), number(r.share)
    if a.accounting is not None:  # the whole time inside MPI by kind, as the text's "Whole program"
        out["accounting"] = accounting_dict(a.accounting)
    for w, row in zip(a.whole, out["whole"]):  # the shares that add up to each rank's time inside MPI
        row["ratio_measured_to_predicted"] = [number(w.ratio_low), number(w.ratio_high)]
        for share, srow in zip(w.shares, row["shares"]):  # comparable, verdict and fraction are its fields
            srow["ratio_measured_to_predicted"] = [number(share.ratio_low), number(share.ratio_high)]
            srow["spread"], srow["wide"] = number(share.spread), share.wide
    if a.collectives is not None:  # each collective's prediction: a range, said as only a range when wide
        for rank, row in zip(a.collectives.ranks, out["collectives"]["ranks"]):
            row["ratio_measured_to_predicted"] = [number(rank.ratio_low), number(rank.ratio_high)]
            row["wide"] = rank.wide
            for c, crow in zip(rank.rows, row["rows"]):  # null where the rank is not comparable
                crow["spread"], crow["wide"] = number(c.spread), c.wide
                crow["ratio_measured_to_predicted"] = [number(x) for x in rank.row_ratios(c)]
    return out


def accounting_dict(a: Any) -> dict[str, Any]:
    """A profile's ``ProfileAccounting``: its time inside MPI by kind, call and call site, and each
    rank's time by kind (``by_kind``, adding up to its ``mpi_time_s``; ``point_to_point_s``, the
    part the point-to-point model predicts), as ``advise --profile --json`` and ``profile --show
    --json`` give it."""
    out = plain(a)
    for split, row in zip(a.ranks, out["ranks"]):
        row["by_kind"] = {kind: number(seconds) for kind, seconds in split.by_kind}
        row["point_to_point_s"] = number(split.point_to_point_s)
    return out


def profile_dict(profile: Any, accounting: Any, label: str) -> dict[str, Any]:
    """``profile --show --json`` of one profile: what the summary shows, as numbers (per rank the
    table's columns, the back-to-back sequences, the accounting), never the whole record."""
    info = profile.info
    ranks = [{"rank": r.rank, "host": r.host, "finalized": r.finalized, "ended_by": r.ended_by,
              "wall_s": r.wall_s, "mpi_time_s": r.mpi_time_s, "wait_time_s": r.wait_time_s,
              "messages_sent": r.messages_sent, "bytes_sent": r.bytes_sent,
              "messages_received": r.messages_received, "bytes_received": r.bytes_received,
              "top_sizes_sent": [{"bytes": t.bytes, "count": t.count} for t in r.top_sizes()],
              "sequence_messages": r.sequence_messages,
              "sequences": [{"peer": q.peer, "count": q.count, "messages": q.messages, "bytes": q.bytes}
                            for q in r.sequences]}
             for r in profile.ranks]
    return {"profile": label, "program": list(info.argv), "mpi_library": info.mpi_library,
            "nranks": info.nranks, "hosts": list(info.hosts), "start_time": info.start_time,
            "complete": info.complete, "missing_ranks": list(profile.missing_ranks),
            "sequence_gap_s": info.sequence_gap_s, "ranks": ranks,
            "accounting": accounting_dict(accounting)}


def profile_runs_dict(m: Any) -> dict[str, Any]:
    """``profile --show A B ... --json``: the runs merged (``ProfileRuns``): each run's totals, and per
    figure, kind and call its ``values`` per run with their ``median``, ``low``, ``high`` and ``n``."""
    return plain(m)


def profile_runs_advice_dict(m: Any) -> dict[str, Any]:
    """``advise --profile A --profile B ... --json``: the figures over the runs (``values`` per run, in
    the order given, and their ``median``, ``low``, ``high``, ``n``), each run's own figures, the runs
    merged (``summary``: per kind and per call) and the advice of the run of median measured time."""
    runs = []
    for totals, a in zip(m.runs.runs, m.advices):
        runs.append({**plain(totals), "predicted_s": number(a.predicted.value_s), "measured_s": number(a.measured_s),
                     "ratio_measured_to_predicted": number(a.ratio),
                     "predicted_speedup_of_combining": number(a.predicted_speedup)})
    return {"runs": runs, "n": m.runs.n, "median_run": m.median_run,
            "predicted_s": plain(m.predicted_s), "measured_s": plain(m.measured_s),
            "ratio_measured_to_predicted": plain(m.ratio),
            "predicted_speedup_of_combining": plain(m.predicted_speedup),
            "program_speedup_of_combining": plain(m.program_speedup), "program_saving_s": plain(m.program_saving_s),
            "resolution": None if m.resolution is None else {**plain(m.resolution), "shows": m.resolution.shows},
            "summary": profile_runs_dict(m.runs), "notes": list(m.notes),
            "advice": profile_advice_dict(m.median_advice)}


# ---- compare --json ---------------------------------------------------------------------------

_PLURAL = {"median": "medians", "mean": "means", "min": "minima"}


def comparison_dict(c: RunComparison, decision: Gate | None = None) -> dict[str, Any]:
    """``msgperf compare --json`` of one comparison; ``decision``: the gate of this comparison
    alone (``gate([c], fail_above)``) when --fail-above was given. Numbers are left to ``dumps``."""
    gates = {g.bytes: g for g in decision.sizes} if decision is not None else {}
    return {
        "a": c.label_a, "b": c.label_b, "series": c.series, "alpha": c.alpha,
        "statistic": c.statistic, "value_a_is": c.side_a, "value_b_is": c.side_b,
        "min_effect": c.min_effect, "history_runs": c.history_runs,
        "method": {"sizes": f"ratio of the geometric means of the launch {_PLURAL.get(c.statistic, c.statistic)}; "
                            "launch-level t test on the noise floor (between launches and between stored runs "
                            "of the configuration), Satterthwaite df; Holm across sizes",
                   "parameters": "with two or more launches each: Welch t on each launch's own "
                                 "fit; otherwise not tested (within one launch)"},
        "worst_significant_slowdown": c.worst_slowdown(),
        "sizes": [{"bytes": s.bytes, "n_a": s.n_a, "n_b": s.n_b, "launches_a": s.launches_a,
                   "launches_b": s.launches_b, "value_a_s": s.value_a_s,
                   "value_b_s": s.value_b_s, "ratio": s.ratio,
                   "ratio_ci": s.ratio_ci, "ratio_halfwidth_rel": s.halfwidth_rel,
                   "p_value": s.p_value, "p_adjusted": s.p_adjusted,
                   "df": s.df, "verdict": s.verdict, "covers": s.covers,
                   "assumed_spread": s.assumed,
                   **({"launches_needed": needed_dict(s.launches_needed)}
                      if s.launches_needed is not None else {}),
                   **({"gate": gates[s.bytes].outcome, "gate_reason": gates[s.bytes].reason}
                      if s.bytes in gates else {}),
                   **({"gate_launches_needed": needed_dict(gates[s.bytes].launches_needed)}
                      if s.bytes in gates and gates[s.bytes].launches_needed is not None else {})}
                  for s in c.sizes],
        "parameters": [{"name": p.name, "label": p.label, "unit": p.unit, "a": p.value_a,
                        "b": p.value_b, "ratio": p.ratio, "ratio_ci": p.ratio_ci,
                        "p_value": p.p_value, "p_adjusted": p.p_adjusted,
                        "verdict": p.verdict, "covers": p.covers,
                        **({"a_why_not": p.why_not_a} if p.why_not_a else {}),
                        **({"b_why_not": p.why_not_b} if p.why_not_b else {})} for p in c.parameters],
        "notes": list(c.notes),
        **({"machines": machines_dict(c.machines)} if c.machines is not None else {}),
        **({"gate": {"fail_above": decision.fail_above, "outcome": decision.outcome,
                     "reason": decision.reason,
                     **({"launches_needed": needed_dict(decision.launches_needed)}
                        if decision.launches_needed is not None else {})}}
           if decision is not None else {}),
    }


def needed_dict(n: LaunchesNeeded) -> dict[str, Any]:
    """Launches per side that would resolve the threshold (None: no count, ``words`` says why),
    the threshold as a fraction, and the sentence the terminal prints."""
    return {"launches_per_side": n.launches, "threshold": n.threshold, "already": n.already,
            "more_than": n.more_than, "words": n.words}


def machines_dict(d: MachineDiff) -> dict[str, Any]:
    """How the machines of a comparison differ (values as recorded; None: unknown)."""
    return {"differ": d.differ, "not_recorded_in": list(d.unrecorded),
            "differences": [{"fact": f.fact, "kind": f.kind, "host": f.host, "a": f.a, "b": f.b}
                            for f in d.differences],
            "mpi_t_only_a": list(d.cvars_only_a), "mpi_t_only_b": list(d.cvars_only_b)}
