"""Inference and slicing rules of Python harness synthesis (no sandbox): each rule on a small golden.

The generated programs are run here with the host's Python only where they need nothing but the
standard library, numpy and pandas; the sandboxed validation is in test_synth_validate.py.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from _synth_helpers import run_context

from biocoder_metric.execution.harness import INSERT_MARKER
from biocoder_metric.synth import python_harness, python_inputs, python_slice
from biocoder_metric.synth.pipeline import sibling_index


def _kinds(code: str) -> dict[str, list[str]]:
    func = ast.parse(textwrap.dedent(code)).body[0]
    return {p.name: p.kinds for p in python_inputs.infer_params(func)}


def _run(golden: str, name: str, seed: int = 7, helpers=None, cwd: Path | None = None) -> str:
    """Render the best-guess harness, insert the golden and run it on the host (in ``cwd``)."""
    golden = textwrap.dedent(golden)
    sl = python_slice.slice_golden(golden, name, helpers=helpers)
    assert not sl.unresolved, sl.unresolved
    subject = python_harness.analyse(golden, name)
    assert not subject.missing_methods
    ctx = python_harness.render(subject, sl, python_harness.plans(subject)[0])
    indent = re.search(r"^( *)" + re.escape(INSERT_MARKER), ctx, re.M).group(1)
    body = "\n".join(indent + ln if ln.strip() else ln for ln in golden.splitlines())
    prog = ctx.replace(indent + INSERT_MARKER, body).replace(python_harness.SEED_PLACEHOLDER, str(seed))
    out = subprocess.run(
        [sys.executable, "-c", prog], capture_output=True, text=True, timeout=60, check=True, cwd=cwd
    )
    return out.stdout


def test_string_keys_used_elementwise_make_a_table_with_those_columns():
    k = _kinds("""
        def mask(cnarr):
            m = (cnarr['log2'] < -1.0) | (cnarr['spread'] > 1.0)
            if 'depth' in cnarr:
                m |= cnarr['depth'] == 0
            return m
    """)
    assert k["cnarr"][0].startswith("frame:")
    assert set(ast.literal_eval(k["cnarr"][0][len("frame:") :])) == {"log2", "spread", "depth"}
    # a plain lookup stays a dict
    assert _kinds("def f(d):\n    return d['a'] + 1\n")["d"][0].startswith("dict")


def test_pandas_only_methods_make_a_series_and_dict_values_are_typed_by_use():
    assert _kinds("def f(vals):\n    return (vals - 0.5).abs() + vals.median()\n")["vals"][0] == "series"
    k = _kinds("""
        def norm(data):
            out = {}
            for track, ar in list(data.items()):
                out[track] = ar.flatten().sum()
            return out
    """)
    assert k["data"][0] == "dict_str_ndarray"


def test_structured_text_regex_matches_and_plain_path_strings():
    k = _kinds("""
        def groups(text):
            out = []
            for group in text.split(','):
                out.append([int(x) for x in group.split(':')])
            return out
    """)
    # the shape the parser takes apart (python_text): runs of ':'-joined integers, joined by ','
    assert ast.literal_eval(k["text"][0][len("struct:") :]) == ("run", ",", ("run", ":", ("int",)))
    k = _kinds("""
        def head(text):
            i = text.index(':')
            return text[:i], text.rfind(',')
    """)
    seps, numeric = ast.literal_eval(k["text"][0][len("text:") :])  # not split: separators only
    assert set(seps) == {":", ","} and numeric is False
    k = _kinds("""
        def sorter(filename):
            r = re.search('chr(\\\\d+)\\\\.(\\\\d+)_(\\\\d+)\\\\.impute2', filename)
            return int(r.group(1))
    """)
    samples = ast.literal_eval(k["filename"][0][len("regex:") :])
    assert samples and all(re.search(r"chr(\d+)\.(\d+)_(\d+)\.impute2", s) for s in samples)
    assert _kinds("def split(path):\n    i = path.rfind('/')\n    return path[:i]\n")["path"][0] == "str_path"
    assert python_inputs.regex_samples("(") is None


def test_objects_are_built_from_the_attributes_read_on_them():
    k = _kinds("""
        def absolute(cnarr, ploidy):
            out = []
            for i, row in enumerate(cnarr):
                out.append((row.chromosome, row.log2 * ploidy))
            return out
    """)
    fields = ast.literal_eval(k["cnarr"][0][len("objlist:") :])
    assert set(fields) == {"chromosome", "log2"} and fields["log2"].startswith(("int", "float"))
    subject = python_harness.analyse(
        textwrap.dedent("""
        def combine(self, x):
            method = self.merge_method.value
            if method == 'Preserve':
                return x
            return x * self.size_range.min
    """),
        "combine",
    )
    attrs = dict(subject.attrs)
    assert attrs["merge_method"][0].startswith("obj:") and "Preserve" in attrs["merge_method"][0]
    assert attrs["size_range"][0].startswith("obj:") and "'min'" in attrs["size_range"][0]
    assert _kinds("def f(tok, cls):\n    return isinstance(tok, cls)\n")["cls"][0] == "a_type"


def test_methods_private_names_recursion_and_stubbed_helpers():
    golden = textwrap.dedent("""
        def __walk(self, n):
            if n <= 0 or self.wants_more() is False:
                return len(self.__items)
            return self.__walk(n - 1)
    """)
    subject = python_harness.analyse(golden, "__walk")
    assert subject.missing_methods == []  # itself: recursion; wants_more: stubbed
    attrs = dict(subject.attrs)
    assert attrs["wants_more"][0] == "stub:bool"
    ctx = python_harness.render(subject, python_slice.Slice(), python_harness.plans(subject)[0])
    assert "_bc_obj._BCSubject__items = " in ctx and "_bc_obj._BCSubject__walk(" in ctx
    out = _run(golden, "__walk")
    assert out.startswith("result: ") and not any(ln.startswith("exception: ") for ln in out.splitlines())


def test_rules_run_end_to_end_on_the_host():
    pytest.importorskip("pandas")
    out = _run(
        """
        def mask(cnarr):
            return (cnarr['log2'] < 0.0) | (cnarr['spread'] > 1.0)
    """,
        "mask",
    )
    assert out.startswith("result: Series(")
    out = _run(
        """
        def columns(text):
            first = text[:text.index('\\n')]
            return first.count('\\t')
    """,
        "columns",
    )
    assert out.startswith("result: ") and not any(ln.startswith("exception: ") for ln in out.splitlines())


def test_slicing_library_names_exceptions_siblings_and_flattened_modules(tmp_path: Path):
    sl = python_slice.slice_golden(
        "def f(a):\n    if not a:\n        raise ToolError('x')\n    return scoreatpercentile(a, 50)\n", "f"
    )
    assert "from scipy.stats import scoreatpercentile" in sl.imports and sl.unresolved == []
    assert any(d.startswith("class ToolError(Exception)") for d in sl.definitions)
    # another task's golden (same repository) is a helper, with what it needs
    helpers = {"is_protein": "def is_protein(seq):\n    return bool(re.search('[EFILPQ]', seq))\n"}
    sl = python_slice.slice_golden(
        "def has(seqs):\n    return any(is_protein(s) for s in seqs)\n", "has", helpers=helpers
    )
    assert (
        sl.unresolved == []
        and "import re" in sl.imports
        and any("def is_protein" in d for d in sl.definitions)
    )
    # never the task's own golden
    own = python_slice.slice_golden(
        "def g(x):\n    return g(x - 1) if x else h(x)\n", "g", helpers={"g": "def g(x):\n    return 1\n"}
    )
    assert own.unresolved == ["h"]
    rows = [
        {
            "language": "python",
            "repository": "o/r",
            "function_name": n,
            "golden_code": f"def {n}():\n    pass\n",
        }
        for n in ("a", "b")
    ]
    assert [n for n, _ in sibling_index(rows)[("o/r", "")]] == ["a", "b"]
    # BioCoder's goldens are flattened: ``descriptives.iqr`` became ``iqr``; the one module defining it
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "descriptives.py").write_text(
        "import numpy as np\n\ndef iqr(a):\n    return np.percentile(a, 75) - np.percentile(a, 25)\n"
    )
    (pkg / "params.py").write_text("LIMIT = 3.0\n")
    (pkg / "smoothing.py").write_text(
        "from . import descriptives, params\n\ndef outliers(a):\n    return a > params.LIMIT * descriptives.iqr(a)\n"
    )
    golden = "def outliers(a):\n    return a > LIMIT * iqr(a)\n"
    sl = python_slice.slice_repository(golden, "outliers", tmp_path, "pkg/smoothing.py")
    assert (
        sl.unresolved == []
        and "LIMIT = 3.0" in sl.definitions
        and any("def iqr" in d for d in sl.definitions)
    )


def test_boolean_mask_indexing_means_an_array():
    k = _kinds("""
        def losses(sizes, insert_size):
            small = sizes < insert_size
            out = insert_size / (2 * sizes)
            out[small] -= sizes[small]
            return out
    """)
    assert k["sizes"][0].startswith("ndarray")
    assert _kinds("def f(labels_a, mask):\n    return len(labels_a[mask])\n")["labels_a"][0].startswith(
        "ndarray"
    )


@pytest.mark.parametrize(
    ("name", "family"),
    [
        ("contig_len", "int"),  # a length of a contig, not a contig
        ("barcode_count", "int"),
        ("umi2idx", "int"),  # words joined by a digit
        ("peakStart", "int"),  # camelCase
        ("n_samples", "int"),  # a count of samples
        ("num_probes", "int"),
        ("primer_list", "list_str"),
        ("exon_lengths", "list_int"),  # a plural head: several lengths
        ("sample_names", "list_str"),
        ("alignments", "list"),  # several things the rules do not know
        ("gene_name", "str"),
        ("motif", "str"),
        ("is_paired", "bool"),
        ("index_only", "bool"),  # a switch: what it turns on or off
        ("only_primary", "bool"),
        ("dry_run", "bool"),
        ("no_header", "bool"),
        ("out_file", "path"),
        ("status", None),  # singular words ending in s are not plurals
    ],
)
def test_a_parameter_name_is_read_as_an_english_compound_whose_last_word_is_the_head(name, family):
    assert python_inputs.family_of_name(name) == family


def test_the_head_word_decides_what_a_named_string_or_list_holds():
    # ``gene_name`` is a name: words, not a DNA string; ``primer_list`` holds primers: DNA
    assert python_inputs.refine("str", "probe_seq_name")[0] == "str_word"
    assert python_inputs.refine("str", "probe_seq")[0] == "str_dna"
    assert python_inputs.refine("list_str", "primer_list")[0] == "list_dna"
    assert python_inputs.refine("list_str", "read_ids")[0] == "list_str"
    k = _kinds("def trim(read_len, n_reads, min_qual):\n    return read_len * n_reads > min_qual\n")
    assert k["read_len"][0].startswith("int") and k["n_reads"][0].startswith("int")


def test_an_element_picked_by_position_types_the_collection_it_came_from():
    # ``tally = self.tallies[i]`` then ``tally.values()``: a list of dicts, read as a loop would
    subject = python_harness.analyse(
        textwrap.dedent("""
        def total(self, i):
            tally = self.tallies[i % len(self.tallies)]
            return sum(tally.values())
    """),
        "total",
    )
    assert dict(subject.attrs)["tallies"][0].startswith("dictlist:")
    k = _kinds("def width(spans, k):\n    first = spans[k - 1]\n    return first.stop - first.begin\n")
    assert k["spans"][0].startswith("objlist:")
    # a lookup by a key is not a position: ``by_name`` is not turned into a list of objects
    k = _kinds("def width(by_name, name):\n    rec = by_name[name]\n    return rec.stop - rec.begin\n")
    assert not k["by_name"][0].startswith("objlist:")


def test_a_callback_is_also_tried_as_one_that_hands_back_what_it_is_given():
    # ``choose`` returns keys the golden looks up again: only a function returning (part of) its
    # argument fits, which a value drawn at random never is
    k = _kinds(
        "def pick(groups, choose):\n    keys = choose(list(groups))\n    return [groups[x] for x in keys]\n"
    )
    assert k["choose"][0].startswith("callable:") and k["choose"][1] == "passthrough"
    hand_back = eval(python_inputs.kind_expr("passthrough"))
    assert hand_back(["a", "b"], 2) == ["a", "b"] and hand_back() is None


def test_a_base_class_whose_methods_build_its_subclass_is_sliced_before_the_subclass(tmp_path: Path):
    """``Table.head`` builds a ``SubTable(Table)``: the two need each other, and the slice must
    still define the base first, or the harness fails with a NameError before any call."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "tables.py").write_text(
        "from pkg._speedups import count_rows\n\n\n"  # a compiled extension: no source
        "class Table:\n"
        "    def __init__(self, rows):\n        self.rows = rows\n\n"
        "    def head(self):\n        return SubTable(self.rows[:1])\n\n"
        "    def fast_count(self):\n        return count_rows(self.rows)\n\n\n"
        "class SubTable(Table):\n    kind = 'sub'\n\n\n"
        "def first_rows(t):\n    return t.head().rows\n"
    )
    golden = "def first_rows(t):\n    return Table(t.rows).head().rows\n"
    sl = python_slice.slice_repository(golden, "first_rows", tmp_path, "pkg/tables.py")
    text = "\n\n".join(sl.definitions)
    assert text.index("class Table") < text.index("class SubTable(Table)")
    namespace: dict = {}
    exec(compile(text, "slice", "exec"), namespace)  # defines without a NameError (only trusted text here)
    assert namespace["SubTable"]([1, 2]).head().rows == [1]
    # the class to build an argument from is sliced although a method body reads a name with no
    # source (it fails only if that method runs); a class whose base has none is not
    have = python_slice.Slice(origin="repository")
    assert "Table" in python_slice.slice_classes(tmp_path, "pkg/tables.py", ["Table"], have)
    (pkg / "more.py").write_text("from pkg._speedups import FastBase\n\n\nclass Quick(FastBase):\n    pass\n")
    assert python_slice.slice_classes(tmp_path, "pkg/more.py", ["Quick"], have) == {}
    # the order rule on its own: a use inside a function body imposes none
    defs = [
        "class B(A):\n    pass",
        "def make():\n    return B()",
        "class A:\n    def child(self):\n        return B()",
    ]
    assert python_slice.definition_order(defs) == [defs[2], defs[0], defs[1]]


