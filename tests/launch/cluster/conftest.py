"""The emulated cluster (tools/netns-cluster) as fixtures; every namespace, bridge and qdisc a
test makes is removed in the fixture's finalizer, also when the test fails."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
TOOL = ROOT / "tools" / "netns-cluster"
VENV_BIN = Path(sys.executable).parent
OPENMPI_CC = Path("/usr/bin/mpicc.openmpi")
MPICH_CC = Path("/usr/bin/mpicc.mpich")


def pytest_configure(config):
    # Until pyproject.toml registers them.
    for line in ("cluster: emulated cluster of network namespaces (root; tools/netns-cluster)",
                 "slurm: a real SLURM (slurmctld + slurmd) started by tools/slurm-test-setup (root)",
                 "openmpi: Debian's Open MPI (openmpi-bin, libopenmpi-dev)"):
        config.addinivalue_line("markers", line)


def cluster_unavailable() -> str | None:
    """Why the emulated cluster cannot be built here, or None."""
    if os.geteuid() != 0:
        return "the emulated cluster needs root (ip netns, tc, unshare); run the suite as root"
    for tool in ("ip", "tc", "unshare"):
        if not shutil.which(tool):
            return f"{tool} not found; install iproute2 and util-linux (tools/install-test-deps)"
    probe = subprocess.run(["ip", "netns", "add", f"msgperf-probe-{os.getpid()}"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"cannot make a network namespace here: {probe.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", f"msgperf-probe-{os.getpid()}"], capture_output=True)
    return None


def require_openmpi() -> None:
    if not OPENMPI_CC.exists():
        pytest.skip("Debian's Open MPI is not installed (apt-get install openmpi-bin libopenmpi-dev; "
                    "tools/install-test-deps does it as root)")


class Cluster:
    """N hosts h0..h(N-1); msgperf runs "on" h0 and starts ranks through the MPI's ssh hook."""

    def __init__(self, name: str, net: int, hosts: int, mtu: int):
        self.name, self.net, self.nhosts, self.mtu = name, net, hosts, mtu
        self.env = {**os.environ, "NETNS_CLUSTER_NAME": name, "NETNS_CLUSTER_NET": str(net)}

    def tool(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        result = subprocess.run([str(TOOL), *args], capture_output=True, text=True, env=self.env, timeout=120)
        if check and result.returncode != 0:
            raise AssertionError(f"netns-cluster {' '.join(args)} failed: {result.stderr}{result.stdout}")
        return result

    @property
    def hosts(self) -> list[str]:
        return [f"h{i}" for i in range(self.nhosts)]

    def launcher_env(self) -> dict[str, str]:
        env = dict(self.env)
        for line in self.tool("env").stdout.splitlines():
            name, _, value = line.removeprefix("export ").partition("=")
            env[name] = value
        env["PATH"] = f"{VENV_BIN}:{env.get('PATH', '')}"
        return env

    def msgperf(self, *args, host: str = "h0", timeout: float = 300, env: dict | None = None, cwd: Path = ROOT):
        """``msgperf ARGS`` run on ``host`` (its namespace and hostname)."""
        cmd = [str(TOOL), "exec", host, sys.executable, "-m", "msgperf", *map(str, args)]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              env={**self.launcher_env(), **(env or {})}, cwd=cwd)

    def shape(self, rate: str, burst: str = "64kb", kind: str = "tbf") -> None:
        self.tool("shape", rate, burst, kind)


@pytest.fixture
def make_cluster():
    """make_cluster(hosts=2, mtu=1500) -> Cluster; torn down after the test, pass or fail."""
    if reason := cluster_unavailable():
        pytest.skip(reason)
    made: list[Cluster] = []

    def make(hosts: int = 2, mtu: int = 1500) -> Cluster:
        index = len(made)
        c = Cluster(f"mpt{os.getpid() % 100000}x{index}", 100 + (os.getpid() + index) % 100, hosts, mtu)
        made.append(c)
        c.tool("down", check=False)  # leftovers of a killed run with the same name
        c.tool("up", str(hosts), str(mtu))
        return c

    yield make
    for c in made:
        c.tool("down", check=False)
        assert not [l for l in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.splitlines()
                    if l.startswith(c.name + "-")], f"namespaces of {c.name} left behind"
