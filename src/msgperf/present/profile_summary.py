"""The terminal summary of an application's profile (``msgperf profile``): one row per rank,
then the back-to-back sequences with the most messages. Renders only: every figure is a field
or a property of the ``Profile`` records (records/profile_format.py), of the accounting
(``ProfileAccounting``) or, for several runs of one program, of ``ProfileRuns``
(analysis/advice/profile_runs.py)."""

from __future__ import annotations

from rich.console import Console

from msgperf import units
from msgperf.present.grid import Grid, render
from msgperf.data_text import FIELD_LIMIT, printable
from msgperf.analysis.advice import ProfileAccounting, ProfileRuns, Spread
from msgperf.records.profile_format import Profile, SequenceShape
from msgperf.store.listing import mpi_name

MAX_RANK_ROWS = 16
MAX_CANDIDATES = 5
MAX_CALL_ROWS = 10


def _sizes(pairs) -> str:
    return ", ".join(f"{units.size(p.bytes)} ×{units.count(p.count)}" for p in pairs) or "-"


def _share(part: float, whole: float) -> str:
    return f" ({100 * part / whole:.0f} %)" if whole > 0 else ""


def _shape(shape: SequenceShape) -> str:
    sizes = _sizes(shape.sizes) if shape.sizes is not None else (
        f"{units.size(shape.min_bytes)} – {units.size(shape.max_bytes)}, more than 4 sizes")
    return f"{units.count(shape.count)} × {shape.length} messages ({sizes}; {units.volume(shape.bytes)} together)"


def _rank_list(ranks: list[int]) -> str:
    return ", ".join(map(str, ranks[:10])) + (" …" if len(ranks) > 10 else "")


def rank_table(profile: Profile) -> Grid:
    table = Grid(box="none", pad_edge=False)
    # "in Wait/Test": the time inside MPI_Wait*/MPI_Test* (wait_time_s), not the waiting for a
    # slower rank of the breakdown below it (a rank that waits in MPI_Recv shows 0 here)
    for name in ("rank", "host", "sent", "bytes sent", "received", "in MPI", "in Wait/Test",
                 "top sizes sent", "back-to-back"):
        table.add_column(name, justify="left" if name in ("host", "top sizes sent", "back-to-back") else "right")
    for r in profile.ranks[:MAX_RANK_ROWS]:
        in_sequences = (f"{units.count(sum(s.count for s in r.sequences))} seq, "
                        f"{units.count(r.sequence_messages)} msgs{_share(r.sequence_messages, r.messages_sent)}"
                        if r.sequences else "-")
        table.add_row(str(r.rank) + ("" if r.finalized else "*"), printable(r.host, FIELD_LIMIT),
                      units.count(r.messages_sent),
                      units.volume(r.bytes_sent), units.count(r.messages_received),
                      units.seconds(r.mpi_time_s) + _share(r.mpi_time_s, r.wall_s),
                      units.seconds(r.wait_time_s), _sizes(r.top_sizes()), in_sequences)
    return table


def _pct(share: float) -> str:
    return units.percent(share) if share == share else "-"


def _where(site) -> str:
    if site.location:
        return printable(site.location, FIELD_LIMIT)
    if site.object:
        return f"{printable(site.object, FIELD_LIMIT)}+0x{site.offset:x} (no debug information)"
    return f"0x{site.offset:x} (object unknown)"


def kind_table(a: ProfileAccounting) -> Grid:
    """Time inside MPI per kind of call, then the calls with the most time (every rank together)."""
    table = Grid(box="none", pad_edge=False)
    for name in ("call", "kind", "calls", "bytes", "time", "share of MPI"):
        table.add_column(name, justify="left" if name in ("call", "kind") else "right")
    for c in a.kinds:
        table.add_row(c.name, "", units.count(c.calls), units.volume(c.bytes) if c.bytes else "-",
                      units.seconds(c.time_s), _pct(c.share), styles={0: "bold"})
    for c in a.calls[:MAX_CALL_ROWS]:
        table.add_row(f"  {printable(c.name, FIELD_LIMIT)}", c.kind, units.count(c.calls),
                      units.volume(c.bytes) if c.bytes else "-", units.seconds(c.time_s), _pct(c.share))
    return table


