"""The answer block that opens ``msgperf run`` and ``msgperf show``: at most ``MAX_LINES`` lines
of at most the terminal's width, the figures of ``RunResult.answer`` in words, each with its
interval and what it covers, or "cannot tell" and why. Rendering only: every number is a field
of ``analysis/answer.py``'s ``Answer`` (and ``show --json``'s "answer")."""

from __future__ import annotations

from rich.text import Text

from msgperf import units
from msgperf.analysis.answer import Answer, Figure, Step, Switch
from msgperf.analysis.result import RunResult
from msgperf.analysis.tables import RunSource
from msgperf.data_text import cut
from msgperf.present.text import safe

MAX_LINES = 15  # the whole block, heading and title included
WIDTH = 80
NAME = 12  # the column of the figures' names


def _ci(f: Figure, unit: str) -> str:
    if f.low is None and f.high is None:
        return ""
    return " " + units.interval(f.low, f.high, unit)


def _value(f: Figure, unit: str) -> str:
    return units.value(f.value, unit) + _ci(f, unit)


def _covers(f: Figure, common: str) -> str:
    """What the figure's interval covers, said where it differs from the block's heading."""
    return "" if not f.covers or f.covers == common else f" ({f.covers})"


def _line(name: str, text: str) -> str:
    return f"  {name:<{NAME}}{text}"


def _cannot(why: str) -> str:
    return f"cannot tell: {why}"


def title(source: RunSource, width: int = WIDTH) -> str:
    """MPI, ranks, hosts, placement, launches; the MPI named by its first words when the whole
    line would not fit."""
    parts = [cut(source.mpi_library) or "unknown MPI"] if source.hosts else []
    if source.hosts:
        hosts = ", ".join(cut(h) for h in source.hosts[:3]) + (f" and {len(source.hosts) - 3} more"
                                                               if len(source.hosts) > 3 else "")
        parts += [f"{source.nranks} ranks on {hosts}", source.placement_words]
        if source.launches > 1:
            parts.append(f"{source.launches} launches")
    text = " · ".join(p for p in parts if p)
    if len(text) > width and parts:
        parts[0] = parts[0].split(",")[0]
        text = " · ".join(p for p in parts if p)
    return text


def _step(step: Step | None, why: str, common: str = "") -> str:
    if step is None or step.step.value is None:
        return _cannot(why or (step.step.why_not if step is not None else "not measured"))
    s = step.step
    said = [units.percent(step.rel, signed=True, decimals=0)] if step.rel is not None else []
    if step.measurable is False:
        head, said = "none measurable: ", []
    else:
        head = ""
    if s.low is not None and s.covers and s.covers != common:  # the heading's words do not cover it
        said.append(s.covers)
    rel = f" ({', '.join(said)})" if said else ""
    return (f"{head}{'+' if s.value >= 0 else ''}{units.seconds(s.value)}{_ci(s, 's')}{rel}, "
            f"{units.size(step.below.bytes)} → {units.size(step.above.bytes)}")


def _switch(s: Switch, width: int) -> str:
    where = f"{units.size(s.low_bytes)} – {units.size(s.high_bytes)}"
    if (s.best_low_bytes, s.best_high_bytes) != (s.low_bytes, s.high_bytes):
        where += f" (likely {units.size(s.best_low_bytes)} – {units.size(s.best_high_bytes)})"
    again = "; a refinement launch saw no step there" if s.not_seen_again else ""
    cause = f"cannot tell ({s.unconfirmed})" if s.unconfirmed else s.cause  # (only unexplained ones)
    for evidence in (s.evidence, tuple("MPI setting" if " = " in e else e for e in s.evidence), ()):
        text = f"{where}: {cause}" + (f" ({', '.join(dict.fromkeys(evidence))})" if evidence else "") + again
        if len(_line("", text)) <= width:
            return text
    return text


