"""Repair from the golden's failures (biocoder_metric.synth.python_repair).

The reading of a failure (which line, which slot, which kind the message asks for) is tested on
diagnostics written here; the repair itself runs real goldens in the bubblewrap sandbox through
the probe synthesis uses, on goldens whose needs no static guess can see (they are read by
helpers the golden calls), so only the failures can tell.
"""

from __future__ import annotations

import ast

import pytest
import test_python_search

from biocoder_metric.synth import python_harness, python_repair, python_search, python_slice
from biocoder_metric.synth.pipeline import SynthOptions, make_probe
from biocoder_metric.synth.python_harness import Plan
from biocoder_metric.synth.python_repair import Blame, Diag

_row = test_python_search._row
pool = test_python_search.pool  # the search's bubblewrap pool fixture, shared

SPANS = '''def _width(rec):
    return rec["stop"] - rec["begin"]


def span_total(recs, pad):
    """Total width of the records, each padded."""
    total = 0
    for r in recs:
        total += _width(r) + pad
    return total
'''

MIDPOINTS = '''def _mid(iv):
    return (iv.lo + iv.hi) // 2


def midpoints(intervals, shift):
    """Midpoints of the intervals, shifted."""
    out = []
    for iv in intervals:
        out.append(_mid(iv) + shift)
    return out
'''


def _subject(source: str, name: str):
    sl = python_slice.slice_golden(source, name)
    golden = source.split("\n\n\n")[-1]
    subject = python_harness.analyse(golden, name, None, sl.class_name, sl.class_members, sl.definitions)
    return subject, sl


def _plan(subject, kinds: dict[str, str]) -> Plan:
    return Plan(args=[(p, kinds[p.name]) for p in subject.params], label="best guess")


def test_diagnostics_are_parsed_from_the_probe_output_and_junk_is_ignored():
    out = [
        "exception: KeyError\nbc-diag ('KeyError', 'f', 3, \"'gene'\", {'row': 'dict'})\n",
        "result: 4\n",
        "bc-diag not a tuple\n",
        None,
    ]
    got = python_repair.diags(out)
    assert got == [Diag("KeyError", "f", 3, "'gene'", {"row": "dict"})]


def test_the_failing_line_names_what_it_reads_and_a_loop_only_its_header():
    func = ast.parse(SPANS).body[1]
    names, stmt = python_repair.failing_names(func, 4)  # total += _width(r) + pad
    assert names == {"total", "_width", "r", "pad"} and isinstance(stmt, ast.AugAssign)
    names, stmt = python_repair.failing_names(func, 3)  # for r in recs:
    assert names == {"r", "recs"} and isinstance(stmt, ast.For)


def test_blame_follows_a_loop_variable_to_the_parameter_and_prefers_the_type_the_message_names():
    subject, _ = _subject(SPANS, "span_total")
    plan = _plan(subject, {"recs": "list_int", "pad": "str_word"})
    d = Diag("TypeError", "span_total", 4, "'int' object is not subscriptable", {"r": "int", "pad": "str"})
    got = python_repair.blame(subject, plan, d)
    assert got[0] == Blame(("arg", 0), "r", True, "int")  # recs, through its element r
    assert [b.slot for b in got] == [("arg", 0), ("arg", 1)]
    d = Diag(
        "TypeError",
        "span_total",
        4,
        "unsupported operand type(s) for +: 'int' and 'str'",
        {"r": "dict", "pad": "str"},
    )
    assert python_repair.blame(subject, plan, d)[0].slot == ("arg", 1)  # the str is the odd one
    # a failure in another function (a constructor not in the plan) blames nothing
    assert python_repair.blame(subject, plan, Diag("TypeError", "__init__", 1, "x", {})) == []


