"""Values the code tests against names and fixed texts (round 26 of harness synthesis,
docs/synthesis.md): a value compared with named constants, through a local copy or from a field
(``algo = self.threshold_algorithm; if algo == centrosome.threshold.TM_OTSU``), is sometimes one
of them, whatever type the drawn value had; a string whose prefix or suffix is compared with a
text (``tsl[:3] == 'tsl'``) is a string with that text planted there; a ``*args`` the code runs
as a command is a harmless command. Before, a drawn value never equalled a named constant of
another module, so only the fall-through branch ran, and ``*args`` ran drawn words as programs.
The goldens are made up for these tests; each harness runs for real on the host."""

from __future__ import annotations

import ast
import textwrap

from _synth_helpers import param_kinds, pipeline_context, run_context, run_harness

from biocoder_metric.synth import python_evidence

_FIELD = """
import http
def verdict(self):
    status = self.threshold_status
    if status == http.HTTPStatus.OK:
        return 'fine'
    elif status in (http.HTTPStatus.NOT_FOUND, http.HTTPStatus.GONE):
        return 'missing'
    return 'unknown'
"""

_PARAM = """
import http
def verdict(cutoff_status, label):
    if cutoff_status == http.HTTPStatus.OK:
        return label.upper()
    return label.lower()
"""


def _results(outs: list[str]) -> list[str]:
    return [ln for o in outs for ln in o.splitlines() if ln.startswith("result: ")]


def test_named_constants_are_read_through_a_copy_a_field_and_a_tuple():
    tree = ast.parse(textwrap.dedent(_FIELD))
    got = python_evidence.compared_constants(tree, "self.threshold_status")
    assert got == ["http.HTTPStatus.OK", "http.HTTPStatus.NOT_FOUND", "http.HTTPStatus.GONE"]
    assert python_evidence.plain_aliases(tree, "self.threshold_status") == {"self.threshold_status", "status"}
    # a lower-case name is a variable, not a constant
    other = ast.parse("def f(x, y):\n    return x == y.value\n")
    assert python_evidence.compared_constants(other, "x") == []


def test_a_field_compared_with_named_constants_reaches_their_branches():
    seeds = range(16)
    results = _results(run_harness(_FIELD, "verdict", seeds, class_name="Probe"))
    assert len(results) == 16
    assert {"result: 'fine'", "result: 'missing'", "result: 'unknown'"} <= set(results), results
    # a bug in one branch shows
    bug = _FIELD.replace("return 'missing'", "return 'unknown'")
    assert _results(run_harness(_FIELD, "verdict", seeds, code=bug, class_name="Probe")) != results


def test_a_parameter_of_another_type_is_sometimes_the_constant():
    """``cutoff_status`` reads as a number by its name; the constant is what the branch needs."""
    seeds = range(16)
    results = _results(run_harness(_PARAM, "verdict", seeds))
    uppers = [r for r in results if r[len("result: '") :].rstrip("'").isupper()]
    assert uppers and len(uppers) < len(results), results


def test_a_compared_prefix_makes_a_string_with_that_prefix():
    golden = """
    def level(code):
        if code in (None, '', 'tslNA'):
            return 0
        if code[:3] != 'tsl':
            raise ValueError(code)
        return len(code[3:])
    """
    assert param_kinds(golden)["code"][0].startswith(("choice:", "str_"))
    tree = ast.parse(textwrap.dedent(golden))
    assert python_evidence.char_constants(tree, "code") == [(0, "tsl")]
    suffix = ast.parse("def f(name):\n    return name[-4:] == '.bam'\n")
    assert python_evidence.char_constants(suffix, "name") == [(-4, ".bam")]
    results = _results(run_harness(golden, "level", range(20)))
    assert len({r for r in results if r != "result: 0"}) >= 2, results  # past the prefix test


