"""``msgperf compare`` in the terminal: one table per compared pair, per size and per model
parameter. Formatting only: every number comes from ``msgperf.analysis.compare``."""

from __future__ import annotations

import math

from rich.console import Console
from rich.table import Table

from msgperf.analysis.compare import RunComparison
from msgperf.present.analysis_text import fmt_beta, fmt_rate, fmt_size, fmt_time
from msgperf.present.text import safe

_STYLE = {"slower": "bold red", "faster": "bold green", "within noise": "dim", "untested": "dim"}
_UNIT = {"s": fmt_time, "s/B": fmt_beta, "B/s": fmt_rate, "B": fmt_size}


def _ci(pair: tuple[float, float] | None) -> str:
    return f"{pair[0]:.3f} – {pair[1]:.3f}" if pair else "-"


def _p(p: float | None) -> str:
    return "-" if p is None else f"{p:.2g}"


def _verdict(v: str) -> str:
    return f"[{_STYLE.get(v, '')}]{v}[/]" if v in _STYLE else safe(v)


def render_comparison(console: Console, c: RunComparison) -> None:
    console.print(f"[bold]{safe(c.label_b)}[/] against [bold]{safe(c.label_a)}[/] "
                  f"({safe(c.series)}): ratio = B / A, above 1 B is slower", highlight=False)
    t = Table(header_style="bold", caption_justify="left",
              caption=(f"median per message; CI: {100 * (1 - c.alpha):.0f} % interval of the ratio "
                       "of medians (Price & Bonett 2002); p: Mann-Whitney U, two-sided; Holm: "
                       f"adjusted across sizes, significant below {c.alpha:g}; within noise: "
                       "not significant"))
    for name in ("size", "median A", "median B", "ratio", "CI", "p", "p (Holm)", "verdict"):
        t.add_column(name, justify="left" if name in ("size", "verdict") else "right", no_wrap=True)
    for s in c.sizes:
        t.add_row(fmt_size(s.bytes), fmt_time(s.median_a_s), fmt_time(s.median_b_s),
                  f"{s.ratio:.3f}" if math.isfinite(s.ratio) else "-", _ci(s.ratio_ci),
                  _p(s.p_value), _p(s.p_adjusted), _verdict(s.verdict))
    console.print(t)
    if c.parameters:
        p = Table(header_style="bold", caption_justify="left",
                  caption="model parameters of each run's fit; interval and Wald test on the log "
                          "ratio from the fits' intervals; Holm across parameters")
        for name in ("parameter", "A", "B", "ratio", "CI", "p (Holm)", "verdict"):
            p.add_column(name, justify="left" if name in ("parameter", "verdict") else "right",
                         no_wrap=True)
        for q in c.parameters:
            fmt = _UNIT.get(q.unit, str)
            p.add_row(q.label, fmt(q.value_a), fmt(q.value_b),
                      f"{q.ratio:.3f}" if math.isfinite(q.ratio) else "-", _ci(q.ratio_ci),
                      _p(q.p_adjusted), _verdict(q.verdict))
        console.print(p)
    for note in c.notes:
        console.print(f"  note: {safe(note)}", highlight=False)
    slower = sum(s.verdict == "slower" for s in c.sizes)
    faster = sum(s.verdict == "faster" for s in c.sizes)
    console.print(f"  {slower} size(s) significantly slower, {faster} faster, "
                  f"{len(c.sizes) - slower - faster} within noise or untested; worst significant "
                  f"slowdown {100 * c.worst_slowdown():+.1f} %", highlight=False)
