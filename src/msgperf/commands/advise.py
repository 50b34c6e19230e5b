"""msgperf advise RUN --messages K --bytes S: should K messages of S bytes be combined, and what
would buffering them cost? Answered from what the run measured: the combine pattern when it
measured this case, the ping-pong's model, the LogGP gap of back-to-back messages, the eager
limit, memcpy's copy speed.

msgperf advise --profile P [--model RUN]: the same model applied to an application's profile
(msgperf profile): its predicted communication time against the time it spent inside MPI, and
what to change, in order of payoff (analysis/advice/profile_advice.py). --profile repeated: several
runs of one program, each advised, merged (analysis/advice/profile_runs.py)."""

from __future__ import annotations

import click

from msgperf.analysis.tables import MIN_GAIN
from msgperf.commands.fit import load_series, series_options
from msgperf.errors import MsgperfError


def answer_rules(result, model=None):
    """The answer's disturbance rule for a row and its warnings about the launches' conditions
    (analysis/answer.py), for the advice to read, not repeat."""
    from msgperf.analysis.answer import condition_warnings, measured_while_rule  # noqa: PLC0415

    return measured_while_rule(result.caveats, model), condition_warnings(result.answer)


@click.command("advise")
@click.argument("run", metavar="[RUN]", required=False)
@click.option("--messages", "-k", type=click.IntRange(min=1),
              help="How many messages the application sends.")
@click.option("--bytes", "-s", "size", help="Bytes per message (e.g. 64, 4K, 1M).")
@click.option("--profile", "profile_arg", metavar="P", multiple=True,
              help="Advise on an application's profile (a profile file or a stored profile id) instead "
                   "of K messages of S bytes; repeated: several runs of one program, merged (each measured "
                   "time the median [smallest - largest] over the runs).")
@click.option("--model", "model_arg", metavar="RUN",
              help="With --profile: the run whose model predicts (a run file or id; default: the newest "
                   "stored ping-pong run that matches the program: MPI, hosts, placement, ranks, neither "
                   "oversubscribed nor busy).")
@series_options
@click.option("--collective", metavar="NAME",
              help="Advise on K collectives (allreduce, bcast, alltoall, reduce, allgather, "
                   "reduce_scatter_block, barrier) of S bytes against one of K·S, and which algorithm "
                   "the model favours per size, from RUN's collective and ping-pong measurements.")
@click.option("--ranks", type=click.IntRange(min=2), help="With --collective: the rank count to predict for "
              "(default: the one the run measured).")
@click.option("--min-gain", type=click.FloatRange(0, min_open=True), default=MIN_GAIN,
              show_default=True, help="Speedup below 1 + this no longer pays for combining.")
@click.option("--copy-bandwidth", metavar="RATE",
              help="Memory copy bandwidth (e.g. 10GB/s) to estimate what buffering costs (default: what "
                   "the run's memcpy pattern measured, when it has one).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
def command(run: str | None, messages: int | None, size: str | None, profile_arg: tuple[str, ...],
            model_arg: str | None, pattern: str | None, variant: str | None,
            placement: str | None, launch: int | None, db: str | None, min_gain: float,
            copy_bandwidth: str | None, as_json: bool, collective: str | None = None,
            ranks: int | None = None) -> None:
    """Predict K messages of S bytes sent apart versus combined into one (Lawlor's
    message-combining lecture), from what RUN measured; says which measurement and model it used.

    With --profile P: predict the profiled program's communication time from the model of a
    ping-pong run, compare it with the time it spent inside MPI, and say which back-to-back sends
    to combine, which sizes sit just above the eager limit, what buffering costs and how much time
    is latency- or bandwidth-bound."""
    if collective is not None:
        if run is None or messages is None or size is None:
            raise click.UsageError("give RUN --collective NAME --messages K --bytes S")
        from msgperf.commands.advise_collective import advise_on_collective
        advise_on_collective(run, collective, messages, size, db, launch, ranks, as_json)
        return
    if profile_arg:
        if messages is not None or size is not None:
            raise MsgperfError("--profile advises on the program's own messages; drop --messages and --bytes")
        if run is not None and model_arg is not None and run != model_arg:
            raise MsgperfError(f"two models given ({run} and --model {model_arg}); give one")
        from msgperf.commands.advise_profile import advise_on_profile, advise_on_profile_runs
        if len(profile_arg) == 1:
            advise_on_profile(profile_arg[0], model_arg or run, db, pattern, variant, placement, launch, as_json)
        else:
            advise_on_profile_runs(profile_arg, model_arg or run, db, pattern, variant, placement, launch, as_json)
        return
    if run is None or messages is None or size is None:
        raise click.UsageError("give RUN --messages K --bytes S, or --profile P [--model RUN]")
    from msgperf.analysis.advice import conditions_misfit, hold_combining, series_rows
    from msgperf.analysis.answer import disturbed_terms, segments_cannot_tell, segments_disturbed_of
    from msgperf.plan import parse_size
    from msgperf.present.advice_text import render_advice
    from msgperf.present.json_view import advice_dict, dumps
    from msgperf.present.terminal import console
    from msgperf.units import parse_rate

    nbytes = parse_size(size)
    copy = None
    if copy_bandwidth is not None:
        try:
            copy = parse_rate(copy_bandwidth)
        except ValueError as exc:
            raise MsgperfError(str(exc)) from None
    result, series = load_series(run, db, pattern, variant, placement, launch)
    prediction = result.advise(messages, nbytes, min_gain, series, copy)
    combine_rows = [r for r in result.rows if r.pattern == "combine" and r.bytes == nbytes
                    and r.variant in (f"k{messages}-separate", f"k{messages}-combined")]
    measured_while, conditions = answer_rules(result, series.model)
    advice = hold_combining(prediction, series, series_rows(result.rows, series), measured_while,
                            segments_cannot_tell(series.model.sweep, disturbed_terms(result.answer, series.name),
                                                 segments_disturbed_of(result.answer, series.name)),
                            disturbed_terms(result.answer, series.name),
                            conditions if result.answer is not None and result.answer.series == series.name else (),
                            combine_rows, next((r.copy_speed_why_not for r in result.saphir if r.copy_speed_why_not), ""))
    misfit = conditions_misfit(result.conditions)
    if as_json:
        click.echo(dumps(advice_dict(advice, series, run, misfit, disturbed_terms(result.answer, series.name),
                                     segments_disturbed_of(result.answer, series.name)), indent=2))
    else:
        render_advice(console(), advice, series, run, misfit)