def test_varargs_run_as_a_command_are_a_harmless_command():
    golden = """
    def call_quiet(*args):
        import subprocess
        if not args:
            raise ValueError('no command')
        proc = subprocess.run(args, check=True, capture_output=True)
        return proc.stdout.decode().split()
    """
    assert param_kinds(golden)["args"][0] == "command:argv"
    seeds = range(12)
    first = run_harness(golden, "call_quiet", seeds)
    assert run_harness(golden, "call_quiet", seeds) == first
    results = _results(first)
    assert len(results) >= 8 and len(set(results)) > 4, first
    bug = golden.replace(".split()", ".split()[:1]")
    assert _results(run_harness(golden, "call_quiet", seeds, code=bug)) != results


def test_keys_read_from_kwargs_are_passed_by_keyword():
    """``**kwargs`` was never filled: ``kwargs['protein']`` raised ``KeyError`` on every case."""
    golden = """
    def blast_command(db, **kwargs):
        cmd = ['tblastn' if kwargs['protein'] else 'blastn', '-db', str(db)]
        if 'evalue' in kwargs:
            cmd += ['-evalue', str(kwargs['evalue'])]
        cmd += ['-num_threads', str(kwargs.get('threads', 1))]
        return ' '.join(cmd)
    """
    kinds = param_kinds(golden)
    assert {"protein", "evalue", "threads"} <= set(kinds), kinds
    seeds = range(16)
    results = _results(run_harness(golden, "blast_command", seeds))
    assert len(results) == 16, results
    assert any("tblastn" in r for r in results) and any("-evalue" in r for r in results), results
    assert any("-evalue" not in r for r in results), results  # an optional key is sometimes absent
    bug = golden.replace("kwargs.get('threads', 1)", "kwargs.get('threads', 2)")
    assert _results(run_harness(golden, "blast_command", seeds, code=bug)) != results


def test_an_object_the_code_only_instructs_shows_its_calls():
    """``log.subcommand(command)``: the method's value is never used, so its call is the output;
    logging calls are not (a candidate may word its messages otherwise)."""
    golden = """
    def run_blast(log, query, out):
        log.info('starting')
        command = 'blastn -query {} -out {} -outfmt 15'.format(query, out)
        log.subcommand(command, timeout=60)
    """
    seeds = range(8)
    outs = run_harness(golden, "run_blast", seeds)
    calls = [ln for o in outs for ln in o.splitlines() if ln.startswith("stub call: subcommand")]
    assert all("stub call: subcommand" in o for o in outs) and len(set(calls)) > 1, outs
    assert not any("starting" in o for o in outs), outs
    bug = golden.replace("-outfmt 15", "-outfmt 6")
    assert run_harness(golden, "run_blast", seeds, code=bug) != outs


def test_sys_exit_on_bad_input_is_an_error_path_not_a_failed_case():
    golden = """
    def check_window(window, step):
        import sys
        if step > window:
            print('step larger than window')
            sys.exit(1)
        return list(range(0, window, max(step, 1)))
    """
    outs = run_harness(golden, "check_window", range(20))  # check=True: every case exits 0
    lines = [ln for o in outs for ln in o.splitlines()]
    assert "exception: SystemExit" in lines and any(ln.startswith("result: [") for ln in lines), lines


def test_a_field_whose_keys_are_taken_is_a_mapping():
    golden = """
    def sorted_regions(self):
        names = sorted(self.regions.keys())
        return [self.regions[n] for n in names if len(self.regions) > 1]
    """
    from biocoder_metric.synth import python_harness

    subject = python_harness.analyse(textwrap.dedent(golden), "sorted_regions", class_name="Regions")
    kinds = dict(python_harness.plans(subject)[0].attrs)
    assert kinds["regions"].startswith("dict"), kinds


def test_lengths_an_early_return_compares_are_made_equal():
    golden = """
    def trim(sequence, quality, adaptor):
        if len(sequence) < len(adaptor) or len(sequence) != len(quality):
            return sequence, quality
        pos = sequence.find(adaptor)
        return (sequence[:pos], quality[:pos]) if pos != -1 else (sequence, quality)
    """
    tree = ast.parse(textwrap.dedent(golden))
    assert python_evidence.equal_lengths(tree.body[0], ["sequence", "quality", "adaptor"]) == [
        ("sequence", "quality")
    ]
    results = _results(run_harness(golden, "trim", range(20)))
    same = [
        r
        for r in results
        if len(ast.literal_eval(r[len("result: ") :])[0]) == len(ast.literal_eval(r[len("result: ") :])[1])
    ]
    assert len(same) >= 14, results


