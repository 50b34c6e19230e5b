"""msgperf build: compile the kernels against a chosen MPI (cached per MPI identity)."""

from __future__ import annotations

import click

from msgperf.launch.build import build_kernel


@click.command("build")
@click.option("--mpicc", metavar="PATH", help="MPI C compiler wrapper (default: the pip mpich's, else PATH's).")
@click.option("--force", is_flag=True, help="Recompile even when the cache has this build.")
def command(mpicc: str | None, force: bool) -> None:
    """Compile the C kernels against an MPI and print where the binary is."""
    kernel = build_kernel(mpicc, force=force)
    click.echo(f"{kernel.path}")
    click.echo(f"MPI: {kernel.mpi_version} (mpicc {kernel.mpicc}; launcher {kernel.mpiexec or 'not found'})")
