"""The HTML report: self-contained, every section present, run-file strings escaped."""

from __future__ import annotations

import re

from msgperf.commands.report import analyze_runs
from msgperf.present import report
from msgperf.present.templating import TEMPLATES


def build_report(runs):
    return report.build_report(*analyze_runs(list(runs)))
from tests.factories import write_run
from tests.factories import HOSTILE, launches_run, pingpong_run, rich_run
from tests.factories import replace


def _external_refs(html: str) -> list[str]:
    return re.findall(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", html, re.I) + \
        re.findall(r"@import|url\(\s*['\"]?https?:", html, re.I)


def test_report_is_self_contained_with_all_sections():
    html = build_report([rich_run()])
    assert not _external_refs(html)
    assert html.count('<img class="plot"') >= 5  # time, bandwidth, variability (x2 series), contention, matrix
    assert all(src.startswith("data:image/svg+xml;base64,")
               for src in re.findall(r'<img class="plot"[^>]*src="([^"]+)"', html))
    for words in ("α latency", "β inverse bandwidth", "n½", "breakpoints", "eager limit", "16 KiB",
                  "copy speed b_c", "effective buffered bandwidth", "hardware floor", "Caveats",
                  "Message combining", "Metadata", "clock self-test", "command line", "Environment"):
        assert words in html, words


def test_host_names_and_environment_are_escaped():
    html = build_report([pingpong_run(host=HOSTILE)])
    assert HOSTILE not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<b>2</b>" not in html and "&lt;b&gt;2&lt;/b&gt;" in html
    assert html.count("<script>") == 1  # only the report's own probe


def test_several_runs_are_overlaid_and_compared():
    html = build_report([pingpong_run(seed=1), pingpong_run(seed=2, scale=1.3)])
    assert "Runs overlaid" in html and "Comparison" in html
    assert "slower" in html


def test_report_command_writes_beside_run_file(msgperf, tmp_path):
    path = write_run(pingpong_run(host=HOSTILE), tmp_path / "r.jsonl")
    done = msgperf("report", path)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "r.html"
    assert f"report: {out}" in done.stdout
    assert "&lt;script&gt;" in out.read_text()
    done = msgperf("report", path, path, "-o", tmp_path / "two.html")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "two.html").stat().st_size > 10000
    bad = msgperf("report", path, "-o", tmp_path / "x.txt")
    assert bad.returncode == 1 and "html" in bad.stderr


def test_plot_command_kinds(msgperf, tmp_path):
    path = write_run(rich_run(), tmp_path / "rich.jsonl")
    for kind in ("bandwidth", "matrix"):  # every kind is drawn directly in test_plots
        done = msgperf("plot", path, "-o", tmp_path / f"{kind}.png", "--kind", kind)
        assert done.returncode == 0, (kind, done.stderr)
        assert (tmp_path / f"{kind}.png").read_bytes()[:4] == b"\x89PNG"
    done = msgperf("plot", path, "--kind", "launches", "-o", tmp_path / "l.png")
    assert done.returncode == 1 and "--repeat" in done.stderr
    done = msgperf("plot", path, "--size", "4K", "-o", tmp_path / "t.svg")  # --size is the matrix's
    assert done.returncode == 1 and done.stderr.strip() == ("error: --size picks the matrix's message size; "
                                                            "--kind time draws every size")
    assert not (tmp_path / "t.svg").exists()
    done = msgperf("plot", path, "--kind", "matrix", "--size", "64K", "-o", tmp_path / "m.svg")
    assert done.returncode == 0 and "64 KiB" in (tmp_path / "m.svg").read_text()
    done = msgperf("plot", path, "--kind", "launches", "--launch", "0", "-o", tmp_path / "one.svg")
    assert done.returncode == 1 and done.stderr.strip() == ("error: --kind launches draws every launch, one line "
                                                            "each; --launch picks one")
    done = msgperf("plot", path, "--launch", "0", "-o", tmp_path / "one.svg")
    assert done.returncode == 0 and ", launch 0 alone" in (tmp_path / "one.svg").read_text()


def test_many_series_are_compared_by_family_with_full_figures_for_the_main_one():

    from tests.factories import rich_run as _rich

    from tests.factories import make_run

    run = _rich()
    extra = [replace(m, pattern=name) for name in ("pingpong-nb", "osu-latency")
             for m in run.measurements if m.pattern == "pingpong"]
    measurements = run.measurements + tuple(extra)
    # the run record's catalog (the kernels' facts) names the families the report groups by
    html = build_report([replace(run, measurements=measurements, info=make_run(measurements).info)])
    assert "<h3>Methods compared</h3>" in html
    assert "ping-pong variants compared" in html and "OSU and IMB modes compared" in html
    assert "pingpong: variability" in html  # the main series keeps every figure
    assert "pingpong-nb: variability" not in html and "osu-latency: time against size" not in html
    assert html.count("Per-size table") >= 4  # every series keeps its table


def _small_disk(tmp_path, size: str):
    import os
    import subprocess

    import pytest
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(disk)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {mounted.stderr.decode().strip()}")
    return disk


def test_a_full_disk_leaves_the_previous_report_and_plot_intact(msgperf, run_file, tmp_path):
    """A report or plot is written to a temporary name and renamed: on a full disk the command
    says so in one line and the previous file is untouched (once: a traceback and a 0-byte file)."""
    import subprocess
    disk = _small_disk(tmp_path, "64k")
    try:
        (disk / "r.html").write_text("the previous report")
        (disk / "p.png").write_bytes(b"the previous plot")
        with (disk / "fill").open("wb", buffering=0) as fill:  # the disk is full
            try:
                while True:
                    fill.write(b"\0" * 1024)
            except OSError:
                pass
        for command, name in (("report", "r.html"), ("plot", "p.png")):
            result = msgperf(command, run_file, "-o", disk / name, "--force")  # replacing: asked for
            assert result.returncode == 1 and result.stdout == ""
            assert result.stderr == f"error: {disk / name}: cannot write it (No space left on device); nothing was changed\n"
        assert (disk / "r.html").read_text() == "the previous report"
        assert (disk / "p.png").read_bytes() == b"the previous plot"
        assert sorted(p.name for p in disk.iterdir()) == ["fill", "p.png", "r.html"]  # no temporary left
    finally:
        subprocess.run(["umount", str(disk)], check=False)


def test_a_report_into_a_directory_that_cannot_be_made_is_one_line(msgperf, run_file, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    for command, name in (("report", "r.html"), ("plot", "p.png")):
        result = msgperf(command, run_file, "-o", blocker / "sub" / name)
        assert result.returncode == 1
        assert result.stderr == (f"error: {blocker / 'sub' / name}: cannot create {blocker / 'sub'} (Not a directory); "
                                 "choose a writable directory\n")
    assert blocker.read_text() == "x"


def test_a_write_that_fails_midway_keeps_the_previous_report(run_file, tmp_path, monkeypatch):
    """Without root: the disk fills while the report is flushed."""
    import errno
    import os

    import pytest

    from msgperf import writing
    from msgperf.errors import MsgperfError
    from msgperf.records.runfile_read import read_run
    target = tmp_path / "r.html"
    target.write_text("the previous report")

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(writing.os, "fsync", full)
    with pytest.raises(MsgperfError, match="cannot write it \\(No space left on device\\); nothing was changed"):
            report.write_report(analyze_runs([read_run(run_file).run])[0], writing.output(target, True, what="the report"))
    assert target.read_text() == "the previous report" and sorted(os.listdir(tmp_path)) == ["a.jsonl", "r.html"]


def test_a_profile_section_shows_the_histogram_against_the_regimes_and_the_advice(msgperf, tmp_path):
    """msgperf report --profile P RUN: the profile's section opens the report, with the same lines
    as msgperf advise --profile, and a hostile program name is escaped."""
    import json

    from msgperf.records.profile_format import profile_text
    from tests.factories import sample_profile

    prof = sample_profile(1)
    prof = replace(prof, info=replace(prof.info, argv=(HOSTILE, "--steps", "3")))
    prof_file = tmp_path / "app.jsonl"
    prof_file.write_text(profile_text(prof))
    run = write_run(rich_run(), tmp_path / "model.jsonl")
    result = msgperf("report", "--profile", prof_file, run)
    assert result.returncode == 0, result.stderr
    html = (tmp_path / "app.html").read_text()
    assert html.index("<h2>Profile: ") < html.index("Headline figures")
    assert HOSTILE not in html and "<h2>Profile: script&gt; · " in html  # the program: argv[0]'s last part
    assert html.count('<img class="plot"') >= 1 + 5
    # the histogram's table: per step each rank sends 3 × 8 B and 1 × 64 B, 3 steps, 2 ranks; all
    # eager (the run's eager limit is 16384 B, n½ far above)
    assert ('<td class="l">8 B – 16 B</td><td class="">18</td><td class="">eager</td></tr>'
            '<tr><td class="l">64 B – 128 B</td><td class="">6</td><td class="">eager</td>') in html
    advice = json.loads(msgperf("advise", "--profile", prof_file, "--model", run, "--json").stdout)
    text = msgperf("advise", "--profile", prof_file, "--model", run).stdout
    saved = re.search(r"1\. combine the back-to-back sends \(\d+ sequences\): saves ([^(]+) \(", " ".join(text.split()))
    assert saved and f"saves {saved.group(1).strip()} (predicted" in html  # the same figure in both
    assert advice["actions"][0]["kind"] == "combine"
    for words in ("What to change, in order of payoff", "Sizes just above the eager limit",
                  "Latency- versus bandwidth-bound", "Buffering (Saphir 1994)"):
        assert words in html, words
    result = msgperf("report", "--profile", tmp_path / "missing.jsonl", run)
    assert result.returncode == 1 and "no profile file or profile id" in result.stderr
    result = msgperf("report")
    assert result.returncode == 2 and "give RUN..." in result.stderr


def test_compare_section_says_what_would_tell_a_cannot_tell():
    from msgperf.analysis.compare import compare_runs
    from msgperf.present.report import comparison_html
    a = launches_run(seed=1, launches=1, launch_sd=0.0, noise=0.01, n=500)
    b = launches_run(seed=2, launches=1, launch_sd=0.0, noise=0.01, n=500, scale=1.08)
    c = compare_runs(a, b, parameters=False, min_effect=0.1)
    assert any(s.verdict == "cannot tell" for s in c.sizes)
    html = comparison_html(c)
    assert "cannot tell how many: one launch per side measures no spread" in html


def test_a_control_character_or_quote_in_a_run_string_is_shown_as_text():
    """Every value the templates write is escaped (autoescape) and shown as text: an escape
    sequence in a host name is \\x1b, not a terminal code; a quote cannot close an attribute."""
    host = 'node"1\x1b[31m<i>'
    html = build_report([pingpong_run(host=host)])
    assert "\x1b" not in html and "<i>" not in html
    assert "node&#34;1\\x1b[31m&lt;i&gt;" in html


def test_every_template_is_package_data():
    """The templates are installed with the package (pyproject's package-data), not only present
    in a checkout: each file under present/templates matches one of its patterns."""
    import fnmatch
    from pathlib import Path

    import pytest
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    root = Path(report.__file__).parents[3]
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["msgperf.present"]
    files = [p.relative_to(TEMPLATES.parent).as_posix() for p in TEMPLATES.iterdir()]
    assert files and all(any(fnmatch.fnmatch(f, pat) for pat in patterns) for f in files), files


def test_the_per_size_table_says_which_times_a_refinement_launch_measured_at_another_level():
    """A tester's report showed 8113 B at 2.76 µs [2.74 – 2.79 µs] "(within one launch)" where show
    had 2.81 µs: a refinement size put on the sweep's level, as fit's table says and the report
    did not."""
    from pathlib import Path

    from msgperf.analysis.result import analyze
    from msgperf.records.runfile_read import read_run

    path = Path(__file__).parents[1] / "data" / "kernel-runs" / "mpich-default-refinement-set-aside.jsonl"
    run = read_run(path).run
    aligned = analyze(run).main.model.aligned_bytes
    assert aligned
    html = build_report([run])
    assert f"time: {len(aligned)} size(s) a refinement added are on the sweep&#39;s level" in html
