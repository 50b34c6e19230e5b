"""The self-contained HTML report of one or several runs (``msgperf report``, end of ``msgperf
run``): summary, figures (inline SVG, svg_chart.py), tables, caveats with advice, message-combining
advice, comparisons and the full metadata, in one file with inline CSS and no network access.

Rendering only: every number is a field of the runs' ``RunResult``s (and of the comparisons the
command made); nothing is estimated here. This module turns them into words and numbers in
text; the markup is in Jinja2 templates (``present/templates/``: the page skeleton, its CSS, one
template per section), rendered with autoescaping: every value is escaped where the template
writes it, and a control character in one is shown as \\xNN, not obeyed. A small inline script
(templates/probe.js) records script errors and each image's natural size in ``data-``
attributes, which the browser test reads back.
"""

from __future__ import annotations

import base64
import datetime as _dt
import math
import re
from pathlib import Path
from typing import Any, Sequence

from msgperf import units
from msgperf.analysis.answer import disturbed_terms, unconfirmed_switches
from msgperf.analysis.compare import RunComparison
from msgperf.analysis.result import RunResult, SeriesResult
from msgperf.writing import REPORT_MARK, Output
from msgperf.present import plots, svg_chart, templating
from msgperf.present.advice_text import paying_words
from msgperf.present.machine_text import NOT_RECORDED, cores_text, cvar_text, diff_line
from msgperf.present.model_text import TERMS, aligned_note, answer_says
from msgperf.present.compare_table import needed_lines

def _cell(kind: str, text: Any) -> dict[str, Any]:
    """A table cell with markup of its own (macros.html ``cell``): "code", "pre" (``text``: its
    lines), or a CSS class."""
    return {"kind": kind, "text": text}


def _figure(chart: Any, alt: str, caption: str) -> dict[str, str]:
    return {"svg": base64.b64encode(svg_chart.svg(chart).encode("utf-8")).decode("ascii"), "alt": alt,
            "caption": caption}


def _ci(pair: Any, unit: str) -> str:
    if not pair:
        return ""
    return " " + units.interval(pair[0], pair[1], unit)