def test_what_a_class_body_calls_has_what_its_methods_read_defined_first():
    """``class Glycan`` calls ``Composition("C6H10O5")`` while it is defined: Composition's methods
    run then, and the module namespace they read (``parser``, made after them by the slicer)
    must already exist. Before, the harness died with ``NameError: name 'parser'`` at start."""
    defs = [
        "class Composition:\n    def __init__(self, formula):\n        self.atoms = parser.parse(formula)",
        "class Glycan:\n    HEX = Composition('C6H10O5')",
        "def parse(formula):\n    return sorted(formula)",
        "parser = __import__('types').SimpleNamespace(parse=parse)",
        "def describe(g):\n    return Glycan.HEX.atoms",  # a body: no order
    ]
    ordered = python_slice.definition_order(defs)
    namespace: dict = {}
    exec(compile("\n\n".join(ordered), "slice", "exec"), namespace)  # only trusted text here
    assert namespace["describe"](None) == sorted("C6H10O5")
    # what a called function's body reads comes first unless it needs the caller when it runs
    # (a cycle): then the definition-time need alone decides
    cyc = [
        "class A:\n    X = build()",
        "def build():\n    return B.tag",
        "class B(A):\n    tag = 1",
    ]
    ordered = python_slice.definition_order(cyc)
    assert ordered.index(cyc[1]) < ordered.index(cyc[0]) < ordered.index(cyc[2])