def site_table(a: ProfileAccounting) -> Grid:
    table = Grid(box="none", pad_edge=False)
    for name in ("call", "site", "ranks", "calls", "time", "share of MPI"):
        table.add_column(name, justify="left" if name in ("call", "site") else "right")
    for s in a.sites:
        table.add_row(printable(s.call, FIELD_LIMIT), _where(s), str(s.ranks), units.count(s.calls),
                      units.seconds(s.time_s), _pct(s.share))
    return table


def split_table(a: ProfileAccounting) -> Grid:
    """Per rank: its MPI time by kind (adding up to it) and the part spent waiting for a slower rank."""
    used = [k for k in dict.fromkeys(k for r in a.ranks for k, _ in r.by_kind)]
    table = Grid(box="none", pad_edge=False)
    for name in ("rank", "in MPI", *used, "waiting for a slower rank"):
        table.add_column(name, justify="right")
    for r in a.ranks[:MAX_RANK_ROWS]:
        parts = dict(r.by_kind)
        waiting = ("cannot tell" if r.waiting_s is None else
                   f"{units.seconds(r.waiting_s)}{_share(r.waiting_s, r.mpi_time_s)}"
                   + (f" for rank {r.waits_for}" if r.waiting_s > 0 and r.waits_for is not None else ""))
        table.add_row(str(r.rank), units.seconds(r.mpi_time_s),
                      *(units.seconds(parts[k]) if k in parts else "-" for k in used), waiting)
    return table


def render_accounting(console: Console, a: ProfileAccounting) -> None:
    console.print("Time inside MPI by kind of call (every rank together)", style="bold")
    render(console, kind_table(a))
    if a.sites:
        console.print("Call sites with the most time inside MPI", style="bold")
        render(console, site_table(a))
        if a.sites_other_s > 0:
            console.print(f"other sites: {units.seconds(a.sites_other_s)}", markup=False, highlight=False)
    console.print("Time inside MPI per rank, by kind (adds up to the rank's time inside MPI)", style="bold")
    render(console, split_table(a))
    for note in a.notes:
        console.print(note, markup=False, highlight=False)


def render_profile(console: Console, profile: Profile, accounting: ProfileAccounting | None = None) -> None:
    info = profile.info
    hosts = list(dict.fromkeys(h for h in info.hosts if h))
    shown = ", ".join(printable(h, FIELD_LIMIT) for h in hosts[:8])
    shown += f" and {len(hosts) - 8} more" if len(hosts) > 8 else ""
    console.print(f"{printable(' '.join(info.argv) or '?')} · {printable(mpi_name(info), FIELD_LIMIT)}"
                  f" · {info.nranks} ranks on {shown or '?'}", markup=False, highlight=False)
    render(console, rank_table(profile))
    notes = []
    if len(profile.ranks) > MAX_RANK_ROWS:
        notes.append(f"… {len(profile.ranks) - MAX_RANK_ROWS} more ranks in the file")
    if profile.missing_ranks:
        shown = ", ".join(map(str, profile.missing_ranks[:10])) + (" …" if len(profile.missing_ranks) > 10 else "")
        notes.append(f"no record from rank(s) {shown}: killed before they could write their part")
    ended_early = [r for r in profile.ranks if not r.finalized]
    if ended_early:
        how = "; ".join(f"{ending}: rank(s) {_rank_list([r.rank for r in ended_early if r.ended_by == ending])}"
                        for ending in dict.fromkeys(r.ended_by for r in ended_early))
        notes.append(f"*: ended without MPI_Finalize ({how}); each such record stops there")
    notes.append("in MPI: time inside every MPI call (version 3 profiles; before: the point-to-point calls, "
                 "waits and tests alone), as a share of the rank's time from MPI_Init to MPI_Finalize")
    notes.append(f"back-to-back: sends to one peer with no completed receive between them and no gap "
                 f"outside MPI above {units.seconds(info.sequence_gap_s)}: candidates for combining")
    for note in notes:
        console.print(note, markup=False, highlight=False)
    candidates = sorted(((r.rank, s) for r in profile.ranks for s in r.sequences),
                        key=lambda item: -item[1].messages)[:MAX_CANDIDATES]
    if candidates:
        console.print("Back-to-back sequences with the most messages", style="bold")
    for rank, seq in candidates:
        top = max(seq.shapes, key=lambda s: s.count * s.length, default=None)
        shape = f"; most: {_shape(top)}" if top else ""
        console.print(f"  rank {rank} → {seq.peer}: {units.count(seq.count)} sequences, "
                      f"{units.count(seq.messages)} messages{shape}", markup=False, highlight=False)
    if accounting is not None:
        render_accounting(console, accounting)


