"""What the report's Jinja2 templates cost: importing Jinja2 and compiling every template in a
fresh interpreter (once per ``msgperf report``), and rendering the markup of a report of a run
with every pattern family (tests/factories.every_family_run) with its figures left out
(bench/analysis_cost.py times the whole report, figures included).

    .venv/bin/python bench/report_templates.py [--repeats 5] [--before COMMIT]

--before: also render with present/report.py of COMMIT (the f-string report before the
templates), in the same way, for the ratio.

Each figure is the median [min-max] over the repetitions, of wall time and of CPU time (user +
system, which a machine shared with other jobs inflates less), each in a fresh interpreter.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

COMPILE = """
import time
from msgperf.present import templating
t = time.perf_counter(); c = time.process_time()
env = templating.environment()
for p in sorted(templating.TEMPLATES.glob("*.*[lg]")):  # the page's .html and the charts' .svg
    env.get_template(p.name)
print(time.perf_counter() - t, time.process_time() - c)
"""

RENDER = """
import sys, time
sys.path.insert(0, {root!r})
sys.path.insert(0, {old!r})
from msgperf.commands.report import analyze_runs
from msgperf.present import plots
{module}
from tests.factories import every_family_run
# the markup only: no figure drawn (figure_png: the PNG figures of the reports before the SVG ones)
painter = sys.modules.get("msgperf.present.svg_chart")
if painter is not None:
    painter.svg = lambda chart: ""
plots.figure_png = lambda fig: b""
for name in dir(plots):
    if name.endswith("_plot"):
        setattr(plots, name, lambda *a, **k: None)
results, comparisons = analyze_runs([every_family_run()])
env = getattr(report, "_environment", None)  # compiled before the clock starts: the f-string report had none
env = env or getattr(sys.modules.get("msgperf.present.templating"), "environment", lambda: None)
env()
t = time.perf_counter(); c = time.process_time()
html = report.build_report(results, comparisons)
print(time.perf_counter() - t, time.process_time() - c)
"""


def measure(code: str, repeats: int) -> tuple[list[float], list[float]]:
    walls, cpus = [], []
    for _ in range(repeats):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
        wall, cpu = map(float, out.stdout.split()[-2:])
        walls.append(wall)
        cpus.append(cpu)
    return walls, cpus


def spread(values: list[float]) -> str:
    return f"{1000 * statistics.median(values):.0f} ms [{1000 * min(values):.0f}-{1000 * max(values):.0f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--before", metavar="COMMIT", help="also the report.py of this commit")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as old:
        cases = [("import Jinja2 + compile every template", COMPILE),
                 ("render a report of every family (plots left out)",
                  RENDER.format(root=str(ROOT), old=old, module="from msgperf.present import report"))]
        if args.before:
            text = subprocess.run(["git", "show", f"{args.before}:src/msgperf/present/report.py"], cwd=ROOT,
                                  capture_output=True, text=True, check=True).stdout
            # its time stamp came from a module since removed
            text = text.replace("from msgperf.present.report_stamp import stamp",
                                "stamp = lambda: \"<p class='sub'>generated\"")
            Path(old, "report_before.py").write_text(text)
            cases.append((f"the same with report.py of {args.before}",
                          RENDER.format(root=str(ROOT), old=old, module="import report_before as report")))
        medians = {}
        for name, code in cases:
            walls, cpus = measure(code, args.repeats)
            medians[name] = statistics.median(cpus)
            print(f"{name}: wall {spread(walls)}, CPU {spread(cpus)}")
        if args.before:
            new, before = (medians[cases[1][0]], medians[cases[2][0]])
            print(f"render CPU, templates / f-strings: {new / before:.1f}x")


if __name__ == "__main__":
    main()