def headline_items(result: RunResult) -> list[tuple[str, str]]:
    """The headline figures in words: the main series' model and Saphir's Table 1 row (the same
    values as ``fit`` and ``summary``)."""
    main = result.main
    items: list[tuple[str, str]] = []
    row = result.saphir[0] if result.saphir else None
    if main is not None and main.model is not None:
        line = main.model.sweep.hockney.line
        ch = main.model.sweep.characteristics
        disturbed, held = answer_says(result, main)
        items.append(("series", f"{main.name} — {main.facts.time_words}"))
        items.append(("α latency", f"cannot tell ({disturbed['alpha']})" if "alpha" in disturbed
                      else units.seconds(line.alpha_s) + _ci(line.alpha_ci_s, "s")))
        if "beta" in disturbed:
            items += [("β inverse bandwidth", f"cannot tell ({disturbed['beta']})"),
                      ("bandwidth 1/β", f"cannot tell ({disturbed['beta']})")]
        else:
            items.append(("β inverse bandwidth", units.beta(line.beta_s_per_byte) + _ci(line.beta_ci_s_per_byte, "s/B")))
            items.append(("bandwidth 1/β", units.rate(line.bandwidth_bytes_per_s) + " (1 MB = 10^6 B)"))
        items.append(("n½ = α/β", f"cannot tell ({disturbed['n_half']})" if "n_half" in disturbed
                      else term_text(ch.n_half, "B")))
        for name, key, unit in TERMS:
            items.append((name, f"cannot tell ({disturbed[key]})" if key in disturbed
                          else term_text(getattr(ch, key), unit)))
        items.append(("1/β of the last segment", f"cannot tell ({disturbed['line_bandwidth']})"
                      if "line_bandwidth" in disturbed else term_text(ch.line_bandwidth, "B/s")))
        bps = main.model.sweep.piecewise.breakpoints
        unconfirmed = unconfirmed_switches(result.answer, main.name)
        if bps:
            best = {(b.low_bytes, b.high_bytes): held.get((b.low_bytes, b.high_bytes),
                                                          (b.best_low_bytes, b.best_high_bytes)) for b in bps}
            words = "; ".join(f"between {units.size(b.low_bytes)} and {units.size(b.high_bytes)}"
                              + (f" (most likely {units.size(best[b.low_bytes, b.high_bytes][0])}–"
                                 f"{units.size(best[b.low_bytes, b.high_bytes][1])})"
                                 if best[b.low_bytes, b.high_bytes] != (b.low_bytes, b.high_bytes) else "")
                              + (f": cannot tell ({unconfirmed[b.low_bytes, b.high_bytes]})"
                                 if (b.low_bytes, b.high_bytes) in unconfirmed else "")
                              + (f": {label.text}" if label is not None else "")
                              for b, label in zip(bps, list(main.labels) + [None] * len(bps)))
            items.append(("breakpoints", f"{len(bps)}: {words}"))
        else:
            pw = main.model.sweep.piecewise
            items.append(("breakpoints", "none: every size lies within its noise" if pw.fits_every_size else
                          f"none found, but {units.size(pw.worst_off_model.bytes)} is off the model "
                          "beyond its own interval"))
    e = result.eager
    if e is not None:
        eager = (f"cannot tell ({e.disagreement})" if not e.agreed else
                 f"{units.exact_bytes(e.limit_bytes)} (measured directly by the eager probe)" if e.limit_bytes is not None
                 else f"between {e.low_bytes} B and {e.high_bytes if e.high_bytes is not None else 'beyond the probe'} "
                      "(eager probe)")
        items.append(("eager limit", eager))
    else:
        items.append(("eager limit", "not measured (add --pattern eager-probe)"))
    if row is not None and row.copy_speed_why_not:
        items.append(("copy speed b_c", f"cannot tell ({row.copy_speed_why_not})"))
    elif row is not None and row.copy_speed_bytes_per_s is not None:
        items.append(("copy speed b_c", f"{units.rate(row.copy_speed_bytes_per_s)} (memcpy at its largest size, "
                                        f"{units.size(row.copy_speed_size)})"))
        if row.effective_buffered_bandwidth_bytes_per_s is not None:
            slowdown = row.bandwidth_bytes_per_s / row.effective_buffered_bandwidth_bytes_per_s
            items.append(("effective buffered bandwidth",
                          f"b_e = b_c·b_n/(b_c+b_n) = {units.rate(row.effective_buffered_bandwidth_bytes_per_s)}: a "
                          f"buffered (unexpected) message moves {units.ratio(slowdown)} slower than b_n = "
                          f"{units.rate(row.bandwidth_bytes_per_s)}"))
    else:
        items.append(("copy speed b_c", "not measured (add --pattern memcpy)"))
    if result.floor:
        f = result.floor[0]
        text = f"{units.seconds(f.floor_s)} one-way at {units.size(f.bytes)} (shared-memory round trip, no MPI)"
        if f.pingpong_s is not None and f.cannot_tell:
            text += f"; the MPI ping-pong takes {units.seconds(f.pingpong_s)}; MPI / floor: cannot tell ({f.cannot_tell})"
        elif f.pingpong_s is not None:
            text += f"; the MPI ping-pong takes {units.seconds(f.pingpong_s)}, {units.ratio(f.ratio)} the floor"
        items.append(("hardware floor", text))
    else:
        items.append(("hardware floor", "not measured (add --pattern floor)"))
    return items


def headline_html(result: RunResult) -> str:
    return templating.render("headline.html", items=headline_items(result))


def term_text(term: Any, unit: str) -> str:
    """One of Saphir's terms in words: value, interval, where it was taken (or why there is none)."""
    if term.value is None:
        return f"— ({term.note})"
    return f"{units.value(term.value, unit)}{_ci(term.ci, unit)} ({term.note})"  # an extrapolated one says so


def _size_rows(s: SeriesResult) -> list[list[str]]:
    a = s.model
    rows = []
    for size, regime in zip(a.sizes, a.sweep.regimes):
        st = size.stats
        point = size.point
        predicted = a.sweep.model_at(size.bytes)
        iv = point.interval
        interval = (units.NO_INTERVAL if iv is None or iv.low is None
                    else f"{units.seconds(iv.low)} – {units.seconds(iv.high)} ({iv.covers})")
        rows.append([units.size(size.bytes), units.seconds(point.time_s), interval, units.seconds(predicted),
                     units.percent((point.time_s - predicted) / predicted, signed=True) if predicted > 0 else "-",
                     units.rate(regime.bandwidth_bytes_per_s * a.flows) if size.bytes else "-",
                     str(st.n) if st.n > 1 else "1 value", units.seconds(st.mean),
                     units.seconds(st.std) if st.n > 1 else "-", units.seconds(st.min),
                     units.seconds(st.p95), units.seconds(st.max), str(size.outliers) if st.n > 1 else "-"])
    return rows


