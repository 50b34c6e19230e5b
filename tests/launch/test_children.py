"""Every job msgperf starts dies with it (launch/children.py), tested without MPI: a fake
launcher that behaves as Hydra does (its ranks in sessions of their own; when one rank dies it
kills the others with SIGKILL; SIGTERM forwarded), and a parent killed with kill -9."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from msgperf.launch import children
from msgperf.launch.children import Terminated, stop_signals
from tests.leftovers import job_of, left_running

# Ranks that take a while to write what they recorded when SIGTERM comes (as the profiler's
# signal handler does; rank 1 0.5 s longer than rank 0), under a launcher that, like Hydra,
# SIGKILLs the other ranks as soon as one of them dies.
FAKE_HYDRA = textwrap.dedent("""
    import os, signal, subprocess, sys, time
    out = sys.argv[1]
    rank = ("import os, signal, sys, time\\n"
            "def wrote(sig, frame):\\n"
            "    time.sleep(0.3)\\n"
            "    open(sys.argv[1], 'w').write('part')\\n"
            "    os._exit(143)\\n"
            "signal.signal(signal.SIGTERM, wrote)\\n"
            "print('ready', flush=True)\\n"
            "while True: time.sleep(1)\\n")
    ranks = [subprocess.Popen([sys.executable, "-c", rank, f"{out}.rank{r}"], start_new_session=True,
                              stdout=subprocess.PIPE, text=True) for r in range(2)]
    signal.signal(signal.SIGTERM, lambda *a: [r.send_signal(signal.SIGTERM) for r in ranks])
    for r in ranks:
        r.stdout.readline()
    print("ready", flush=True)
    while all(r.poll() is None for r in ranks):
        time.sleep(0.01)
    for r in ranks:  # one rank died: the others are killed at once
        if r.poll() is None:
            r.kill()
    for r in ranks:
        r.wait()
""")


def test_stop_lets_every_rank_end_before_the_launcher_kills_them(tmp_path):
    proc = children.start([sys.executable, "-c", FAKE_HYDRA, str(tmp_path / "p")], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "ready\n"
    tree = job_of(proc.pid)
    assert len(tree) == 2
    children.stop(proc)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.rank0", "p.rank1"]  # each rank wrote its part
    assert left_running(tree, timeout=2) == []


def test_a_launcher_that_ignores_sigterm_is_killed_with_its_ranks(tmp_path):
    stubborn = ("import signal, subprocess, sys, time\n"
                "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                "child = subprocess.Popen([sys.executable, '-c', "
                "'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print(1, flush=True); "
                "time.sleep(60)'], start_new_session=True, stdout=subprocess.PIPE)\n"
                "child.stdout.readline(); print('ready', flush=True); time.sleep(60)\n")
    proc = children.start([sys.executable, "-c", stubborn], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "ready\n"
    tree = job_of(proc.pid)
    began = time.monotonic()
    children.stop(proc, grace_s=0.5)
    assert left_running(tree, timeout=0) == [] and proc.returncode == -signal.SIGKILL
    assert time.monotonic() - began < 5


def test_a_killed_parent_takes_its_job_with_it(tmp_path):
    """kill -9 of the process that started the job (msgperf): Linux sends the launcher SIGTERM
    (PR_SET_PDEATHSIG), and the launcher stops its ranks."""
    parent = (f"import sys; sys.path[:0] = {sys.path!r}\n"
              "from msgperf.launch import children\n"
              f"p = children.start([sys.executable, '-c', {FAKE_HYDRA!r}, {str(tmp_path / 'p')!r}])\n"
              "p.wait()\n")
    proc = subprocess.Popen([sys.executable, "-c", parent], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "ready\n"  # from the launcher, its ranks started
    tree = job_of(proc.pid)
    assert len(tree) == 3, tree  # the launcher and 2 ranks
    proc.kill()
    proc.wait()
    assert left_running(tree) == []


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_stop_signals_raise_terminated_and_restore_the_handlers(sig):
    class NotStopped(Exception):
        pass

    def before(signum, frame):
        raise NotStopped()

    previous = {s: signal.signal(s, before) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        with pytest.raises(Terminated) as stopped, stop_signals():
            os.kill(os.getpid(), sig)
            time.sleep(1)
        assert stopped.value.signum == sig and stopped.value.exit_code == 128 + sig
        assert stopped.value.name == signal.Signals(sig).name
        assert signal.getsignal(sig) is before
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