WRITE_COUNTS = """
import os


def write_counts(out_dir, counts):
    \"\"\"One file per sample under ``out_dir``, holding its count.\"\"\"
    for sample, n in sorted(counts.items()):
        with open(os.path.join(out_dir, sample + ".txt"), "w") as fh:
            fh.write("%s\\t%d\\n" % (sample, n))
    return len(counts)
"""


def test_a_directory_parameter_is_an_empty_directory_and_what_is_written_there_is_shown(tmp_path: Path):
    """Named or used as a directory (``os.path.join(d, name)``, ``os.listdir(d)``), a parameter is
    an empty directory of its own; every file the function writes there is printed, so a wrong
    file name or content changes the output, not only the returned count."""
    golden = WRITE_COUNTS.split("\n\n\n", 1)[1]
    assert _kinds(golden)["out_dir"][0] == "path_dir"
    assert (
        _kinds("def f(base, label):\n    return open(os.path.join(base, label), 'w')\n")["base"][0]
        == "path_dir"
    )
    # a folder the code lists holds entries to find (round 32), not nothing
    assert _kinds("def f(where):\n    return sorted(os.listdir(where))\n")["where"][0] == "indir:([], False)"
    out = _run(golden, "write_counts", cwd=tmp_path)
    shown = re.findall(r"^file (_bc_out_\d+_dir/\w+\.txt): (.*)$", out, re.M)
    assert shown, out
    # the content as bytes: ``b'name\\t<count>\\n'``, under the file named for the sample
    assert all(text.startswith("b'" + name.split("/")[1][: -len(".txt")] + "\\t") for name, text in shown)
    (tmp_path / "again").mkdir()
    assert _run(golden, "write_counts", cwd=tmp_path / "again") == out
    wrong = golden.replace("(sample, n))", "(sample, n + 1))")
    assert wrong != golden
    (tmp_path / "wrong").mkdir()
    assert _run(wrong, "write_counts", cwd=tmp_path / "wrong") != out


WRITE_FASTA = '''def write_fasta(names, seq, out):
    """Each name as a FASTA record of the sequence, printed to the open file ``out``."""
    for name in names:
        print(">" + name, file=out)
        print(seq, file=out)
    return len(names)
'''


def test_a_file_the_function_writes_to_is_an_open_text_file_shown_by_what_it_holds(tmp_path: Path):
    """``print(..., file=out)``, ``out.write(...)``, ``csv.writer(out)`` and ``json.dump(x, out)``
    write to an open file: the parameter is one (never a file to read, whatever its name), and
    what it holds after the call is part of the output."""
    assert _kinds(WRITE_FASTA)["out"][0] == "handle_out"
    assert _kinds("def f(rows, fh):\n    for r in rows:\n        fh.write(r)\n")["fh"][0] == "handle_out"
    assert _kinds("def f(d, fh):\n    json.dump(d, fh)\n")["fh"][0] == "handle_out"
    assert _kinds("def f(handle):\n    for line in handle:\n        print(line.split())\n")["handle"][0] != (
        "handle_out"
    )
    out = _run(WRITE_FASTA, "write_fasta", cwd=tmp_path)
    written = re.findall(r"^after out: written\('(.*)'\)$", out, re.M)
    assert written and any(w.startswith(">") for w in written), out
    wrong = WRITE_FASTA.replace("print(seq, file=out)", "print(seq[1:], file=out)")
    assert _run(wrong, "write_fasta", cwd=tmp_path) != out


