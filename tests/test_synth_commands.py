"""A parameter the golden runs as a command is drawn as a harmless command with a known output
(round 24 of harness synthesis, docs/synthesis.md): ``echo`` of drawn words or an exit status,
a string where a shell runs it, an argument list where none does. Before, a drawn word was run,
so the output was whatever program of that name the machine had (or its absence), and it varied
between machines and runs. The wrappers are made up for these tests; each harness runs for real."""

from __future__ import annotations

import textwrap

from _synth_helpers import param_kinds, run_harness

from biocoder_metric.synth import python_inputs

_SHELL = """
def run_step(cmd, label='step'):
    import subprocess
    print('running ' + label + ': ' + cmd)
    proc = subprocess.run(cmd, shell=True, stdout=subprocess.PIPE, text=True)
    return proc.returncode, proc.stdout.strip().upper()
"""
_SYSTEM = """
def launch(command_line):
    import os
    status = os.system(command_line)
    return status != 0
"""
_ARGV = """
def tool_output(args):
    from subprocess import Popen, PIPE
    proc = Popen(args, stdout=PIPE, universal_newlines=True)
    out, _ = proc.communicate()
    return proc.returncode, out.split()
"""
_ALIAS = """
def wrapped(command, verbose=False):
    import subprocess as sp
    cmd = command
    if verbose:
        print(cmd)
    return sp.call(cmd, shell=True)
"""


def test_a_run_command_is_a_shell_string_or_an_argument_list():
    assert param_kinds(_SHELL)["cmd"][0] == "command:shell"
    assert param_kinds(_SYSTEM)["command_line"][0] == "command:shell"
    assert param_kinds(_ARGV)["args"][0] == "command:argv"
    assert param_kinds(_ALIAS)["command"][0] == "command:shell"  # through ``cmd = command``


def test_a_value_not_run_is_not_a_command():
    golden = """
    def describe(cmd, shell=True):
        import subprocess
        subprocess.call(['echo', 'fixed'], shell=False)
        return cmd.split()
    """
    kinds = param_kinds(golden)["cmd"]
    assert not any(k.startswith("command:") for k in kinds), kinds
    assert python_inputs.command_kind(__import__("ast").parse(textwrap.dedent(golden)), "cmd") is None


def _results(outs: list[str]) -> list[str]:
    return [ln for o in outs for ln in o.splitlines() if ln.startswith("result: ")]


def test_the_golden_is_the_same_on_every_run_and_varies_between_cases():
    seeds = range(12)
    for golden, name in ((_SHELL, "run_step"), (_ARGV, "tool_output"), (_SYSTEM, "launch")):
        first = run_harness(golden, name, seeds)
        assert run_harness(golden, name, seeds) == first, name  # nothing of the machine shows
        results = _results(first)
        assert len(results) == 12 and len(set(results)) > 1, (name, results)
        assert not any("not found" in o or "Error" in o for o in first), (name, first)


def test_a_bug_in_what_the_wrapper_does_with_the_output_shows():
    seeds = range(12)
    golden = run_harness(_SHELL, "run_step", seeds)
    for bug in (
        _SHELL.replace(".upper()", ".lower()"),
        _SHELL.replace("proc.returncode,", "proc.returncode == 0,"),
    ):
        assert run_harness(_SHELL, "run_step", seeds, code=bug) != golden, bug
    argv = run_harness(_ARGV, "tool_output", seeds)
    assert (
        run_harness(_ARGV, "tool_output", seeds, code=_ARGV.replace("out.split()", "out.split()[:1]")) != argv
    )
    system = run_harness(_SYSTEM, "launch", seeds)
    assert run_harness(_SYSTEM, "launch", seeds, code=_SYSTEM.replace("!= 0", "== 0")) != system


def test_the_printed_lines_and_the_command_output_keep_their_order():
    """The wrapper prints, then its command writes to the same stdout: the harness shows them in
    the order the code ran them, whatever buffering the candidate's prints get."""
    golden = """
    def loud(cmd):
        import subprocess
        print('before')
        rc = subprocess.call(cmd, shell=True)
        print('after')
        return rc
    """
    outs = run_harness(golden, "loud", range(12))
    for o in outs:
        lines = o.splitlines()
        assert lines.index("before") < lines.index("after"), o
    flushed = golden.replace("print('before')", "print('before', flush=True)")
    assert run_harness(golden, "loud", range(12), code=flushed) == outs
    # an echoed command's line sits between the two
    between = [o for o in outs if o.splitlines().index("after") - o.splitlines().index("before") == 2]
    assert between, outs
