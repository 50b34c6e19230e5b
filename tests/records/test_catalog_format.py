"""The run record's catalog (format 2): decoded strictly, encoded back exactly, kept by the store;
version 1 files stay readable with an empty catalog."""

import json

import pytest

from msgperf.records.format import (FAMILIES, FORMAT_VERSION, PatternInfo, RecordError, VariantInfo,
                                    decode_catalog, decode_run, encode_catalog, encode_launch,
                                    encode_launch_end, encode_measurement, encode_run)
from msgperf.records.runfile_read import parse_run_text
from msgperf.store.db import open_store
from tests.catalog_data import CATALOG_FILE, committed_catalog
from tests.factories import assert_same_run, stored_run
from tests.records.test_read import INFO, LAUNCH, lines, measurement
from tests.factories import replace

PINGPONG = PatternInfo(name="pingpong", family="pingpong", modelled=True, participants="pair", even_ranks=False,
                       metric="one_way", divisor=2, flows=1, inplace_ok=True, timing="a round trip",
                       variants=(VariantInfo(""),))


def with_catalog(catalog=(PINGPONG,)):
    return replace(INFO, format_version=FORMAT_VERSION, catalog=tuple(catalog))


def test_the_format_is_version_3_and_its_catalog_round_trips_exactly():
    assert FORMAT_VERSION == 3
    for np in (2, 4, 8):
        info = with_catalog(committed_catalog(np))
        assert decode_run(json.loads(json.dumps(encode_run(info))), "run") == info
    raw = json.loads(CATALOG_FILE.read_text())["4"]
    assert encode_catalog(decode_catalog(raw, "file")) == raw  # the kernels' JSON, field for field


def test_a_run_file_carries_the_catalog_and_version_1_files_have_none():
    text = lines(encode_run(with_catalog()), encode_launch(LAUNCH), encode_measurement(measurement(0)),
                 encode_measurement(measurement(8)), encode_launch_end(LAUNCH))
    run = parse_run_text(text).run
    assert run.info.catalog == (PINGPONG,) and run.info.format_version == FORMAT_VERSION
    old = encode_run(INFO)  # format_version 1, no "catalog" member
    assert "catalog" not in old and old["format_version"] == 1
    run = parse_run_text(lines(old, encode_launch(LAUNCH), encode_measurement(measurement(0)))).run
    assert run.info.catalog == () and run.info == INFO


def test_the_store_keeps_the_catalog(tmp_path):
    run = stored_run(3)
    run = replace(run, info=replace(run.info, format_version=2,
                                                            catalog=committed_catalog(4)))
    with open_store(tmp_path / "s.db") as store:
        run_id, _ = store.add_run(run)
        loaded = store.load_run(run_id)
    assert loaded.info.catalog == committed_catalog(4)
    assert_same_run(run, loaded)


def _entry(**change):
    entry = json.loads(json.dumps(encode_catalog((PINGPONG,))[0]))
    entry.update(change)
    return entry


@pytest.mark.parametrize("entry, fragment", [
    (_entry(family="gossip"), "unknown family 'gossip'"),
    (_entry(family=None), "missing field 'family'"),
    (_entry(modelled=1), "field 'modelled' must be true or false"),
    (_entry(participants="some"), "field 'participants' is 'some'; it must be one of pair, all"),
    (_entry(divisor=-1), "field 'divisor' is -1; it must be from 0 to"),
    (_entry(flows=0), "field 'flows' is 0; it must be from 1 to"),
    (_entry(divisor=True), "'divisor' must be an integer"),
    (_entry(variants=[]), "field 'variants' must be a non-empty list"),
    (_entry(variants=[{"name": "a", "active_pairs": 0}]), "field 'variants.0..active_pairs' is 0; it must be from 1"),
    (_entry(variants=[{"active_pairs": 1}]), "missing field 'variants.0..name'"),
    (_entry(variants=[{"name": "late"}]), "missing field 'active_pairs'"),
    (_entry(variants=["late"]), "each entry of 'variants' must be an object"),
    ({k: v for k, v in _entry().items() if k != "timing"}, "missing field 'timing'"),
    ("pingpong", "each catalog entry must be an object"),
])
def test_a_bad_catalog_entry_is_a_one_line_error(entry, fragment):
    run = encode_run(with_catalog())
    run["catalog"] = [entry]
    with pytest.raises(RecordError, match=fragment) as err:
        parse_run_text(lines(run, encode_launch(LAUNCH)))
    assert len(str(err.value).splitlines()) == 1 and "line 1" in str(err.value)


