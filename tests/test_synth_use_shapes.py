"""Values shaped by how the golden uses them, for code nobody tuned to (round 30 of harness
synthesis, docs/synthesis.md): module constants with no source, a module name the code calls,
tuples added onto, pandas read by attribute, and elements reached only through a ``lambda`` or
their own methods.

The goldens are made up for these tests in the idioms of bioinformatics code. Each test checks
the kind the analysis picks and runs the synthesised harness on the host: the golden must return
(not raise) in most cases, and its results must differ between cases.
"""

from __future__ import annotations

import textwrap

from _synth_helpers import param_kinds, payload, pipeline_context, returns_vary, run_context

from biocoder_metric.synth import python_slice

_context = pipeline_context


_returns = returns_vary


_MASS = """
    def neutral_mass(mz, charge):
        \"\"\"The neutral mass of an ion from its m/z and charge.\"\"\"
        if charge == MODE_NEGATIVE:
            return mz
        return round(charge * (mz - PROTON_MASS), 4)
"""


def test_a_constant_used_in_arithmetic_is_a_drawn_number_and_one_only_compared_keeps_its_name(tmp_path):
    ctx, desc = _context(_MASS, "neutral_mass")
    # compared only: its own name as a string, as before; subtracted: no string can stand for it
    assert "MODE_NEGATIVE = 'MODE_NEGATIVE'" in ctx.splitlines()
    assert "PROTON_MASS = 'PROTON_MASS'" not in ctx.splitlines()
    assert desc["stub PROTON_MASS"].startswith(("float", "int", "number")), desc
    assert not any(k.startswith("stub MODE_NEGATIVE") for k in desc), desc
    _returns(_MASS, "neutral_mass", tmp_path)


_MENU = """
    def matching_topics(word):
        hits = []
        for topic, text in TOPIC_HELP.items():
            if word in topic or word in str(text):
                hits.append(topic)
        return sorted(hits)
"""


def test_a_constant_whose_items_are_read_is_a_drawn_mapping(tmp_path):
    _, desc = _context(_MENU, "matching_topics")
    assert any(k.startswith("stub TOPIC_HELP") for k in desc), desc
    ctx, _ = _context(_MENU, "matching_topics")
    outs = run_context(ctx, textwrap.dedent(_MENU), range(6), tmp_path)
    assert not any("exception:" in o for o in outs), outs


_EMPTY = """
    def has_reads(seqs_fp, min_bytes=1):
        \"\"\"Whether the FASTA file has reads.

        Parameters
        ----------
        seqs_fp : str
            path of the FASTA file
        \"\"\"
        if stat(seqs_fp).st_size < min_bytes:
            return False
        return stat(seqs_fp).st_size - min_bytes
"""


def test_a_module_name_that_is_called_is_the_function_a_module_exports_and_its_argument_a_file(tmp_path):
    sl = python_slice.slice_golden(textwrap.dedent(_EMPTY), "has_reads")
    assert "from os import stat" in sl.imports and "import stat" not in sl.imports
    kinds = param_kinds(_EMPTY)["seqs_fp"]
    assert kinds[0].startswith("path"), kinds  # handed to stat: a file name, not the file's text
    _returns(_EMPTY, "has_reads", tmp_path)


def test_a_handle_name_only_handed_to_stat_is_a_path():
    kinds = param_kinds("""
        def size_of(fp):
            return stat(fp).st_size
    """)["fp"]
    assert kinds[0].startswith(("path", "checked:'path")), kinds


_IGNORED = """
    def kept_names(names):
        ignore = ('', '-') + params.IGNORED_NAMES
        return [n for n in names if n not in ignore]
"""


def test_a_value_added_onto_a_tuple_of_strings_is_a_tuple_of_words(tmp_path):
    _, desc = _context(_IGNORED, "kept_names")
    assert desc["stub params.IGNORED_NAMES"] == "tuple_str", desc
    lists = param_kinds("""
        def padded(xs):
            return [0] + xs + [0]
    """)["xs"]
    assert lists[0].startswith("list"), lists
    _returns(_IGNORED, "kept_names", tmp_path)


_GAPS = """
    def largest_gap(table):
        gaps = table.start.values[1:] - table.end.cummax().values[:-1]
        return int(gaps.max()) if len(gaps) else 0
"""

