"""Shared fixtures: every test gets its own MSGPERF_HOME; kernels build into a per-session cache."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session", autouse=True)
def _kernel_cache(tmp_path_factory):
    os.environ["MSGPERF_CACHE"] = str(tmp_path_factory.mktemp("kernel-cache"))
    yield


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("MSGPERF_HOME", str(tmp_path_factory.mktemp("home")))


def run_cli(*args: str, cwd: Path | None = None, timeout: float = 300, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the msgperf CLI in a fresh process, as a user would."""
    return subprocess.run([sys.executable, "-m", "msgperf", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd, env={**os.environ, **(env or {})})


@pytest.fixture
def msgperf():
    return run_cli
