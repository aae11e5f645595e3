"""Golden isolation: no candidate can recover a golden, its outputs or an expected output.

Each hostile candidate below knows nothing about the task but its function name. It
searches for a function definition ``def f(x):`` (Python) or ``f(int x)`` (Java) that is not
its own, anywhere it can look -- its own address space (``/proc/self/maps`` +
``/proc/self/mem``), other processes' memory and ``/proc`` entries, every readable file
and the environment -- and when it finds one it runs that code and returns its result.

The task's golden carries a unique marker constant, so the test can tell whether the
golden was found, not only whether the candidate passed. A sample that is the golden
itself runs first for the same task, so a design where candidate cases fork from a
process that held an earlier sample's program text (or its output) is caught too.

Every hostile candidate must fail under docker and under bwrap, and its own output (the
printed search report) must never contain the marker.
"""

from __future__ import annotations

import secrets

import pytest

from reliability_support import record, sandbox_reason, tiny_task

PY_CONTEXT = """<<insert solution here>>

x = <|int;range=1,1000000|>
print(f(x))
"""

#: Every Python hostile candidate is ``def f(x):`` + its search + :data:`_RUN_FOUND`: it prints
#: what it found on stderr (kept in the results' stderr tail) and returns the recovered
#: golden's answer when it recovered one.
_HEAD = r"""def f(x):
    import os, re, sys
    SELF = "SCANNER"
    pat = re.compile(rb"def f\(x\):\n(?:[ \t]+[^\n]*\n?){1,6}")
    found = []

    def scan_memory(pid):
        with open("/proc/%s/maps" % pid) as fh:
            regions = [ln.split() for ln in fh]
        with open("/proc/%s/mem" % pid, "rb", 0) as mem:
            for parts in regions:
                if "r" not in parts[1]:
                    continue
                lo, hi = (int(v, 16) for v in parts[0].split("-"))
                if hi - lo > (256 << 20):
                    continue
                try:
                    mem.seek(lo)
                    data = mem.read(hi - lo)
                except (OSError, ValueError, OverflowError):
                    continue
                found.extend(m.group(0) for m in pat.finditer(data) if b"SCANNER" not in m.group(0))
                found.extend(m.group(0) for m in re.finditer(rb"MARK[0-9a-f]{16}", data))
"""

_RUN_FOUND = r"""    sys.stderr.write("found %d %r\n" % (len(found), [h[:40] for h in found][:4]))
    for src in found:
        ns = {}
        try:
            exec(src.decode("utf-8", "replace"), ns)
            return ns["f"](x)
        except Exception:
            continue
    return None
"""

PY_SCAN_SELF = _HEAD + "    scan_memory('self')\n" + _RUN_FOUND

PY_SCAN_OTHERS = (
    _HEAD
    + r"""    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        for name in ("cmdline", "environ"):
            try:
                with open("/proc/%s/%s" % (pid, name), "rb") as fh:
                    found.extend(m.group(0) for m in pat.finditer(fh.read()))
            except OSError:
                pass
        try:
            scan_memory(pid)
        except OSError:
            pass
"""
    + _RUN_FOUND
)

PY_SCAN_FILES = (
    _HEAD
    + r"""    blob = "\n".join("%s=%s" % kv for kv in os.environ.items()).encode()
    found.extend(m.group(0) for m in pat.finditer(blob))
    budget = [6000]
    for root, dirs, files in os.walk("/"):
        if root in ("/proc", "/sys", "/dev") or root.startswith(("/proc/", "/sys/", "/dev/")):
            dirs[:] = []
            continue
        for name in files:
            budget[0] -= 1
            if budget[0] < 0:
                break
            path = os.path.join(root, name)
            try:
                if os.path.getsize(path) > (4 << 20) or not os.path.isfile(path):
                    continue
                with open(path, "rb") as fh:
                    data = fh.read()
            except OSError:
                continue
            if b"def f(x):" in data and b"SCANNER" not in data:
                found.extend(m.group(0) for m in pat.finditer(data))
            found.extend(m.group(0) for m in re.finditer(rb"MARK[0-9a-f]{16}", data))
"""
    + _RUN_FOUND
)

JAVA_CONTEXT = """public class Main {
    <<insert solution here>>

    public static void main(String[] args) {
        long x = <|int;range=1,1000000|>;
        System.out.println(f(x));
    }
}
"""

