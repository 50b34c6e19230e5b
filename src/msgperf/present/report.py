"""The self-contained HTML report of one or several runs (``msgperf report``, end of ``msgperf
run``): summary, plots (inline base64 PNG), tables, caveats with advice, message-combining
advice, comparisons and the full metadata, in one file with inline CSS and no network access.

Every string that comes from a run file goes through ``html.escape`` (``_e``); numbers come from
``msgperf.analysis``; nothing is estimated here. A small inline script records script errors
and each image's natural size in ``data-`` attributes, which the browser test reads back.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import io
import math
from pathlib import Path
from typing import Any, Sequence

from msgperf.analysis import (AnalysisError, RunAnalysis, analyze_run, estimate_buffering,
                              predict_combining, series_of)
from msgperf.analysis.compare import RunComparison, compare_runs
from msgperf.analysis.rows import SizeRow, size_rows
from msgperf.present import plots
from msgperf.present.analysis_text import fmt_beta, fmt_rate, fmt_size, fmt_time
from msgperf.present.pattern_tables import pair_matrix
from msgperf.present.text import printable

TWO_RANK = ("pingpong", "pingpong-nb", "pingpong-ssend", "pingpong-rsend", "pingpong-bsend",
            "pingpong-persistent", "sendrecv", "pingping", "exchange", "osu-latency",
            "imb-pingpong")
SKIP_MODEL = ("eager-probe", "pairs", "matrix", "overlap", "combine")

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
overflow-x:auto;font-size:.8em}dl.summary dt{font-weight:bold;float:left;clear:left;width:16em}
dl.summary dd{margin-left:17em;margin-bottom:.3em}code{background:#f1f1f1;padding:0 .2em}
"""

PROBE = """
(function(){var errs=[];window.addEventListener('error',function(e){errs.push(String(e.message||e));
document.body&&document.body.setAttribute('data-errors',JSON.stringify(errs));});
window.addEventListener('load',function(){var imgs=document.querySelectorAll('img.plot');
for(var i=0;i<imgs.length;i++){var m=imgs[i];var r=m.getBoundingClientRect();
m.setAttribute('data-natural',m.naturalWidth+'x'+m.naturalHeight);
m.setAttribute('data-shown',Math.round(r.width)+'x'+Math.round(r.height));}
document.body.setAttribute('data-errors',JSON.stringify(errs));
document.body.setAttribute('data-ready','1');});})();
"""


def _e(text: Any) -> str:
    """Escaped for HTML text and attributes; control characters shown, not obeyed."""
    return html.escape(printable(str(text)), quote=True)


def run_label(run: Any) -> str:
    """Machine / MPI / placement, for legends and headings (plain text, escape it to print)."""
    if not run.launches:
        return f"{Path(run.path).name or 'run'} ({run.info.source})"
    launch = run.launches[-1]
    lines = launch.mpi_library.strip().splitlines()
    mpi = " ".join(lines[0].split()) if lines else "unknown MPI"
    if mpi.lower().startswith("mpich version:"):
        mpi = "MPICH " + mpi.split(":", 1)[1].strip()
    hosts = ",".join(launch.hosts) or "?"
    where = "one node" if launch.pair_shares_node else "two nodes"
    return f"{hosts} · {mpi[:40]} · {where}"


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


def _ci(pair: Any, fmt: Any) -> str:
    if not pair:
        return ""
    lo, hi = pair
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return " [unbounded]"
    return f" [{fmt(lo)} – {fmt(hi)}]"


def _analyses(run: Any) -> list[tuple[str, RunAnalysis | None, str]]:
    """(series name, analysis or None, why not) for every series of the run."""
    out = []
    for pattern, variant in series_of(run):
        name = f"{pattern} [{variant}]" if variant else pattern
        if pattern in SKIP_MODEL:
            continue
        try:
            out.append((name, analyze_run(run, pattern=pattern, variant=variant), ""))
        except AnalysisError as exc:
            out.append((name, None, str(exc)))
    return out


