"""The warm Java path reuses one compile-only JVM across jobs but runs every job in a fresh JVM.

Why these properties: reusing the compiler removes the ~0.8 s cold javac per sample, and it
is only acceptable because the JVM that *runs* candidates is never shared between jobs, and
because a candidate that kills the compiler cannot turn the next sample into a compile error.
"""

from __future__ import annotations

import pytest

from biocoder_metric.sandbox import make_sandbox
from biocoder_metric.types import Job, RunStatus

pytestmark = [pytest.mark.bwrap, pytest.mark.engine]

#: Prints the run JVM's pid, the pids of other live Runner JVMs (the compiler), and a JDK
#: static (a security property) before setting it: a JVM shared with an earlier job would show it.
PROBE = """
import java.security.Security;
public class Main {
    public static void main(String[] args) {
        long me = ProcessHandle.current().pid();
        StringBuilder others = new StringBuilder();
        ProcessHandle.allProcesses()
            .filter(p -> p.pid() != me)
            .filter(p -> p.info().arguments().map(a -> String.join(" ", a).contains("DisableAttachMechanism")).orElse(false))
            .forEach(p -> others.append(p.pid()).append(','));
        System.out.println(me + " " + others + " " + Security.getProperty("biocoder.probe"));
        Security.setProperty("biocoder.probe", "leaked");
    }
}
"""

#: Tries to open the compiler's memory for writing, as a case would to make it miscompile.
TAMPER = """
public class Main {
    public static void main(String[] args) throws Exception {
        long me = ProcessHandle.current().pid();
        for (ProcessHandle p : (Iterable<ProcessHandle>) ProcessHandle.allProcesses()::iterator) {
            if (p.pid() == me) continue;
            try (java.io.RandomAccessFile f = new java.io.RandomAccessFile("/proc/" + p.pid() + "/mem", "rw")) {
                System.out.println("opened " + p.pid());
            } catch (java.io.IOException e) {
                System.out.println("denied " + p.pid());
            }
        }
    }
}
"""

#: Kills every other JVM it can see (the compiler among them), as a hostile candidate might.
KILLER = """
public class Main {
    public static void main(String[] args) {
        long me = ProcessHandle.current().pid();
        ProcessHandle.allProcesses().filter(p -> p.pid() != me)
            .filter(p -> p.info().command().map(c -> c.endsWith("java")).orElse(false))
            .forEach(ProcessHandle::destroyForcibly);
        System.out.println("killed");
    }
}
"""


@pytest.fixture(scope="module")
def box():
    from biocoder_metric.sandbox.bubblewrap import bwrap_works

    if not bwrap_works():
        pytest.skip("bubblewrap is not installed or user namespaces are disabled")
    with make_sandbox("bwrap", warm=True) as sb:
        yield sb


def _probe(box) -> tuple[str, str, str]:
    out = box.run(Job(language="java", programs=(PROBE,), timeout_s=20, memory_mb=512))[0]
    assert out.status == RunStatus.OK and out.returncode == 0, out
    run_pid, compilers, leaked = out.stdout.split()
    return run_pid, compilers, leaked


def test_compiler_reused_runner_fresh(box):
    first = _probe(box)
    second = _probe(box)
    assert first[1] and first[1] == second[1], "the compile JVM should be the same across jobs"
    assert first[0] != second[0], "each job must run in its own JVM"
    assert second[2] == "null", "a JDK static set by the previous job must not be visible"


def test_compiler_memory_is_not_writable_by_cases(box):
    compiler = _probe(box)[1].strip(",")
    out = box.run(Job(language="java", programs=(TAMPER,), timeout_s=20, memory_mb=512))[0]
    assert f"denied {compiler}\n" in out.stdout, out
    assert "opened" not in out.stdout, out


def test_killing_the_compiler_is_not_a_compile_error(box):
    _probe(box)
    out = box.run(Job(language="java", programs=(KILLER,), timeout_s=20, memory_mb=512))[0]
    assert out.stdout == "killed\n", out
    after = box.run(Job(language="java", programs=(PROBE, PROBE), timeout_s=20, memory_mb=512))
    assert [o.status for o in after] == [RunStatus.OK, RunStatus.OK], after