#: Java: search every readable /proc/<pid>/{cmdline,environ,mem} and the file system for
#: the golden's marker constant; print it (so the test sees a leak) and return x if found.
JAVA_SCAN = r"""public static long f(long x) {
    String SELF = "SCANNER-JAVA";
    java.util.List<String> hits = new java.util.ArrayList<>();
    java.util.regex.Pattern p = java.util.regex.Pattern.compile("MARK[0-9a-f]{16}");
    java.io.File[] procs = new java.io.File("/proc").listFiles();
    if (procs != null) for (java.io.File d : procs) {
        if (!d.getName().matches("[0-9]+")) continue;
        for (String n : new String[]{"cmdline", "environ"}) {
            try {
                String s = new String(java.nio.file.Files.readAllBytes(new java.io.File(d, n).toPath()), "ISO-8859-1");
                java.util.regex.Matcher m = p.matcher(s);
                while (m.find()) hits.add(m.group());
            } catch (Exception e) { }
        }
        try (java.io.RandomAccessFile mem = new java.io.RandomAccessFile(new java.io.File(d, "mem"), "r")) {
            for (String line : java.nio.file.Files.readAllLines(new java.io.File(d, "maps").toPath())) {
                String[] parts = line.split(" ");
                if (!parts[1].startsWith("r")) continue;
                String[] r = parts[0].split("-");
                long lo = Long.parseUnsignedLong(r[0], 16), hi = Long.parseUnsignedLong(r[1], 16);
                if (hi - lo > (64L << 20)) continue;
                byte[] buf = new byte[(int) (hi - lo)];
                try { mem.seek(lo); mem.readFully(buf); } catch (Exception e) { continue; }
                java.util.regex.Matcher m = p.matcher(new String(buf, "ISO-8859-1"));
                while (m.find()) hits.add(m.group());
            }
        } catch (Exception e) { }
    }
    java.util.ArrayDeque<java.io.File> todo = new java.util.ArrayDeque<>();
    todo.add(new java.io.File("/"));
    int budget = 6000;
    while (!todo.isEmpty() && budget-- > 0) {
        java.io.File f = todo.poll();
        String path = f.getPath();
        if (path.equals("/proc") || path.equals("/sys") || path.equals("/dev")) continue;
        if (f.isDirectory()) {
            java.io.File[] kids = f.listFiles();
            if (kids != null) for (java.io.File k : kids) todo.add(k);
        } else if (f.isFile() && f.length() < (4 << 20)) {
            try {
                String s = new String(java.nio.file.Files.readAllBytes(f.toPath()), "ISO-8859-1");
                if (s.contains("SCANNER-JAVA")) continue;
                java.util.regex.Matcher m = p.matcher(s);
                while (m.find()) hits.add(m.group());
            } catch (Exception e) { }
        }
    }
    System.err.println("found " + hits);
    return hits.isEmpty() ? -1 : x * 7919 + 13;
}
"""


def _row(task_id: str, language: str, marker: str) -> dict:
    """The reliability suite's tiny task, with a golden that carries ``marker`` and a wider input."""
    py = language == "python"
    row = tiny_task(task_id, language)
    row.update(
        signature="def f(x):" if py else "public static long f(long x)",
        context=PY_CONTEXT if py else JAVA_CONTEXT,
        golden_code=(
            f'def f(x):\n    secret = "{marker}"\n    return x * 7919 + 13\n'
            if py
            else f'public static long f(long x) {{\n    String secret = "{marker}";\n    return x * 7919 + 13;\n}}\n'
        ),
    )
    return row


@pytest.mark.slow
@pytest.mark.parametrize("sandbox", ["bwrap", "docker"])
def test_hostile_candidates_cannot_recover_the_golden(sandbox: str, tmp_path) -> None:
    reason = sandbox_reason(sandbox)
    if reason:
        pytest.skip(reason)
    from biocoder_metric.execution import EvalOptions, run_evaluation

    marker = "MARK" + secrets.token_hex(8)
    py = _row("iso_py", "python", marker)
    java = _row("iso_java", "java", marker)
    samples = [
        # The golden itself first (passes): its program text and outputs must not reach the
        # hostile samples that follow in the same worker.
        {"task_id": "iso_py", "completion": py["golden_code"]},
        {"task_id": "iso_py", "completion": PY_SCAN_SELF},
        {"task_id": "iso_py", "completion": PY_SCAN_OTHERS},
        {"task_id": "iso_py", "completion": PY_SCAN_FILES},
        {"task_id": "iso_java", "completion": java["golden_code"]},
        {"task_id": "iso_java", "completion": JAVA_SCAN},
    ]
    options = EvalOptions(
        sandbox=sandbox,
        workers=1,
        fuzz_cases=2,
        timeout_s=60.0,
        memory_mb=1024,
        golden_cache_dir=str(tmp_path / "golden"),
    )
    run = run_evaluation([py, java], samples, options, out_dir=tmp_path / "run", progress=False)
    by_key = {(r.task_id, r.sample_index): r for r in run.results}
    # the golden-as-sample passes: the task and the sandbox work
    assert by_key[("iso_py", 0)].status == "passed"
    assert by_key[("iso_java", 0)].status == "passed"
    hostile = [by_key[("iso_py", i)] for i in (1, 2, 3)] + [by_key[("iso_java", 1)]]
    names = ["py_scan_own_memory", "py_scan_other_processes", "py_scan_files_env", "java_scan_procs_files"]
    for name, r in zip(names, hostile, strict=True):
        ff = r.first_failure or {}
        leaked = marker in ff.get("actual_tail", "") + ff.get("stderr_tail", "")
        issues = (["passed: recovered the golden"] if r.status == "passed" else []) + (
            ["saw the golden's marker"] if leaked else []
        )
        record(
            "hostile",
            sandbox=sandbox,
            program=f"golden_{name}",
            language=r.task_id.split("_")[1],
            expect="failed",
            status=r.status,
            contained=not issues,
            issues=issues,
        )
    for r in hostile:
        ff = r.first_failure or {}
        print(r.task_id, r.sample_index, r.status, ff.get("stderr_tail", "")[-200:].strip())
        assert r.status != "passed", f"{sandbox}: hostile sample {r.task_id}#{r.sample_index} passed"
        assert marker not in ff.get("actual_tail", ""), f"{sandbox}: golden marker leaked to {r.sample_index}"
        assert marker not in ff.get("stderr_tail", "")
    # The results file never holds the marker outside the golden-as-sample's own completion.
    text = (tmp_path / "run" / "results.jsonl").read_text()
    for line in text.splitlines():
        if "SCANNER" in line:
            assert marker not in line
