"""``msgperf import FILE...``: add run files (or other tools' outputs) to the store."""

from __future__ import annotations

import sys

import click

from msgperf.commands._options import db_option
from msgperf.errors import MsgperfError
from msgperf.records.importers import TOOLS, load_file
from msgperf.store.db import open_store


@click.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--from", "tool", type=click.Choice(sorted(TOOLS)),
              help="The files are text outputs of this tool (OSU Micro-Benchmarks, Intel MPI "
                   "Benchmarks, NetPIPE np.out), imported as summaries without raw samples.")
@click.option("--label", default="", help="Label for the runs this adds.")
@db_option
def command(files: tuple[str, ...], tool: str | None, label: str, db: str | None) -> None:
    """Add run files, JSON exports or (with --from) other tools' outputs to the store.

    Importing a file twice adds nothing. Each line of output ends with the run's id.
    """
    from msgperf.commands.label import check_label
    check_label(label)
    failed = 0
    with open_store(db) as store:
        for name in files:
            try:
                result, meta = load_file(name, tool)
                run_id, added = store.add_run(result.run, label=label or str(meta.get("label") or ""))
            except MsgperfError as exc:
                failed += 1
                click.echo(f"error: {exc}", err=True)
                continue
            for note in result.notes:
                click.echo(f"note: {name}: {note}", err=True)
            kind = f", imported {result.run.info.source} summary" if result.run.info.source != "msgperf" else ""
            if added:
                click.echo(f"{name}: added ({len(result.run.measurements)} measurements{kind}), run {run_id}")
            else:  # the same run, or an earlier, shorter copy of it: the store holds at least these
                click.echo(f"{name}: already stored (the file's {len(result.run.measurements)} measurements{kind} are "
                           f"in it), run {run_id}")  # the id last, as every line of import has it
    if failed:
        click.echo(f"error: {failed} of {len(files)} files were not imported", err=True)
        sys.exit(1)