def test_a_series_and_a_table_have_the_cases_length_like_its_arrays():
    """Values combined elementwise (a Series of depths and an array of widths, a table's rows and
    a weight per row) must have one length: every Series, table and 1-D array of a case has
    the case's length."""
    golden = (
        "def scaled(depths, widths, table):\n    return (depths * widths).sum() + len(table) * len(widths)\n"
    )
    sl = python_slice.slice_golden(golden, "scaled")
    subject = python_harness.analyse(golden, "scaled")
    kinds = {"depths": "series", "widths": "ndarray1", "table": "frame:['gene', 'log2']"}
    plan = python_harness.Plan(args=[(p, kinds[p.name]) for p in subject.params], label="t", explore=False)
    ctx = python_harness.render(subject, sl, plan)
    indent = re.search(r"^( *)" + re.escape(INSERT_MARKER), ctx, re.M).group(1)
    body = "\n".join(indent + ln if ln.strip() else ln for ln in golden.splitlines())
    for seed in range(5):
        prog = ctx.replace(indent + INSERT_MARKER, body).replace(python_harness.SEED_PLACEHOLDER, str(seed))
        out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, timeout=60).stdout
        assert "result: " in out and "exception" not in out, out


@pytest.mark.parametrize(
    ("golden", "line"),
    [
        ("def f(d):\n    return sorted(glob(os.path.join(d, '*.fa')))\n", "from glob import glob"),
        ("def f(s):\n    return datetime.strptime(s, '%Y').year\n", "from datetime import datetime"),
        ("def f(x):\n    return glob.glob(x)\n", "import glob"),
        ("def f(x):\n    return datetime.timedelta(days=x)\n", "import datetime"),
        ("def f(x):\n    return copy.deepcopy(x)\n", "import copy"),
    ],
)
def test_a_standard_modules_same_named_member_is_imported_when_the_code_uses_it(golden, line):
    """``glob(pattern)`` calls the function ``from glob import glob`` binds; ``datetime.strptime``
    is the class's; ``glob.glob`` and ``datetime.timedelta`` are the module's."""
    assert line in python_slice.slice_golden(golden, "f").imports


REACHABLE = '''def reachable(start_node, adj_list):
    """Nodes reachable from ``start_node`` in the adjacency mapping, sorted."""
    found = {start_node}
    todo = [start_node]
    while todo:
        n = todo.pop()
        for nb in adj_list.get(n, []):
            if nb not in found:
                found.add(nb)
                todo.append(nb)
    return sorted(found)
'''


def test_a_graph_is_an_adjacency_mapping_whose_neighbours_are_keys_and_nodes_meet_it(tmp_path: Path):
    """``adj_list`` is a graph (a dict by usage, an adjacency list by name): its neighbours are
    keys too, so a traversal walks on; a ``node`` is one of the words it is keyed by."""
    k = _kinds(REACHABLE)
    assert k["adj_list"][0] == "dict_graph" and k["start_node"][0] == "str_word"
    outs = [_run(REACHABLE, "reachable", seed=s, cwd=tmp_path) for s in range(20)]
    walked = [re.search(r"^result: \[(.*)\]$", o, re.M).group(1).count(",") for o in outs]
    assert max(walked) >= 2, outs  # three or more nodes reached: the walk went past a neighbour
    shallow = REACHABLE.replace("todo.append(nb)", "pass")
    assert [_run(shallow, "reachable", seed=s, cwd=tmp_path) for s in range(20)] != outs


def test_options_read_by_attribute_are_a_namespace_and_by_key_a_dict():
    """``args``/``options`` name a dict only when the code uses them as one; read by attribute
    only (``args.path``), they are a namespace object holding those fields."""
    k = _kinds("def check(args):\n    return open(args.path).read() + args.org\n")
    assert k["args"][0].startswith("obj:")
    assert {"path", "org"} <= set(ast.literal_eval(k["args"][0][len("obj:") :]))
    assert _kinds("def f(options):\n    return options['k'] + options['j']\n")["options"][0].startswith(
        "dictkeys:"
    )
    got = _kinds("def f(options):\n    return options['k'] + options.get('j', 1)\n")["options"]
    assert got[0].startswith("optkeys:(['j'], ") and got[1].startswith("dictkeys:")  # 'j' may be absent


def test_a_comparison_whose_result_is_used_as_an_array_compares_a_column():
    """``(chrom == label).values``: ``.values`` is pandas', so ``chrom`` is a Series (it was a
    word, and the golden raised on every call); ``x[a > b]`` and ``np.where(a > t, ...)`` make
    ``a`` an array. The compared label stays a scalar, and a plain comparison is unchanged."""
    k = _kinds("""
        def bump(chrom, label, ratios):
            ratios[(chrom == label).values] += 1.0
            return ratios
    """)
    assert k["chrom"][0] == "series" and k["label"][0] != "series"
    k = _kinds("""
        def pick(depths, cutoff, weights):
            import numpy as np
            return weights[depths > cutoff].sum() + np.where(weights > 0.5, 1, 0).sum()
    """)
    assert k["depths"][0].startswith("ndarray") and k["weights"][0].startswith("ndarray")
    assert not k["cutoff"][0].startswith(("ndarray", "series"))
    assert not _kinds("def f(name, label):\n    return name == label\n")["name"][0].startswith("series")