def test_a_text_searched_for_anywhere_is_put_in_some_strings():
    """``'@in' in cmd`` / ``re.findall('@in', cmd)``: a random string never holds it."""
    golden = """
    def map_command(cmd):
        import re
        if len(re.findall('@in', cmd)) != 1:
            raise ValueError('one @in needed')
        if cmd.count('@out') > 1:
            raise ValueError('at most one @out')
        return cmd.replace('@in', 'reads.fq').replace('@out', 'out.sam')
    """
    tree = ast.parse(textwrap.dedent(golden))
    assert {(None, "@in"), (None, "@out")} <= set(python_evidence.char_constants(tree, "cmd"))
    results = _results(run_harness(golden, "map_command", range(30)))
    assert len([r for r in results if "reads.fq" in r]) >= 3, results
    bug = golden.replace("'reads.fq'", "'reads.fastq'")
    assert _results(run_harness(golden, "map_command", range(30), code=bug)) != results


def test_a_bound_in_range_or_an_array_shape_is_an_int():
    golden = """
    def coverage(start, stop, bins):
        import numpy as np
        counts = np.zeros((bins,))
        for i in range(start, stop + 1):
            counts[i % bins] += 1
        return counts.tolist(), np.linspace(start, stop, num=bins).round(3).tolist()
    """
    kinds = param_kinds(golden)
    assert all(kinds[n][0].startswith("int") for n in ("start", "stop", "bins")), kinds
    results = _results(run_harness(golden, "coverage", range(12)))
    assert len(results) >= 8 and len(set(results)) > 4, results


def test_an_object_only_read_lines_from_is_an_open_file():
    golden = """
    def header_lines(stream):
        out = []
        line = stream.readline()
        while line.startswith('#'):
            out.append(line.strip())
            line = stream.readline()
        return out, line.strip()
    """
    assert param_kinds(golden)["stream"][0].startswith(("fmt:handle:", "handle:")), param_kinds(golden)
    results = _results(run_harness(golden, "header_lines", range(12)))
    assert len(results) == 12 and len(set(results)) > 4, results


def test_a_value_ordered_against_zero_and_one_is_a_fraction():
    """``if maf < 0 or maf > 0.5: raise``: the int bounds voted an int, drawn 0..10, and nearly
    every draw was rejected; ``count > 1`` alone stays a count."""
    golden = """
    def expected_het(maf, prob, count):
        if maf < 0 or maf > 0.5:
            raise ValueError('maf out of range')
        if not 0 <= prob <= 1:
            raise ValueError('prob out of range')
        if count > 1:
            return round(2 * maf * (1 - maf) * prob * count, 6)
        return round(maf * prob, 6)
    """
    kinds = param_kinds(golden)
    assert kinds["maf"][0] == "float_unit" and kinds["prob"][0] == "float_unit", kinds
    assert kinds["count"][0].startswith("int"), kinds
    results = _results(run_harness(golden, "expected_het", range(16)))
    assert len(set(results)) > 8, results


_pipeline = pipeline_context


def test_a_helper_result_spread_into_a_call_is_a_sequence(tmp_path):
    golden = """
    def report(sites, out):
        n = 0
        for site in sites:
            print(*describe_site(site), sep='\\t', file=out)
            n += 1
        return n
    """
    ctx, plan = _pipeline(golden, "report")
    assert plan["stub describe_site()"].startswith(("list", "tuple")), plan
    outs = run_context(ctx, textwrap.dedent(golden), range(8), tmp_path)
    assert len(_results(outs)) == 8 and not any("exception" in o for o in outs), outs


def test_a_helper_bound_to_a_local_and_called_is_a_function(tmp_path):
    golden = """
    def run_all(jobs):
        execute = run_job
        results = list(map(execute, jobs))
        return [r for r in results if r]
    """
    ctx, plan = _pipeline(golden, "run_all")
    assert "stub run_job()" in plan, plan
    results = _results(run_context(ctx, textwrap.dedent(golden), range(8), tmp_path))
    assert len(results) == 8 and len(set(results)) > 2, results


