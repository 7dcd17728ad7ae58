"""stop_group ends a whole process group, including a child that outlives its leader."""

from __future__ import annotations

import subprocess
import sys

from memory_pipeline.resources.processes import group_members, process_alive, stop_group

# The leader starts a child that ignores SIGTERM (as a run worker finishing its step may), prints
# its pid, and then waits; SIGTERM ends the leader at once.
LEADER = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c",
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True); time.sleep(600)"],
    stdout=subprocess.PIPE, text=True)
child.stdout.readline()
print(child.pid, flush=True)
time.sleep(600)
"""


def test_stop_group_ends_a_child_that_ignores_sigterm_after_its_leader_is_gone():
    leader = subprocess.Popen([sys.executable, "-c", LEADER], stdout=subprocess.PIPE, text=True,
                              start_new_session=True)
    try:
        child = int(leader.stdout.readline())
        assert sorted(group_members(leader.pid)) == sorted([leader.pid, child])

        assert stop_group(leader.pid, grace=1.0)

        assert not process_alive(child) and not process_alive(leader.pid)
        assert group_members(leader.pid) == []
    finally:
        stop_group(leader.pid, grace=0.1)
        leader.wait()
        leader.stdout.close()


def test_stop_group_of_a_finished_group_is_true():
    done = subprocess.Popen([sys.executable, "-c", "pass"], start_new_session=True)
    done.wait()
    assert stop_group(done.pid, grace=0.1)