@pytest.mark.parametrize(
    ("exc", "message", "typ", "expect"),
    [
        ("TypeError", "'int' object is not subscriptable", "int", "list_int"),
        ("TypeError", "object of type 'float' has no len()", "float", "list_int"),
        ("TypeError", "unsupported operand type(s) for -: 'str' and 'int'", "str", "int_small"),
        ("TypeError", 'can only concatenate str (not "int") to str', "int", "str_word"),
        ("TypeError", "'list' object cannot be interpreted as an integer", "list", "int_small"),
        ("TypeError", "expected str, bytes or os.PathLike object, not int", "int", "path_text"),
        (
            "ValueError",
            "invalid literal for int() with base 10: 'abc'",
            "str",
            "default:str(_r.randint(0, 100))",
        ),
        (
            "ValueError",
            "not enough values to unpack (expected 3, got 2)",
            "list",
            "fixed:['int_small', 'int_small', 'int_small']",
        ),
        ("KeyError", "'depth'", "dict", "dictkeys:{'depth': 'int_small'}"),
        ("AttributeError", "'str' object has no attribute 'items'", "str", "dict_str_int"),
        ("AttributeError", "'int' object has no attribute 'chrom'", "int", "obj:{'chrom': 'str_chrom'}"),
    ],
)
def test_the_message_asks_for_a_kind(exc, message, typ, expect):
    subject, _ = _subject("def f(x, y):\n    return x\n", "f")
    got = python_repair.message_kinds(
        subject, Diag(exc, "f", 1, message, {"x": typ}), Blame(("arg", 0), "x", False, typ), None
    )
    assert expect in got, got


def test_a_repair_keeps_the_keys_and_fields_the_value_already_has_and_wraps_elements():
    subject, _ = _subject(SPANS, "span_total")
    plan = _plan(subject, {"recs": "dictlist:{'stop': 'int_end'}", "pad": "int_small"})
    d = Diag("KeyError", "span_total", 4, "'begin'", {"r": "dict"})
    b = python_repair.blame(subject, plan, d)[0]
    got = python_repair.repairs(subject, plan, d, b, plan.args[0][1])
    assert "dictlist:{'stop': 'int_end', 'begin': 'int_small'}" in got
    assert plan.args[0][1] not in got  # never the kind it has now


def _search(pool, source, name, forced):
    subject, sl = _subject(source, name)
    probe = make_probe(pool, _row(name, source), SynthOptions(sandbox="bwrap"))
    base = _plan(subject, forced)
    before = python_search.score(python_search._outputs(subject, sl, [base], probe)[0])
    return subject, sl, probe, base, before, python_search.search(subject, sl, base, probe)


@pytest.mark.bwrap
def test_a_golden_that_raises_on_every_call_is_repaired_slot_by_slot(pool):
    """Both parameters wrong, and what the records must hold is read by a helper: no single swap
    makes a call return. The repair follows the failures (an int is not subscriptable, then each
    missing key, then str + int) to a plan on which every probe call returns."""
    subject, sl, probe, base, before, found = _search(
        pool, SPANS, "span_total", {"recs": "list_int", "pad": "str_word"}
    )
    assert before.returned == 0
    assert found is not None
    plan, info = found
    assert info["repaired"]
    kinds = dict((p.name, k) for p, k in plan.args)
    assert kinds["recs"].startswith("dictlist:") and {"stop", "begin"} <= set(
        ast.literal_eval(kinds["recs"][9:])
    )
    after = python_search.score(python_search._outputs(subject, sl, [plan], probe)[0])
    assert after.returned == after.calls


@pytest.mark.bwrap
def test_an_object_the_helper_reads_fields_of_is_built_field_by_field(pool):
    subject, sl, probe, base, before, found = _search(
        pool, MIDPOINTS, "midpoints", {"intervals": "list_int", "shift": "int_small"}
    )
    assert before.returned == 0
    assert found is not None
    kinds = dict((p.name, k) for p, k in found[0].args)
    assert kinds["intervals"].startswith("objlist:")
    assert {"lo", "hi"} <= set(ast.literal_eval(kinds["intervals"][8:]))


