"""The kernels' pattern catalog, committed (tests/data/catalog.json) for tests that run no MPI.

``tests/kernels/test_catalog.py`` checks that the committed file equals what the current kernels
print, so it cannot go stale; regenerate it with ``.venv/bin/python -m tests.catalog_data``.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from msgperf.records.format import PatternInfo, decode_catalog

CATALOG_FILE = Path(__file__).resolve().parent / "data" / "catalog.json"
RANKS = (2, 4, 8)  # the numbers of ranks the file holds the catalog for


@lru_cache(maxsize=None)
def committed_catalog(np: int = 2) -> tuple[PatternInfo, ...]:
    """The catalog for ``np`` ranks (one of RANKS), as ``pattern_catalog`` returns it."""
    return decode_catalog(json.loads(CATALOG_FILE.read_text())[str(np)], str(CATALOG_FILE))


def catalog_entry(name: str, np: int = 2) -> PatternInfo:
    return next(p for p in committed_catalog(np) if p.name == name)


def _regenerate() -> None:
    import subprocess

    from msgperf.launch.build import build_kernel
    kernel = build_kernel()
    data = {str(np): json.loads(subprocess.run([str(kernel.path), "--list-patterns", "--np", str(np)],
                                               capture_output=True, text=True, check=True).stdout)
            for np in RANKS}
    CATALOG_FILE.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {CATALOG_FILE} (--np {', '.join(map(str, RANKS))})")


if __name__ == "__main__":
    _regenerate()
