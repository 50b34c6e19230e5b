"""The self-contained HTML report of one or several runs (``msgperf report``, end of ``msgperf
run``): summary, plots (inline base64 PNG), tables, caveats with advice, message-combining
advice, comparisons and the full metadata, in one file with inline CSS and no network access.

Rendering only: every number is a field of the runs' ``RunResult``s (and of the comparisons the
command made); nothing is estimated here. Every string that comes from a run file goes through
``html.escape`` (``_e``). A small inline script records script errors and each image's natural
size in ``data-`` attributes, which the browser test reads back.
"""

from __future__ import annotations

import base64
import html
import math
import re
from pathlib import Path
from typing import Any, Sequence

from msgperf import units
from msgperf.present.report_stamp import stamp
from msgperf.analysis.compare import RunComparison
from msgperf.analysis.result import RunResult, SeriesResult
from msgperf.writing import REPORT_MARK, Output
from msgperf.present import plots
from msgperf.present.advice_text import paying_words
from msgperf.present.machine_text import NOT_RECORDED, cores_text, cvar_text, diff_line
from msgperf.present.compare_table import needed_lines
from msgperf.present.text import printable

CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;margin:0 auto;
max-width:1100px;padding:1em 2em;color:#1a1a1a;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:2px solid #0072B2;padding-bottom:.2em;margin-top:2em}
h3{margin-top:1.5em}.sub{color:#555}table{border-collapse:collapse;margin:.5em 0;font-size:.9em}
td,th{border:1px solid #ccc;padding:.2em .6em;text-align:right;vertical-align:top}
th{background:#eef4fa}td.l,th.l{text-align:left}figure{margin:1em 0}
figure img{max-width:100%;height:auto;border:1px solid #ddd}figcaption{font-size:.85em;color:#444}
.caveat{border-left:4px solid #E69F00;padding:.3em .8em;margin:.5em 0;background:#fff8e8}
.advice{color:#333;font-style:italic}.slower{color:#D55E00;font-weight:bold}
.faster{color:#009E73;font-weight:bold}.noise{color:#666}pre{background:#f6f6f6;padding:.6em;
white-space:pre-wrap;overflow-wrap:anywhere;font-size:.8em}dl.headline dt{font-weight:bold;float:left;clear:left;width:16em}
dl.headline dd{margin-left:17em;margin-bottom:.3em}code{background:#f1f1f1;padding:0 .2em;overflow-wrap:anywhere}
.scroll{max-width:100%;overflow-x:auto}pre.answer{font-size:.95em;background:#eef4fa;border-left:4px solid #0072B2}
nav.details{font-size:.9em;margin-bottom:1em}
"""

PROBE = """
(function(){var errs=[];window.addEventListener('error',function(e){errs.push(String(e.message||e));
document.body&&document.body.setAttribute('data-errors',JSON.stringify(errs));});
window.addEventListener('load',function(){var imgs=document.querySelectorAll('img.plot');
for(var i=0;i<imgs.length;i++){var m=imgs[i];var r=m.getBoundingClientRect();
m.setAttribute('data-natural',m.naturalWidth+'x'+m.naturalHeight);
m.setAttribute('data-shown',Math.round(r.width)+'x'+Math.round(r.height));}
var wide=0,all=document.querySelectorAll('body *');for(var j=0;j<all.length;j++){
if(all[j].scrollWidth>all[j].clientWidth+1&&all[j].clientWidth>0&&getComputedStyle(all[j]).overflowX!='visible')wide++;}
var d=document.documentElement;document.body.setAttribute('data-overflow',String(wide));
document.body.setAttribute('data-page-scroll',String(d.scrollWidth>d.clientWidth+1?1:0));
document.body.setAttribute('data-errors',JSON.stringify(errs));
document.body.setAttribute('data-ready','1');});})();
"""


def _e(text: Any) -> str:
    """Escaped for HTML text and attributes; control characters shown, not obeyed."""
    return html.escape(printable(str(text), None), quote=True)


def _e_lines(text: Any) -> str:
    """Like ``_e`` for a block of several lines (a <pre>): line breaks stay line breaks."""
    return "\n".join(_e(line) for line in str(text).split("\n"))


def grid_html(grid: Any) -> str:
    """A table of the terminal (present/grid.py) as an HTML table: the same heading, columns,
    cells and note, so the terminal and the report show one table two ways."""
    head = [_e(c.header.replace("\n", " ")) for c in grid.columns]
    rows = [[_e(cell) for cell in row] for row in grid.rows]
    title = f"<h4>{_e(grid.heading)}</h4>" if grid.heading else ""
    caption = f"<p class='sub'>{_e(grid.note)}</p>" if grid.note else ""
    caption += "".join(f"<p class='noise'>⚠ {_e(c)}</p>" for c in grid.caveats)
    return f"{title}<div class='scroll'>{_table(head, rows)}</div>{caption}"


def _img(fig: Any, alt: str, caption: str) -> str:
    data = base64.b64encode(plots.figure_png(fig)).decode("ascii")
    return (f'<figure><img class="plot" alt="{_e(alt)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{caption}</figcaption></figure>")


def _table(head: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> str:
    """Cells are already escaped."""
    th = "".join(f'<th class="{"l" if i < left else ""}">{h}</th>' for i, h in enumerate(head))
    body = "".join("<tr>" + "".join(f'<td class="{"l" if i < left else ""}">{c}</td>'
                                    for i, c in enumerate(r)) + "</tr>" for r in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def _ci(pair: Any, unit: str) -> str:
    if not pair:
        return ""
    return " " + units.interval(pair[0], pair[1], unit)


def headline_html(result: RunResult) -> str:
    """The headline figures: the main series' model and Saphir's Table 1 row (the same values as
    ``fit`` and ``summary``)."""
    main = result.main
    items: list[tuple[str, str]] = []
    row = result.saphir[0] if result.saphir else None
    if main is not None and main.model is not None:
        line = main.model.sweep.hockney.line
        ch = main.model.sweep.characteristics
        items.append(("series", _e(f"{main.name} — {main.facts.time_words}")))
        items.append(("α latency", _e(units.seconds(line.alpha_s) + _ci(line.alpha_ci_s, "s"))))
        items.append(("β inverse bandwidth", _e(units.beta(line.beta_s_per_byte) + _ci(line.beta_ci_s_per_byte, "s/B"))))
        items.append(("bandwidth 1/β", _e(units.rate(line.bandwidth_bytes_per_s) + " (1 MB = 10^6 B)")))
        items.append(("n½ = α/β", _e(units.size(line.n_half_bytes) if math.isfinite(line.n_half_bytes)
                                     else "undefined (α or β not positive)")))
        for name, term, unit in (("zero-byte latency", ch.zero_byte_latency, "s"),
                                 ("asymptotic latency", ch.asymptotic_latency, "s"),
                                 ("peak bandwidth", ch.peak_bandwidth, "B/s"),
                                 ("asymptotic bandwidth", ch.asymptotic_bandwidth, "B/s"),
                                 ("1/β of the last segment", ch.line_bandwidth, "B/s")):
            items.append((name, _e(term_text(term, unit))))
        bps = main.model.sweep.piecewise.breakpoints
        if bps:
            words = "; ".join(f"between {units.size(b.low_bytes)} and {units.size(b.high_bytes)}"
                              + (f" (most likely {units.size(b.best_low_bytes)}–{units.size(b.best_high_bytes)})"
                                 if (b.best_low_bytes, b.best_high_bytes) != (b.low_bytes, b.high_bytes) else "")
                              + (f": {label.text}" if label is not None else "")
                              for b, label in zip(bps, list(main.labels) + [None] * len(bps)))
            items.append(("breakpoints", _e(f"{len(bps)}: {words}")))
        else:
            pw = main.model.sweep.piecewise
            items.append(("breakpoints", _e("none: every size lies within its noise" if pw.fits_every_size else
                                            f"none found, but {units.size(pw.worst_off_model.bytes)} is off the model "
                                            "beyond its own interval")))
    e = result.eager
    if e is not None:
        eager = (f"cannot tell ({e.disagreement})" if not e.agreed else
                 f"{units.exact_bytes(e.limit_bytes)} (measured directly by the eager probe)" if e.limit_bytes is not None
                 else f"between {e.low_bytes} B and {e.high_bytes if e.high_bytes is not None else 'beyond the probe'} "
                      "(eager probe)")
        items.append(("eager limit", _e(eager)))
    else:
        items.append(("eager limit", "not measured (add --pattern eager-probe)"))
    if row is not None and row.copy_speed_bytes_per_s is not None:
        items.append(("copy speed b_c", _e(f"{units.rate(row.copy_speed_bytes_per_s)} (memcpy at its largest size, "
                                           f"{units.size(row.copy_speed_size)})")))
        if row.effective_buffered_bandwidth_bytes_per_s is not None:
            slowdown = row.bandwidth_bytes_per_s / row.effective_buffered_bandwidth_bytes_per_s
            items.append(("effective buffered bandwidth", _e(
                f"b_e = b_c·b_n/(b_c+b_n) = {units.rate(row.effective_buffered_bandwidth_bytes_per_s)}: a buffered "
                f"(unexpected) message moves {units.ratio(slowdown)} slower than b_n = {units.rate(row.bandwidth_bytes_per_s)}")))
    else:
        items.append(("copy speed b_c", "not measured (add --pattern memcpy)"))
    if result.floor:
        f = result.floor[0]
        text = f"{units.seconds(f.floor_s)} one-way at {units.size(f.bytes)} (shared-memory round trip, no MPI)"
        if f.pingpong_s is not None and f.cannot_tell:
            text += f"; the MPI ping-pong takes {units.seconds(f.pingpong_s)}; MPI / floor: cannot tell ({f.cannot_tell})"
        elif f.pingpong_s is not None:
            text += f"; the MPI ping-pong takes {units.seconds(f.pingpong_s)}, {units.ratio(f.ratio)} the floor"
        items.append(("hardware floor", _e(text)))
    else:
        items.append(("hardware floor", "not measured (add --pattern floor)"))
    body = "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in items)
    return f'<dl class="headline">{body}</dl>'


def term_text(term: Any, unit: str) -> str:
    """One of Saphir's terms in words: value, interval, where it was taken (or why there is none)."""
    if term.value is None:
        return f"— ({term.note})"
    return f"{units.value(term.value, unit)}{_ci(term.ci, unit)} ({term.note})"  # an extrapolated one says so


def _size_table(s: SeriesResult, confidence: float) -> str:
    a = s.model
    rows = []
    for size, regime in zip(a.sizes, a.sweep.regimes):
        st = size.stats
        point = size.point
        predicted = a.sweep.model_at(size.bytes)
        iv = point.interval
        interval = (units.NO_INTERVAL if iv is None or iv.low is None
                    else f"{units.seconds(iv.low)} – {units.seconds(iv.high)} ({iv.covers})")
        rows.append([_e(units.size(size.bytes)), _e(units.seconds(point.time_s)), _e(interval), _e(units.seconds(predicted)),
                     _e(units.percent((point.time_s - predicted) / predicted, signed=True)) if predicted > 0 else "-",
                     _e(units.rate(regime.bandwidth_bytes_per_s * a.flows)) if size.bytes else "-",
                     str(st.n) if st.n > 1 else "1 value", _e(units.seconds(st.mean)),
                     _e(units.seconds(st.std)) if st.n > 1 else "-", _e(units.seconds(st.min)),
                     _e(units.seconds(st.p95)), _e(units.seconds(st.max)), str(size.outliers) if st.n > 1 else "-"])
    return _table(["size", "time", f"{100 * confidence:.0f} % interval", "model", "resid.", "bandwidth", "n", "mean",
                   "sd", "min", "p95", "max", "outliers"], rows)


def _caveats(caveats: Sequence[Any]) -> str:
    if not caveats:
        return "<p>No caveats.</p>"
    seen: dict[str, list[Any]] = {}
    for c in caveats:
        seen.setdefault(c.kind, []).append(c)
    out = []
    for kind, items in seen.items():
        sizes = sorted({c.bytes for c in items if c.bytes is not None})
        head = _e(items[0].message)
        if len(items) > 1 and sizes:
            head = (_e(f"{kind.replace('_', ' ')} at {len(sizes)} size(s): "
                       + ", ".join(units.size(s) for s in sizes[:8]) + (" …" if len(sizes) > 8 else ""))
                    + "; e.g. " + head)
        out.append(f'<div class="caveat">{head}<br><span class="advice">→ {_e(items[0].advice)}</span></div>')
    return "".join(out)


def _combining(result: RunResult) -> str:
    rows = []
    words = ""
    for p in result.combining_cases:
        k, s = p.messages, p.bytes
        words = p.model_words
        be = paying_words(p)
        measured = units.ratio(p.measured_speedup) if p.measured_by_combine else "-"
        rows.append([str(k), _e(units.size(s)), _e(units.seconds(p.apart_s)), _e(units.seconds(p.combined_s)),
                     _e(units.ratio(p.speedup)), _e(measured), _e(be)])
    if not rows:
        return "<p>Too few sizes measured to predict message combining.</p>"
    return ("<p>Sending k messages of s bytes apart versus combined into one of k·s bytes (Lawlor's "
            f"message-combining lecture), predicted from the {_e(words)}; measured where the combine pattern "
            f"measured that case. Combining pays while the speedup exceeds 1 + 10 %; where it pays is "
            "predicted within the sizes the run measured.</p>"
            + _table(["k", "s", "apart", "combined T(k·s)", "predicted speedup", "measured speedup",
                      "where it pays"], rows))


def _pattern_tables(result: RunResult) -> str:
    from msgperf.present.pattern_tables import all_tables  # noqa: PLC0415

    return "".join(grid_html(t) for t in all_tables(result))


def metadata_html(run: Any) -> str:
    info = run.info
    out = [_table(["field", "value"], [
        ["run file", _e(run.path or "-")], ["source", _e(info.source)],
        ["msgperf version", _e(info.msgperf_version)], ["started", _e(info.start_time)],
        ["command line", f"<code>{_e(info.command_line)}</code>"],
        ["patterns planned", _e(", ".join(info.plan.patterns))],
        ["sizes planned", _e(f"{len(info.plan.sizes)} sizes, {units.size(min(info.plan.sizes, default=0))} – "
                             f"{units.size(max(info.plan.sizes, default=0))}")],
        ["precision target, time budget", _e(f"{100 * info.plan.precision:g} %, " + (
            f"{info.plan.total_time_s:g} s per launch, shared among its sizes" if info.plan.total_time_s
            else f"{info.plan.time_budget_s:g} s per size"))],
        ["pair, ranks", _e(f"{info.plan.pair[0]}:{info.plan.pair[1]} of {info.plan.nranks}")],
    ], left=2)]
    for launch in run.launches:
        c = launch.clock
        out.append(f"<h3>Launch {launch.index}</h3>")
        out.append(_table(["field", "value"], [
            ["MPI library", f"<pre>{_e_lines(launch.mpi_library.strip())}</pre>"],
            ["MPI version", _e(launch.mpi_version)],
            ["hosts", _e(", ".join(launch.hosts))],
            ["pair placement", _e(f"ranks {launch.pair[0]} and {launch.pair[1]} on "
                                  + ("one node" if launch.pair_shares_node else "different nodes"))],
            ["clock self-test", _e(f"{c.source}: resolution {units.seconds(c.resolution_s)}, overhead "
                                   f"{units.seconds(c.overhead_s)}, {'monotonic' if c.monotonic else 'NOT monotonic'}, "
                                   f"clock_getres {units.seconds(c.reported_resolution_s)}, MPI_Wtick {units.seconds(c.mpi_wtick_s)}")],
            ["started, ended", _e(f"{launch.start_time} – {launch.end_time or 'did not end cleanly'}")],
            ["stopped by msgperf", _e(launch.aborted) if launch.aborted else "no"],
            ["launcher command line", f"<code>{_e(launch.launcher_command_line or '-')}</code>"],
        ], left=2))
        out.append(_table(["rank", "host", "cpu", "node"],
                          [[str(r.rank), _e(r.host), str(r.cpu) if r.cpu >= 0 else "?", str(r.node)]
                           for r in launch.ranks]))
        env = sorted(launch.environment.items())
        out.append("<p>Environment (MPI-related variables):</p>" + (
            _table(["variable", "value"], [[_e(k), _e(v)] for k, v in env], left=2) if env else "<p>none set</p>"))
    return "".join(out)


def machine_html(result: RunResult) -> str:
    """The Machine section: each host's facts, then every MPI_T variable the run recorded."""
    m = result.machine
    if not m.recorded:
        return f"<p>{_e(NOT_RECORDED)}</p>" if result.source.tool == "msgperf" else ""
    out = []
    if m.hosts:
        out.append(_table(["host", "CPU", "cores", "memory", "OS, kernel", "governor"], [
            [_e(h.host), _e(h.cpu_model), _e(cores_text(h)), _e(units.memory(h.memory_bytes)),
             _e(f"{h.os}, {h.kernel} {h.arch}"), _e(h.governor)] for h in m.hosts], left=6))
    if m.cvars is None:
        out.append("<p>MPI_T: not available from this MPI library.</p>")
    else:
        out.append(f"<p>The MPI's own thresholds through MPI_T (launch {m.launch}): the control variables "
                   "named like eager, rndv, rendezvous, cell, threshold or limit; point-to-point ones "
                   + (f"of the device in use ({_e(m.device)}) " if m.device else "") + "first"
                   + (f"; {len(m.other_devices)} of another device, which this build does not use, with the rest"
                      if m.other_devices else "") + ".</p>")
        shown = dict(m.thresholds)
        rows = [[_e(n), _e(cvar_text(v))] for n, v in m.thresholds]
        rows += [[_e(n), _e(cvar_text(v))] for n, v in m.cvars.items() if n not in shown]
        out.append(f"<details><summary>MPI_T variables ({len(rows)})</summary>"
                   + _table(["variable", "value"], rows, left=1) + "</details>")
    if m.varies:
        out.append(f"<p class='noise'>The run's launches recorded different {_e(', '.join(m.varies))}; "
                   f"shown: launch {m.launch}.</p>")
    return "".join(out)


def comparison_html(c: RunComparison) -> str:
    def verdict(v: str) -> str:
        cls = {"slower": "slower", "faster": "faster"}.get(v, "noise")
        return f'<span class="{cls}">{_e(v)}</span>'

    def ci(pair: Any) -> str:
        return f"{pair[0]:.3f} – {pair[1]:.3f}" if pair else "-"

    def pv(p: Any) -> str:
        return "-" if p is None else f"{p:.2g}"

    rows = [[_e(units.size(s.bytes)), _e(units.seconds(s.value_a_s)), _e(units.seconds(s.value_b_s)),
             f"{s.ratio:.3f}", ci(s.ratio_ci), pv(s.p_value), pv(s.p_adjusted), verdict(s.verdict)]
            for s in c.sizes]
    fmt = {"s": units.seconds, "s/B": units.beta, "B/s": units.rate, "B": units.size}
    prow = [[_e(p.label), _e(fmt[p.unit](p.value_a)), _e(fmt[p.unit](p.value_b)),
             f"{p.ratio:.3f}" if math.isfinite(p.ratio) else "-", ci(p.ratio_ci), pv(p.p_adjusted),
             verdict(p.verdict)] for p in c.parameters]
    notes = "".join(f"<p class='noise'>{_e(n)}</p>" for n in (*needed_lines(c), *c.notes))
    machines = f"<p>{_e(diff_line(c.machines))}</p>" if c.machines is not None else ""
    return (f"<h3>{_e(c.label_b)} against {_e(c.label_a)} ({_e(c.series)})</h3>" + machines +
            f"<p>Ratio = B / A (above 1: B slower). A is {_e(c.side_a)}; B is {_e(c.side_b)}. "
            f"Launch-level t test on the noise floor, Holm-corrected across sizes, α = {c.alpha:g} "
            "(docs/statistics.md). “within noise”: not significant.</p>"
            + _table(["size", "A", "B", "ratio", "CI", "p", "p (Holm)", "verdict"], rows)
            + (_table(["parameter", "A", "B", "ratio", "CI", "p (Holm)", "verdict"], prow) if prow else "")
            + notes)


DETAILED_SERIES = 3  # up to this many series, each gets all its figures
FAMILY_NAMES = {"pingpong": "ping-pong variants", "bidirectional": "both directions", "compat": "OSU and IMB modes",
                "many-ranks": "many ranks", "buffering": "buffering", "combining": "combining", "overlap": "overlap",
                "probe": "probes", "hardware": "copies and the floor", "": "other series"}


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


def answer_html(result: RunResult, index: int = 0) -> str:
    """The answer block of show and run (the same lines, present/answer_text.py), then links to the
    sections that hold its evidence and fine print."""
    from msgperf.present.answer_text import answer_lines  # noqa: PLC0415

    block = "\n".join(_e(line) for line in answer_lines(result))
    links = [("figures", "model figures")]
    links += [(s.name, f"{s.name}: plots, per-size table, caveats") for s in result.series if s.model is not None]
    if _pattern_tables(result):
        links.append(("tables", "pattern tables"))
    if result.conditions:
        links.append(("conditions", "the machine during the launches"))
    if machine_html(result):
        links.append(("machine", "machine"))
    links.append(("metadata", "metadata"))
    nav = " · ".join(f"<a href='#{_anchor(index, key)}'>{_e(words)}</a>" for key, words in links)
    return f"<pre class='answer'>{block}</pre><nav class='details'>Details: {nav}</nav>"


def _run_section(result: RunResult, run: Any, index: int, several: bool) -> str:
    main = result.main
    parts = []
    title = f"Run {index + 1}: {result.source.label}" if several else result.source.label
    parts.append(f"<h2>{_e(title)}</h2><p class='sub'>{_e(result.source.path)} — {_e(result.source.method)}</p>")
    parts.append(answer_html(result, index))
    bound = _memcpy_peak(result)
    modelled = [s for s in result.series if s.model is not None]
    # Every series gets its tables and caveats; its own figures only when the run has few series
    # (or it is the main one). With many patterns, their curves are compared in one figure per
    # family instead: more readable, and a report of every pattern stays quick to write.
    detailed = len(modelled) <= DETAILED_SERIES
    if not detailed:
        parts.append("<h3>Methods compared</h3>" + "".join(
            _img(plots.overlay_plot([(s.name, s.model) for s in group], title=f"{family}: median time and model"),
                 f"{family} compared", "Each series' medians with their intervals and its piecewise model.")
            for family, group in _families(modelled)))
    for s in result.series:
        if s.model is None:
            if not s.not_modelled.startswith("no time-against-size model"):
                parts.append(f"<h3>{_e(s.name)}</h3><p>Not modelled: {_e(s.not_modelled)}</p>")
            continue
        a = s.model
        parts.append(f"<a id='{_anchor(index, s.name)}'></a><h3>{_e(s.name)}</h3>"
                     f"<p class='sub'>{_e(s.facts.time_words)}</p>")
        if not (detailed or s is main):
            parts.append("<details><summary>Per-size table</summary>" + _size_table(s, result.confidence) + "</details>")
            parts.append("<h4>Caveats</h4>" + _caveats(a.caveats))
            continue
        parts.append(_img(plots.time_plot(a), f"{s.name}: time against size",
                          "Median time per size with its distribution-free interval; the piecewise "
                          "Hockney model; shaded: breakpoint intervals (dashed: most likely gap); "
                          "crosses: anomalies."))
        is_memcpy = s.key.pattern == "memcpy"
        parts.append(_img(plots.bandwidth_plot(a, None if is_memcpy else bound), f"{s.name}: bandwidth",
                          "Bandwidth b / median T(b) (1 MB = 10^6 B); asymptotic bandwidth 1/β, "
                          "n½ = α/β" + ("; memcpy's peak bandwidth as the hardware bound" if bound and not is_memcpy else "") + "."))
        parts.append(_img(plots.variability_plot(a), f"{s.name}: variability",
                          "Per size: box = quartiles, whiskers = 5th–95th percentile, mean ± sd, "
                          "min and max, samples flagged as outliers (kept in every statistic)."))
        if a.launch_comparison is not None:
            parts.append(_img(plots.launches_plot(a), f"{s.name}: launches",
                              "Each launch's median per size relative to the launches' consensus; "
                              "launches that stand apart are drawn in vermillion."))
        parts.append("<details><summary>Per-size table</summary>" + _size_table(s, result.confidence) + "</details>")
        parts.append("<h4>Caveats</h4>" + _caveats(a.caveats))
        if s is main:
            parts.append("<h4>Message combining</h4>" + _combining(result))
    if result.contention is not None:
        parts.append("<h3>Contention</h3>" + _img(plots.contention_plot(result.contention), "pairs contention",
                                                  "Slowest pair's one-way time as concurrent pairs are added."))
    grids = result.matrices
    for grid in {id(g): g for g in (grids[:1] + grids[-1:])}.values():
        parts.append(_img(plots.matrix_plot(grid), f"matrix {grid.bytes} B",
                          "Every ordered rank pair; lines mark host boundaries."))
    tables = _pattern_tables(result)
    if tables:
        parts.append(f"<a id='{_anchor(index, 'tables')}'></a><h3>Pattern tables</h3>" + tables)
    parts.append(f"<a id='{_anchor(index, 'figures')}'></a><h3>Headline figures</h3>" + headline_html(result))
    if result.conditions:
        parts.append(f"<a id='{_anchor(index, 'conditions')}'></a><h3>The machine during the launches</h3>" + "".join(
            f"<p>launch {c.launch}: {_e(c.words())}</p>" for c in result.conditions)
            + _caveats(result.caveats))
    machine = machine_html(result)
    if machine:
        parts.append(f"<a id='{_anchor(index, 'machine')}'></a><h3>Machine</h3>" + machine)
    parts.append(f"<a id='{_anchor(index, 'metadata')}'></a><h3>Metadata</h3>" + metadata_html(run))
    return "".join(parts)


def profile_section(advice: Any) -> str:
    """An application's profile against the model (``msgperf report --profile``): the sizes it
    sent against the model's regimes, then the advice in the words of ``advise --profile``."""
    from msgperf.present.profile_advice_text import advice_sections, heading  # noqa: PLC0415

    parts = [f"<h2>Profile: {_e(heading(advice))}</h2>",
             f"<p>{_e(advice.model_choice)}</p>" if advice.model_choice else "",
             _img(plots.profile_histogram_plot(advice), "profile: sizes against the regimes",
                  "Messages sent per power-of-two size bucket, all ranks, coloured by the model's regime: "
                  "eager or rendezvous by the eager limit the eager-probe measured, bandwidth-bound from "
                  "n½ = α/β of the single Hockney line up."),
             _table(["sizes", "messages", "regime"],
                    [[_e(f"{units.size(b.low_bytes)} – {units.size(b.high_bytes)}" if b.low_bytes else "0 B"),
                      _e(units.count(b.messages)), _e(b.regime)] for b in advice.histogram])]
    for title, lines in advice_sections(advice):
        if lines:
            parts.append(f"<h3>{_e(title)}</h3><ul>" + "".join(f"<li>{_e(line)}</li>" for line in lines) + "</ul>")
    return "".join(parts)


def build_report(results: Sequence[tuple[RunResult, Any]], comparisons: Sequence[RunComparison | str] = (),
                 title: str | None = None, profiles: Sequence[Any] = ()) -> str:
    """The whole report as one HTML string: ``results`` are (result, run) pairs, ``comparisons``
    each later run against the first (or the reason it could not be compared), ``profiles`` the
    advice on applications' profiles (``ProfileAdvice``, from the first run's model), shown first."""
    if not results:
        raise ValueError("no run to report")
    several = len(results) > 1
    sections = [profile_section(a) for a in profiles]
    sections += [_run_section(r, run, i, several) for i, (r, run) in enumerate(results)]
    head = []
    if several:
        overlay = [(f"{i + 1}: {r.source.label}", r.main.model) for i, (r, _) in enumerate(results)
                   if r.main is not None and r.main.model is not None]
        if len(overlay) > 1:
            head.append("<h2>Runs overlaid</h2>" + _img(plots.overlay_plot(overlay), "runs overlaid",
                                                         "Each run's medians, intervals and fitted model."))
        comps = [comparison_html(c) if isinstance(c, RunComparison) else f"<p>{_e(c)}</p>" for c in comparisons]
        head.append("<h2>Comparison</h2>" + "".join(comps))
    first = results[0][0]
    name = title or ("msgperf report: " + (f"{profiles[0].program} against {first.source.label}" if profiles else
                                           first.source.label if not several else f"{len(results)} runs"))
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"{REPORT_MARK}"
            "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; "
            "img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">"
            f"<title>{_e(name)}</title><style>{CSS}</style><script>{PROBE}</script></head><body>"
            f"<h1>{_e(name)}</h1>{stamp()}; times are per message "
            "(one-way = half a round trip for ping-pongs); MB/s = 10^6 B/s; KiB = 2^10 B</p>"
            + "".join(head) + "".join(sections)
            + "<p class='sub'>Methods: docs/statistics.md and docs/report.md of msgperf.</p>"
            "</body></html>")


def write_report(results: Sequence[tuple[RunResult, Any]], to: Output,
                 comparisons: Sequence[RunComparison | str] = (), title: str | None = None,
                 profiles: Sequence[Any] = ()) -> Path:
    """Build the report and write it whole to the file the guard allowed (writing.py)."""
    text = build_report(results, comparisons, title, profiles)
    with to.text(parents=True) as out:
        out.write(text)
    return to.path
