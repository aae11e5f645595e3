"""Tables read by position and by name, keys taken from a mapping argument, and a stub's result
typed through the local it is bound to (round 31 of harness synthesis, docs/synthesis.md).

The goldens are made up for these tests in the idioms of bioinformatics code (a peak table, a
gene table, a run's statistics). Each test checks the kind the analysis picks and, where the
rule is about running, runs the synthesised harness on the host: the golden must return (not
raise) in most cases, and its results must differ between cases.
"""

from __future__ import annotations

import ast
import textwrap

from _synth_helpers import param_kinds, payload, pipeline_context, returns_vary, run_context

from biocoder_metric.synth import python_inputs

_SPREAD = """
    def replicate_spread(intensities, first, width):
        \"\"\"Per-feature spread of a block of replicate columns.\"\"\"
        block = intensities.iloc[:, first:first + width]
        return (block.max(axis=1) - block.min(axis=1)).round(3).tolist()
"""


def test_a_value_indexed_by_row_and_column_is_a_table_of_numeric_columns(tmp_path):
    kinds = param_kinds(_SPREAD)["intensities"]
    assert kinds[0] == "frame:None", kinds  # no column named: numeric columns, read by position
    returns_vary(_SPREAD, "replicate_spread", tmp_path)


_GC = """
    def gc_by_chrom(genes):
        keep = ['chrom', 'gc', 'length']
        sub = genes.loc[:, keep]
        return sub.groupby('chrom')['gc'].mean().round(3).to_dict()
"""


def test_columns_selected_by_a_list_of_names_are_the_tables_columns(tmp_path):
    kinds = param_kinds(_GC)["genes"]
    assert set(payload(kinds[0], "frame:")) >= {"chrom", "gc", "length"}, kinds
    returns_vary(_GC, "gc_by_chrom", tmp_path)


_PEAK = """
    def best_peak(peaks, settings):
        score = settings['score_column']
        top = peaks.loc[:, score].idxmax()
        return int(top), round(float(peaks.iloc[top, 0]), 3)
"""


def test_a_column_named_by_a_mapping_argument_is_one_of_the_tables_columns(tmp_path):
    ctx, desc = pipeline_context(_PEAK, "best_peak")
    assert desc["peaks"] == "frame:None", desc
    assert "_bc_agree" in ctx and "['score_column']" in ctx.split("_bc_agree", 1)[1], ctx
    results = returns_vary(_PEAK, "best_peak", tmp_path, seeds=range(8))
    assert len(results) == 8, results  # the drawn key would be no column in every case


_RATE = """
    def scaled_rate(rates, config):
        organism = config['organism']
        return round(rates[organism] * config['factor'], 4)
"""


def test_a_key_kept_in_a_mapping_argument_agrees_with_what_it_looks_up(tmp_path):
    ctx, _ = pipeline_context(_RATE, "scaled_rate")
    outs = run_context(ctx, textwrap.dedent(_RATE), range(10), tmp_path)
    results = [o for o in outs if "result: " in o]
    assert len(results) >= 6, outs


_DOCS = """
    def wanted_depth(table, wanted, options):
        \"\"\"Total depth of the wanted samples.

        Keyword Arguments:
            table   -- pandas DataFrame
            wanted: list of str
            options: dict
        \"\"\"
        return sum(options.get(w, 0) for w in wanted) + len(table)
"""


def test_short_type_notes_after_a_dash_or_colon_type_the_parameter():
    doc = ast.get_docstring(ast.parse(textwrap.dedent(_DOCS)).body[0])
    types = python_inputs.docstring_types(doc)
    assert python_inputs.family_of_type(types["table"]) == "frame", types
    kinds = param_kinds(_DOCS)
    assert kinds["wanted"][0] == "list_str", kinds
    assert kinds["options"][0].startswith(("dict", "optkeys")), kinds
    # a sentence after the name describes, it does not type (``number`` is no float here)
    described = param_kinds(
        '''
    def clip(values, n):
        """Clip.

        n: number of reads to keep at most
        """
        return values[:n]
    '''
    )
    assert described["n"][0].startswith("int"), described


_DEDUPE = """
    def dedupe_scores(scores):
        if not scores.index.is_unique:
            scores = scores[~scores.index.duplicated()]
        return scores.round(3).tolist()
"""


def test_an_index_read_through_is_pandas_row_labels(tmp_path):
    assert param_kinds(_DEDUPE)["scores"][0] == "series", param_kinds(_DEDUPE)
    returns_vary(_DEDUPE, "dedupe_scores", tmp_path)


_GROUPS = """
    def best_per_gene(hits):
        out = {}
        for gene, group in hits.groupby('gene'):
            ranked = group.sort_values('score')
            out[gene] = round(float(ranked['score'].iloc[-1]), 3)
        return out
"""


def test_the_groups_of_a_grouped_table_have_its_columns(tmp_path):
    kinds = param_kinds(_GROUPS)["hits"]
    assert set(payload(kinds[0], "frame:")) >= {"gene", "score"}, kinds
    returns_vary(_GROUPS, "best_per_gene", tmp_path)


_STATS = """
    def mapped_fraction(path):
        stats = load_stats(path)
        return round(stats['mapped'] / max(1, stats['total']), 4)
"""


def test_a_stub_result_read_by_keys_through_a_local_has_those_keys(tmp_path):
    _, desc = pipeline_context(_STATS, "mapped_fraction")
    assert set(payload(desc["stub load_stats()"], "dictkeys:")) == {"mapped", "total"}, desc
    returns_vary(_STATS, "mapped_fraction", tmp_path)


