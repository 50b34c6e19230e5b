"""A ``RunAnalysis`` as plain JSON-ready data (what ``msgperf fit --json`` prints).

Units are in the key names (``_s``, ``_bytes``, ``_bytes_per_s``); intervals are [low, high];
a value that does not exist (an unbounded interval end, an undefined n_half) is null.
"""

from __future__ import annotations

import math
from typing import Any

from msgperf.analysis.caveats import Caveat
from msgperf.analysis.hockney import LineFit
from msgperf.analysis.run import RunAnalysis, SizeAnalysis
from msgperf.analysis.sweep import SweepAnalysis


def _num(value: Any) -> Any:
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


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


def _caveat(c: Caveat) -> dict[str, Any]:
    return {"kind": c.kind, "message": c.message, "advice": c.advice, "bytes": c.bytes,
            "launch": c.launch}


def sweep_to_dict(sweep: SweepAnalysis) -> dict[str, Any]:
    """The model of one sweep: the required top-level keys of ``fit --json`` and the rest."""
    h, pw, ch = sweep.hockney, sweep.piecewise, sweep.characteristics
    line = _line(h.line)
    return {
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
                         "best_low_bytes": bp.best_low_bytes, "best_high_bytes": bp.best_high_bytes,
                         "confidence": bp.confidence} for bp in pw.breakpoints],
        "segments": [_line(s) for s in pw.segments],
        "bic": [_num(v) for v in pw.criterion],
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
    }


def _size(size: SizeAnalysis, sweep: SweepAnalysis) -> dict[str, Any]:
    s = size.summary
    regime = next(r for r in sweep.regimes if r.bytes == size.bytes)
    return {
        "bytes": size.bytes, "n": s.n, "launches": len(size.measurements),
        "mean_s": _num(s.mean), "std_s": _num(s.std), "min_s": _num(s.min), "max_s": _num(s.max),
        "median_s": _num(s.median), "median_ci_s": [_num(s.ci_low), _num(s.ci_high)],
        "p5_s": _num(s.p5), "p25_s": _num(s.p25), "p75_s": _num(s.p75), "p95_s": _num(s.p95),
        "p99_s": _num(s.p99), "mad_s": _num(s.mad),
        "outliers": size.outliers,
        "model_s": _num(sweep.piecewise.predict(size.bytes)),
        "regime": regime.regime, "latency_share": _num(regime.latency_share),
        "messages_per_s": _num(regime.messages_per_s),
        "bandwidth_bytes_per_s": _num(regime.bandwidth_bytes_per_s),
        "fraction_of_asymptotic_bandwidth": _num(regime.fraction_of_asymptotic),
        "segment": regime.segment,
        "per_launch": [{
            "launch": m.launch, "n": m.summary.n, "median_s": _num(m.summary.median),
            "median_ci_s": [_num(m.summary.ci_low), _num(m.summary.ci_high)],
            "outliers": m.outliers.count, "outliers_high": m.outliers.high,
            "outliers_low": m.outliers.low, "outlier_rule": m.outliers.rule,
            "drift_tested": m.drift.tested, "warmup_drift": m.drift.warmup,
            "trend_drift": m.drift.trend, "bimodal": m.modality.bimodal,
            "sample_s": _num(m.sample_s), "clock_resolution_s": _num(m.clock_resolution_s),
        } for m in size.measurements],
    }


def analysis_to_dict(result: RunAnalysis) -> dict[str, Any]:
    """Everything in a ``RunAnalysis``, pooled model at the top level."""
    out: dict[str, Any] = {"pattern": result.pattern, "variant": result.variant,
                           "flows": result.flows, "source": result.source,
                           "launches": list(result.launches),
                           "one_way_note": "times are per message (one-way: half the round trip "
                                           "for a ping-pong)"}
    out.update(sweep_to_dict(result.sweep))
    out["sizes"] = [_size(s, result.sweep) for s in result.sizes]
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