#: Made-up parsers of the shapes bioinformatics strings take: nested fields, indexed fields, runs.
PARSERS = {
    "interval_len": (
        """
        def interval_len(interval):
            name, rest = interval.split("@")
            lo, hi = (int(x) for x in rest.split(".."))
            if hi < lo:
                raise ValueError("reversed interval")
            return name.upper(), hi - lo
        """,
        ("fields", "@", [("word",), ("fields", "..", [("int",), ("int",)])]),
    ),
    "tag_total": (
        """
        def tag_total(tags):
            total = 0
            for tag in tags.strip().split(";"):
                key, value = tag.split("=")
                total += len(key) * int(value)
            return total
        """,
        ("run", ";", ("fields", "=", [("word",), ("int",)])),
    ),
    "hap_count": (
        """
        def hap_count(call):
            alleles = call.replace("|", "/").split("/")
            return sum(int(a) for a in alleles if int(a) > 0)
        """,
        ("run", "/", ("int",)),
    ),
    "accession": (
        """
        def accession(header):
            if not header.startswith(">"):
                raise ValueError("not a header")
            ident, _, desc = header[1:].partition(" ")
            source, acc, name = ident.split("|")
            return source.lower(), acc, len(name) + len(desc)
        """,
        ("fields", " ", [("fields", "|", [("word",), ("word",), ("word",)]), ("word",)]),
    ),
    "bin_line": (
        """
        def bin_line(row):
            cols = row.split("\\t")
            return cols[0], int(cols[2]) // 100, float(cols[3]) * 2
        """,
        ("fields", "\t", [("word",), ("word",), ("int",), ("float",)]),
    ),
    # positions the code computes (a column number, 1-based or not): a run long enough for them,
    # of the numbers the code converts such reads to
    "locus_cols": (
        """
        def locus_cols(line, chrom_col=1, start_col=2, end_col=3):
            f = line.split()
            return f[chrom_col - 1], int(f[start_col - 1]), int(f[end_col - 1])
        """,
        ("run", " ", ("int",), 21),
    ),
    "weight_at": (
        """
        def weight_at(record, idx, scale=1.0):
            parts = record.split(",")
            return float(parts[idx]) * scale
        """,
        ("run", ",", ("float",), 21),
    ),
}


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_strings_the_code_splits_get_the_shape_it_takes_apart(name: str):
    """Words, and fields joined by one separator, never get past ``lo, hi = (int(x) for x in
    rest.split(".."))``: the golden raised on every call. The split tree read from the body gives
    strings every parser here takes apart, and a wrong parse (a mutant) shows."""
    from biocoder_metric.synth.python_text import text_structure

    golden, shape = PARSERS[name]
    func = ast.parse(textwrap.dedent(golden)).body[0]
    param = func.args.args[0].arg
    assert text_structure(func, param) == shape
    assert _kinds(golden)[param][0] == "struct:" + repr(shape)
    outs = [_run(golden, name, seed=seed) for seed in range(8)]
    results = [ln for o in outs for ln in o.splitlines() if ln.startswith("result: ")]
    # most draws parse (a marker the code checks, '>', is planted in some; the rest are its own
    # rejections, which a validator may make up to half of)
    assert len(results) >= 5 and len(set(results)) >= 3, outs


def test_a_click_commands_parameters_are_typed_by_its_options():
    """``@click.option('--width', default=60)``, ``is_flag=True``, ``type=float``: the options
    type the parameters the signature leaves bare (a list of cores made every call raise)."""
    k = _kinds(
        """\
        @click.command()
        @click.argument('seq')
        @click.option('--line-width', 'width', default=60)
        @click.option('--upper', is_flag=True)
        @click.option('--min-gc', type=float)
        def wrap_seq(seq, width, upper, min_gc):
            s = seq.upper() if upper else seq
            return [s[i:i + width] for i in range(0, len(s), width) if min_gc]
        """
    )
    assert k["width"][0].startswith("int"), k["width"]
    assert k["upper"][0] == "bool", k["upper"]
    assert k["min_gc"][0].startswith("float"), k["min_gc"]


@pytest.mark.parametrize(
    ("text", "family"),
    [
        ("Dict[str, str]", "dict_str"),
        ("dict of str to str", "dict_str"),
        ("typing.Dict[str, float]", "dict_float"),
        ("Mapping[str, List[int]]", "dict_list"),
        ("dict[str, np.ndarray]", "dict_ndarray"),
        ("dict, optional", "dict"),
        ("list of dict", "list"),
    ],
)
def test_a_mapping_type_is_typed_by_what_it_maps_to(text: str, family: str):
    """``Dict[str, str]`` is a table of text, not of numbers; a mapping whose values are arrays or
    lists is a dict first (before, ``Mapping[str, List[int]]`` read as a list of words)."""
    assert python_inputs.family_of_type(text) == family


def test_documented_boolean_arrays_have_both_values_at_every_rank():
    """``array_like, bool, shape (n,)`` is a mask of both values: before, rank 1 and 3 were drawn
    as floats, every one of them true."""
    assert python_inputs.documented_array_kind("array_like, bool, shape (n_sites,)") == "ndarray1_bool"
    assert python_inputs.documented_array_kind("ndarray, bool, shape (a, b, c)") == "ndarray3_bool"
    kinds = _kinds('''
        def called_fraction(is_called):
            """Parameters
            ----------
            is_called : array_like, bool, shape (n_sites,)
                Whether each site was called.
            """
            return is_called.mean()
    ''')
    assert kinds["is_called"][0] == "ndarray1_bool"
    kinds_of = _kinds("""
        def rename(names, aliases: Dict[str, str]):
            return [aliases.get(n, n) for n in names]
    """)
    assert kinds_of["aliases"][0] == "dict_str_str"


def test_a_parameter_rejected_only_together_with_another_may_be_left_out():
    """``if stop is not None and start is None: raise`` rejects a missing ``start`` only when
    ``stop`` is given: ``start`` is not required, so leaving it out (and the error) shows; an
    ``or`` still rejects each."""
    from biocoder_metric.synth.python_evidence import required_defaults

    func = ast.parse(
        textwrap.dedent("""
        def window(n, start=None, stop=None, step=None):
            if stop is not None and start is None:
                raise ValueError("stop without start")
            if step is None or step == 0:
                raise ValueError("a step is needed")
            assert n is not None and start is not None
            return n
    """)
    ).body[0]
    assert required_defaults(func, ["start", "stop", "step"]) == ["start", "step"]
    func = ast.parse(
        textwrap.dedent("""
        def window(n, start=None, stop=None):
            if stop is not None and start is None:
                raise ValueError("stop without start")
            return n
    """)
    ).body[0]
    assert required_defaults(func, ["start", "stop"]) == []