def _main(analyses: list[tuple[str, RunAnalysis | None, str]]) -> RunAnalysis | None:
    for pattern in TWO_RANK:
        for _, a, _ in analyses:
            if a is not None and a.pattern == pattern and not a.variant:
                return a
    return next((a for _, a, _ in analyses if a is not None and a.pattern != "memcpy"), None)


def _by_pattern(analyses: list[tuple[str, RunAnalysis | None, str]], pattern: str) -> RunAnalysis | None:
    return next((a for _, a, _ in analyses if a is not None and a.pattern == pattern), None)


def _eager(rows: list[SizeRow]) -> str | None:
    for r in rows:
        if r.pattern != "eager-probe":
            continue
        e = r.extra
        if isinstance(e.get("eager_limit_bytes"), int):
            return f"{fmt_size(e['eager_limit_bytes'])} (measured directly by the eager probe)"
        lo, hi = e.get("eager_limit_low_bytes"), e.get("eager_limit_high_bytes")
        if lo is not None:
            return (f"between {fmt_size(lo)} and {fmt_size(hi) if hi is not None else 'beyond the probe'}"
                    " (eager probe)")
    return None


def _floor(rows: list[SizeRow], main: RunAnalysis | None) -> str | None:
    floors = sorted((r for r in rows if r.pattern == "floor" and not r.variant), key=lambda r: r.bytes)
    if not floors:
        return None
    f = floors[0]
    pp = next((r for r in rows if r.pattern == "pingpong" and not r.variant and r.bytes == f.bytes), None)
    text = f"{fmt_time(f.summary.median)} one-way at {fmt_size(f.bytes)} (shared-memory round trip, no MPI)"
    if pp is not None and f.summary.median > 0:
        text += (f"; the MPI ping-pong takes {fmt_time(pp.summary.median)}, "
                 f"{pp.summary.median / f.summary.median:.2f}× the floor")
    return text


def summary_html(run: Any, analyses: list[tuple[str, RunAnalysis | None, str]],
                 rows: list[SizeRow]) -> str:
    main = _main(analyses)
    items: list[tuple[str, str]] = []
    if main is not None:
        line = main.sweep.hockney.line
        ch = main.sweep.characteristics
        items.append(("series", _e(main.series) + " — time per message"
                      + (" (one-way = half the round trip)" if main.pattern.startswith("pingpong") else "")))
        items.append(("α latency", _e(fmt_time(line.alpha_s) + _ci(line.alpha_ci_s, fmt_time))))
        items.append(("β inverse bandwidth", _e(fmt_beta(line.beta_s_per_byte)
                                                + _ci(line.beta_ci_s_per_byte, fmt_beta))))
        items.append(("bandwidth 1/β", _e(fmt_rate(line.bandwidth_bytes_per_s) + " (1 MB = 10^6 B)")))
        items.append(("n½ = α/β", _e(fmt_size(line.n_half_bytes) if math.isfinite(line.n_half_bytes)
                                     else "undefined (α or β not positive)")))
        items.append(("zero-byte latency", _e(fmt_time(ch.zero_byte_latency_s)
                                               + _ci(ch.zero_byte_latency_ci_s, fmt_time))))
        items.append(("peak bandwidth", _e(f"{fmt_rate(ch.peak_bandwidth_bytes_per_s)} at "
                                           f"{fmt_size(ch.peak_bandwidth_size)}")))
        if ch.asymptotic_bandwidth_bytes_per_s:
            items.append(("asymptotic bandwidth", _e(fmt_rate(ch.asymptotic_bandwidth_bytes_per_s)
                                                     + " (1/β of the last segment)")))
        bps = main.sweep.piecewise.breakpoints
        if bps:
            words = "; ".join(f"between {fmt_size(b.low_bytes)} and {fmt_size(b.high_bytes)}"
                              + (f" (most likely {fmt_size(b.best_low_bytes)}–{fmt_size(b.best_high_bytes)})"
                                 if (b.best_low_bytes, b.best_high_bytes) != (b.low_bytes, b.high_bytes) else "")
                              for b in bps)
            items.append(("breakpoints", _e(f"{len(bps)} protocol switch{'es' if len(bps) > 1 else ''}: {words}")))
        else:
            items.append(("breakpoints", "none: one line fits every size within its noise"))
    eager = _eager(rows)
    items.append(("eager limit", _e(eager) if eager else "not measured (add --pattern eager-probe)"))
    memcpy = _by_pattern(analyses, "memcpy")
    if memcpy is not None:
        largest = max(memcpy.sizes, key=lambda s: s.bytes)
        b_c = largest.bytes / largest.summary.median if largest.summary.median > 0 else 0.0
        peak = memcpy.sweep.characteristics.peak_bandwidth_bytes_per_s
        items.append(("copy speed b_c", _e(f"{fmt_rate(b_c)} (memcpy at its largest size, {largest.bytes} B; "
                                           f"peak {fmt_rate(peak)} in cache)")))
        b_n = main.sweep.characteristics.asymptotic_bandwidth_bytes_per_s if main is not None else None
        if b_n and b_c > 0:
            est = estimate_buffering(b_c, b_n)
            items.append(("effective buffered bandwidth", _e(
                f"b_e = b_c·b_n/(b_c+b_n) = {fmt_rate(est.effective_bandwidth_bytes_per_s)}: a buffered "
                f"(unexpected) message moves {est.slowdown:.2f}× slower than b_n = {fmt_rate(b_n)}")))
    else:
        items.append(("copy speed b_c", "not measured (add --pattern memcpy)"))
    floor = _floor(rows, main)
    items.append(("hardware floor", _e(floor) if floor else "not measured (add --pattern floor)"))
    body = "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in items)
    return f'<dl class="summary">{body}</dl>'