_RUNS = """
    def runtimes(db_path):
        rows = fetch_rows(db_path)
        out = {}
        for row in rows:
            name, start, end = row
            out[name] = end - start
        return out
"""

_PAIRS = """
    def tumour_normal(reader, wanted):
        found = list(parse_pairs(reader))
        pairs = found
        pairs = [(t, n) for t, n in pairs if t != wanted]
        return sorted(str(t) for t, _ in pairs)
"""


def test_a_stub_result_iterated_and_unpacked_through_locals_is_a_list_of_tuples(tmp_path):
    _, desc = pipeline_context(_RUNS, "runtimes")
    assert len(payload(desc["stub fetch_rows()"], "tuplelist:")) == 3, desc
    returns_vary(_RUNS, "runtimes", tmp_path)
    _, desc = pipeline_context(_PAIRS, "tumour_normal")
    assert len(payload(desc["stub parse_pairs()"], "tuplelist:")) == 2, desc
    returns_vary(_PAIRS, "tumour_normal", tmp_path)


_MERGED = """
    def merged_samples(paths):
        import pandas as pd
        tables = []
        for path in paths:
            tables.append(pd.read_csv(path, sep='\\t', index_col='sample'))
        merged = pd.concat(tables, axis=0)
        return merged.shape, sorted(set(merged.index))[:3]
"""


def test_a_list_whose_elements_are_read_as_tables_is_a_list_of_files_with_the_index_column(tmp_path):
    _, desc = pipeline_context(_MERGED, "merged_samples")
    kind = desc["paths"]
    assert kind.startswith("listof:"), desc
    inner = payload(kind, "listof:")
    assert inner.startswith("file:") and "'sample'" in inner, desc
    returns_vary(_MERGED, "merged_samples", tmp_path)


_NOTES = """
    def collect_notes(records):
        notes = []
        for rec in records:
            notes += notes_of(rec)
        return '; '.join(n.upper() for n in notes)
"""


def test_a_stub_result_added_onto_a_list_is_a_list_of_what_the_list_holds(tmp_path):
    _, desc = pipeline_context(_NOTES, "collect_notes")
    assert desc["stub notes_of()"] == "list_str", desc
    returns_vary(_NOTES, "collect_notes", tmp_path)


_OFFSPRING = """
    def offspring_names(population, generation):
        doubled = population + population
        names = []
        for i in range(len(doubled)):
            names.append('%s_%d_%d' % (doubled[i].get_name(), generation, len(doubled[i].genes)))
        return names
"""


def test_elements_picked_by_position_and_read_as_objects_are_objects(tmp_path):
    kinds = param_kinds(_OFFSPRING)["population"]
    fields = payload(kinds[0], "objlist:")
    assert set(fields) >= {"get_name", "genes"}, kinds
    returns_vary(_OFFSPRING, "offspring_names", tmp_path)


_TREE = """
    def tip_depths(tree, level=0):
        if not tree.children:
            return [(tree.name, level)]
        out = []
        for child in tree.children:
            out += tip_depths(child, level + 1)
        return out
"""


def test_children_handed_back_to_the_function_are_nodes_of_the_same_kind(tmp_path):
    kinds = param_kinds(_TREE)["tree"]
    fields = payload(kinds[0], "obj:")
    children = payload(fields["children"], "objlist:")
    assert set(children) >= {"name", "children"}, kinds
    assert payload(children["children"], "objlist:")["children"] == "default:[]", kinds
    results = returns_vary(_TREE, "tip_depths", tmp_path)
    assert any(", 2)" in r for r in results), results  # grandchildren are reached


_SERIES = """
    def mean_lengths(A_kn, scale=1.0):
        \"\"\"Mean of each series.

        Parameters
        ----------
        A_kn : list of numpy arrays
            the series, of their own lengths
        \"\"\"
        return [round(float(A_n.mean()) * scale, 4) for A_n in A_kn if A_n.size > 0]
"""


def test_a_documented_list_of_arrays_is_a_list_of_arrays(tmp_path):
    assert param_kinds(_SERIES)["A_kn"][0] == "list_ndarray1", param_kinds(_SERIES)
    returns_vary(_SERIES, "mean_lengths", tmp_path)


_LISTED = """
    def keep_listed(records, wanted_ids=None):
        \"\"\"Records to keep.

        Parameters
        ----------
        records: list of str
        wanted_ids: bool
        \"\"\"
        kept = []
        for r in records:
            if wanted_ids and r not in wanted_ids:
                continue
            kept.append(r.upper())
        return kept
"""


def test_a_documented_flag_the_code_tests_membership_in_is_a_container():
    kinds = param_kinds(_LISTED)
    assert kinds["records"][0] == "list_str", kinds  # the short note types the other parameter
    assert kinds["wanted_ids"][0] != "bool", kinds  # ``r in wanted_ids``: no flag holds anything


_QUARTILE = """
    def upper_quartile_scaled(depths):
        depths = depths.fillna(0)
        q3 = depths.quantile(0.75)
        block = (depths / q3).iloc[:, 1:]
        return depths.iloc[:, 1:].median(axis=1).round(3).tolist(), block.shape
"""


def test_what_only_a_table_has_outranks_what_a_series_shares_with_it(tmp_path):
    kinds = param_kinds(_QUARTILE)["depths"]
    assert kinds[0] == "frame:None" and kinds.index("frame:None") < kinds.index("series"), kinds
    returns_vary(_QUARTILE, "upper_quartile_scaled", tmp_path)