def _caveat_groups(caveats: Sequence[Any]) -> list[tuple[str, str]]:
    """(line, advice) per kind of caveat: one caveat's own line, or the sizes of a kind that
    recurs and one example."""
    seen: dict[str, list[Any]] = {}
    for c in caveats:
        seen.setdefault(c.kind, []).append(c)
    out = []
    for kind, items in seen.items():
        sizes = sorted({c.bytes for c in items if c.bytes is not None})
        head = items[0].message
        if len(items) > 1 and sizes:
            head = (f"{kind.replace('_', ' ')} at {len(sizes)} size(s): "
                    + ", ".join(units.size(s) for s in sizes[:8]) + (" …" if len(sizes) > 8 else "")
                    + "; e.g. " + head)
        out.append((head, items[0].advice))
    return out


def _combining(result: RunResult) -> dict[str, Any]:
    rows = []
    words = ""
    for p in result.combining_cases:
        words = p.model_words
        measured = units.ratio(p.measured_speedup) if p.measured_by_combine else "-"
        rows.append([str(p.messages), units.size(p.bytes), units.seconds(p.apart_s), units.seconds(p.combined_s),
                     units.ratio(p.speedup), measured, paying_words(p)])
    return {"rows": rows, "words": words}


def _pattern_tables(result: RunResult) -> list[Any]:
    from msgperf.present.pattern_tables import all_tables  # noqa: PLC0415

    return all_tables(result)


def metadata_html(run: Any) -> str:
    info = run.info
    fields = [
        ["run file", run.path or "-"], ["source", info.source],
        ["msgperf version", info.msgperf_version], ["started", info.start_time],
        ["command line", _cell("code", info.command_line)],
        ["patterns planned", ", ".join(info.plan.patterns)],
        ["sizes planned", f"{len(info.plan.sizes)} sizes, {units.size(min(info.plan.sizes, default=0))} – "
                          f"{units.size(max(info.plan.sizes, default=0))}"],
        ["precision target, time budget", f"{100 * info.plan.precision:g} %, " + (
            f"{info.plan.total_time_s:g} s per launch, shared among its sizes" if info.plan.total_time_s
            else f"{info.plan.time_budget_s:g} s per size")],
        ["pair, ranks", f"{info.plan.pair[0]}:{info.plan.pair[1]} of {info.plan.nranks}"],
    ]
    launches = []
    for launch in run.launches:
        c = launch.clock
        launches.append({"index": launch.index, "fields": [
            ["MPI library", _cell("pre", launch.mpi_library.strip().split("\n"))],
            ["MPI version", launch.mpi_version],
            ["hosts", ", ".join(launch.hosts)],
            ["pair placement", f"ranks {launch.pair[0]} and {launch.pair[1]} on "
                               + ("one node" if launch.pair_shares_node else "different nodes")],
            ["clock self-test", f"{c.source}: resolution {units.seconds(c.resolution_s)}, overhead "
                                f"{units.seconds(c.overhead_s)}, {'monotonic' if c.monotonic else 'NOT monotonic'}, "
                                f"clock_getres {units.seconds(c.reported_resolution_s)}, MPI_Wtick {units.seconds(c.mpi_wtick_s)}"],
            ["started, ended", f"{launch.start_time} – {launch.end_time or 'did not end cleanly'}"],
            ["stopped by msgperf", launch.aborted if launch.aborted else "no"],
            ["launcher command line", _cell("code", launch.launcher_command_line or "-")],
        ], "ranks": [[str(r.rank), r.host, str(r.cpu) if r.cpu >= 0 else "?", str(r.node)] for r in launch.ranks],
            "environment": [[k, v] for k, v in sorted(launch.environment.items())]})
    return templating.render("metadata.html", fields=fields, launches=launches)