@pytest.mark.bwrap
def test_diagnostics_stay_on_stderr_and_out_of_the_compared_output(pool):
    from biocoder_metric.synth.validate import golden_case_outputs

    subject, sl = _subject(SPANS, "span_total")
    ctx = python_harness.render(subject, sl, _plan(subject, {"recs": "list_int", "pad": "int_small"}))
    row = _row("span_total", SPANS)
    kw = dict(seed=1, timeout_s=5.0, memory_mb=512)
    plain = golden_case_outputs(pool, row, [ctx], 3, **kw)[0]
    diag = golden_case_outputs(pool, row, [ctx], 3, diagnostics=True, **kw)[0]
    assert all(o and "exception: TypeError" in o and "bc-diag" not in o for o in plain)
    assert all("bc-diag ('TypeError', 'span_total'" in o for o in diag)


def test_an_attribute_self_lacks_is_added_to_the_plan_only_for_the_subject_class():
    golden = "def scaled(self, values):\n    return [self._norm(v) for v in values]\n"
    subject = python_harness.analyse(golden, "scaled", None, "Scaler", [], [])
    plan = Plan(args=[(p, "list_int") for p in subject.params], attrs=[], label="best guess")
    d = Diag("AttributeError", "_norm", 1, "'Scaler' object has no attribute 'total'", {})
    got = python_repair.missing_attribute(subject, plan, d)
    assert got and all(name == "total" for name, _ in got)
    assert len({k for _, k in got}) == len(got) >= 3  # several kinds, none twice
    # another class's object, or an attribute the plan already sets: nothing to add
    other = Diag("AttributeError", "_norm", 1, "'int' object has no attribute 'total'", {})
    assert python_repair.missing_attribute(subject, plan, other) == []
    has = Plan(args=plan.args, attrs=[("total", "int_small")], label="best guess")
    assert python_repair.missing_attribute(subject, has, d) == []


def test_a_deliberate_raise_blames_the_condition_that_chose_it():
    func = ast.parse(
        "def codons(seq, frame):\n"
        "    if len(seq) % 3 != frame:\n"
        "        raise ValueError('bad length')\n"
        "    return seq\n"
    ).body[0]
    names, stmt = python_repair.failing_names(func, 2)
    assert names == {"len", "seq", "frame"} and isinstance(stmt, ast.If)


def test_a_value_returned_by_a_name_with_no_source_is_blamed_through_what_is_derived_from_it():
    golden = (
        "def total_depth(path):\n"
        '    """Sum of the depths of the records a helper with no source loads."""\n'
        "    recs = load_records(path)\n"
        "    return sum(r.depth for r in recs)\n"
    )
    subject = python_harness.analyse(golden, "total_depth", None, None, [], [])
    plan = Plan(
        args=[(p, "path_text") for p in subject.params],
        stubs=[("load_records()", "list_int")],
        label="best guess",
    )
    d = Diag("AttributeError", "total_depth", 3, "'int' object has no attribute 'depth'", {"recs": "list"})
    got = python_repair.blame(subject, plan, d)
    assert got[0].slot == ("stub", 0) and got[0].local == "r" and got[0].element
    kinds = python_repair.repairs(subject, plan, d, got[0], "list_int")
    assert "objlist:{'depth': 'int_small'}" in kinds or any(k.startswith("objlist:{'depth'") for k in kinds)


HOSTILE = '''class Odd(Exception):
    def __str__(self):
        raise RuntimeError("no message for you")


def picky(n):
    """Rejects every input with an exception that cannot be printed."""
    raise Odd()
'''