def _size_table(a: RunAnalysis) -> str:
    rows = []
    for size, regime in zip(a.sizes, a.sweep.regimes):
        s = size.summary
        model = a.sweep.piecewise.predict(size.bytes)
        rows.append([_e(fmt_size(size.bytes)), _e(fmt_time(s.median)),
                     _e(f"{fmt_time(s.ci_low)} – {fmt_time(s.ci_high)}"), _e(fmt_time(model)),
                     _e(f"{100 * (s.median - model) / model:+.1f} %") if model > 0 else "-",
                     _e(fmt_rate(regime.bandwidth_bytes_per_s * a.flows)) if size.bytes else "-",
                     str(s.n), _e(fmt_time(s.mean)), _e(fmt_time(s.std)), _e(fmt_time(s.min)),
                     _e(fmt_time(s.p95)), _e(fmt_time(s.max)), str(size.outliers)])
    return _table(["size", "median", f"{100 * a.confidence:.0f} % CI", "model", "resid.",
                   "bandwidth", "n", "mean", "sd", "min", "p95", "max", "outliers"], rows)


def _caveats(a: RunAnalysis) -> str:
    if not a.caveats:
        return "<p>No caveats.</p>"
    seen: dict[str, list[Any]] = {}
    for c in a.caveats:
        seen.setdefault(c.kind, []).append(c)
    out = []
    for kind, items in seen.items():
        sizes = sorted({c.bytes for c in items if c.bytes is not None})
        head = _e(items[0].message)
        if len(items) > 1 and sizes:
            head = (_e(f"{kind.replace('_', ' ')} at {len(sizes)} size(s): "
                       + ", ".join(fmt_size(s) for s in sizes[:8]) + (" …" if len(sizes) > 8 else ""))
                    + "; e.g. " + head)
        out.append(f'<div class="caveat">{head}<br><span class="advice">→ {_e(items[0].advice)}</span></div>')
    return "".join(out)