def machine_html(result: RunResult) -> str:
    """The Machine section: each host's facts, then every MPI_T variable the run recorded ("":
    nothing to show)."""
    m = result.machine
    if not m.recorded:
        return templating.render("machine.html", not_recorded=NOT_RECORDED, recorded=False, hosts=[], cvars=None,
                       varies="") if result.source.tool == "msgperf" else ""
    cvars = None
    if m.cvars is not None:
        shown = dict(m.thresholds)
        cvars = [[n, cvar_text(v)] for n, v in m.thresholds]
        cvars += [[n, cvar_text(v)] for n, v in m.cvars.items() if n not in shown]
    return templating.render("machine.html", not_recorded="", recorded=True,
                   hosts=[[h.host, h.cpu_model, cores_text(h), units.memory(h.memory_bytes),
                           f"{h.os}, {h.kernel} {h.arch}", h.governor] for h in m.hosts],
                   cvars=cvars, launch=m.launch, device=m.device, other_devices=len(m.other_devices),
                   varies=", ".join(m.varies))


def comparison_html(c: RunComparison) -> str:
    def verdict(v: str) -> dict[str, Any]:
        return _cell({"slower": "slower", "faster": "faster"}.get(v, "noise"), v)

    def ci(pair: Any) -> str:
        return f"{pair[0]:.3f} – {pair[1]:.3f}" if pair else "-"

    def pv(p: Any) -> str:
        return "-" if p is None else f"{p:.2g}"

    fmt = {"s": units.seconds, "s/B": units.beta, "B/s": units.rate, "B": units.size}
    return templating.render(
        "comparison.html", c=c, alpha=f"{c.alpha:g}",
        machines=diff_line(c.machines) if c.machines is not None else "",
        sizes=[[units.size(s.bytes), units.seconds(s.value_a_s), units.seconds(s.value_b_s), f"{s.ratio:.3f}",
                ci(s.ratio_ci), pv(s.p_value), pv(s.p_adjusted), verdict(s.verdict)] for s in c.sizes],
        parameters=[[p.label, fmt[p.unit](p.value_a), fmt[p.unit](p.value_b),
                     f"{p.ratio:.3f}" if math.isfinite(p.ratio) else "-", ci(p.ratio_ci), pv(p.p_adjusted),
                     verdict(p.verdict)] for p in c.parameters],
        notes=[*needed_lines(c), *c.notes])


DETAILED_SERIES = 3  # up to this many series, each gets all its figures
FAMILY_NAMES = {"pingpong": "ping-pong variants", "bidirectional": "both directions", "compat": "OSU and IMB modes",
                "many-ranks": "many ranks", "buffering": "buffering", "combining": "combining", "overlap": "overlap",
                "probe": "probes", "hardware": "copies, reductions and the floor", "collective": "collectives",
                "": "other series"}


def _families(series: Sequence[SeriesResult]) -> list[tuple[str, list[SeriesResult]]]:
    """Series grouped by their family (the kernels' catalog), at most 8 to a figure (the palette)."""
    groups: dict[str, list[SeriesResult]] = {}
    for s in series:
        groups.setdefault(FAMILY_NAMES.get(s.facts.family, s.facts.family), []).append(s)
    return [(f if len(g) <= 8 else f"{f} ({i // 8 + 1})", g[i:i + 8])
            for f, g in groups.items() for i in range(0, len(g), 8)]


def _memcpy_peak(result: RunResult) -> float | None:
    s = next((s for s in result.series if s.key.pattern == "memcpy" and s.model is not None), None)
    return s.model.sweep.characteristics.peak_bandwidth_bytes_per_s if s else None


def _anchor(index: int, what: str) -> str:
    """The id of a section of run ``index`` ("run1-machine"): pattern names are made safe."""
    return f"run{index + 1}-" + re.sub(r"[^A-Za-z0-9_-]+", "-", what).strip("-")