@pytest.mark.bwrap
def test_an_exception_that_cannot_be_printed_leaves_the_case_output_as_it_was(pool):
    """The diagnostic reads the exception's message; one whose ``__str__`` raises must not change
    what the case prints (its type on the exception line), only lose the diagnostic."""
    from biocoder_metric.synth.validate import golden_case_outputs

    subject, sl = _subject(HOSTILE, "picky")
    ctx = python_harness.render(subject, sl, _plan(subject, {"n": "int_small"}))
    outs = golden_case_outputs(
        pool, _row("picky", HOSTILE), [ctx], 2, diagnostics=True, seed=3, timeout_s=5.0, memory_mb=512
    )[0]
    assert all(o is not None and "exception: Odd" in o and "bc-diag" not in o for o in outs)


POOLED = '''def pooled(counts, totals):
    """Pooled size of two samples."""
    if len(counts) > 0 and len(totals) > 0:
        return len(counts) * 100 + len(totals)
    return 0
'''


def _repaired(pool, source, name, forced):
    """The repair of a plan on which the golden returns on no probe call (asserted), or None."""
    subject, sl = _subject(source, name)
    probe = make_probe(pool, _row(name, source), SynthOptions(sandbox="bwrap"))
    base = _plan(subject, forced)
    out = python_search._outputs(subject, sl, [base], probe)[0]
    assert python_search.score(out).returned == 0
    return repair_on(subject, sl, probe, base, out)


def repair_on(subject, sl, probe, base: Plan, out):
    """python_repair.repair of ``base`` (whose probe outputs are ``out``), its rounds run on ``probe``."""
    return python_repair.repair(
        subject,
        base,
        out,
        run=lambda ps: python_search._outputs(subject, sl, ps, probe),
        value=lambda o: python_search.score(o).value,
        variant=python_search._variant,
        current_kind=python_search.base_kind_of,
        label="repaired",
    )


@pytest.mark.bwrap
def test_slots_that_fail_the_same_way_are_repaired_together(pool):
    """Both arguments are ints where ``len`` needs sequences: fixing one leaves the very same
    failure on the other, so only a joint repair makes progress."""
    got = _repaired(pool, POOLED, "pooled", {"counts": "int_small", "totals": "int_small"})
    assert got is not None
    plan, outs, steps = got
    assert steps[0].startswith("joint")
    assert python_search.score(outs).returned == len(outs)
    assert all(k != "int_small" for _, k in plan.args)


def test_digits_are_asked_for_where_int_parses_a_string_or_a_list_of_fields():
    subject, _ = _subject("def f(x, y):\n    return x\n", "f")
    msg = "invalid literal for int() with base 10: 'abc'"
    one = python_repair.message_kinds(
        subject, Diag("ValueError", "f", 1, msg, {}), Blame(("arg", 0), "x", False, "str"), None
    )
    many = python_repair.message_kinds(
        subject, Diag("ValueError", "f", 1, msg, {}), Blame(("arg", 0), "x", False, "list"), None
    )
    assert one == ["default:str(_r.randint(0, 100))"]
    assert many[0].startswith("default:[str(_r.randint(0, 100)) for _ in")


def test_a_local_picked_by_position_from_a_self_attribute_blames_the_attribute_as_its_element():
    """``counts = self.tally_list[i % n]`` failing on ``counts.values()``: the attribute holds
    the wrong elements; the index only picked one, so it comes after."""
    golden = (
        "def report(self, i):\n"
        "    counts = self.tally_list[i % len(self.tally_list)]\n"
        "    return sum(counts.values()), len(counts)\n"
    )
    subject = python_harness.analyse(golden, "report", None, "Tally", [], [])
    plan = Plan(
        args=[(p, "int_small") for p in subject.params], attrs=[("tally_list", "list_str")], label="x"
    )
    d = Diag(
        "AttributeError", "report", 2, "'str' object has no attribute 'values'", {"counts": "str", "i": "int"}
    )
    got = python_repair.blame(subject, plan, d)
    assert got[0] == Blame(("attr", 0), "counts", True, "str")
    assert [b.slot for b in got] == [("attr", 0), ("arg", 0)]
    # the repair offers a list of dicts for the attribute (the elements are wrapped)
    kinds = python_repair.repairs(subject, plan, d, got[0], "list_str")
    assert kinds[0].startswith("dictlist:")


