"""Waiting for a run that is being measured in the background."""

from __future__ import annotations

import time
from pathlib import Path


def wait_for_measurements(out: Path, count: int, timeout: float = 60) -> None:
    """Return once the run file ``out`` holds ``count`` measurement records."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if out.exists() and out.read_text().count('"type":"measurement"') >= count:
            return
        time.sleep(0.05)
    raise AssertionError(f"{out} never reached {count} measurements")
