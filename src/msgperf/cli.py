"""Subcommand wiring only: every module in msgperf.commands that defines ``command`` is a
subcommand. Errors a user can fix (MsgperfError) print one line and exit 1."""

from __future__ import annotations

import importlib
import pkgutil
import sys

import click

from msgperf import __version__, commands
from msgperf.errors import MsgperfError


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="msgperf")
def group() -> None:
    """Measure, model and explain message-passing performance."""


for _info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name):
    _module = importlib.import_module(f"{commands.__name__}.{_info.name}")
    if hasattr(_module, "command"):
        group.add_command(_module.command)


def main(argv: list[str] | None = None) -> None:
    try:
        group.main(args=argv, prog_name="msgperf", standalone_mode=False)
    except MsgperfError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    except click.exceptions.Abort:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except click.UsageError as exc:
        where = f"msgperf {exc.ctx.info_name} --help" if exc.ctx and exc.ctx.parent else "msgperf --help"
        click.echo(f"error: {exc.format_message()} (see '{where}')", err=True)
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