def test_a_type_error_naming_a_class_of_the_slice_asks_for_that_class_built_by_its_constructor():
    """``check_type(g, Calls)`` raising ``expected <class '__main__.Calls'>, found <class 'dict'>``:
    the argument must be one of the slice's own classes, built through its ``__init__``."""
    sl = python_slice.Slice(origin="repository")
    sl.definitions = [
        "class Calls:\n    def __init__(self, data, ploidy=2):\n        self.data = data\n",
        "def check_type(x, cls):\n    if not isinstance(x, cls):\n"
        "        raise TypeError('expected %r, found %r' % (cls, type(x)))\n",
    ]
    golden = "def n_calls(g):\n    check_type(g, Calls)\n    return len(g.data)\n"
    subject = python_harness.analyse(golden, "n_calls", None, None, [], sl.definitions)
    plan = _plan(subject, {"g": "dict_str_int"})
    message = "expected <class '__main__.Calls'>, found <class 'dict'>"
    d = Diag("TypeError", "n_calls", 1, message, {"g": "dict"})
    b = python_repair.blame(subject, plan, d)[0]
    kinds = python_repair.repairs(subject, plan, d, b, "dict_str_int", python_search._sources(sl))
    assert kinds[0].startswith("ctor:Calls:") and "'data'" in kinds[0] and "ploidy" not in kinds[0]
    # a class the slice does not define is not offered
    other = Diag("TypeError", "n_calls", 1, "expected <class 'numpy.ndarray'>", {"g": "dict"})
    assert not any(
        k and k.startswith("ctor:") for k in python_repair.repairs(subject, plan, other, b, "dict_str_int")
    )


MASS = '''def molar_mass(sample, weights):
    """Mass of a sample: each atom's weight times its count."""
    total = 0.0
    for atom, count in sample.atoms:
        total += weights.get(atom.symbol, 1.0) * count
    return total
'''

LEADERS = '''def leader_score(groups, bonus):
    """The first group's leader's score, plus a bonus per group."""
    lead = groups[0].leader
    return lead.score + bonus * len(groups)
'''


@pytest.mark.bwrap
def test_a_value_deep_in_a_record_is_repaired_where_the_code_reached_it(pool):
    """``atom`` is position 0 of an element of ``sample.atoms``: its missing ``symbol`` is
    repaired there, not on ``sample`` or on the dict the symbol is looked up in."""
    got = _repaired(pool, MASS, "molar_mass", {"sample": "int_small", "weights": "dict_str_float"})
    assert got is not None
    plan, outs, steps = got
    assert python_search.score(outs).returned == len(outs)
    kinds = dict((p.name, k) for p, k in plan.args)
    assert kinds["weights"] == "dict_str_float"
    atoms = ast.literal_eval(kinds["sample"][len("obj:") :])["atoms"]
    assert atoms.startswith("tuplelist:")
    first = ast.literal_eval(atoms[len("tuplelist:") :])[0]
    assert first.startswith("obj:") and "symbol" in ast.literal_eval(first[len("obj:") :])


@pytest.mark.bwrap
def test_an_element_picked_by_index_gets_the_fields_read_on_it(pool):
    got = _repaired(pool, LEADERS, "leader_score", {"groups": "list_int", "bonus": "int_small"})
    assert got is not None
    plan, outs, steps = got
    assert python_search.score(outs).returned == len(outs)
    kinds = dict((p.name, k) for p, k in plan.args)
    assert kinds["groups"].startswith("objlist:")
    lead = ast.literal_eval(kinds["groups"][len("objlist:") :])["leader"]
    assert "score" in ast.literal_eval(lead[len("obj:") :])