def answer_html(result: RunResult, index: int = 0, tables: bool | None = None, machine: bool | None = None) -> str:
    """The answer block of show and run (the same lines, present/answer_text.py), then links to the
    sections that hold its evidence and fine print (``tables``, ``machine``: whether the run's
    section has those; found out when not given)."""
    from msgperf.present.answer_text import answer_lines  # noqa: PLC0415

    links = [("figures", "model figures")]
    links += [(s.name, f"{s.name}: plots, per-size table, caveats") for s in result.series if s.model is not None]
    if tables if tables is not None else _pattern_tables(result):
        links.append(("tables", "pattern tables"))
    if result.conditions:
        links.append(("conditions", "the machine during the launches"))
    if machine if machine is not None else machine_html(result):
        links.append(("machine", "machine"))
    links.append(("metadata", "metadata"))
    return templating.render("answer.html", lines=answer_lines(result),
                   links=[(_anchor(index, key), words) for key, words in links])


_TIME_CAPTION = ("Median time per size with its distribution-free interval; the piecewise Hockney model; shaded: "
                 "breakpoint intervals (dashed: most likely gap); crosses: anomalies.")
_SUMMARY_TIME_CAPTION = ("The time per size, one value each (no raw samples: no interval); the piecewise Hockney "
                         "model; shaded: breakpoint intervals (dashed: most likely gap); crosses: anomalies.")
_VARIABILITY_CAPTION = ("Per size: box = quartiles, whiskers = 5th–95th percentile, mean ± sd, min and max, "
                        "samples flagged as outliers (kept in every statistic).")


def _series_view(s: SeriesResult, result: RunResult, index: int, detailed: bool, bound: float | None) -> dict[str, Any]:
    """One series of a run's section: its figures (with ``detailed``, or as the main series), its
    per-size table, its caveats, and for the main series message combining."""
    if s.model is None:
        return {"name": s.name, "not_modelled": s.not_modelled}
    a = s.model
    main = result.main is not None and s.key == result.main.key  # equal, not the same object once cached
    figures = []
    if detailed or main:
        is_memcpy = s.key.pattern == "memcpy"
        summaries = plots.summaries_only(a)  # one time per size: no median, interval or spread
        figures = [_figure(plots.time_plot(a), f"{s.name}: time against size",
                           _SUMMARY_TIME_CAPTION if summaries else _TIME_CAPTION),
                   _figure(plots.bandwidth_plot(a, None if is_memcpy else bound,
                                                withheld=disturbed_terms(result.answer, s.name)),
                           f"{s.name}: bandwidth",
                           f"Bandwidth b / {'' if summaries else 'median '}T(b) (1 MB = 10^6 B); asymptotic "
                           "bandwidth 1/β, n½ = α/β"
                           + ("; memcpy's peak bandwidth as the hardware bound" if bound and not is_memcpy else "")
                           + ".")]
        if not summaries:
            figures.append(_figure(plots.variability_plot(a), f"{s.name}: variability", _VARIABILITY_CAPTION))
        if a.launch_comparison is not None:
            figures.append(_figure(plots.launches_plot(a), f"{s.name}: launches",
                                   "Each launch's median per size relative to the launches' consensus; "
                                   "launches that stand apart are drawn in vermillion."))
    return {"name": s.name, "not_modelled": "", "anchor": _anchor(index, s.name), "time_words": s.facts.time_words,
            "figures": figures, "size_head": ["size", "time", f"{100 * result.confidence:.0f} % interval", "model",
                                              "resid.", "bandwidth", "n", "mean", "sd", "min", "p95", "max", "outliers"],
            "sizes": _size_rows(s), "size_note": aligned_note(a), "caveats": _caveat_groups(a.caveats),
            "combining": _combining(result) if main else None}


