"""Access paths inside a slot's value (biocoder_metric.synth.python_access).

The functions here are made up for these tests: records reached through fields, elements,
unpacked positions, ``enumerate`` and ``zip``, the way bioinformatics code walks its objects.
"""

from __future__ import annotations

import ast

from biocoder_metric.synth import python_access as pa


def _func(src: str) -> ast.AST:
    return ast.parse(src).body[0]


WALK = """def walk(sample, table, pairs, self_free=None):
    for atom, n in sample.atoms:
        sym = atom.symbol
    lead = sample.groups[0].leader
    for i, rec in enumerate(sorted(table)):
        first = rec["name"]
    for left, right in zip(pairs, table):
        pass
    a, b = pairs[1]
    other = compute(sample)
    sample = sample.strip()
    for part in other.parts:
        pass
"""


def test_locals_are_followed_back_to_the_slot_through_fields_elements_and_positions():
    got = pa.bindings(_func(WALK), ["sample", "table", "pairs"])
    assert got["atom"] == ("sample", (("attr", "atoms"), ("elem",), ("pos", 0, 2)))
    assert got["n"] == ("sample", (("attr", "atoms"), ("elem",), ("pos", 1, 2)))
    assert got["sym"] == ("sample", (("attr", "atoms"), ("elem",), ("pos", 0, 2), ("attr", "symbol")))
    assert got["lead"] == ("sample", (("attr", "groups"), ("index", 0), ("attr", "leader")))
    assert got["rec"] == ("table", (("elem",),))  # enumerate's second name; sorted keeps elements
    assert got["first"] == ("table", (("elem",), ("key", "name")))
    assert got["left"] == ("pairs", (("elem",),)) and got["right"] == ("table", (("elem",),))
    assert got["a"] == ("pairs", (("index", 1), ("pos", 0, 2)))
    # a call's result is not a path, and a slot rebound from itself stays the slot
    assert "other" not in got and "part" not in got
    assert got["sample"] == ("sample", ())


def test_an_expression_path_reads_subscripts_by_kind_of_index():
    binds = {"x": ("x", ())}
    path = lambda src: pa.expr_path(ast.parse(src, mode="eval").body, binds)  # noqa: E731
    assert path("x[0].y") == ("x", (("index", 0), ("attr", "y")))
    assert path("x[k]['id']") == ("x", (("elem",), ("key", "id")))
    assert path("x[-1]") == ("x", (("elem",),))
    assert path("x[1:3]") == ("x", ())
    assert path("f(x)") is None and path("x + 1") is None


def test_a_kind_is_rewritten_at_a_path_keeping_what_else_it_holds():
    cur = "obj:{'atoms': \"tuplelist:['int_small', 'float']\", 'name': 'str_word'}"
    path = (("attr", "atoms"), ("elem",), ("pos", 0, 2))
    assert pa.kind_at(cur, path) == "int_small"
    new = pa.rewrite(cur, path, "obj:{'symbol': 'str_word'}")
    fields = ast.literal_eval(new[len("obj:") :])
    assert fields["name"] == "str_word"
    assert fields["atoms"].startswith("tuplelist:")
    assert ast.literal_eval(fields["atoms"][len("tuplelist:") :]) == ["obj:{'symbol': 'str_word'}", "float"]
    assert pa.kind_at(new, path) == "obj:{'symbol': 'str_word'}"


def test_missing_levels_are_built_as_objects_lists_and_tuples():
    # an int where ``groups[0].leader.score`` is read: a list of objects holding an object
    got = pa.rewrite("int_small", (("index", 0), ("attr", "leader")), "obj:{'score': 'float'}")
    assert got == "objlist:" + repr({"leader": "obj:{'score': 'float'}"})
    # ``for a, b in x``: each element a pair, position 1 the asked kind, the other a default
    assert pa.rewrite(None, (("elem",), ("pos", 1, 2)), "str_word") == "tuplelist:['int_small', 'str_word']"
    assert pa.rewrite("dictkeys:{'id': 'int_small'}", (("key", "rows"),), "list_int") == (
        "dictkeys:" + repr({"id": "int_small", "rows": "list_int"})
    )
    # a list of lists of records cannot be written as a kind here
    assert pa.rewrite(None, (("elem",), ("elem",), ("elem",)), "obj:{'a': 'int_small'}") is None
    # a position past the tuple's width is no repair
    assert pa.rewrite(None, (("pos", 3, 2),), "int_small") is None


def test_element_kinds_and_list_kinds_are_inverse_where_both_exist():
    for one in (
        "obj:{'a': 'int_small'}",
        "dictkeys:{'k': 'str_word'}",
        "fixed:['int_small', 'float']",
        "str_word",
    ):
        assert pa.element_kind(pa.as_elements(one)) == one
    assert pa.element_kind("str_word") is None and pa.as_elements("bool") is None


def test_what_a_records_method_returns_is_a_step_of_the_path():
    src = "def f(genome):\n    for name, arm in genome.arms():\n        w = arm.weight\n    keys = genome.meta.keys()\n"
    got = pa.bindings(_func(src), ["genome"])
    assert got["arm"] == ("genome", (("attr", "arms"), ("call",), ("elem",), ("pos", 1, 2)))
    assert "keys" not in got  # a builtin method's result is no field of the record
    cur = "obj:{'arms': 'stub:int_small'}"
    new = pa.rewrite(cur, got["arm"][1], "obj:{'weight': 'float'}")
    arms = ast.literal_eval(new[len("obj:") :])["arms"]
    assert arms == "stub:tuplelist:" + repr(["int_small", "obj:{'weight': 'float'}"])
    assert pa.kind_at(new, got["arm"][1]) == "obj:{'weight': 'float'}"