def _combining(a: RunAnalysis) -> str:
    line, model = a.sweep.hockney.line, a.sweep.piecewise
    largest = model.segments[-1].to_bytes
    rows = []
    for k in (2, 8, 32):
        for s in (8, 1024, 16384):
            if k * s > largest:
                continue
            try:
                p = predict_combining(model, line, k, s)
            except AnalysisError:
                continue
            be = fmt_size(p.break_even_bytes) if p.break_even_bytes is not None else "beyond 1 TiB"
            rows.append([str(k), _e(fmt_size(s)), _e(fmt_time(p.apart_s)), _e(fmt_time(p.combined_s)),
                         _e(f"{p.speedup:.2f}×"), _e(be)])
    if not rows:
        return "<p>Too few sizes measured to predict message combining.</p>"
    return ("<p>Sending k messages of s bytes apart costs k·T(s); combined into one, T(k·s) "
            "(seeds/000). Predicted from the piecewise model; combining pays while the speedup "
            f"exceeds 1 + {100 * 0.1:.0f} % — up to the break-even message size.</p>"
            + _table(["k", "s", "apart k·T(s)", "combined T(k·s)", "speedup", "pays up to s ="], rows))


def _pattern_tables_text(rows: list[SizeRow]) -> str:
    from rich.console import Console  # noqa: PLC0415

    from msgperf.present.pattern_tables import render_pattern_tables  # noqa: PLC0415

    console = Console(record=True, width=150, file=io.StringIO(), color_system=None)
    render_pattern_tables(console, rows)
    text = console.export_text()
    return f"<pre>{_e(text)}</pre>" if text.strip() else ""


