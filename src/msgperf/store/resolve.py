"""Every command that takes a run takes a run file (of any tool msgperf reads) or a run id:
``msgperf show 12``. Kept for the callers that want (run, store row); the loading itself is
``msgperf.loader.load``, the one loader."""

from __future__ import annotations

from msgperf.records.format import Run
from msgperf.store.listing import RunRow


def resolve_run(arg: str, db: str | None = None) -> Run:
    """The run named by ``arg``: a file of any tool msgperf reads, or a stored run's id."""
    return resolve_run_ref(arg, db)[0]


def resolve_run_ref(arg: str, db: str | None = None) -> tuple[Run, RunRow | None]:
    """(run, its store row or None when it came from a file)."""
    from msgperf.loader import load  # noqa: PLC0415

    loaded = load(arg, db)
    return loaded.run, loaded.row