def test_values_the_body_compares_with_none_are_found_on_parameters_and_self():
    from biocoder_metric.synth.python_evidence import none_checked

    func = ast.parse(
        textwrap.dedent("""
        def label(self, chrom, names, pad=None):
            if self.reference is None or None == names:
                return chrom
            if pad is not None and chrom != None:
                return self.other
            return names.get(chrom)
    """)
    ).body[0]
    assert none_checked(func, ["chrom", "names", "pad"], "self") == [
        "self.reference",
        "names",
        "pad",
        "chrom",
    ]
    assert none_checked(func, ["chrom", "names", "pad"]) == ["names", "pad", "chrom"]


def test_a_type_dispatch_gives_each_type_tested_and_the_harness_converts_between_them():
    """``isinstance(seq, str)`` ... ``isinstance(seq, (list, tuple))``: the types are found
    (python_evidence ``type_checked``), and the harness's ``_bc_retype`` turns a drawn value into
    another of them (a string into its list of letters, a list into an array)."""
    from biocoder_metric.synth.python_evidence import type_checked

    func = ast.parse(
        textwrap.dedent("""
        def f(seq, n, table=None):
            if isinstance(seq, str):
                return seq
            if isinstance(seq, (list, tuple)) or isinstance(n, np.ndarray):
                return n
            return isinstance(table, dict)
    """)
    ).body[0]
    assert type_checked(func, ["seq", "n", "table"]) == {
        "seq": ["str", "list", "tuple"],
        "n": ["ndarray"],
        "table": ["dict"],
    }
    ns: dict = {}
    exec(python_harness.PRELUDE, ns)  # noqa: S102 - the harness's own helpers, on the host
    import random

    r = random.Random(1)
    seen = {type(ns["_bc_retype"](r, "ACGT", ("str", "list", "tuple"), rate=1.0)) for _ in range(20)}
    assert seen == {list, tuple}
    arr = ns["_bc_retype"](r, [1, 2, 3], ("list", "ndarray"), rate=1.0)
    assert type(arr).__name__ == "ndarray" and arr.tolist() == [1, 2, 3]
    assert ns["_bc_retype"](r, "ACGT", ("str", "list"), rate=0.0) == "ACGT"
    assert ns["_bc_retype"](r, object, ("list", "int"), rate=1.0) is object  # nothing fits: unchanged


def test_a_mask_made_from_one_array_has_the_rank_of_the_array_it_indexes():
    """``values[regions == lab]`` with ``values = image.copy()``: ``regions`` has ``image``'s shape
    (python_inputs ``share_mask_rank``); drawn 1-D beside a 2-D image, every case was an
    IndexError."""
    kinds = _kinds('''
        def region_means(image, regions):
            """Mean intensity of each labelled region of an image (0 is background)."""
            values = image.copy()
            out = {}
            for lab in np.unique(regions[regions > 0]):
                out[int(lab)] = round(float(values[regions == lab].mean()), 4)
            return out
    ''')
    assert kinds["image"][0] == "ndarray2"
    assert kinds["regions"][0].startswith("ndarray2"), kinds["regions"]
    out = _run(
        """
        import numpy as np

        def region_means(image, regions):
            values = image.copy()
            out = {}
            for lab in np.unique(regions[regions > 0]):
                out[int(lab)] = round(float(values[regions == lab].mean()), 4)
            return out
        """,
        "region_means",
    )
    assert "IndexError" not in out and "result: {" in out, out


def test_inputs_compared_for_equality_are_paired():
    """Parameters, their attributes and ``self`` attributes compared with ``==``/``!=`` (not
    constants, not locals), at most four pairs."""
    from biocoder_metric.synth.python_evidence import equalities

    func = ast.parse(
        textwrap.dedent("""
        def f(self, table, chrom, n):
            local = 3
            if table.chromosome == table.x_label or chrom != self.seqid:
                return local == n
            return chrom == "chr1" or n == n
    """)
    ).body[0]
    assert equalities(func, ["table", "chrom", "n"], "self") == [
        (("table", "chromosome"), ("table", "x_label")),
        (("chrom", None), ("self", "seqid")),
    ]


def test_a_container_indexed_by_a_key_tested_against_it_is_a_mapping_typed_by_its_values():
    """``if k not in spans: ...; start, end = spans[k]`` is a mapping of pairs, ``for k in d:
    depths = d[k]; depths[0]`` one of lists; a list is indexed by positions, not by what it
    holds (before: both were lists of numbers)."""
    kinds = _kinds("""
        def f(spans, depth_of, gene):
            if gene not in spans:
                return None
            start, end = spans[gene]
            total = 0
            for contig in depth_of:
                depths = depth_of[contig]
                total += depths[0] + len(depths)
            return end - start, total
    """)
    assert kinds["spans"][0] == "dict_str_pair"
    assert kinds["depth_of"][0] == "dict_str_list"


def test_a_parameter_passed_on_to_a_sliced_helper_takes_the_helpers_evidence():
    """A thin wrapper shows nothing about what it forwards: ``_mask(x, y, scale=z)`` types ``x``,
    ``y`` and ``z`` by ``_mask``'s docstring, default and use (two levels down at most, through
    ``self.method`` too); ``x.count(...)`` is a method of ``x``, not the helper ``count``, and a
    helper that calls itself ends."""
    from biocoder_metric.synth.python_formats import helper_index

    helpers = helper_index([
        textwrap.dedent('''
        def _mask(a, b, scale=2.5):
            """Parameters
            ----------
            a : str
                A sequence.
            b : list of str
                Pieces.
            """
            return _inner(a, b, scale)

        def _inner(text, pieces, k):
            if k:
                return _inner(text, pieces, k - 1)
            return [text.find(p) * k for p in pieces]

        def count(values):
            return sum(v["n"] for v in values)

        def keyed(self, table):
            return table.get("x"), table.items()
        ''')
    ])  # fmt: skip
    func = ast.parse(
        textwrap.dedent("""
        def cover(self, x, y, z=None, t=None, w=None):
            m = _mask(x, y, scale=z)
            return sum(m) / len(m), self.keyed(t), w.count(x)
    """)
    ).body[0]
    plain = {p.name: p.kinds for p in python_inputs.infer_params(func, skip_first=True)}
    told = {p.name: p.kinds for p in python_inputs.infer_params(func, skip_first=True, helpers=helpers)}
    assert plain["x"][0].startswith("ndarray") and plain["y"][0].startswith("ndarray")
    assert told["x"][0].startswith("str_") and told["y"][0] == "list_str"
    assert told["z"][0].startswith("float") and told["t"][0].startswith("dict")
    assert python_inputs.forwarded_votes(func, "w", helpers) == {}  # ``w.count``: not the helper
    votes = python_inputs.forwarded_votes(func, "y", helpers)
    assert votes["list_str"] == pytest.approx(python_inputs.W_DOC * python_inputs.W_FORWARD)