def metadata_html(run: Any) -> str:
    info = run.info
    out = [_table(["field", "value"], [
        ["run file", _e(run.path or "-")], ["source", _e(info.source)],
        ["msgperf version", _e(info.msgperf_version)], ["started", _e(info.start_time)],
        ["command line", f"<code>{_e(info.command_line)}</code>"],
        ["patterns planned", _e(", ".join(info.plan.patterns))],
        ["sizes planned", _e(f"{len(info.plan.sizes)} sizes, {fmt_size(min(info.plan.sizes, default=0))} – "
                             f"{fmt_size(max(info.plan.sizes, default=0))}")],
        ["precision target, time budget", _e(f"{100 * info.plan.precision:g} %, {info.plan.time_budget_s:g} s per size")],
        ["pair, ranks", _e(f"{info.plan.pair[0]}:{info.plan.pair[1]} of {info.plan.nranks}")],
    ], left=2)]
    for launch in run.launches:
        c = launch.clock
        out.append(f"<h3>Launch {launch.index}</h3>")
        out.append(_table(["field", "value"], [
            ["MPI library", f"<pre>{_e(launch.mpi_library.strip())}</pre>"],
            ["MPI version", _e(launch.mpi_version)],
            ["hosts", _e(", ".join(launch.hosts))],
            ["pair placement", _e(f"ranks {launch.pair[0]} and {launch.pair[1]} on "
                                  + ("one node" if launch.pair_shares_node else "different nodes"))],
            ["clock self-test", _e(f"{c.source}: resolution {fmt_time(c.resolution_s)}, overhead "
                                   f"{fmt_time(c.overhead_s)}, {'monotonic' if c.monotonic else 'NOT monotonic'}, "
                                   f"clock_getres {fmt_time(c.reported_resolution_s)}, MPI_Wtick {fmt_time(c.mpi_wtick_s)}")],
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


def comparison_html(c: RunComparison) -> str:
    def verdict(v: str) -> str:
        cls = {"slower": "slower", "faster": "faster"}.get(v, "noise")
        return f'<span class="{cls}">{_e(v)}</span>'

    def ci(pair: Any) -> str:
        return f"{pair[0]:.3f} – {pair[1]:.3f}" if pair else "-"

    def pv(p: Any) -> str:
        return "-" if p is None else f"{p:.2g}"

    rows = [[_e(fmt_size(s.bytes)), _e(fmt_time(s.median_a_s)), _e(fmt_time(s.median_b_s)),
             f"{s.ratio:.3f}", ci(s.ratio_ci), pv(s.p_value), pv(s.p_adjusted), verdict(s.verdict)]
            for s in c.sizes]
    fmt = {"s": fmt_time, "s/B": fmt_beta, "B/s": fmt_rate, "B": fmt_size}
    prow = [[_e(p.label), _e(fmt[p.unit](p.value_a)), _e(fmt[p.unit](p.value_b)),
             f"{p.ratio:.3f}" if math.isfinite(p.ratio) else "-", ci(p.ratio_ci), pv(p.p_adjusted),
             verdict(p.verdict)] for p in c.parameters]
    notes = "".join(f"<p class='noise'>{_e(n)}</p>" for n in c.notes)
    return (f"<h3>{_e(c.label_b)} against {_e(c.label_a)} ({_e(c.series)})</h3>"
            f"<p>Ratio = B / A (above 1: B slower). Mann-Whitney U, Holm-corrected across sizes, "
            f"α = {c.alpha:g}; interval of the ratio of medians after Price &amp; Bonett (2002). "
            "“within noise”: not significant.</p>"
            + _table(["size", "median A", "median B", "ratio", "CI", "p", "p (Holm)", "verdict"], rows)
            + (_table(["parameter", "A", "B", "ratio", "CI", "p (Holm)", "verdict"], prow) if prow else "")
            + notes)


DETAILED_SERIES = 3  # up to this many series, each gets all its figures
_FAMILIES = (("ping-pong variants", ("pingpong", "loggp")), ("both directions", ("sendrecv", "pingping", "exchange")),
             ("OSU and IMB modes", ("osu-", "imb-")), ("many ranks", ("ring", "pairs", "matrix")))


def _families(analyses: Sequence[Any]) -> list[tuple[str, list[Any]]]:
    """Series grouped by kind of pattern, at most 8 to a figure (the palette's colours)."""
    groups: dict[str, list[Any]] = {}
    for a in analyses:
        family = next((f for f, prefixes in _FAMILIES if a.pattern.startswith(prefixes)), "probes and copies")
        groups.setdefault(family, []).append(a)
    return [(f if len(g) <= 8 else f"{f} ({i // 8 + 1})", g[i:i + 8])
            for f, g in groups.items() for i in range(0, len(g), 8)]


def _run_section(run: Any, index: int, several: bool) -> tuple[str, RunAnalysis | None]:
    rows = size_rows(run)
    analyses = _analyses(run)
    main = _main(analyses)
    parts = []
    title = f"Run {index + 1}: {run_label(run)}" if several else run_label(run)
    parts.append(f"<h2>{_e(title)}</h2><p class='sub'>{_e(run.path or '')}</p>")
    parts.append("<h3>Summary</h3>" + summary_html(run, analyses, rows))
    memcpy = _by_pattern(analyses, "memcpy")
    bound = memcpy.sweep.characteristics.peak_bandwidth_bytes_per_s if memcpy else None
    modelled = [a for _, a, _ in analyses if a is not None]
    # Every series gets its tables and caveats; its own figures only when the run has few series
    # (or it is the main one). With many patterns, their curves are compared in one figure per
    # family instead: more readable, and a report of every pattern stays quick to write.
    detailed = len(modelled) <= DETAILED_SERIES
    if not detailed:
        parts.append("<h3>Methods compared</h3>" + "".join(
            _img(plots.overlay_plot([(a.series, a) for a in group], title=f"{family}: median time and model"),
                 f"{family} compared", "Each series' medians with their intervals and its piecewise model.")
            for family, group in _families(modelled)))
    for name, a, why in analyses:
        if a is None:
            parts.append(f"<h3>{_e(name)}</h3><p>Not modelled: {_e(why)}</p>")
            continue
        parts.append(f"<h3>{_e(a.series)}</h3>")
        if not (detailed or a is main):
            parts.append("<details><summary>Per-size table</summary>" + _size_table(a) + "</details>")
            parts.append("<h4>Caveats</h4>" + _caveats(a))
            continue
        parts.append(_img(plots.time_plot(a), f"{a.series}: time against size",
                          "Median time per size with its distribution-free interval; the piecewise "
                          "Hockney model; shaded: breakpoint intervals (dashed: most likely gap); "
                          "crosses: anomalies."))
        parts.append(_img(plots.bandwidth_plot(a, None if a is memcpy else bound),
                          f"{a.series}: bandwidth",
                          "Bandwidth b / median T(b) (1 MB = 10^6 B); asymptotic bandwidth 1/β, "
                          "n½ = α/β" + ("; memcpy's peak bandwidth as the hardware bound" if bound and a is not memcpy else "") + "."))
        parts.append(_img(plots.variability_plot(a, plots.series_samples(run, a)),
                          f"{a.series}: variability",
                          "Per size: box = quartiles, whiskers = 5th–95th percentile, mean ± sd, "
                          "min and max, samples flagged as outliers (kept in every statistic)."))
        if a.launch_comparison is not None:
            parts.append(_img(plots.launches_plot(a), f"{a.series}: launches",
                              "Each launch's median per size relative to the launches' consensus; "
                              "launches that stand apart are drawn in vermillion."))
        parts.append("<details><summary>Per-size table</summary>" + _size_table(a) + "</details>")
        parts.append("<h4>Caveats</h4>" + _caveats(a))
        if a is main:
            parts.append("<h4>Message combining</h4>" + _combining(a))
    if any(r.pattern == "pairs" and r.extra.get("pair_median_s") for r in rows):
        parts.append("<h3>Contention</h3>" + _img(plots.contention_plot(rows), "pairs contention",
                                                  "Slowest pair's one-way time as concurrent pairs are added."))
    cells = pair_matrix(rows)
    if cells:
        hosts = {r.rank: r.host for r in run.launches[-1].ranks} if run.launches else None
        for size in sorted({min(cells), max(cells)}):
            parts.append(_img(plots.matrix_plot(cells[size], size, hosts), f"matrix {size} B",
                              "Every ordered rank pair; lines mark host boundaries."))
    tables = _pattern_tables_text(rows)
    if tables:
        parts.append("<h3>Pattern tables</h3>" + tables)
    parts.append("<h3>Metadata</h3>" + metadata_html(run))
    return "".join(parts), main


def build_report(runs: Sequence[Any], title: str | None = None, alpha: float = 0.05) -> str:
    """The whole report as one HTML string."""
    if not runs:
        raise AnalysisError("no run to report")
    several = len(runs) > 1
    sections, mains = [], []
    for i, run in enumerate(runs):
        html_part, main = _run_section(run, i, several)
        sections.append(html_part)
        mains.append((run_label(run), main, run))
    head = []
    if several:
        overlay = [(f"{i + 1}: {label}", m) for i, (label, m, _) in enumerate(mains) if m is not None]
        if len(overlay) > 1:
            head.append("<h2>Runs overlaid</h2>" + _img(plots.overlay_plot(overlay), "runs overlaid",
                                                         "Each run's medians, intervals and fitted model."))
        base_label, _, base = mains[0]
        comps = []
        for i, (label, _, run) in enumerate(mains[1:], start=2):
            try:
                comps.append(comparison_html(compare_runs(base, run, alpha=alpha,
                                                          label_a=f"1: {base_label}",
                                                          label_b=f"{i}: {label}")))
            except AnalysisError as exc:
                comps.append(f"<p>Run {i} not compared: {_e(exc)}</p>")
        head.append("<h2>Comparison</h2>" + "".join(comps))
    name = title or ("msgperf report: " + (run_label(runs[0]) if not several else f"{len(runs)} runs"))
    now = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; "
            "img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">"
            f"<title>{_e(name)}</title><style>{CSS}</style><script>{PROBE}</script></head><body>"
            f"<h1>{_e(name)}</h1><p class='sub'>generated by msgperf {now}; times are per message "
            "(one-way = half a round trip for ping-pongs); MB/s = 10^6 B/s; KiB = 2^10 B</p>"
            + "".join(head) + "".join(sections)
            + "<p class='sub'>Methods: docs/statistics.md and docs/report.md of msgperf.</p>"
            "</body></html>")


def write_report(runs: Sequence[Any], path: str | Path, title: str | None = None,
                 alpha: float = 0.05) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(build_report(runs, title, alpha), encoding="utf-8")
    return path
