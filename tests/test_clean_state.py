"""Every case starts from the same state: a persistence probe finds nothing a case left behind.

The probe (``tests/persistence_probe.py``) derives the writable places from the sandbox itself
(``/proc/self/mountinfo``), plants a marker in every one of them (files, appended bytes, times
and modes, SysV shared memory, semaphores and message queues, a POSIX message queue, a user
key), and first looks for any marker an earlier case planted. Run in the same sandbox as the
next case of the same sample, the next sample, and a sample of another task (after a Java job
planted its files too), it must find nothing, under docker and bwrap. The probe must also have
planted something in every writable place it found, or the test proves nothing.
"""

from __future__ import annotations

import json

import pytest

from persistence_probe import java_probe_program, probe_program
from reliability_support import sandbox_reason

pytestmark = [pytest.mark.slow]


def _probe(outcome) -> dict:
    assert outcome.status == "ok" and outcome.returncode == 0, (outcome.status, outcome.stderr[-2000:])
    return json.loads(outcome.stdout)


@pytest.mark.parametrize("sandbox", ["bwrap", "docker"])
def test_nothing_a_case_leaves_reaches_the_next_case_sample_or_task(sandbox):
    reason = sandbox_reason(sandbox)
    if reason:
        pytest.skip(f"{sandbox} sandbox not available here: {reason}")
    from biocoder_metric.sandbox import make_sandbox
    from biocoder_metric.types import Job

    with make_sandbox(sandbox) as box:
        # sample 1 of task A: three cases in a row (the next case must find nothing)
        first = [
            _probe(o)
            for o in box.run(Job(language="python", programs=(probe_program("bcsA1"),) * 3, timeout_s=30))
        ]
        # sample 2 of task A, then a Java sample of task B, then a Python sample of task C
        second = [
            _probe(o)
            for o in box.run(Job(language="python", programs=(probe_program("bcsA1"),) * 2, timeout_s=30))
        ]
        java = box.run(
            Job(language="java", programs=(java_probe_program("bcsB1"),), timeout_s=30, class_name="Main")
        )
        third = _probe(box.run(Job(language="python", programs=(probe_program("bcsB1"),), timeout_s=30))[0])
    assert java[0].status == "ok" and java[0].stdout.startswith('{"found": 0'), java[0]
    found = {f"sample1 case{i}": p["found"] for i, p in enumerate(first)}
    found.update({f"sample2 case{i}": p["found"] for i, p in enumerate(second)})
    found["task C after a Java task"] = third["found"]
    assert not any(found.values()), found

    planted = first[0]["planted"]
    kinds = {p.split(" ")[0] for p in planted}
    assert {"file", "appended", "time", "sysv"} <= kinds, planted
    assert {"sysv shm", "sysv sem", "sysv msg", "posix mq"} <= set(planted), planted
    places = {p[len("file in ") :] for p in planted if p.startswith("file in ")}
    assert {"/tmp", "/var/tmp", "/dev/shm", "/work"} <= places, places