def test_a_parameter_passed_on_gets_the_helpers_length_and_scale_constants():
    """The constants a helper compares its parameter with (``len(s) % 3``, ``len(s) > 60``,
    ``pos >= 16384``, ``s[0] == '>'``) reach the wrapper that forwards it, unless the wrapper's
    own body has some."""
    helper = textwrap.dedent("""
        def _codons(s, pos):
            if len(s) % 3 or len(s) > 60 or s[0] == ">":
                raise ValueError(s)
            return [s[i:i + 3] for i in range(0, len(s), 3)], pos >= 16384
    """)
    golden = textwrap.dedent("""
        def translate(text, offset, other):
            if len(other) > 5:
                other = other[:5]
            return _codons(text, offset), _codons(other, offset)
    """)
    plain = python_harness.analyse(golden, "translate")
    told = python_harness.analyse(golden, "translate", helper_sources=[helper])
    assert "text" not in plain.multiples and "offset" not in plain.scales
    assert told.multiples["text"] == 3 and 60 in told.lengths["text"]
    assert told.chars["text"] and told.scales["offset"]
    assert told.lengths["other"] == plain.lengths["other"]  # its own comparison wins


def test_a_self_attribute_passed_on_to_a_sliced_method_takes_its_evidence():
    """``self._sum(self.counts)``: the field is what the sliced method's parameter is."""
    golden = textwrap.dedent("""
        def total(self):
            return self._sum(self.counts)
    """)
    member = textwrap.dedent("""
        def _sum(self, values: dict):
            return sum(values.values())
    """)
    subject = python_harness.analyse(golden, "total", class_name="Tally", class_members=[member])
    assert dict(subject.attrs)["counts"][0].startswith("dict")


def test_a_documented_example_of_a_parameter_is_drawn_around():
    """``mol2_lines : list ... for example ['@<TRIPOS>MOLECULE\\n', ...]`` and ``region : str,
    e.g. 'chr1:123,456-123,900'``: the author's example has the shape the code takes apart; the
    harness varies its numbers (keeping their widths and separators) and its items, so the
    golden returns on every case and its result differs between cases. A text example of a list
    parameter comes second, and a parameter without one is unchanged."""
    golden = '''
        def atom_rows(mol2_lines, region, tag):
            r"""Atoms of a mol2 block, and the length of a region.

            Parameters
            ----------
            mol2_lines : list
                Lines of a mol2 file, for example
                ['@<TRIPOS>MOLECULE\\n', 'ZINC38611810\\n', '@<TRIPOS>ATOM\\n',
                 '      1 C1  -1.1786  2.7011  -4.0323 C.3  1 <0>   -0.1537\\n',
                 '      2 C2  -1.2950  1.2442  -3.5798 C.3  1 <0>   -0.1156\\n',
                 '@<TRIPOS>BOND\\n', ...]
            region : str
                A region, e.g. 'chr1:123,456-123,900'.
            tag : list
                Tags such as 'a,b'.
            """
            chrom, span = region.split(":")
            start, end = (int(x.replace(",", "")) for x in span.split("-"))
            first = mol2_lines.index("@<TRIPOS>ATOM\\n")
            last = mol2_lines.index("@<TRIPOS>BOND\\n")
            rows = []
            for line in mol2_lines[first + 1:last]:
                f = line.split()
                rows.append((int(f[0]), f[1], float(f[2]) < 0))
            return chrom, end - start, rows, len(tag)
    '''
    subject = python_harness.analyse(textwrap.dedent(golden), "atom_rows")
    kinds = {p.name: p.kinds for p in subject.params}
    assert kinds["mol2_lines"][0].startswith("example:[") and kinds["region"][0].startswith("example:'")
    assert kinds["tag"][1] == "example:'a,b'" and kinds["tag"][0].startswith("list")
    outs = [_run(golden, "atom_rows", seed=s) for s in range(8)]
    results = [ln for out in outs for ln in out.splitlines() if ln.startswith("result:")]
    assert len(results) == 8 and len(set(results)) == 8, outs
    assert any("True" in r for r in results) and any("False" in r for r in results), results


@pytest.mark.parametrize(
    ("said", "role"),
    [
        ("If string, assume it is a GFF or GTF-format line.", "line"),
        ("The text of a GFF file.", "text"),
        ("GFF lines, one feature per line.", "text"),
    ],
)
def test_a_parameter_documented_as_one_line_of_a_format_is_one_line(said: str, role: str):
    """``feature : Feature or str -- a GFF line`` passed on to a line parser: one data line, not
    a whole file (whose header and several records the parser reads as one mangled record)."""
    golden = f'''
        def to_record(feature):
            """Convert.

            Parameters
            ----------
            feature : Feature object, or string
                {said}
            """
            if isinstance(feature, str):
                feature = from_line(feature)
            return feature.seqid, feature.start - 1, feature.strand
    '''
    subject = python_harness.analyse(textwrap.dedent(golden), "to_record")
    assert subject.params[0].kinds[0] == f"fmt:{role}:gff"


def test_python2_compatibility_calls_read_as_what_they_stand_for():
    """``iteritems(d)`` / ``six.iteritems(d)`` is ``d.items()`` and ``text_type(x)`` is ``str(x)``
    (code written for both Pythons: its mappings were drawn as numbers); a mapping whose values
    the loop over its items iterates or takes apart holds lists."""
    kinds = _kinds("""
        def f(filter_dict, spans, weights, n):
            out = {}
            for rxn, members in iteritems(filter_dict):
                for m in members:
                    out[text_type(rxn)] = out.get(text_type(rxn), 0) + m
            width = {k: max(v) - min(v) for k, v in six.iteritems(spans) if v}
            total = sum(w * n for _, w in weights.items())
            return out, width, total
    """)
    golden = "def g(filter_dict):\n    return sorted(text_type(k) for k, _ in iteritems(filter_dict))\n"
    kinds.update({p.name: p.kinds for p in python_harness.analyse(golden, "g").params})
    assert kinds["spans"][0] == "dict_str_list"
    assert kinds["weights"][0].startswith("dict_str_") and "list" not in kinds["weights"][0]
    assert kinds["filter_dict"][0].startswith("dict")


