"""Launcher dialects and placement checks, as strings (no process is started)."""

import pytest

from msgperf.errors import MsgperfError
from msgperf.launch.dialects import flavor_from_version, launch_argv
from msgperf.launch.hosts import check_launch, expected_hosts, parse_hosts

PROG = ["./k", "--sizes", "0"]


def test_hydra_dialect():
    assert launch_argv("mpiexec", 2, PROG, flavor="hydra") == ["mpiexec", "-n", "2", *PROG]
    assert launch_argv("mpiexec", 4, PROG, flavor="hydra", hosts=("a", "b"), ranks_per_node=2) == \
        ["mpiexec", "-n", "4", "-hosts", "a,b", "-ppn", "2", *PROG]


def test_open_mpi_dialect():
    assert launch_argv("mpirun", 4, PROG, flavor="openmpi", hosts=("a", "b"), ranks_per_node=2, is_root=True) == \
        ["mpirun", "-np", "4", "--allow-run-as-root", "--host", "a:2,b:2", "--map-by", "ppr:2:node",
         "--bind-to", "none", *PROG]
    # round robin over the hosts when no --ranks-per-node; not root: no --allow-run-as-root
    assert launch_argv("mpirun", 2, PROG, flavor="openmpi", hosts=("a", "b")) == \
        ["mpirun", "-np", "2", "--host", "a:1,b:1", "--map-by", "node", "--bind-to", "none", *PROG]
    # more ranks than this machine's cores: --oversubscribe
    assert "--oversubscribe" in launch_argv("mpirun", 4, PROG, flavor="openmpi", cores=2)
    assert "--oversubscribe" not in launch_argv("mpirun", 2, PROG, flavor="openmpi", cores=2)


def test_srun_dialect():
    assert launch_argv("srun", 2, PROG) == ["srun", "--ntasks=2", *PROG]
    assert launch_argv("srun", 4, PROG, hosts=("n1", "n2"), ranks_per_node=2) == \
        ["srun", "--ntasks=4", "--nodes=2", "--ntasks-per-node=2", "--nodelist=n1,n2", *PROG]
    assert launch_argv("/usr/bin/srun", 2, PROG, ranks_per_node=1) == \
        ["/usr/bin/srun", "--ntasks=2", "--nodes=2", "--ntasks-per-node=1", *PROG]


@pytest.mark.parametrize("name, output, flavor", [
    ("mpiexec", "HYDRA build details:\n    Version:  4.0.2", "hydra"),
    ("mpirun", "mpirun (Open MPI) 4.1.4\n\nReport bugs to http://www.open-mpi.org/community/help/", "openmpi"),
    ("mpiexec.openmpi", "", "openmpi"),
    ("/usr/bin/mpiexec.mpich", "HYDRA build details:", "hydra"),
    ("srun", "slurm 22.05.8", "srun"),
])
def test_flavor_from_version_output(name, output, flavor):
    assert flavor_from_version(name, output) == flavor


def test_hosts_and_placement_checks():
    assert parse_hosts("h0,h1") == ("h0", "h1") and parse_hosts(None) == ()
    with pytest.raises(MsgperfError, match="twice"):
        parse_hosts("a,a")
    assert expected_hosts(4, ("a", "b"), 2) == ["a", "a", "b", "b"]
    assert expected_hosts(4, ("a", "b"), None) == ["a", "b", "a", "b"]
    with pytest.raises(MsgperfError, match=r"--placement inter: all 2 ranks are on one node \(a\); run on two nodes"):
        check_launch(2, ("a",), None, "inter")
    with pytest.raises(MsgperfError, match="--placement intra: no two ranks share a node"):
        check_launch(2, ("a", "b"), None, "intra")
    with pytest.raises(MsgperfError, match="at least 3 ranks"):
        check_launch(2, (), None, "both")
    with pytest.raises(MsgperfError, match="more than --hosts"):
        check_launch(5, ("a", "b"), 2, None)
    check_launch(4, ("a", "b"), 2, "both")
    check_launch(2, (), None, "inter")  # no hosts named: the kernels check the map they gather


def test_slurm_job_shape_and_script():
    from msgperf.launch.slurm_script import batch_script, job_shape
    from msgperf.plan import Plan

    assert job_shape("inter", None, None) == (2, 1)  # the ping-pong exercise (Marcotte, Durham): --nodes=2 --ntasks-per-node=1
    assert job_shape("intra", None, None) == (1, 2)
    assert job_shape("both", None, None) == (2, 2)
    with pytest.raises(MsgperfError, match="--placement inter: all 2 ranks are on one node"):
        job_shape("inter", 1, 2)
    with pytest.raises(MsgperfError, match="--placement intra: no two ranks share a node"):
        job_shape("intra", 2, 1)
    plan = Plan(patterns=("pingpong",), sizes=(0, 1024), nranks=2, pair=(0, 1), buffer="separate", precision=0.01,
                time_budget_s=1.0, min_samples=20, max_samples=1000)
    text = batch_script(kernels="/k/msgperf-kernels", plan=plan, nodes=2, per_node=1, placement="inter",
                        command_line="msgperf slurm", srun_mpi="pmi2")
    assert "#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\n" in text
    assert "SRUN=(srun --ntasks=2 --nodes=2 --ntasks-per-node=1 --mpi=pmi2)" in text
    assert 'OUT=runs/"slurm-${SLURM_JOB_ID:-local}-pingpong.jsonl"' in text
    assert "--placement inter" in text and "msgperf import %q" in text


def test_a_rank_count_in_the_launcher_is_found_in_each_dialect():
    from msgperf.launch.dialects import rank_count_setting

    assert rank_count_setting("hydra", ["-n", "3"]) == "-n 3"
    assert rank_count_setting("hydra", ["-bind-to", "core", "-np", "4"]) == "-np 4"
    assert rank_count_setting("openmpi", ["--np=4"]) == "--np=4"
    assert rank_count_setting("srun", ["--ntasks=3"]) == "--ntasks=3"
    assert rank_count_setting("srun", ["--mpi=pmi2"]) is None
    assert rank_count_setting("hydra", ["-bind-to", "core", "-genv", "N", "3"]) is None


def test_a_rank_count_in_the_launcher_is_refused_before_anything_runs(tmp_path, monkeypatch):
    """`--launcher "mpiexec -n 3" --np 2` said "error parsing parameters": refused at once,
    naming both, before the run file is made."""
    from pathlib import Path

    from msgperf.launch import launcher as launcher_module
    from msgperf.launch.build import Kernel
    from msgperf.launch.session import MeasureRequest, measure
    from msgperf.plan import Plan

    mpicc = tmp_path / "mpicc"
    (tmp_path / "mpiexec").write_text("")
    kernel = Kernel(path=tmp_path / "msgperf-kernels", mpicc=mpicc, mpiexec=tmp_path / "mpiexec",
                    mpi_version="MPICH 5.0.2")
    monkeypatch.setattr(launcher_module, "build_kernel", lambda mpicc=None: kernel)
    monkeypatch.setattr(launcher_module, "detect_flavor", lambda name: "hydra")
    out = tmp_path / "run.jsonl"
    request = MeasureRequest(plan=Plan(sizes=(0,), nranks=2), output=out, launcher="mpiexec -n 3", store=False)
    with pytest.raises(MsgperfError) as refused:
        measure(request)
    message = str(refused.value)
    assert "\n" not in message and "(-n 3)" in message and "--np" in message and "--launcher 'mpiexec -n 3'" in message
    assert not out.exists() and not Path(f"{out}.lock").exists()
