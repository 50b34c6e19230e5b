"""Why a launch failed, in one line, from real launcher outputs (captured on this machine)."""

import pytest

from msgperf.launch.job import explain_failure

HYDRA_UNKNOWN_HOST = """\
ssh: Could not resolve hostname nosuchhost.invalid: Name or service not known
ssh: Could not resolve hostname other.invalid: Name or service not known
[mpiexec@vm] ui_cmd_cb (/mpich-5.0.2/src/pm/hydra/mpiexec/pmiserv_pmci.c:51): Launch proxy failed.
[mpiexec@vm] HYDT_dmxu_poll_wait_for_event (/mpich-5.0.2/src/pm/hydra/lib/tools/demux/demux_poll.c:76): callback returned error status
[mpiexec@vm] HYD_pmci_wait_for_completion (/mpich-5.0.2/src/pm/hydra/mpiexec/pmiserv_pmci.c:180): error waiting for event
[mpiexec@vm] main (/mpich-5.0.2/src/pm/hydra/mpiexec/mpiexec.c:270): process manager error waiting for completion
"""

HYDRA_NO_PROGRAM = """\
[proxy:0@vm] HYDU_create_process (/mpich-5.0.2/src/pm/hydra/lib/utils/launch.c:73): execvp error on file /nonexistent/prog (No such file or directory)
[proxy:0@vm] HYDU_create_process (/mpich-5.0.2/src/pm/hydra/lib/utils/launch.c:73): execvp error on file /nonexistent/prog (No such file or directory)
"""

OPENMPI_UNKNOWN_HOST = """\
ssh: Could not resolve hostname nosuchhost: Name or service not known
--------------------------------------------------------------------------
ORTE was unable to reliably start one or more daemons.
This usually is caused by:

* not finding the required libraries and/or binaries on
  one or more nodes. Please check your PATH and LD_LIBRARY_PATH
  settings, or configure OMPI with --enable-orterun-prefix-by-default
--------------------------------------------------------------------------
"""

OPENMPI_NO_PROGRAM = """\
--------------------------------------------------------------------------
mpirun.openmpi was unable to launch the specified application as it could not access
or execute an executable:

Executable: /nonexistent/prog
Node: vm

while attempting to start process rank 0.
--------------------------------------------------------------------------
2 total processes failed to start
"""


@pytest.mark.parametrize("output, line", [
    (HYDRA_UNKNOWN_HOST, "ssh: Could not resolve hostname nosuchhost.invalid: Name or service not known"),
    (HYDRA_NO_PROGRAM, "execvp error on file /nonexistent/prog (No such file or directory)"),
    (OPENMPI_UNKNOWN_HOST, "ssh: Could not resolve hostname nosuchhost: Name or service not known"),
    (OPENMPI_NO_PROGRAM, "cannot execute /nonexistent/prog (could not access or execute it)"),
    ("srun: error: Unable to allocate resources: Invalid partition name specified\n", "srun: error: Unable to allocate "
     "resources: Invalid partition name specified"),
    ("bash: line 1: msgperf-kernels: command not found\n", "bash: line 1: msgperf-kernels: command not found"),
], ids=["hydra-host", "hydra-exec", "openmpi-host", "openmpi-exec", "srun", "not-found"])
def test_the_cause_not_the_last_line(output, line):
    assert explain_failure(output) == line


def test_the_kernels_and_a_dead_rank_come_first():
    assert explain_failure("noise\nmsgperf-kernels: cannot write run file 'x' (No space left on device)\n[mpiexec@vm] "
                           "main (mpiexec.c:270): process manager error\n") == "cannot write run file 'x' (No space left on device)"
    hydra_died = ("=====\n=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n=   PID 4242 RUNNING AT vm\n"
                  "=   EXIT STRING: Killed (signal 9)\n=====\n")
    assert explain_failure(hydra_died) == "a rank died (Killed (signal 9); pid 4242 on vm)"


def test_without_a_known_cause_the_last_line_without_hydras_call_chain():
    assert explain_failure("starting\n[mpiexec@vm] main (mpiexec.c:270): something odd\n") == "something odd"
    assert explain_failure("") == "no output"
    assert explain_failure("warming up\nfailed to map segment\n") == "failed to map segment"


HYDRA_DUPLICATE = """\
[mpiexec@vm] HYDU_set_int (/mpich-5.0.2/src/pm/hydra/lib/utils/args.c:216): duplicate setting: n
[mpiexec@vm] np_fn (/mpich-5.0.2/src/pm/hydra/mpiexec/options.c:815): error getting executable process count
[mpiexec@vm] match_arg (/mpich-5.0.2/src/pm/hydra/lib/utils/args.c:159): match handler returned error
[mpiexec@vm] HYDU_parse_array (/mpich-5.0.2/src/pm/hydra/lib/utils/args.c:181): argument matching returned error
[mpiexec@vm] parse_args (/mpich-5.0.2/src/pm/hydra/mpiexec/get_parameters.c:318): error parsing input array
[mpiexec@vm] HYD_uii_mpx_get_parameters (/mpich-5.0.2/src/pm/hydra/mpiexec/get_parameters.c:48): unable to parse user arguments
[mpiexec@vm] main (/mpich-5.0.2/src/pm/hydra/mpiexec/mpiexec.c:49): error parsing parameters
"""


def test_hydras_call_chain_alone_gives_its_first_frame_the_cause():
    """`mpiexec -n 3 -n 2` (MPICH 5.0.2): the error said "error parsing parameters", the
    cause ("duplicate setting: n") was only in the log."""
    assert explain_failure(HYDRA_DUPLICATE) == "duplicate setting: n (error parsing parameters)"


# A job of 4 ranks on 2 nodes under srun with the pip wheel's MPICH, as CI's machine printed it (after stop 32).
SLURM_PMI1_CUT = """\
slurmstepd-h1: error: mpi/pmi2: value not properly terminated in client request
slurmstepd-h1: error: mpi/pmi2: request not begin with 'cmd='
slurmstepd-h1: error: mpi/pmi2: full request is: 333333333333333333333333333333333333333333333333333

slurmstepd-h1: error: mpi/pmi2: invalid client request
[h0:13452:0:13452]     address.c:1138 Assertion `*addr_version == UCP_OBJECT_VERSION_V2' failed: addr version 4
Abort(206717967) on node 2: Fatal error in internal_Init: Other MPI error, error stack:
MPIDI_UCX_comm_addr_exchange(159).....:  ucx function returned with failed status
srun: error: h0: task 0: Aborted
srun: error: h1: task 2: Exited with exit code 15
"""


def test_slurms_cut_pmi_request_is_named_with_its_remedy_not_srun_s_last_word():
    """The cause is SLURM's one 1,024-byte read of a PMI-1 line, not "task 0: Aborted"."""
    from msgperf.launch.job import SLURM_PMI1_CUT_CAUSE

    assert explain_failure(SLURM_PMI1_CUT) == SLURM_PMI1_CUT_CAUSE
    assert "--mpicc" in SLURM_PMI1_CUT_CAUSE
    # the kernels' own message still comes first
    assert explain_failure(SLURM_PMI1_CUT + "msgperf-kernels: bad size\n") == "bad size"