def test_a_separator_parameter_is_one_separator_character():
    """``sep``, ``delimiter``: one of the characters tables and lines are split on (a word was
    drawn: ``read_csv(sep='xkq')`` and ``line.split('xkq')`` say nothing); ``sep_name`` is a name."""
    kinds = _kinds("""
        def f(line, sep="\\t", delimiter=None, sep_name="x"):
            return line.split(sep), (delimiter or ",").join(["a", "b"]), sep_name.upper()
    """)
    assert kinds["sep"][0] == kinds["delimiter"][0] == "str_sep"
    assert kinds["sep_name"][0] != "str_sep"
    r = __import__("random").Random(0)
    drawn = {eval(python_inputs.kind_expr("str_sep"), {"_r": r}) for _ in range(200)}
    assert drawn == {"\t", ",", " ", ";", "|", ":"}


def test_a_value_ordered_against_another_value_is_a_number():
    """``gap <= params['max_gap']`` (no constant on either side): the key's value is a number,
    not a word (comparing a word with a number raises); ordered against a constant string it
    stays text."""
    kinds = _kinds("""
        def f(params, limit, name):
            gap = 0
            while gap <= params['max_gap'] and name >= 'm':
                gap += 1
            return gap < limit
    """)
    assert "int" in kinds["params"][0] and "'max_gap': 'int" in kinds["params"][0], kinds["params"]
    assert kinds["limit"][0].startswith(("int", "float"))
    assert kinds["name"][0].startswith(("str", "choice:"))


def test_an_object_of_columns_has_the_length_of_its_columns():
    """``len(cnarr)`` with ``cnarr.depth.mean()``: the generated object (``_bc_ns``) is as long as
    its array fields (it had no length: every call raised)."""
    golden = """
        def mean_depth(cnarr):
            n = len(cnarr)
            return n, round(float(cnarr.depth.mean()), 3) if n else 0.0
    """
    outs = [_run(golden, "mean_depth", seed=s) for s in range(4)]
    results = [ln for out in outs for ln in out.splitlines() if ln.startswith("result:")]
    assert len(results) == 4 and len(set(results)) > 1, outs
    # one with no columns has no length, and is still there (``if self.handle:`` asks no length)
    golden = """
        def reopen(self, region):
            if self.handle and not self.handle.closed:
                self.handle.close()
            return region.upper()
    """
    outs = [_run(golden, "reopen", seed=s) for s in range(3)]
    assert all("result:" in out and "exception" not in out for out in outs), outs


def test_an_array_divided_in_place_holds_floats():
    """``counts /= n``: numpy cannot store the quotient in an integer array, so an array the
    name calls integer counts is drawn as floats when the body divides it in place."""
    divided = _kinds("""
        def f(counts, n):
            counts /= n
            return counts.sum(axis=0)
    """)
    floored = _kinds("""
        def f(counts, n):
            counts //= n
            return counts.sum(axis=0)
    """)
    assert divided["counts"][0].startswith("ndarray") and not divided["counts"][0].endswith("_int")
    assert floored["counts"][0].endswith("_int")  # floor division keeps integers


def test_what_a_function_is_mapped_over_is_a_sequence():
    """``pool.map(work, payload)``, ``map(f, xs)``: what a function is applied to is a sequence
    of values (round 24); an int there raised on every call. A value passed as the function
    itself, or mapped by pandas (``col.map(table)``), is not."""
    golden = textwrap.dedent("""
        def fan_out(payload, xs, table, col):
            from multiprocessing import Pool
            with Pool(2) as pool:
                got = pool.map(abs, payload)
            return got, list(map(round, xs)), col.map(table)
    """)
    params = {p.name: p.kinds for p in python_inputs.infer_params(ast.parse(golden).body[0])}
    assert params["payload"][0].startswith("list"), params["payload"]
    assert params["xs"][0].startswith("list"), params["xs"]
    assert not params["table"][0].startswith("list"), params["table"]


_SECTIONS = """
def label_points(points, sections=('ATOM', 'HETATM'), center=(0.0, 0.0)):
    out = []
    for i, (x, y) in enumerate(points):
        d = ((x - center[0]) ** 2 + (y - center[1]) ** 2) ** 0.5
        out.append((sections[i % len(sections)], round(d, 3)))
    return out
"""


def test_a_literal_default_is_an_example_of_the_argument():
    """``sections=('ATOM', 'HETATM')``, ``center=(0.0, 0.0)``: the default is the author's example
    of the value (round 24). A passed value keeps its element type and width, a tuple of names is
    now and then some of them, and a zero coordinate is not always zero; before, both were
    tuples of ints, which reached none of the code the default reaches."""
    params = {p.name: p.kinds for p in python_inputs.infer_params(ast.parse(_SECTIONS).body[0])}
    assert params["sections"][0] == "example:('ATOM', 'HETATM')", params["sections"]
    assert params["center"][0] == "example:(0.0, 0.0)", params["center"]
    golden = textwrap.dedent(_SECTIONS)
    sl = python_slice.slice_golden(golden, "label_points")
    subject = python_harness.analyse(golden, "label_points")
    ctx = python_harness.render(subject, sl, python_harness.plans(subject)[0])
    seeds = range(16)
    outs = run_context(ctx, golden, seeds)
    results = [ln for o in outs for ln in o.splitlines() if ln.startswith("result: ")]
    assert len(results) == 16 and len(set(results)) > 4, results
    # some cases pass one of the names only
    assert any(("'ATOM'" in r) != ("'HETATM'" in r) for r in results), results
    for bug in (
        golden.replace("sections[i % len(sections)]", "sections[0]"),
        golden.replace("- center[1]", "- center[0]"),
    ):
        assert run_context(ctx, bug, seeds) != outs, bug
