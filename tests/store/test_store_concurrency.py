"""Two processes writing to one database at the same moment both land (and agree on shared runs)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from msgperf.store.db import open_store

WORKER = r"""
import sys, time, dataclasses
from pathlib import Path
sys.path.insert(0, FIXTURES)
from tests.factories import stored_run
from msgperf.store.db import open_store

db, go, worker = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
runs = [stored_run(1000 * worker + i, sizes=(1, 64), samples=5) for i in range(15)]
shared = stored_run(7, sizes=(1,), samples=5)
while not go.exists():
    time.sleep(0.005)
ids = []
with open_store(db) as store:  # both processes create and migrate the new database at once
    for run in runs:
        ids.append(store.add_run(run))
    ids.append(store.add_run(shared))
print(" ".join(f"{i}:{int(added)}" for i, added in ids))
"""


def test_two_writers_at_once_both_land(tmp_path):
    db, go = tmp_path / "shared.db", tmp_path / "go"
    script = tmp_path / "worker.py"
    script.write_text(WORKER.replace("FIXTURES", repr(str(Path(__file__).parents[2]))))
    procs = [subprocess.Popen([sys.executable, str(script), str(db), str(go), str(w)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for w in (1, 2)]
    time.sleep(0.5)  # let both import numpy and reach the starting line
    go.touch()
    outputs = []
    for p in procs:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
        outputs.append([tuple(map(int, item.split(":"))) for item in out.split()])
    with open_store(db) as store:
        rows = store.list_runs()
    assert len(rows) == 2 * 15 + 1
    own = [i for out in outputs for i, added in out[:-1]]
    assert len(set(own)) == 30 and all(added for out in outputs for _, added in out[:-1])
    (shared_a, added_a), (shared_b, added_b) = outputs[0][-1], outputs[1][-1]
    assert shared_a == shared_b and added_a + added_b == 1  # one added it, the other found it
