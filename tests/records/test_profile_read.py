"""The profile format: exact round trips, strict one-line errors, a cut-off last line, and
merging the rank files of a run that did not reach MPI_Finalize."""

from __future__ import annotations

import json

import pytest
from rich.console import Console

from msgperf.present.profile_summary import render_profile
from msgperf.records.profile_format import (SizeCount, ProfileError, encode_profile, profile_text)
from msgperf.records.profile_merge import merge_rank_files, rank_files, temporary_files
from msgperf.records.profile_read import parse_profile_text, read_profile
from tests.factories import sample_profile
from tests.factories import replace


def lines(profile) -> list[dict]:
    return encode_profile(profile)


def text_of(records: list[dict]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


@pytest.mark.parametrize("version", [2, 3, 4])
def test_a_profile_comes_back_field_for_field(tmp_path, version):
    profile = sample_profile(3, nranks=3, version=version)
    path = tmp_path / "p.jsonl"
    path.write_text(profile_text(profile))
    result = read_profile(path)
    assert not result.truncated
    assert result.profile == replace(profile, path=str(path))
    assert profile_text(result.profile) == path.read_text()


def test_each_rank_names_its_clock_and_its_calibration():
    rank = parse_profile_text(profile_text(sample_profile(nranks=2))).profile.ranks[1]
    assert rank.clock.name == "tsc" and rank.clock.ticks_per_s == 2.3e9 + 1 and rank.clock.calibration_s == 1.5
    assert rank.clock.drift == pytest.approx(-1 / (2.3e9 + 2))


def test_version_3_names_each_calls_kind_its_sites_and_its_collectives():
    rank = parse_profile_text(profile_text(sample_profile(nranks=2, version=3))).profile.ranks[0]
    kinds = {c.call: (c.kind, c.bytes) for c in rank.calls}
    assert kinds["MPI_Allreduce"] == ("collective", 16) and kinds["MPI_Waitall"] == ("wait/test", 0)
    assert rank.sites[0].object == "./halo" and rank.sites[1].object is None
    assert rank.collectives[0].comm_size == 2 and rank.sites_other_n == 9


def test_version_4_counts_the_page_faults_of_large_collectives_and_a_version_3_reads_none():
    rank = parse_profile_text(profile_text(sample_profile(nranks=2, version=4))).profile.ranks[1]
    reduce = next(c for c in rank.collectives if c.call == "MPI_Reduce")
    assert (reduce.faults_n, reduce.faults, reduce.faults_per_call, reduce.datatype) == (8, 1032, 129.0, "MPI_DOUBLE")
    assert reduce.faulted_n == 8 and reduce.faults_every_call
    assert rank.page_fault_s == 2.5e-06
    old = parse_profile_text(profile_text(sample_profile(nranks=2, version=3))).profile.ranks[1]
    assert old.page_fault_s is None and all(c.faults_n == 0 and c.faults_per_call is None and c.datatype is None
                                            for c in old.collectives)


@pytest.mark.parametrize("change, said", [
    (lambda r: r[2]["collectives"][1].update(faults_n=1000), "has its page faults counted in 1000 calls of 16"),
    (lambda r: r[2]["collectives"][1].update(faulted_n=9), "counted in 8 calls of 16, 9 of them faulting"),
    (lambda r: r[2]["collectives"][1].update(faulted_n=1, faults=0), "1 of them faulting, 0 descheduled, 0 faults"),
    (lambda r: r[2]["collectives"][1].update(preempted_n=9), "9 descheduled"),
    # faults without a call that faulted: a file written before faulted_n was counted
    (lambda r: r[2]["collectives"][1].update(faulted_n=0), "0 of them faulting, 0 descheduled, 1032 faults"),
    (lambda r: r[2]["collectives"][1].update(faults=-1), "'collectives\\[1\\].faults' is -1"),
    (lambda r: r[2].update(page_fault_s=-1.0), "field 'page_fault_s' is -1.0"),
    (lambda r: r[2]["collectives"][1].update(datatype=8), "'collectives\\[1\\].datatype' must be a string"),
])
def test_bad_version_4_fields_are_refused_in_one_line(change, said):
    records = encode_profile(sample_profile(nranks=2, version=4))
    change(records)
    with pytest.raises(ProfileError, match=said):
        parse_profile_text(text_of(records))


def test_a_version_2_profile_reads_its_calls_as_point_to_point_and_waits():
    rank = parse_profile_text(profile_text(sample_profile(nranks=2, version=2))).profile.ranks[0]
    assert {c.call: c.kind for c in rank.calls} == {"MPI_Isend": "point-to-point", "MPI_Waitall": "wait/test"}
    assert rank.sites == () and rank.collectives == ()


@pytest.mark.parametrize("change, said", [
    (lambda r: r[1]["calls"]["MPI_Allreduce"].update(kind="gossip"), "'calls.MPI_Allreduce.kind' is 'gossip'; it must be one of"),
    (lambda r: r[1]["collectives"][0].update(bytes=1 << 50), "'collectives\\[0\\].bytes' is 1125899906842624"),
    (lambda r: r[1]["collectives"][0].update(comm_size=-1), "'collectives\\[0\\].comm_size' is -1; it must be from 0"),
    (lambda r: r[1]["sites"][0].update(object=3), "'sites\\[0\\].object' must be a string"),
    (lambda r: r[1].pop("sites"), "missing field 'sites'"),
])
def test_bad_version_3_fields_are_refused_in_one_line(change, said):
    records = encode_profile(sample_profile(nranks=2, version=3))
    change(records)
    with pytest.raises(ProfileError, match=said):
        parse_profile_text(text_of(records))


def test_a_version_1_profile_stays_readable_and_is_written_back_as_it_was(tmp_path):
    old = sample_profile(2, nranks=2, version=1)
    text = profile_text(old)
    assert '"format_version":1' in text and "clock_ticks_per_s" not in text
    path = tmp_path / "v1.jsonl"
    path.write_text(text)
    profile = read_profile(path).profile
    assert profile.info.format_version == 1 and profile.info.clock == "clock_gettime(CLOCK_MONOTONIC)"
    assert all(r.clock is None for r in profile.ranks)
    assert profile_text(profile) == text


def test_what_the_advice_needs_is_at_hand():
    profile = sample_profile(0, nranks=3)
    rank = profile.ranks[1]
    assert rank.messages_sent == 8 and rank.bytes_sent == 176 and rank.messages_received == 8
    assert [(r.peer, r.bytes, r.kind, r.count) for r in rank.size_counts("send")] == [(2, 8, "isend", 6), (2, 64, "isend", 2)]
    assert [(r.peer, r.bytes, r.count) for r in rank.size_counts("recv")] == [(0, 8, 6), (0, 64, 2)]
    assert rank.top_sizes(n=1) == (SizeCount(8, 6),)
    seq = rank.sequences[0]
    assert seq.lengths() == {4: 2} and rank.sequence_messages == 8
    assert seq.shapes[0].sizes == (SizeCount(8, 3), SizeCount(64, 1))
    m = rank.sent()[0]
    assert m.nonblocking and not m.blocking and not m.persistent and m.mode == "standard"
    assert profile.program == "halo" and profile.missing_ranks == ()


def test_call_kinds_say_what_they_are():
    m = sample_profile().ranks[0].messages[0]
    for kind, blocking, persistent, mode in (("send", True, False, "standard"), ("issend", False, False, "synchronous"),
                                             ("rsend_init", False, True, "ready"), ("bsend", True, False, "buffered"),
                                             ("sendrecv", True, False, "standard")):
        k = replace(m, kind=kind)
        assert (k.blocking, k.persistent, k.mode) == (blocking, persistent, mode), kind


def test_a_cut_off_last_line_is_dropped_and_said():
    text = profile_text(sample_profile(nranks=3))
    cut = text[: len(text) - 40]
    result = parse_profile_text(cut, "p.jsonl")
    assert result.truncated and [r.rank for r in result.profile.ranks] == [0, 1]
    assert not result.profile.info.complete and result.profile.missing_ranks == (2,)


def test_a_rank_killed_by_a_signal_is_read_as_a_partial_record_and_said():
    """What the profiler's signal handler writes: the rank's record, ended by the signal."""
    records = lines(sample_profile(nranks=2))
    records[2].update(ended_by="signal SIGSEGV")
    profile = parse_profile_text(text_of(records), "p.jsonl").profile
    assert [r.finalized for r in profile.ranks] == [True, False] and profile.ranks[1].ended_by == "signal SIGSEGV"
    console = Console(record=True, width=200)
    render_profile(console, profile)
    shown = console.export_text()
    assert "1*" in shown
    assert "*: ended without MPI_Finalize (signal SIGSEGV: rank(s) 1); each such record stops there" in shown


def corrupt(mutate) -> str:
    records = lines(sample_profile(nranks=2))
    mutate(records)
    return text_of(records)


@pytest.mark.parametrize("mutate, message", [
    (lambda r: r[0].update(format="msgperf-run"), "not a msgperf profile"),
    (lambda r: r[0].update(format_version=5), "newer than this msgperf reads"),
    (lambda r: r[1].pop("clock_ticks_per_s"), "missing field 'clock_ticks_per_s'"),
    (lambda r: r[1].update(clock_ticks_per_s=0), "field 'clock_ticks_per_s' is 0.0; it must be within \\(0, 1e\\+15\\]"),
    (lambda r: r[1].update(clock_calibration_s=-1.0), "field 'clock_calibration_s' is -1.0; it must be within \\[0, 1e\\+08\\]"),
    (lambda r: r.pop(0), "the first record must be a 'profile' record"),
    (lambda r: r.append(dict(r[0])), "a second 'profile' record"),
    (lambda r: r.append(dict(r[1])), "rank 0 appears twice"),
    (lambda r: r[1].update(type="mystery"), "unknown record type 'mystery'"),
    (lambda r: r[1].pop("wall_s"), "missing field 'wall_s'"),
    (lambda r: r[1].update(mpi_time_s=-1.0), "field 'mpi_time_s' is -1.0; it must be within"),
    (lambda r: r[1].update(rank=5), "rank 5 in a run of 2 ranks"),
    (lambda r: r[1]["messages"][0].update(peer=9), "peer 9 is not a rank"),
    (lambda r: r[1]["messages"][0].update(count=7), "do not add up to 7"),
    (lambda r: r[1]["messages"][0].update(bytes=7), "do not add up to 7 bytes"),
    (lambda r: r[1]["messages"][0].update(kind="irecv"), "'irecv' is not a kind of send"),
    (lambda r: r[1]["messages"][0].update(sizes=[[8]]), "list of \\[bytes, count\\] pairs"),
    (lambda r: r[1]["sequences"][0]["shapes"][0].update(length=1), "at least 2 messages"),
    (lambda r: r[1]["sequences"][0].update(count=99), "do not add up to its totals"),
    (lambda r: r[1].update(ended_by="crash"), "field 'ended_by' is 'crash'; it must be one of MPI_Finalize"),
    (lambda r: r[1].update(ended_by="signal SIGKILL"), "field 'ended_by' is 'signal SIGKILL'; it must be one of"),  # cannot be caught
    (lambda r: r[0].update(hosts=["a"]), "1 hosts for 2 ranks"),
])
def test_a_broken_profile_gets_one_line(mutate, message):
    with pytest.raises(ProfileError, match=message) as err:
        parse_profile_text(corrupt(mutate), "p.jsonl")
    assert "\n" not in str(err.value) and str(err.value).startswith("p.jsonl")


def test_not_json_empty_and_missing_files(tmp_path):
    with pytest.raises(ProfileError, match="first line is not JSON"):
        parse_profile_text("hello\nworld\n", "p")
    with pytest.raises(ProfileError, match="line 2: not valid JSON"):
        parse_profile_text(text_of(lines(sample_profile())[:1]) + "{oops\n", "p")
    with pytest.raises(ProfileError, match="empty"):
        parse_profile_text("", "p")
    with pytest.raises(ProfileError, match="no such file"):
        read_profile(tmp_path / "none.jsonl")
    with pytest.raises(ProfileError, match="NaN is not allowed|not valid JSON"):
        parse_profile_text(text_of(lines(sample_profile())).replace('"wall_s": 1.5', '"wall_s": NaN'), "p")


def test_rank_files_merge_into_one_partial_profile(tmp_path):
    whole = sample_profile(1, nranks=4, complete=False)
    output = tmp_path / "out.jsonl"
    for r in (0, 1, 3):  # rank 2 was killed before it could write
        part = replace(whole, info=replace(whole.info, hosts=(), end_time=f"2026-11-23T10:00:0{r}Z"),
                                   ranks=(whole.ranks[r],))
        (tmp_path / f"out.jsonl.rank{r}").write_text(profile_text(part))
    (tmp_path / "out.jsonl.rank2.tmp.4242").write_text("{")
    (tmp_path / "out.jsonl.rank10x").write_text("not mine")
    paths = rank_files(output)
    assert [p.name for p in paths] == ["out.jsonl.rank0", "out.jsonl.rank1", "out.jsonl.rank3"]
    assert [p.name for p in temporary_files(output)] == ["out.jsonl.rank2.tmp.4242"]
    merged = merge_rank_files(paths, str(output))
    assert [r.rank for r in merged.ranks] == [0, 1, 3] and merged.missing_ranks == (2,)
    assert merged.info.hosts == ("node0", "node0", "", "node1") and not merged.info.complete
    assert merged.info.end_time == "2026-11-23T10:00:03Z"
    assert parse_profile_text(profile_text(merged)).profile == replace(merged, path="<profile>")


def test_rank_files_of_another_run_are_refused(tmp_path):
    a, b = sample_profile(0, nranks=2), sample_profile(1, nranks=2)
    (tmp_path / "o.rank0").write_text(profile_text(replace(a, ranks=a.ranks[:1])))
    (tmp_path / "o.rank1").write_text(profile_text(replace(b, ranks=b.ranks[1:])))
    with pytest.raises(ProfileError, match="a rank file of another run"):
        merge_rank_files(rank_files(tmp_path / "o"), "o")


def _huge_size(records):
    """A rank sends one message of 2^91 bytes (was read, and advised as 7.7e17 s, with exit 0)."""
    m = records[1]["messages"][0]
    m.update(sizes=[*m["sizes"], [2 ** 91, 1]], count=m["count"] + 1, bytes=m["bytes"] + 2 ** 91,
             log2=[*m["log2"], [2 ** 91, 1]])


@pytest.mark.parametrize("mutate, message", [
    (_huge_size, "[2][0]' is an integer of 28 digits, beyond the 64-bit range"),
    (lambda r: r[1]["messages"][0].update(sizes=[[2 ** 50, 8]], bytes=2 ** 53, log2=[[2 ** 50, 8]]),
     "line 2: field 'messages[0].sizes[0] bytes' is 1125899906842624; it must be from 0 to 281474976710656"),
    (lambda r: r[1]["sequences"][0]["shapes"][0].update(max_bytes=2 ** 60),
     "line 2: field 'sequences[0].shapes[0].max_bytes' is 1152921504606846976; it must be from 0 to 281474976710656"),
    (lambda r: r[1].update(wall_s=1e300), "line 2: field 'wall_s' is 1e+300; it must be within [0, 1e+08]"),
    (lambda r: r[1]["calls"]["MPI_Isend"].update(time_s=2e9), "line 2: field 'calls.MPI_Isend.time_s' is 2000000000.0; it must be"),
    (lambda r: r[1]["calls"]["MPI_Isend"].update(n=2 ** 60), "line 2: field 'calls.MPI_Isend.n' is 1152921504606846976; it must be from 0 to 9007199254740992"),
    (lambda r: r[1].update(clock_ticks_per_s=1e30), "line 2: field 'clock_ticks_per_s' is 1e+30; it must be within (0, 1e+15]"),
    (lambda r: r[0].update(nranks=2 ** 40), "line 1: field 'nranks' is 1099511627776; it must be from 1 to 16777216"),
    (lambda r: r[1].update(pid=2 ** 40), "line 2: field 'pid' is 1099511627776; it must be from 0 to 4294967295"),
    (lambda r: r[1].update(host="h" * 70_000), "line 2: field 'host' is 70,000 characters long"),
    (lambda r: r[0].update(argv=["\ud800"]), "line 1: field 'argv[0]' holds a lone UTF-16 surrogate"),
])
def test_values_beyond_the_limits_name_the_field_and_line(mutate, message):
    with pytest.raises(ProfileError) as err:
        parse_profile_text(corrupt(mutate), "p.jsonl")
    assert "\n" not in str(err.value) and str(err.value).startswith("p.jsonl, line ")
    assert message in str(err.value), str(err.value)


def test_advise_of_a_profile_with_a_2_to_the_91_byte_message_is_one_line(tmp_path, capsys):
    from tests.cli_in_process import cli
    path = tmp_path / "p.jsonl"
    path.write_text(corrupt(_huge_size))
    code, out, err = cli(capsys, "advise", "--profile", path)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert err.startswith(f"error: {path}, line 2: field 'messages[0].") and "is an integer of 28 digits" in err


def test_sequences_of_more_sends_than_the_rank_made_are_refused():
    """Found by bench/fuzz_profiles.py: a rank whose messages were emptied but whose sequences
    stayed passed the reader, and advise --profile raised KeyError."""
    with pytest.raises(ProfileError) as err:
        parse_profile_text(corrupt(lambda r: r[2].update(messages=[])), "p.jsonl")
    assert str(err.value) == ("p.jsonl, line 3: rank 1 sends 8 messages to peer 0 in sequences but 0 in all; "
                              "the record is inconsistent")