def test_a_catalog_that_is_not_a_list_or_names_a_pattern_twice_is_refused():
    for bad, fragment in (({"pingpong": {}}, "must be a list"),
                          ([_entry(), _entry()], "lists pattern 'pingpong' twice")):
        run = encode_run(with_catalog())
        run["catalog"] = bad
        with pytest.raises(RecordError, match=fragment):
            parse_run_text(lines(run, encode_launch(LAUNCH)))


def test_the_committed_catalog_describes_every_pattern():
    """What present/ used to restate (families, which series a Hockney model fits): the kernels say it."""
    for np in (2, 4, 8):
        catalog = committed_catalog(np)
        names = [p.name for p in catalog]
        assert len(names) == len(set(names)) == 47
        assert {p.family for p in catalog} == set(FAMILIES)
        assert all(p.timing and p.metric and p.variants and p.flows >= 1 for p in catalog)
    by_name = {p.name: p for p in committed_catalog(4)}
    family = {f: sorted(p.name for p in committed_catalog(4) if p.family == f) for f in FAMILIES}
    assert family["pingpong"] == sorted(["pingpong", "pingpong-nb", "pingpong-ssend", "pingpong-rsend",
                                         "pingpong-bsend", "pingpong-persistent", "loggp"])
    assert family["bidirectional"] == sorted(["sendrecv", "pingping", "exchange", "exchange-sync", "exchange-init"])
    compat_collectives = ["osu-allreduce", "osu-bcast", "osu-alltoall", "imb-allreduce", "imb-bcast", "imb-alltoall"]
    assert family["compat"] == sorted(["osu-latency", "osu-bw", "osu-bibw", "imb-pingpong", "imb-sendrecv",
                                       "imb-uniband", "imb-biband", *compat_collectives])
    assert family["many-ranks"] == ["matrix", "pairs", "ring"]
    assert family["buffering"] == ["pack", "unexpected"] and family["hardware"] == ["floor", "memcpy", "reduce-local",
                                                                                         "self-message", "send-stream",
                                                                                         "sendrecv-indexed", "sendrecv-reduce"]
    assert (family["combining"], family["overlap"], family["probe"]) == (["combine"], ["overlap"], ["eager-probe"])
    collectives = ["barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall", "reduce-scatter-block"]
    assert family["collective"] == sorted(collectives)
    assert all(by_name[c].metric == "per_iteration" and by_name[c].divisor == 1 for c in collectives)
    assert sorted(p.name for p in by_name.values() if not p.modelled) == sorted(
        ["eager-probe", "pairs", "matrix", "overlap", "combine", *collectives, *compat_collectives])
    assert sorted(p.name for p in by_name.values() if p.participants == "all") == sorted(
        ["ring", "pairs", "matrix", "imb-sendrecv", *collectives, *compat_collectives])
    assert [p.name for p in by_name.values() if p.even_ranks] == ["pairs"]
    assert sorted(p.name for p in by_name.values() if p.inplace_ok) == sorted(
        ["pingpong", "pingpong-ssend", "pingpong-bsend", "sendrecv"])
    assert by_name["ring"].divisor == 0 and by_name["osu-bw"].divisor == 64 and by_name["osu-bibw"].flows == 2
