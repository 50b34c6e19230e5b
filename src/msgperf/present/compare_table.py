"""``msgperf compare`` in the terminal: one table per compared pair, per size and per model
parameter, and the gate's decision. Formatting only: every number comes from
``msgperf.analysis.compare``."""

from __future__ import annotations

import math

from rich.console import Console

from msgperf.analysis.compare import Gate, RunComparison
from msgperf import units
from msgperf.present.machine_text import diff_line
from msgperf.present.grid import Grid, render
from msgperf.data_text import printable
from msgperf.present.text import safe

_STYLE = {"slower": "bold red", "faster": "bold green", "within noise": "dim",
          "untested": "yellow", "cannot tell": "yellow"}
_GATE_STYLE = {"fail": "bold red", "pass": "green", "cannot tell": "yellow"}
_UNIT = {"s": units.seconds, "s/B": units.beta, "B/s": units.rate, "B": units.size}


def _ci(pair: tuple[float, float] | None) -> str:
    return f"{pair[0]:.3f} – {pair[1]:.3f}" if pair else "—"


def _p(p: float | None) -> str:
    return "—" if p is None else f"{p:.2g}"


def _covers(c: RunComparison) -> str:
    """One sentence on what the intervals of this table cover."""
    kinds = sorted({s.covers for s in c.sizes if s.ratio_ci is not None})
    return "; ".join(kinds) if kinds else "no size could be tested"


def render_comparison(console: Console, c: RunComparison, decision: Gate | None = None) -> None:
    console.print(f"[bold]{safe(c.label_b)}[/] against [bold]{safe(c.label_a)}[/] "
                  f"({safe(c.series)}): ratio = B / A, above 1 B is slower", highlight=False)
    if c.machines is not None:
        console.print(safe(diff_line(c.machines)), style="bold yellow" if c.machines.differ else "dim",
                      highlight=False)
    if c.side_a != c.side_b:  # an imported summary on a side: say which statistic each value is
        console.print(f"A is {safe(c.side_a)}; B is {safe(c.side_b)}", highlight=False)
    gates = {g.bytes: g for g in decision.sizes} if decision is not None else {}
    t = Grid(note=(f"A: {c.side_a}; B: {c.side_b} (per message); CI: "
                   f"{100 * (1 - c.alpha):.0f} % interval of the ratio, launch-level t on the "
                   f"noise floor; it covers {_covers(c)}; p (Holm): adjusted across sizes, "
                   f"significant below {c.alpha:g}; basis: launches of A+B and stored runs of the "
                   "configuration behind the interval; untested: 1 value, compared by value; "
                   "cannot tell: the run-to-run spread is unknown, or the size's own interval leaves out 1 but "
                   "Holm's correction across the sizes does not, or a run measured it beside other work"))
    columns = ["size", "A", "B", "ratio", "CI", "p (Holm)", "verdict", "basis"]
    if decision is not None:
        columns.append(f"gate +{100 * decision.fail_above:g} %")
    for name in columns:
        t.add_column(name, justify="left" if name in ("size", "verdict", "basis") or
                     name.startswith("gate") else "right")
    for s in c.sizes:
        row = [units.size(s.bytes), units.seconds(s.value_a_s), units.seconds(s.value_b_s),
               f"{s.ratio:.3f}" if math.isfinite(s.ratio) else "—", _ci(s.ratio_ci),
               _p(s.p_adjusted), s.verdict, printable(s.basis)]
        styles = {6: _STYLE[s.verdict]} if s.verdict in _STYLE else {}
        if decision is not None:
            g = gates.get(s.bytes)
            row.append(g.outcome if g else "")
            if g and g.outcome in _GATE_STYLE:
                styles[8] = _GATE_STYLE[g.outcome]
        t.add_row(*row, styles=styles)
    render(console, t)
    if c.parameters:
        p = Grid(note="model parameters; with two or more launches each, each launch's own "
                      "fit is the unit (Welch t on the log values, Holm across parameters); "
                      "with one launch the fits' intervals cover that launch only: cannot tell")
        for name in ("parameter", "A", "B", "ratio", "CI", "p (Holm)", "verdict"):
            p.add_column(name, justify="left" if name in ("parameter", "verdict") else "right")
        for q in c.parameters:
            fmt = _UNIT.get(q.unit, str)
            p.add_row(q.label, "cannot tell" if q.why_not_a else fmt(q.value_a),
                      "cannot tell" if q.why_not_b else fmt(q.value_b),
                      f"{q.ratio:.3f}" if math.isfinite(q.ratio) else "—", _ci(q.ratio_ci),
                      _p(q.p_adjusted), q.verdict, styles={6: _STYLE[q.verdict]} if q.verdict in _STYLE else None)
        render(console, p)
        for q in c.parameters:
            for side, why in (("A", q.why_not_a), ("B", q.why_not_b)):
                if why:
                    console.print(f"  {side}'s {safe(q.label)}: cannot tell ({safe(why)})", highlight=False)
    for line in needed_lines(c):
        console.print(f"  {safe(line)}", highlight=False)
    for note in c.notes:
        console.print(f"  note: {safe(note)}", highlight=False)
    counts = {v: sum(s.verdict == v for s in c.sizes)
              for v in ("slower", "faster", "within noise", "cannot tell", "untested")}
    worst = (f"worst significant slowdown {100 * c.worst_slowdown():+.1f} %"
             if any(s.verdict == "slower" for s in c.sizes) else "no significant slowdown")
    console.print("  " + ", ".join(f"{n} {v}" for v, n in counts.items() if n) + f"; {worst}", highlight=False)


def needed_lines(c: RunComparison) -> list[str]:
    """One line per distinct "what would tell" of the sizes that cannot tell (min_effect's)."""
    by: dict[str, list[int]] = {}
    for s in c.sizes:
        if s.verdict == "cannot tell" and s.launches_needed is not None:
            by.setdefault(s.launches_needed.words, []).append(s.bytes)
    return [f"cannot tell ({', '.join(units.size(b) for b in at[:4])}"
            f"{f' and {len(at) - 4} more' if len(at) > 4 else ''}); {words}" for words, at in by.items()]


def render_gate(console: Console, decision: Gate) -> None:
    word = {"fail": "FAIL", "pass": "OK", "cannot tell": "CANNOT TELL"}[decision.outcome]
    console.print(f"gate --fail-above {100 * decision.fail_above:g} %: "
                  f"[{_GATE_STYLE[decision.outcome]}]{word}[/] — {safe(decision.reason)}",
                  highlight=False)