_ROWS = """
    def row_labels(table):
        return ['%s:%d' % (row.chrom, row.start) for row in table.itertuples(index=False)]
"""


def test_pandas_read_by_attribute_is_pandas(tmp_path):
    # ``.values`` read, not called, is pandas' (a dict's is a method); ``cummax`` is a Series'
    kinds = param_kinds(_GAPS)["table"]
    fields = payload(kinds[0], "obj:") if kinds[0].startswith("obj:") else None
    assert kinds[0].startswith("frame:") or fields == {"start": "series", "end": "series"}, kinds
    assert (
        param_kinds("""
        def nonzero_at(replicate):
            return replicate.values.nonzero()[0]
    """)["replicate"][0]
        == "series"
    )
    _returns(_GAPS, "largest_gap", tmp_path)


def test_a_table_iterated_by_rows_has_the_columns_its_rows_read(tmp_path):
    kinds = param_kinds(_ROWS)["table"]
    assert set(payload(kinds[0], "frame:")) == {"chrom", "start"}, kinds
    _returns(_ROWS, "row_labels", tmp_path)


_SORTED = """
    def ordered_ids(model):
        return [r.id for r in sorted(model.reactions, key=lambda r: (r.weight, r.id))][:3]
"""

_FILTERED = """
    def first_long(runs, min_len):
        names = [r.name for r in runs if r.length() >= min_len]
        return names[0] if names else None
"""


def test_elements_read_in_a_lambda_are_objects_with_those_fields(tmp_path):
    kinds = param_kinds("""
        def by_weight(items):
            return sorted(items, key=lambda it: it.weight)[-1].weight
    """)["items"]
    assert kinds[0].startswith("objlist:") and "weight" in payload(kinds[0], "objlist:"), kinds
    model = payload(param_kinds(_SORTED)["model"][0], "obj:")
    assert set(payload(model["reactions"], "objlist:")) == {"weight", "id"}, model
    _returns(_SORTED, "ordered_ids", tmp_path)


def test_methods_called_on_elements_are_stubs_of_each_element(tmp_path):
    fields = payload(param_kinds(_FILTERED)["runs"][0], "objlist:")
    assert fields["length"].startswith("stub:") and "name" in fields, fields
    _returns(_FILTERED, "first_long", tmp_path)


_TARGETS = """
    def target_log2(cnarr, is_anti):
        tgt = cnarr[~is_anti]
        return round(float(tgt['log2'].sum()), 6), len(tgt)
"""


def test_an_inverted_value_is_a_mask_and_what_it_picks_rows_of_is_a_table(tmp_path):
    kinds = param_kinds(_TARGETS)
    assert kinds["is_anti"][0].endswith("_bool"), kinds
    assert payload(kinds["cnarr"][0], "frame:") == ["log2"], kinds
    _returns(_TARGETS, "target_log2", tmp_path)


_DUPES = """
    def duplicated_ids(dframe):
        out = []
        for key, group in dframe.groupby('entrez_id'):
            if len(group) > 1:
                out.append((key, len(group)))
        return out
"""


def test_a_table_grouped_by_a_column_has_it_and_ids_repeat(tmp_path):
    assert payload(param_kinds(_DUPES)["dframe"][0], "frame:") == ["entrez_id"]
    results = _returns(_DUPES, "duplicated_ids", tmp_path)
    assert any(r != "result: []" for r in results), results  # some ids are shared by rows


_UNPACKED = """
    def marker_name(info, wanted):
        chrom, name, pos = info
        return '%s:%s:%d' % (chrom, name.upper(), pos + 1)
"""

_NETWORK = """
    def network_rows(network):
        rows = []
        for key, value in sorted(network.items()):
            pairs, direction = value
            for c1, c2 in pairs:
                rows.append((key, c1, c2, direction))
        return rows
"""


def test_a_value_unpacked_into_names_is_a_tuple_that_wide(tmp_path):
    kind = param_kinds(_UNPACKED)["info"][0]
    assert len(payload(kind, "fixed:")) == 3, kind
    _returns(_UNPACKED, "marker_name", tmp_path)


