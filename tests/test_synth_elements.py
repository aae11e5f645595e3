"""The elements of what a library object hands back: typed by every loop over it, through the
copies the code makes first, with a length when the code asks one, and shown reproducibly
(round 22 of harness synthesis, docs/synthesis.md). Made-up goldens."""

from __future__ import annotations

import textwrap

from _synth_helpers import param_kinds as _kinds
from _synth_helpers import payload as _payload
from _synth_helpers import run_harness

from biocoder_metric.synth import python_harness, python_slice


def _run(golden: str, name: str, seed: int) -> str:
    return run_harness(golden, name, (seed,))[0]


_BLOCKS = """
    def block_sizes(tx, db):
        parts = list(db.parts(tx, kind="block"))
        sizes = [len(p) for p in parts]
        offsets = [p.begin - tx for p in parts]
        return ",".join(map(str, sizes)), ",".join(map(str, offsets))
"""


def test_a_list_copied_from_a_stubs_result_types_its_elements_by_the_loop_over_the_copy():
    # ``parts = list(db.parts(...))`` then ``for p in parts``: the stub returns objects with
    # ``begin`` (before: a list of numbers, and ``p.begin`` raised on every call)
    db = _kinds(_BLOCKS)["db"][0]
    method = _payload(db, "obj:")["parts"]
    fields = _payload(method, "stub:objlist:")
    assert "begin" in fields


def test_an_element_whose_length_is_asked_is_drawn_with_one():
    db = _kinds(_BLOCKS)["db"][0]
    fields = _payload(_payload(db, "obj:")["parts"], "stub:objlist:")
    assert fields["_bc_len"] == "int_pos"
    out = _run(_BLOCKS, "block_sizes", seed=5)
    assert out.startswith("result: "), out[:400]
    assert "exception" not in out.splitlines()[0]


def test_every_loop_over_one_stub_adds_the_fields_its_variable_reads():
    db = _kinds("""
        def exon_total(db, gene):
            total = {}
            for tx in db.children(gene, kind="mRNA"):
                total[tx.id] = sum(len(e) for e in db.children(tx, kind="exon"))
            others = [c.kind for c in db.children(gene, level=1)]
            return total, others
    """)["db"][0]
    fields = _payload(_payload(db, "obj:")["children"], "stub:objlist:")
    assert {"id", "kind", "_bc_len"} <= set(fields)


def test_an_object_written_out_as_text_prints_the_same_in_every_run():
    # ``out.append(str(rec))`` of a drawn object: its fields, not a memory address, so two runs
    # of one case agree (before: "nondeterministic" and no harness)
    golden_obj = """
        def render(rec):
            if rec.start > rec.end:
                return None
            return str(rec)
    """
    first, second = _run(golden_obj, "render", seed=11), _run(golden_obj, "render", seed=11)
    assert first == second
    assert "0x" not in first and "_bc_ns(" in first, first[:400]


_SOLVER = """
    def balance(solver, names):
        prob = solver.create_problem()
        m = prob.namespace(names, lower=0)
        z = prob.namespace(names, lower=0, upper=1)
        prob.set_objective(z.sum(names))
        return [m(n) for n in names], m.value(names[0])
"""


def test_two_values_of_one_stub_are_one_kind_of_object_with_the_methods_both_are_called_with():
    # ``z.sum(...)`` is named like numpy's, but z is the same kind of object as m, which has
    # methods of its own: the drawn object has both (before: ``z.sum`` raised on every call)
    solver = _payload(_kinds(_SOLVER)["solver"][0], "obj:")
    prob = _payload(solver["create_problem"], "stub:obj:")
    namespace = _payload(prob["namespace"], "stub:obj:")
    assert {"sum", "value"} <= set(namespace)