def test_path_repairs_stay_off_a_failure_on_the_slot_itself():
    subject, _ = _subject(LEADERS, "leader_score")
    plan = _plan(subject, {"groups": "int_small", "bonus": "int_small"})
    d = Diag("TypeError", "leader_score", 2, "'int' object is not subscriptable", {"groups": "int"})
    got = python_repair.path_repairs(subject, plan, d, python_search.base_kind_of)
    # ``groups[0]`` is the slot subscripted: blame's repair, not a path's
    assert got == []
    d2 = Diag(
        "AttributeError", "leader_score", 2, "'int' object has no attribute 'leader'", {"groups": "list"}
    )
    plan2 = _plan(subject, {"groups": "list_int", "bonus": "int_small"})
    got2 = python_repair.path_repairs(subject, plan2, d2, python_search.base_kind_of)
    assert got2 and got2[0][0] == ("arg", 0) and got2[0][1].startswith("objlist:")


def test_a_value_written_to_is_repaired_into_an_open_file():
    golden = "def dump(rows, sink):\n    for r in rows:\n        sink.write(r)\n    return len(rows)\n"
    subject = python_harness.analyse(golden, "dump", None, None, [], [])
    plan = _plan(subject, {"rows": "list_str", "sink": "str_word"})
    d = Diag(
        "AttributeError", "dump", 2, "'str' object has no attribute 'write'", {"sink": "str", "r": "str"}
    )
    b = python_repair.blame(subject, plan, d)[0]
    assert b.slot == ("arg", 1)
    assert python_repair.repairs(subject, plan, d, b, "str_word")[0] == "handle_out"


def test_a_value_rejected_by_value_is_drawn_from_the_words_the_docstring_quotes():
    golden = '''def styled(text, style):
    """Wrap ``text`` in a style.

    Args:
        style (str): one of ``bold``, ``italic`` or 'mono'.
    """
    assert style in _STYLES, "unknown style"
    return "<%s>%s</%s>" % (style, text, style)
'''
    subject = python_harness.analyse(golden, "styled", None, None, [], [])
    plan = _plan(subject, {"text": "str_word", "style": "int_small"})
    d = Diag("AssertionError", "styled", 6, "unknown style", {"style": "int", "text": "str"})
    b = python_repair.blame(subject, plan, d)[0]
    assert b.slot == ("arg", 1)
    first = python_repair.repairs(subject, plan, d, b, "int_small")[0]
    assert first.startswith("choice:")
    assert {"bold", "italic", "mono"} <= set(ast.literal_eval(first[len("choice:") :]))


ARMS = '''def arm_weight(genome, scale):
    """Total weight of the genome's arms, each scaled by its name's length."""
    total = 0.0
    for name, arm in genome.arms():
        total += arm.weight * len(name) * scale
    return total
'''


@pytest.mark.bwrap
def test_what_a_records_method_returns_is_repaired_through_the_call(pool):
    """``genome.arms()`` returns the pairs the loop unpacks, and the second of each is an object:
    the repair follows the path through the method's result."""
    got = _repaired(pool, ARMS, "arm_weight", {"genome": "int_small", "scale": "float_pos"})
    assert got is not None
    plan, outs, steps = got
    assert python_search.score(outs).returned == len(outs)
    genome = dict((p.name, k) for p, k in plan.args)["genome"]
    arms = ast.literal_eval(genome[len("obj:") :])["arms"]
    assert arms.startswith("stub:tuplelist:") and "weight" in arms


def test_a_list_extended_by_text_is_repaired_into_text():
    golden = "def bim_path(prefix, suffix):\n    return prefix + '.bim' + suffix\n"
    subject = python_harness.analyse(golden, "bim_path", None, None, [], [])
    plan = _plan(subject, {"prefix": "list_int", "suffix": "str_word"})
    d = Diag("TypeError", "bim_path", 1, 'can only concatenate list (not "str") to list', {"prefix": "list"})
    b = python_repair.blame(subject, plan, d)[0]
    assert b.slot == ("arg", 0)
    assert python_repair.repairs(subject, plan, d, b, "list_int")[0] == "str_word"