def answer_lines(result: RunResult, width: int = WIDTH, reserved: int = 0, whole: bool = False) -> list[str]:
    """The block as plain lines (no markup): title, figures, warnings; at most ``MAX_LINES`` less
    ``reserved`` (the caller's heading); ``whole``: every switch and warning (show --detail,
    which would otherwise send the reader to itself for the rest)."""
    a: Answer | None = result.answer
    lines: list[str] = []
    limit = 10 ** 6 if whole else MAX_LINES - reserved
    run_title = title(result.source, width)
    if run_title:
        lines.append(run_title)
    if a is None:
        return lines
    if not a.series:
        lines.append(_line("answer", _cannot(a.latency.why_not)))
        return lines
    common = a.latency.covers
    ci = f"[{100 * a.confidence:.0f} %, {common}]" if a.latency.low is not None else f"({common})"
    lines.append(f"{a.series}: {a.time_words}; {ci}")
    lines.append(_line("latency", (_value(a.latency, "s") + _covers(a.latency, common)
                                   + (f" at {units.size(a.latency.bytes)} (0 B not measured)" if a.latency.bytes else " at 0 B"))
                       if a.latency.value is not None else _cannot(a.latency.why_not)))
    peak, large = a.peak_bandwidth, a.large_bandwidth
    lines.append(_line("bandwidth", f"peak {_value(peak, 'B/s')}{_covers(peak, common)} at {units.size(peak.bytes)}"
                       if peak.value is not None else _cannot(peak.why_not)))
    if large.value is not None:
        lines.append(_line("", f"largest messages ({units.size(large.bytes)}): {_value(large, 'B/s')}"
                           + _covers(large, common)))
    else:
        lines.append(_line("", f"largest messages: {_cannot(large.why_not)}"))
    e = a.eager_limit
    if e.value is not None:
        lines.append(_line("eager limit", f"{units.exact_bytes(int(e.value))} ({e.covers})"))
    elif e.low is not None:
        high = units.exact_bytes(int(e.high)) if e.high is not None else "beyond the probe"
        lines.append(_line("eager limit", f"between {units.exact_bytes(int(e.low))} and {high} ({e.covers})"))
    else:
        lines.append(_line("eager limit", _cannot(e.why_not)))
    if e.value is not None or e.low is not None:
        lines.append(_line("crossing it", _step(a.eager_step, a.eager_step_why, common)))
    n_half = a.n_half
    tail = [_line("n½", _value(n_half, "B") + _covers(n_half, common)
                  if n_half.value is not None else _cannot(n_half.why_not))]
    warnings = [f"  ! {w.text} → {w.fix}" for w in a.warnings]
    if a.switches_why_not:
        switches = [_line("switches", _cannot(a.switches_why_not))]
    elif not a.switches:
        switches = [_line("switches", f"none found; {a.switches_none}")]
    else:
        switches = [_line("switches" if i == 0 else "", _switch(s, width)) for i, s in enumerate(a.switches)]
    room = limit - len(lines) - len(tail)
    # switches first (they are answers), then the warnings: at least one of them said in full and
    # the rest counted, when there is not room for all
    for_warnings = min(len(warnings), 2)
    if len(switches) > max(1, room - for_warnings):
        keep = max(1, room - for_warnings - 1)
        switches = switches[:keep] + [_line("", f"and {len(a.switches) - keep} more switches: "
                                               "msgperf show RUN --detail")]
    lines += switches + tail
    room = limit - len(lines)
    if len(warnings) > room:
        keep = max(0, room - 1)
        warnings = warnings[:keep] + [f"  ! and {len(a.warnings) - keep} more warnings: msgperf show RUN --detail"]
    return lines + warnings


def render_answer(console, result: RunResult, heading: str = "", whole: bool = False) -> None:
    """The block on a rich console: the heading bold, warnings marked; ``whole``: not cut to
    ``MAX_LINES`` (show --detail)."""
    width = min(console.width, WIDTH) if console.width else WIDTH
    # the heading (a long run file name wraps) takes its lines of the block's
    reserved = -(-Text.from_markup(heading).cell_len // width) if heading else 0
    lines = answer_lines(result, width, reserved=max(reserved, 1 if heading else 0), whole=whole)
    if heading:
        console.print(heading)
    for line in lines:
        if line.startswith("  ! "):
            console.print(f"  [yellow]![/] {safe(line[4:])}", highlight=False)
        else:
            console.print(safe(line), highlight=False)
