"""Fixtures of the plot and report tests: run files from the one factory (tests/factories.py),
the artifacts folder, and the "report" marker of this tier."""

from __future__ import annotations

import pytest

from tests.conftest import ROOT
from tests.factories import HOSTILE, pingpong_run, write_run

ARTIFACTS = ROOT / "test-artifacts"


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/present/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.report)


@pytest.fixture
def run_file(tmp_path):
    return write_run(pingpong_run(), tmp_path / "a.jsonl")


@pytest.fixture
def hostile_run_file(tmp_path):
    return write_run(pingpong_run(host=HOSTILE), tmp_path / "hostile.jsonl")


@pytest.fixture
def artifacts():
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