# ---- several runs of one program (msgperf profile --show P P ...) ----------------------------------

RANGE_WORDS = ("median [smallest – largest run]; the range is the run-to-run spread, not a confidence interval")


def spread_text(s: Spread, fmt=units.seconds) -> str:
    """A ``Spread`` as "median [low – high]" ("-" when no run told; the value alone from one run)."""
    if s.n == 0:
        return "-"
    low, high = fmt(s.low), fmt(s.high)
    return fmt(s.median) if low == high else f"{fmt(s.median)} [{low} – {high}]"


def _count_spread(s: Spread) -> str:
    return spread_text(s, lambda v: units.count(round(v)) if v == int(v) else f"{v:.1f}")


def _percent(v: float) -> str:
    return units.percent(v)


def runs_table(m: ProfileRuns) -> Grid:
    """One row per run: its label, when it started, whether it is whole, its totals."""
    table = Grid(box="none", pad_edge=False)
    for name in ("run", "started", "records", "MPI_Init → MPI_Finalize", "in MPI (all ranks)", "point-to-point",
                 "collective", "other"):
        table.add_column(name, justify="left" if name in ("run", "started", "records") else "right")
    for r in m.runs:
        whole = "complete" if r.complete and not r.unfinished_ranks else "partial"
        table.add_row(printable(r.label, FIELD_LIMIT), printable(r.start_time, FIELD_LIMIT), whole,
                      units.seconds(r.wall_s), units.seconds(r.mpi_time_s), _pct(r.point_to_point_share),
                      _pct(r.collective_share), _pct(r.other_share))
    return table


def spread_kind_table(m: ProfileRuns) -> Grid:
    """Per kind, then the calls with the most time: median [low – high] over the runs."""
    table = Grid(box="none", pad_edge=False)
    for name in ("call", "kind", "calls", "bytes", "time", "share of MPI"):
        table.add_column(name, justify="left" if name in ("call", "kind") else "right")
    for c in m.kinds:
        table.add_row(c.name, "", _count_spread(c.calls), spread_text(c.bytes, units.volume) if c.bytes.high else "-",
                      spread_text(c.time_s), spread_text(c.share, _percent), styles={0: "bold"})
    for c in m.calls[:MAX_CALL_ROWS]:
        table.add_row(f"  {printable(c.name, FIELD_LIMIT)}", c.kind, _count_spread(c.calls),
                      spread_text(c.bytes, units.volume) if c.bytes.high else "-", spread_text(c.time_s),
                      spread_text(c.share, _percent))
    return table


def render_profile_runs(console: Console, m: ProfileRuns) -> None:
    """The merged summary of several runs of one program."""
    say = lambda text: console.print(text, markup=False, highlight=False)  # noqa: E731
    say(f"{printable(' '.join(m.argv) or '?')} · {m.nranks} ranks · {m.n} runs merged")
    render(console, runs_table(m))
    console.print(f"Over the {m.n} runs ({RANGE_WORDS})", style="bold", markup=False, highlight=False)
    say(f"  MPI_Init → MPI_Finalize (longest rank)  {spread_text(m.wall_s)}")
    say(f"  time inside MPI (every rank together)  {spread_text(m.mpi_time_s)}")
    say(f"  of it point-to-point calls, waits and tests {spread_text(m.point_to_point_share, _percent)}, "
        f"collectives {spread_text(m.collective_share, _percent)}, other calls {spread_text(m.other_share, _percent)}")
    console.print(f"Time inside MPI by kind of call (every rank together; median [smallest – largest] over "
                  f"{m.n} runs)", style="bold", markup=False, highlight=False)
    render(console, spread_kind_table(m))
    for note in m.notes:
        say(f"note: {note}")
