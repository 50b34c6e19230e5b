"""Subcommand wiring only: every module in msgperf.commands that defines ``command`` is a
subcommand, imported only when it is invoked (fast start-up; one command's imports never
break another's). Errors a user can fix (MsgperfError) print one line and exit 1."""

from __future__ import annotations

import importlib
import importlib.util
import sys

import click

from msgperf import __version__, commands
from msgperf.errors import MsgperfError
from msgperf.data_text import printable


def _module_name(command_name: str) -> str:
    return "import_" if command_name == "import" else command_name


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        import pkgutil  # only for the help: running one command looks up its module alone

        names = [info.name.rstrip("_") for info in pkgutil.iter_modules(commands.__path__)]
        return sorted(n for n in names if not n.startswith("_"))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if not name or name.startswith("_") or name != name.rstrip("_") or not name.replace("-", "_").isidentifier():
            return None
        if importlib.util.find_spec(f"{commands.__name__}.{_module_name(name)}") is None:
            return None
        module = importlib.import_module(f"{commands.__name__}.{_module_name(name)}")
        return getattr(module, "command", None)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="msgperf")
def group() -> None:
    """Measure, model and explain message-passing performance."""


def main(argv: list[str] | None = None) -> None:
    from msgperf.launch.budget import mark_command_start

    mark_command_start(process=argv is None)  # msgperf run's --total-time counts from here
    args = sys.argv[1:] if argv is None else argv
    if not args:  # msgperf alone: the help, as a help, not as an error
        click.echo(group.get_help(click.Context(group, info_name="msgperf")))
        sys.exit(0)
    try:
        group.main(args=args, prog_name="msgperf", standalone_mode=False)
    except MsgperfError as exc:
        # one line, whatever a file name or a value in it holds (a newline, an ESC sequence)
        click.echo(f"error: {printable(str(exc), None)}", err=True)
        sys.exit(getattr(exc, "exit_code", 1))
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