def test_an_object_that_is_also_called_is_drawn_with_a_function():
    solver = _payload(_kinds(_SOLVER)["solver"][0], "obj:")
    namespace = _payload(_payload(solver["create_problem"], "stub:obj:")["namespace"], "stub:obj:")
    assert namespace["_bc_call"].startswith("callable:")
    out = _run(_SOLVER, "balance", seed=2)
    lines = out.splitlines()
    # the objective set for its effect alone shows as a call (round 26), then the result
    assert lines[0].startswith("stub call: set_objective[") and lines[1].startswith("result: "), out[:400]


def test_a_dict_whose_keys_are_unpacked_as_pairs_is_keyed_by_tuples():
    k = _kinds("""
        def by_pair(matrix, weights):
            total = {}
            for (compound, rxn), value in matrix.items():
                total[rxn] = total.get(rxn, 0.0) + value * weights.get(compound.upper(), 1.0)
            return total
    """)
    fields, value = _payload(k["matrix"][0], "pairkeyed:")
    assert len(fields) == 2 and fields[0].startswith("str")
    assert value in ("float", "int_small", "float_unit", "float_pos") or value.startswith(("int", "float"))
    out = _run(
        """
        def by_pair(matrix):
            total = {}
            for (compound, rxn), value in matrix.items():
                total[rxn] = total.get(rxn, 0) + value * len(compound.upper())
            return sorted(total.items())
        """,
        "by_pair",
        seed=4,
    )
    assert out.startswith("result: ") and "exception" not in out.splitlines()[0], out[:400]


_NESTED = """
    def take_pairs(left, right, weight):
        def instances(counts):
            out = []
            for name, value in counts.items():
                if value > 0:
                    out.append((name, value * weight))
            return out
        return instances(left) + instances(right)
"""


def test_a_value_passed_to_a_function_defined_in_the_body_is_typed_by_that_functions_uses():
    # ``instances(left)`` where ``instances`` iterates ``counts.items()``: left and right are
    # mappings (before: nothing in the outer body typed them, and they were drawn as numbers)
    k = _kinds(_NESTED)
    assert k["left"][0].startswith("dict") and k["right"][0].startswith("dict")
    out = _run(_NESTED, "take_pairs", seed=6)
    assert out.startswith("result: ") and "exception" not in out.splitlines()[0], out[:400]


def test_a_stubs_value_is_typed_through_python_2_idioms_and_nested_helpers():
    # ``left, right = to_dicts(reaction)`` (no source: a stub) then ``iteritems(counts)`` in a
    # nested helper: the stub hands back two mappings
    golden = """
        def pair_up(reaction):
            left, right = to_dicts(reaction)

            def instances(counts):
                return sorted((c, v) for c, v in iteritems(counts) if v > 0)
            return instances(left), instances(right)
    """
    golden = textwrap.dedent(golden)
    sl = python_slice.slice_golden(golden, "pair_up")
    from biocoder_metric.synth import python_stubs

    stubs, reason = python_stubs.plan_stubs([golden], [n for n in sl.unresolved if n != "iteritems"])
    assert reason is None
    kinds = dict(stubs.slots)["to_dicts()"]
    fields = _payload(kinds[0], "fixed:")
    assert all(f.startswith("dict") for f in fields), fields


def test_a_field_tested_for_a_prefix_has_it_planted_in_some_cases():
    # ``self.line.startswith('#CHROM')`` on a method's field, as on a parameter: some cases get
    # past the check (before: a field was drawn as plain words, and every case raised)
    method = textwrap.dedent("""
        def samples(self):
            if not self.line.startswith("#CHROM"):
                raise ValueError("no header")
            return self.line.split()[1:]
    """)
    subject = python_harness.analyse(method, "samples", class_name="Reader")
    assert subject.chars.get("self.line") == [(0, "#CHROM")]
    outs = run_harness(method, "samples", range(12), class_name="Reader")
    assert "_bc_plant(_r, " in python_harness.render(
        subject, python_slice.slice_golden(method, "samples"), python_harness.plans(subject)[0]
    )
    firsts = [out.splitlines()[0] for out in outs]
    assert any(f.startswith("result: ") for f in firsts), firsts
