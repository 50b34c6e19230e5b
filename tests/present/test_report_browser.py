"""The report in a real browser (Debian's chromium, headless, no network): no script errors,
every plot decoded and shown with a non-zero size, the page not blank, the injected host name
shown as text. The screenshot is kept in test-artifacts/."""

from __future__ import annotations

import html as htmllib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from msgperf.commands.report import analyze_runs
from msgperf.present import report as report_module
from msgperf.writing import output
from tests.conftest import ROOT
from tests.factories import HOSTILE, every_family_run, host_facts, pingpong_run, rich_run, with_machine


def write_report(runs, path):
    results, comparisons = analyze_runs(list(runs))
    return report_module.write_report(results, output(path, True, what="the report"), comparisons)

pytestmark = [pytest.mark.slow, pytest.mark.browser]

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--no-default-browser-check",
         "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9",
         "--enable-logging=stderr", "--v=0", "--hide-scrollbars"]


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None and os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run([str(ROOT / "tools" / "install-browser")], timeout=900, check=False)
        found = shutil.which("chromium")
    if found is None:
        pytest.skip("chromium is not installed (run tools/install-browser as root, or apt-get install chromium)")
    return found


def _run(browser: str, profile: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([browser, *FLAGS, f"--user-data-dir={profile}", *args],
                          capture_output=True, text=True, timeout=120)


def test_report_in_headless_chromium(tmp_path, artifacts):
    browser = _chromium()
    run = rich_run()
    hostile = pingpong_run(host=HOSTILE, seed=5)
    report = write_report([run, hostile], tmp_path / "report.html")
    url = report.resolve().as_uri()

    dom = _run(browser, tmp_path / "profile", "--dump-dom", url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    console = [l for l in dom.stderr.splitlines() if "CONSOLE" in l or "Uncaught" in l]
    assert not console, console
    assert 'data-ready="1"' in dom.stdout, "the load handler did not run"
    errors = re.search(r'data-errors="([^"]*)"', dom.stdout)
    assert errors and json.loads(htmllib.unescape(errors.group(1))) == []
    natural = re.findall(r'data-natural="(\d+)x(\d+)"', dom.stdout)
    shown = re.findall(r'data-shown="(\d+)x(\d+)"', dom.stdout)
    expected = report.read_text().count('<img class="plot"')
    assert expected >= 8 and len(natural) == len(shown) == expected
    assert all(int(w) > 100 and int(h) > 100 for w, h in natural + shown)
    # the injected host name is text in the page, and no alert script was created
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dom.stdout
    assert "<script>alert(1)</script>" not in dom.stdout

    shot = artifacts / "report-screenshot.png"
    done = _run(browser, tmp_path / "profile2", "--window-size=1200,2400", f"--screenshot={shot}", url)
    assert done.returncode == 0 and shot.is_file(), done.stderr[-2000:]
    from matplotlib.image import imread

    pixels = imread(shot)
    assert pixels.shape[0] == 2400 and pixels.shape[1] == 1200
    assert float(np.std(pixels[..., :3])) > 0.02, "the screenshot is a single colour"
    # the plot region (below the summary) holds colour, not only white
    colourful = np.abs(pixels[..., 0] - pixels[..., 2]) > 0.2
    assert colourful.mean() > 0.001
    shutil.copy(report, artifacts / "report-under-test.html")


def test_report_of_every_pattern_reads_well(tmp_path, artifacts):
    """No raw escapes (a literal \\x0a), no element whose content overflows its box, no
    horizontal scroll of the page, for a run with a pattern of every family."""
    browser = _chromium()
    run = with_machine(every_family_run(), [host_facts("node0"), host_facts("node1")],  # the Machine table too
                       {"MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE": 8192, "MPIR_CVAR_CH4_SHM_POSIX_EAGER": ""})
    report = write_report([run], tmp_path / "every.html")
    text = report.read_text()
    assert "\\x0a" not in text and "\\x" not in re.sub(r"<[^>]+>", "", text)
    dom = _run(browser, tmp_path / "profile", "--window-size=1200,900", "--dump-dom", report.resolve().as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert 'data-ready="1"' in dom.stdout
    overflow = re.search(r'data-overflow="(\d+)"', dom.stdout)
    page_scroll = re.search(r'data-page-scroll="(\d+)"', dom.stdout)
    assert overflow and overflow.group(1) == "0", "an element's content overflows its box"
    assert page_scroll and page_scroll.group(1) == "0", "the page scrolls horizontally"
    shutil.copy(report, artifacts / "report-every-pattern.html")