def _run_section(result: RunResult, run: Any, index: int, several: bool) -> str:
    modelled = [s for s in result.series if s.model is not None]
    # Every series gets its tables and caveats; its own figures only when the run has few series
    # (or it is the main one). With many patterns, their curves are compared in one figure per
    # family instead: more readable, and a report of every pattern stays quick to write.
    detailed = len(modelled) <= DETAILED_SERIES
    families = [] if detailed else [
        _figure(plots.overlay_plot([(s.name, s.model) for s in group], title=f"{family}: median time and model"),
                f"{family} compared", "Each series' medians with their intervals and its piecewise model.")
        for family, group in _families(modelled)]
    bound = _memcpy_peak(result)
    series = [_series_view(s, result, index, detailed, bound) for s in result.series
              if s.model is not None or not s.not_modelled.startswith("no time-against-size model")]
    grids = result.matrices
    # a collective's table states its methodology: its per-size times, as measured
    from msgperf.present.run_tables import row_grid  # noqa: PLC0415
    collectives = [row_grid(t) for t in result.tables if t.method]
    tables = _pattern_tables(result)
    machine = machine_html(result)
    return templating.render(
        "run.html", title=f"Run {index + 1}: {result.source.label}" if several else result.source.label,
        source_path=result.source.path, method=result.source.method,
        answer=answer_html(result, index, bool(tables), bool(machine)), families=families, series=series,
        contention=_figure(plots.contention_plot(result.contention), "pairs contention",
                           "Slowest pair's one-way time as concurrent pairs are added.")
        if result.contention is not None else None,
        matrices=[_figure(plots.matrix_plot(g), f"matrix {g.bytes} B", "Every ordered rank pair; lines mark host "
                          "boundaries.") for g in {id(g): g for g in (grids[:1] + grids[-1:])}.values()],
        collectives=collectives, tables=tables, headline=headline_html(result),
        conditions=[(c.launch, c.words()) for c in result.conditions], run_caveats=_caveat_groups(result.caveats),
        machine=machine, metadata=metadata_html(run),
        anchors={k: _anchor(index, k) for k in ("collectives", "tables", "figures", "conditions", "machine", "metadata")})


def profile_section(advice: Any) -> str:
    """An application's profile against the model (``msgperf report --profile``): the sizes it
    sent against the model's regimes, then the advice in the words of ``advise --profile``."""
    from msgperf.present.profile_advice_text import advice_sections, heading  # noqa: PLC0415

    return templating.render(
        "profile.html", heading=heading(advice), model_choice=advice.model_choice,
        histogram=_figure(plots.profile_histogram_plot(advice), "profile: sizes against the regimes",
                          "Messages sent per power-of-two size bucket, all ranks, coloured by the model's regime: "
                          "eager or rendezvous by the eager limit the eager-probe measured, bandwidth-bound from "
                          "n½ = α/β of the single Hockney line up."),
        buckets=[[f"{units.size(b.low_bytes)} – {units.size(b.high_bytes)}" if b.low_bytes else "0 B",
                  units.count(b.messages), b.regime] for b in advice.histogram],
        sections=advice_sections(advice))


def generated_at() -> str:
    """When the report is written ("2026-11-23 15:30 UTC"), in the line writing.STAMPED knows."""
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def build_report(results: Sequence[tuple[RunResult, Any]], comparisons: Sequence[RunComparison | str] = (),
                 title: str | None = None, profiles: Sequence[Any] = ()) -> str:
    """The whole report as one HTML string: ``results`` are (result, run) pairs, ``comparisons``
    each later run against the first (or the reason it could not be compared), ``profiles`` the
    advice on applications' profiles (``ProfileAdvice``, from the first run's model), shown first."""
    from markupsafe import Markup  # noqa: PLC0415

    if not results:
        raise ValueError("no run to report")
    several = len(results) > 1
    overlay = None
    if several:
        drawn = [(f"{i + 1}: {r.source.label}", r.main.model) for i, (r, _) in enumerate(results)
                 if r.main is not None and r.main.model is not None]
        if len(drawn) > 1:
            overlay = _figure(plots.overlay_plot(drawn), "runs overlaid", "Each run's medians, intervals and fitted model.")
    first = results[0][0]
    name = title or ("msgperf report: " + (f"{profiles[0].program} against {first.source.label}" if profiles else
                                           first.source.label if not several else f"{len(results)} runs"))
    return templating.environment().get_template("report.html").render(
        name=name, generator_mark=Markup(REPORT_MARK),
        generated=generated_at(), several=several,
        overlay=overlay,
        comparisons=[{"html": comparison_html(c)} if isinstance(c, RunComparison) else {"html": "", "text": c}
                     for c in comparisons],
        profiles=[profile_section(a) for a in profiles],
        runs=[_run_section(r, run, i, several) for i, (r, run) in enumerate(results)])


def write_report(results: Sequence[tuple[RunResult, Any]], to: Output,
                 comparisons: Sequence[RunComparison | str] = (), title: str | None = None,
                 profiles: Sequence[Any] = ()) -> Path:
    """Build the report and write it whole to the file the guard allowed (writing.py)."""
    text = build_report(results, comparisons, title, profiles)
    with to.text(parents=True) as out:
        out.write(text)
    return to.path