def test_the_values_of_a_mapping_iterated_by_items_are_shaped_by_their_use(tmp_path):
    kind = param_kinds(_NETWORK)["network"][0]
    key, value = payload(kind, "keyed:")
    fields = payload(value, "fixed:")
    assert len(fields) == 2 and fields[0].startswith("tuplelist:"), kind
    results = _returns(_NETWORK, "network_rows", tmp_path)
    assert any(r != "result: []" for r in results), results


_BASE = """
class Base:
    def dist(self, i, j):
        return abs(self.values[i % len(self.values)] - self.values[j % len(self.values)])
"""

_SUB = """
from . import base


class Distance(base.Base):
    def dist(self, i, j):
        return super(Distance, self).dist(i, j)

    def scaled(self, i, j):
        return round(self.dist(i, j) / (max(self.values) or 1), 6)
"""


def test_a_class_whose_members_call_super_keeps_its_bases(tmp_path):
    import ast

    from biocoder_metric.synth import python_harness

    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "base.py").write_text(_BASE)
    (pkg / "sub.py").write_text(_SUB)
    tree = ast.parse(_SUB)
    golden = ast.unparse(
        next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "scaled")
    )
    sl = python_slice.slice_repository(golden, "scaled", str(tmp_path), "pkg/sub.py")
    assert sl.class_bases == ["base.Base"], sl.class_bases
    subject = python_harness.analyse(
        golden, "scaled", str(tmp_path), sl.class_name, sl.class_members, sl.definitions
    )
    ctx = python_harness.render(subject, sl, python_harness.plans(subject)[0])
    outs = run_context(ctx, golden, range(5), tmp_path)
    results = [ln for o in outs for ln in o.splitlines() if ln.startswith("result: ")]
    assert len(results) == 5 and len(set(results)) > 1, outs


_SPAN = """
    def span_of(probes=None, segments=None):
        lo, hi = float('inf'), 0
        for arr in (probes, segments):
            if arr is not None and len(arr):
                hi = max(hi, arr.end.iat[-1])
                lo = min(lo, arr.start.iat[0])
        return lo, hi
"""


def test_each_value_of_a_literal_tuple_looped_over_is_typed_by_the_loop(tmp_path):
    kinds = param_kinds(_SPAN)
    for name in ("probes", "segments"):
        assert set(payload(kinds[name][0], "frame:")) == {"start", "end"}, kinds
    results = _returns(_SPAN, "span_of", tmp_path)
    assert any("inf" not in r for r in results), results


_LOCAL_IMPORTS = """
    def scaled_sizes(names, factor=2):
        import collections
        from .plots import chromosome_sizes
        from genomelib.units import MEGABASE as mb
        sizes = chromosome_sizes(names)
        return collections.Counter({n: round(sizes[n] * factor / mb, 3) for n in sizes})
"""


def test_names_a_golden_imports_inside_its_body_from_modules_no_harness_has_are_stubs(tmp_path):
    sl = python_slice.slice_golden(textwrap.dedent(_LOCAL_IMPORTS), "scaled_sizes")
    assert {"chromosome_sizes", "mb"} <= set(sl.unresolved), sl.unresolved
    assert "collections" not in sl.unresolved  # a module every harness has is imported as it is
    _, desc = _context(_LOCAL_IMPORTS, "scaled_sizes")
    assert desc["stub chromosome_sizes()"].startswith(("dict", "keyed:", "dictkeys:")), desc
    results = _returns(_LOCAL_IMPORTS, "scaled_sizes", tmp_path)
    assert any("Counter()" not in r for r in results), results


_STATUS = """
    def aligned_path(seqs_fp, threads=1):
        if threads == 0:
            threads = -1
        out, err, res = run_aligner(['mafft', '--thread', str(threads), seqs_fp])
        if not res == 0:
            return None
        return seqs_fp + '.msa', len(out), threads
"""


def test_an_int_tested_for_equality_with_a_constant_is_that_constant_half_the_time(tmp_path):
    _, desc = _context(_STATUS, "aligned_path")
    status = payload(desc["stub run_aligner()"], "fixed:")[2]
    assert status.startswith("intchoice:") and payload(status, "intchoice:")[0] == [0], desc
    assert desc["threads"].startswith("intchoice:"), desc
    results = _returns(_STATUS, "aligned_path", tmp_path, seeds=range(8))
    assert "result: None" in results and any(r != "result: None" for r in results), results