def test_what_is_written_to_a_file_is_text_and_et_is_elementtree(tmp_path):
    golden = """
    def save_license(out_dir, name, holder):
        text = make_license(name, holder)
        root = ET.Element('package', name=name)
        with open(out_dir + '/LICENSE', 'w') as fh:
            fh.write(text)
        return ET.tostring(root).decode(), len(text)
    """
    ctx, plan = _pipeline(golden, "save_license")
    assert plan["stub make_license()"].startswith("str"), plan
    assert "import xml.etree.ElementTree as ET" in ctx
    assert not any(k.startswith("stub ET") for k in plan), plan


def test_list_elements_compared_with_words_are_those_words():
    golden = """
    def output_suffixes(out_format):
        for fmt in out_format:
            if fmt not in {'impute2', 'dosage', 'calls', 'bed'}:
                raise ValueError('unknown format ' + fmt)
        return sorted('.' + fmt for fmt in set(out_format))
    """
    kind = param_kinds(golden)["out_format"][0]
    assert kind.startswith("vocab_list:") and set(eval(kind[len("vocab_list:") :])) == {
        "impute2",
        "dosage",
        "calls",
        "bed",
    }, kind
    results = _results(run_harness(golden, "output_suffixes", range(16)))
    assert len(results) >= 4 and len(set(results)) > 2, results


def test_a_folder_joined_with_file_names_holds_those_files():
    """``os.path.join(results_dir, 'counts.tsv')`` opened for reading: the folder is made with
    that file in it (round 27: a folder was drawn empty, and every call raised FileNotFoundError)."""
    golden = """
    def load_counts(results_dir, minimum=0):
        import os
        with open(os.path.join(results_dir, 'counts.tsv')) as fh:
            rows = [line.rstrip('\\n').split('\\t') for line in fh if line.strip()]
        return {r[0]: len(r) for r in rows if len(r) > minimum}
    """
    kind = param_kinds(golden)["results_dir"][0]
    assert kind.startswith("prefix:") and "/counts.tsv" in kind, kind
    results = _results(run_harness(golden, "load_counts", range(8)))
    assert len(results) == 8 and len(set(results)) > 4, results


def test_a_handle_read_by_dictreader_is_a_table_with_the_columns_read():
    golden = """
    def read_ids(f, prefix):
        import csv
        out = []
        for lineno, row in enumerate(csv.DictReader(f, delimiter=str('\\t'))):
            if 'id' not in row or row['id'].strip() == '':
                raise ValueError('Expected `id` column, line %d' % (lineno + 2))
            out.append(prefix.upper() + row['id'] + ':' + (row.get('name') or '?'))
        return out
    """
    kind = param_kinds(golden)["f"][0]
    assert kind.startswith("dictrows:") and "'id'" in kind and "'name'" in kind, kind
    results = _results(run_harness(golden, "read_ids", range(8)))
    assert len(results) == 8 and len(set(results)) > 4, results


def test_a_path_is_never_drawn_as_a_number():
    """``os.path.exists(3)`` and ``open(3)`` read file descriptor 3: a path drawn as an int made the
    output whatever the process had open (a harness validated so, and its golden's rewrites then
    failed). Neither the ranked kinds nor the plan search's generic ones offer a number for it."""
    from biocoder_metric.synth import python_inputs, python_search

    kinds = python_inputs.rank_kinds("installed_filepath", {"path": 4.0})
    assert kinds[0].startswith("path") and not any(k.startswith(("int_", "list_int")) for k in kinds), kinds
    assert not any(k.startswith("int_") for k in python_search._generic(["path_text"]))
    assert "int_small" in python_search._generic(["str_word"])
    golden = """
    def installed(relative_path):
        import os
        full = resource_filename('pkg', relative_path)
        if not os.path.exists(full):
            raise ValueError(relative_path)
        return full
    """
    _, plan = _pipeline(golden, "installed")
    assert not plan["stub resource_filename()"].startswith("int"), plan
