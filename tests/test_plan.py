import pytest

from msgperf.errors import MsgperfError
from msgperf.plan import (Plan, parse_fraction, parse_pair, parse_seconds, parse_size,
                          parse_sizes)
from tests.catalog_data import catalog_entry, committed_catalog


@pytest.mark.parametrize("text, expected", [
    ("0", 0), ("64", 64), ("4K", 4096), ("4kib", 4096), ("1M", 2**20), ("2G", 2**31), (" 8 ", 8), ("16B", 16),
])
def test_parse_size(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("text, fragment", [
    ("-1", "negative"), ("abc", "cannot read"), ("4X", "unknown unit"), ("", "cannot read"), ("1.5K", "cannot read"),
])
def test_parse_size_errors(text, fragment):
    with pytest.raises(MsgperfError, match=fragment):
        parse_size(text)


def test_default_range_is_zero_then_powers_of_two_to_64_mib():
    sizes = parse_sizes("0:64M")
    assert sizes[:3] == (0, 1, 2) and sizes[-1] == 64 * 2**20 and len(sizes) == 28


@pytest.mark.parametrize("text, expected", [
    ("0,1,4K", (0, 1, 4096)),
    ("1:1K:4", (1, 4, 16, 64, 256, 1024)),
    ("3:3", (3,)),
    ("0,16:64", (0, 16, 32, 64)),
])
def test_parse_sizes(text, expected):
    assert parse_sizes(text) == expected


def osu_sizes(low: int, high: int) -> tuple[int, ...]:
    """The sizes osu_latency -m LOW:HIGH measures (OSU Micro-Benchmarks 7, util/osu_util.c's loop:
    from LOW, doubling, 0 followed by 1, while at most HIGH)."""
    out, size = [], low
    while size <= high:
        out.append(size)
        size = size * 2 if size else 1
    return tuple(out)


@pytest.mark.parametrize("low, high", [(1, 4194304), (0, 1048576), (3, 100), (8192, 8192), (1024, 65536)])
def test_osu_min_max_in_bytes_means_what_it_means_to_osu(low, high):
    """--sizes 1:4194304 as osu_latency -m 1:4194304: plain byte counts, the same doubling sizes."""
    assert parse_sizes(f"{low}:{high}") == osu_sizes(low, high)
    assert parse_sizes("1:4194304") == parse_sizes("1:4M")


def test_the_run_help_names_the_osu_form():
    from click.testing import CliRunner

    from msgperf.commands.run import command
    text = " ".join(CliRunner().invoke(command, ["--help"]).output.split())
    assert "OSU's -m MIN:MAX in bytes means the same, e.g. 1:4194304" in text


@pytest.mark.parametrize("text, fragment", [
    ("8:1", "ends below"), ("1:8:1", "ratio"), ("", "no sizes"), ("1:2:3:4", "cannot read"),
    ("4G", "2\\^31-1"), ("1,-2", "negative"), ("1:2G", "2\\^31-1"),
])
def test_parse_sizes_errors(text, fragment):
    with pytest.raises(MsgperfError, match=fragment):
        parse_sizes(text)


def test_parse_precision_and_duration():
    assert parse_fraction("1%") == pytest.approx(0.01)
    assert parse_fraction("0.05") == 0.05
    assert parse_seconds("500ms") == pytest.approx(0.5)
    assert parse_seconds("2s") == 2 and parse_seconds("1.5") == 1.5 and parse_seconds("1m") == 60
    for bad in ("0%", "90%", "x"):
        with pytest.raises(MsgperfError):
            parse_fraction(bad)
    for bad in ("0", "-1", "fast", "2d"):
        with pytest.raises(MsgperfError):
            parse_seconds(bad)


def test_parse_pair():
    assert parse_pair("4:1") == (4, 1)
    with pytest.raises(MsgperfError, match="twice"):
        parse_pair("2:2")
    with pytest.raises(MsgperfError, match="cannot read"):
        parse_pair("a:b")


def test_plan_rejects_impossible_ranks():
    with pytest.raises(MsgperfError, match="at least 2 ranks"):
        Plan(nranks=1).checked()
    with pytest.raises(MsgperfError, match="does not exist"):
        Plan(nranks=2, pair=(0, 2)).checked()
    assert Plan(nranks=5, pair=(4, 1)).checked().pair == (4, 1)


def test_plan_memory_check_happens_before_allocation():
    plan = Plan(sizes=(1, 2**30), nranks=2)
    with pytest.raises(MsgperfError, match="GiB of buffers"):
        plan.check_memory(available_bytes=2**31)
    plan.check_memory(available_bytes=2**34)


def test_kernel_args_carry_the_whole_plan():
    args = Plan(sizes=(0, 8), pair=(1, 0), buffer="inplace", precision=0.02).kernel_args()
    assert args[args.index("--sizes") + 1] == "0,8"
    assert args[args.index("--pair") + 1] == "1:0"
    assert args[args.index("--buffer") + 1] == "inplace"
    assert float(args[args.index("--precision") + 1]) == 0.02


def test_iterations_per_sample_is_passed_on_and_checked():
    assert "--iterations-per-sample" not in Plan().kernel_args()  # k calibrated by default
    args = Plan(iterations_per_sample=1).kernel_args()
    assert args[args.index("--iterations-per-sample") + 1] == "1"
    for bad in (0, -3, 10**10, True):
        with pytest.raises(MsgperfError, match="--iterations-per-sample .*: use 1 to 1000000000"):
            Plan(iterations_per_sample=bad).checked()


def test_the_collectives_methodology_is_passed_on_and_checked():
    args = Plan().kernel_args()  # the defaults: root 0, calls back to back, the same buffers
    assert not {"--root", "--iteration-barrier", "--off-cache"} & set(args)
    args = Plan(root="rotate", iteration_barrier=True, off_cache=True).kernel_args()
    assert args[args.index("--root") + 1] == "rotate" and "--iteration-barrier" in args and "--off-cache" in args
    with pytest.raises(MsgperfError, match="unknown --root 'first'"):
        Plan(root="first").checked()
    with pytest.raises(MsgperfError, match="--iteration-barrier times one call per sample"):
        Plan(iteration_barrier=True, iterations_per_sample=4).checked()


def test_the_collectives_methodology_is_read_back_from_the_plan_record():
    from msgperf.records.format import RecordError, decode_plan
    plan = {"patterns": ["bcast"], "sizes": [8], "buffer": "separate", "pair": [0, 1], "nranks": 2,
            "precision": 0.01, "time_budget_s": 1.0, "min_samples": 20, "max_samples": 100}
    old = decode_plan(plan, "run.jsonl")  # a file from before the fields: the defaults
    assert (old.root, old.iteration_barrier, old.off_cache) == ("0", False, False)
    new = decode_plan(dict(plan, root="rotate", iteration_barrier=True, off_cache=True), "run.jsonl")
    assert (new.root, new.iteration_barrier, new.off_cache) == ("rotate", True, True)
    for bad in ({"root": "2"}, {"off_cache": "yes"}):
        with pytest.raises(RecordError):
            decode_plan(dict(plan, **bad), "run.jsonl")


def test_active_steps_of_the_pairs_sweep():
    from msgperf.plan import parse_active
    # The sweep is the kernels' (their catalog): 1, 2, 4 ... P/2 concurrent pairs.
    sweep = {np: [v.active_pairs for v in catalog_entry("pairs", np).variants] for np in (2, 4, 8)}
    assert sweep == {2: [1], 4: [1, 2], 8: [1, 2, 4]}
    assert parse_active("1,4,1") == (1, 4)
    with pytest.raises(MsgperfError, match="cannot read --active"):
        parse_active("0")
    plan = Plan(patterns=("pairs",), nranks=8, active=(1, 4))
    plan.validate(committed_catalog(8))
    assert plan.kernel_args()[-2:] == ["--active", "1,4"] and plan.records_per_size(catalog_entry("pairs", 8)) == 2
    with pytest.raises(MsgperfError, match="sweeps 1, 2, 4 concurrent pairs"):
        Plan(patterns=("pairs",), nranks=8, active=(3,)).validate(committed_catalog(8))
    with pytest.raises(MsgperfError, match="add --pattern pairs"):
        Plan(nranks=8, active=(1,)).validate(committed_catalog(8))


def test_unknown_pattern_names_the_known_ones():
    with pytest.raises(MsgperfError, match="unknown pattern 'nosuch'; known patterns: pingpong, pingpong-nb, ") as err:
        Plan(patterns=("pingpong", "nosuch")).validate(committed_catalog(2))
    assert all(p.name in str(err.value) for p in committed_catalog(2))
    Plan(patterns=tuple(p.name for p in committed_catalog(2))).validate(committed_catalog(2))


def test_patterns_that_pair_ranks_up_need_an_even_number():
    with pytest.raises(MsgperfError, match="pattern pairs .* needs an even number of ranks, not --np 3 .* use --np 4 or 2"):
        Plan(patterns=("pingpong", "pairs"), nranks=3).validate(committed_catalog(4))
    Plan(patterns=("pingpong", "matrix", "ring"), nranks=3).validate(committed_catalog(4))  # these do not


@pytest.mark.parametrize("np", [2, 4, 8])
def test_records_per_size_come_from_the_catalog(np):
    """What plan.py used to restate (one record per variant): the kernels' catalog says the same."""
    plan = Plan(nranks=np)
    counts = {p.name: plan.records_per_size(p) for p in committed_catalog(np)}
    steps = {2: 1, 4: 2, 8: 3}[np]
    assert counts["pairs"] == steps and counts["matrix"] == 2 * (np - 1)
    assert (counts["unexpected"], counts["pack"], counts["combine"], counts["overlap"]) == (2, 2, 4, 3)
    assert counts["reduce-local"] == 2  # bytes and doubles
    assert all(n == 1 for name, n in counts.items()
               if name not in ("pairs", "matrix", "unexpected", "pack", "combine", "overlap", "reduce-local"))
    variants = {p.name: [v.name for v in p.variants] for p in committed_catalog(np)}
    assert variants["unexpected"] == ["preposted", "late"] and variants["overlap"] == ["comm", "compute", "both"]
    assert variants["reduce-local"] == ["", "double"]
    assert variants["combine"] == ["k2-separate", "k2-combined", "k8-separate", "k8-combined"]
    assert variants["matrix"] == [f"round {r}" for r in range(2 * (np - 1))]
