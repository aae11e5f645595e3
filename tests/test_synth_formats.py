"""Rules that generalise to whole classes of fresh code (issue #20): file-format inputs for parsers,
class members reached through copies of ``self`` and special methods, containers typed by their
elements' use.

Every fixture is written for this file (made-up parsers and classes in the styles real
repositories use); the harnesses are run for real, golden inserted, and must parse.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from _synth_helpers import run_harness

from biocoder_metric.execution import harness
from biocoder_metric.synth import python_formats, python_harness, python_inputs, python_slice
from biocoder_metric.synth.python_evidence import invalid_expr


def _run(golden: str, name: str, seeds, candidate: str | None = None) -> list[str]:
    return run_harness(golden, name, seeds, code=candidate)


def _kinds(golden: str, name: str) -> dict[str, str]:
    subject = python_harness.analyse(textwrap.dedent(golden), name)
    return {p.name: p.kinds[0] for p in subject.params}


# ---------------------------------------------------------------------------- file formats
NEWICK = '''\
def count_leaves(newick):
    """Count the leaves of a tree.

    Args:
        newick (str): the tree
    """
    if not newick.strip().endswith(";"):
        raise ValueError("not a Newick string")
    depth, leaves, prev = 0, 0, "("
    for ch in newick:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch not in "(),;:" and prev in "(,":
            leaves += 1
        prev = ch
    if depth != 0:
        raise ValueError("unbalanced")
    return leaves
'''

FASTA_HANDLE = """\
def read_lengths(handle):
    out = {}
    name = None
    for line in handle:
        line = line.rstrip()
        if line.startswith(">"):
            name = line[1:].split()[0]
            out[name] = 0
        elif name is None:
            raise ValueError("no header")
        else:
            out[name] += len(line)
    return out
"""

VCF_LINE = """\
def site_of(vcf_line):
    fields = vcf_line.rstrip("\\n").split("\\t")
    if len(fields) < 8:
        raise ValueError("too few columns")
    return fields[0], int(fields[1]), fields[3], fields[4].split(",")
"""

GFF_LINES = """\
def gene_ids(gff_lines):
    out = []
    for line in gff_lines:
        if line.startswith("#"):
            continue
        cols = line.rstrip("\\n").split("\\t")
        if len(cols) != 9:
            raise ValueError("bad line")
        attrs = dict(kv.split("=") for kv in cols[8].split(";"))
        out.append((cols[2], attrs["ID"], int(cols[4]) - int(cols[3])))
    return out
"""


@pytest.mark.parametrize(
    ("golden", "name", "param", "kind"),
    [
        (NEWICK, "count_leaves", "newick", "fmt:text:newick"),
        (FASTA_HANDLE, "read_lengths", "handle", "fmt:handle:fasta"),
        (VCF_LINE, "site_of", "vcf_line", "fmt:line:vcf"),
        (GFF_LINES, "gene_ids", "gff_lines", "fmt:lines:gff"),
    ],
)
def test_a_parser_parameter_gets_a_well_formed_record_of_its_format(golden, name, param, kind):
    assert _kinds(golden, name)[param] == kind
    outs = _run(golden, name, range(12))
    results = [o.splitlines()[0] for o in outs]
    # the golden parses every generated record: no exception outside the probes
    assert all(r.startswith("result: ") for r in results), results
    assert len(set(results)) > 3  # records differ between cases
    # and the probe's empty input reaches the error path (or the empty result) instead
    assert any(ln.startswith("probe") for o in outs for ln in o.splitlines())


def test_an_off_by_one_in_a_parser_is_caught_on_real_records():
    mutant = VCF_LINE.replace("int(fields[1])", "int(fields[1]) + 1")
    assert _run(VCF_LINE, "site_of", range(8)) != _run(VCF_LINE, "site_of", range(8), candidate=mutant)
    mutant = NEWICK.replace('prev in "(,"', 'prev in "("')
    assert _run(NEWICK, "count_leaves", range(8)) != _run(NEWICK, "count_leaves", range(8), candidate=mutant)


def test_format_evidence_from_docstrings_markers_and_helpers():
    doc_only = ast.parse(
        textwrap.dedent('''\
        def load(text):
            """Load it.

            Parameters
            ----------
            text : str
                A tree in Newick format.
            """
            return text.count("(")
        ''')
    ).body[0]
    assert python_formats.text_format(doc_only, "text") == "newick"
    marker = ast.parse("def f(x):\n    return [l for l in x.splitlines() if l.startswith('#CHROM')]\n").body[
        0
    ]
    assert python_formats.text_format(marker, "x") == "vcf"
    helper = "def _records(h):\n    return [l for l in h if l[0] == '>']\n"
    via = ast.parse("def read(source):\n    return list(_records(source))\n").body[0]
    assert python_formats.text_format(via, "source") is None
    assert python_formats.text_format(via, "source", python_formats.helper_index([helper])) == "fasta"
    plain = ast.parse("def f(name):\n    return name.upper()\n").body[0]
    assert python_formats.format_kind(plain, "name", "str_word") is None  # no evidence: no format
    # a handle without a known format is still an open text file, never a number
    h = ast.parse("def n_lines(fh):\n    return len(fh.readlines())\n").body[0]
    assert python_formats.format_kind(h, "fh", "int_small") == "fmt:handle:text"
    assert invalid_expr("fmt:lines:gff") == "[]" and invalid_expr("fmt:text:newick") == "''"


@pytest.mark.parametrize("fmt", python_formats.FORMATS)
def test_every_format_generator_writes_parseable_text(fmt, tmp_path: Path):
    prog = python_harness.PRELUDE + textwrap.dedent(f"""
        _r = _bc_random.Random(3)
        for _ in range(20):
            text = _bc_format(_r, {fmt!r})
            assert text.endswith("\\n") or {fmt!r} == "newick", text
            line = _bc_format_line(_r, {fmt!r})
            assert line and "\\n" not in line
            if {fmt!r} == "newick":
                assert text.endswith(";") and text.count("(") == text.count(")") >= 1
            if {fmt!r} in ("vcf", "sam", "bed", "gff"):
                width = {{"vcf": None, "sam": 11, "bed": 6, "gff": 9}}[{fmt!r}]
                for ln in text.splitlines():
                    if not ln.startswith(("#", "@")):
                        assert width is None or len(ln.split("\\t")) == width, ln
            if {fmt!r} == "fasta":
                assert text.startswith(">")
            p = _bc_file(_r, {fmt!r})
            assert open(p).read()
        print("ok")
        """)
    done = subprocess.run(
        [sys.executable, "-c", prog], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert done.stdout.strip() == "ok", done.stderr


# ---------------------------------------------------------------------------- class members
TREE = """\
from copy import copy


class Tree:
    def __init__(self, tips):
        self.tips = list(tips)

    def __iter__(self):
        return iter(self.tips)

    def __len__(self):
        return len(self.tips)

    def __copy__(self):
        return Tree(self.tips)

    def prune(self, tip):
        self.tips = [x for x in self.tips if x != tip]

    def unrelated(self):
        return 1

    def balance(self, tip):
        t = copy(self)
        t.prune(tip)
        return len(t), sorted(x for x in t)
"""


def test_members_reached_through_a_copy_of_self_and_special_methods_are_sliced(tmp_path: Path):
    repo = tmp_path / "tr"
    (repo / "trpkg").mkdir(parents=True)
    (repo / "trpkg" / "__init__.py").write_text("")
    (repo / "trpkg" / "tree.py").write_text(TREE)
    golden = textwrap.indent(TREE[TREE.index("def balance") :], "    ").strip() + "\n"
    golden = "def balance(self, tip):\n" + TREE[TREE.index("def balance") :].split("\n", 1)[1]
    golden = textwrap.dedent(golden)
    sl = python_slice.slice_repository(golden, "balance", repo, repo / "trpkg" / "tree.py")
    names = {ast.parse(m).body[0].name for m in sl.class_members}
    # prune via the copy, __copy__ via copy(), __len__ via len(t), __iter__ via the loop over t
    assert {"prune", "__copy__", "__len__", "__iter__", "__init__"} <= names
    assert "unrelated" not in names and "balance" not in names
    subject = python_harness.analyse(
        golden, "balance", str(repo), sl.class_name, sl.class_members, sl.definitions
    )
    assert ("tips" in dict(subject.attrs)) and not subject.missing_methods
    row = {"task_id": "t", "language": "python", "function_name": "balance", "golden_code": golden}
    ctx = python_harness.render(subject, sl, python_harness.plans(subject)[0])
    results = set()
    for seed in range(10):
        prog = harness.build_harness_programs(dict(row, context=ctx), golden, fuzz_cases=1, seed=seed)[0]
        out = subprocess.run(
            [sys.executable, "-c", prog], capture_output=True, text=True, timeout=60, check=True
        )
        results.add(out.stdout.splitlines()[0])
    assert all(r.startswith("result: (") for r in results) and len(results) > 3


def test_protocol_members_and_self_aliases():
    f = ast.parse(
        textwrap.dedent("""\
        def m(self, k):
            other = self
            new = type(self)()
            if k in self:
                return self[k] + len(other) + hash(new)
            for x in self:
                pass
        """)
    ).body[0]
    selves = python_slice.self_aliases(f, "C")
    assert {"other", "new"} <= selves
    got = python_slice.protocol_members(f, selves)
    assert {"__contains__", "__getitem__", "__len__", "__hash__", "__iter__", "__init__"} <= set(got)


# ---------------------------------------------------------------------------- element types
def test_containers_are_typed_by_how_their_elements_are_used():
    kinds = _kinds(
        """\
        def matrix(ids, data):
            rows = {i: {} for i in ids}
            for i, j, _, value in data:
                rows[i][j] = float(value)
            return rows
        """,
        "matrix",
    )
    assert (
        kinds["data"].startswith("tuplelist:")
        and len(python_inputs.ast.literal_eval(kinds["data"][10:])) == 4
    )
    kinds = _kinds(
        """\
        def total(records):
            return sum(r["count"] for r in records)
        """,
        "total",
    )
    assert kinds["records"] == "dictlist:{'count': 'str_word'}" or kinds["records"].startswith("dictlist:")
    kinds = _kinds(
        """\
        def ids(arr):
            return arr[2].split(";")
        """,
        "ids",
    )
    assert kinds["arr"] == "list_str"
    kinds = _kinds(
        """\
        def alleles(gts):
            out = []
            for a in gts or []:
                out.append(a + 1)
            return out
        """,
        "alleles",
    )
    assert kinds["gts"].startswith("list")
    # and the generated values feed the golden without raising
    golden = textwrap.dedent("""\
        def matrix(data):
            rows = {}
            for i, j, _, value in data:
                rows.setdefault(i, {})[j] = value
            return rows
        """)
    outs = _run(golden, "matrix", range(6))
    assert all(o.startswith("result: {") for o in outs)


# ---------------------------------------------------------------------------- array rank
def test_array_rank_follows_indexing_axis_and_shape():
    def rank(src, target):
        return python_inputs.array_rank(ast.parse(textwrap.dedent(src)).body[0], target)

    assert rank("def f(x, k):\n    return x[:, k] == 1\n", "x") == 2
    assert rank("def f(g):\n    return g[..., 0, 1]\n", "g") == 3
    assert rank("def f(g):\n    return g.shape[2]\n", "g") == 3
    assert rank("def f(a):\n    import numpy as np\n    return np.all(a >= 0, axis=1)\n", "a") == 2
    assert rank("def f(a):\n    return a.sum(axis=-1)\n", "a") == 1
    assert rank("def f(a):\n    return a[3]\n", "a") == 0
    kinds = _kinds(
        """\
        def singletons(self_values, allele):
            return self_values[:, allele] == 1
        """,
        "singletons",
    )
    assert kinds["self_values"] == "ndarray2_int"
    kinds = _kinds(
        """\
        def called(genotypes):
            import numpy as np
            return np.all(genotypes[:, :, 0] >= 0, axis=1)
        """,
        "called",
    )
    assert kinds["genotypes"] == "ndarray3_int"
    kinds = _kinds(
        """\
        def density(pos, values):
            import numpy as np
            return np.diff(pos) / values[1:]
        """,
        "density",
    )
    assert kinds["pos"] == "ndarray1_pos"
    outs = _run(
        textwrap.dedent("""\
        def gaps(pos):
            import numpy as np
            d = np.diff(pos)
            if (d <= 0).any():
                raise ValueError("positions must increase")
            return int(d.min())
        """),
        "gaps",
        range(6),
    )
    assert all(o.startswith("result: ") for o in outs)  # sorted, distinct positions every time


# ---------------------------------------------------------------------------- lengths and characters
TRIM = """\
def trim_start(protein):
    if protein[0] == "M":
        return protein[1:]
    if protein.endswith("*"):
        return protein[:-1]
    return protein
"""

PAD = """\
def pad(tags):
    if len(tags) > 8:
        return tags[:8]
    return tags + ["-"]
"""


def test_lengths_and_characters_the_body_tests_are_reached():
    from biocoder_metric.synth.python_evidence import char_constants, length_constants

    assert length_constants(ast.parse(PAD).body[0], "tags") == [8]
    assert set(char_constants(ast.parse(TRIM).body[0], "protein")) == {(0, "M"), (-1, "*")}
    outs = _run(TRIM, "trim_start", range(30))
    for mutant in (
        TRIM.replace('protein[0] == "M"', 'protein[1] == "M"'),
        TRIM.replace("return protein[:-1]", "return protein[:-2]"),
    ):
        assert _run(TRIM, "trim_start", range(30), candidate=mutant) != outs, mutant
    outs = _run(PAD, "pad", range(30))
    # random lists have 1..6 items: only lengths planted at 7, 8, 9 tell > 8 from >= 8
    assert _run(PAD, "pad", range(30), candidate=PAD.replace("> 8", ">= 8")) != outs


# ---------------------------------------------------------------------------- slicing shims
SHIMS = """\
import collections
import simplejson as json

try:
    abc_mod = collections.abc
except AttributeError:
    abc_mod = collections


def as_record(d: dict):
    if not isinstance(d, abc_mod.Mapping):
        raise TypeError("not a mapping")
    return json.dumps(d, sort_keys=True)
"""


def test_compatibility_shims_and_drop_in_imports_resolve(tmp_path: Path):
    repo = tmp_path / "sh"
    (repo / "shpkg").mkdir(parents=True)
    (repo / "shpkg" / "__init__.py").write_text("")
    (repo / "shpkg" / "rec.py").write_text(SHIMS)
    golden = SHIMS[SHIMS.index("def as_record") :]
    sl = python_slice.slice_repository(golden, "as_record", repo, repo / "shpkg" / "rec.py")
    assert sl.unresolved == []
    assert "import json" in sl.imports  # simplejson is not in the image: the stdlib module it replaces
    assert any(d.startswith("try:") and "abc_mod = collections" in d for d in sl.definitions)
    subject = python_harness.analyse(golden, "as_record")
    ctx = python_harness.render(subject, sl, python_harness.plans(subject)[0])
    row = {"task_id": "t", "language": "python", "function_name": "as_record", "golden_code": golden}
    prog = harness.build_harness_programs(dict(row, context=ctx), golden, fuzz_cases=1, seed=1)[0]
    out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.startswith("result: '{")


# ---------------------------------------------------------------------------- objects with behaviour
def test_methods_called_on_an_untyped_object_are_stubbed():
    golden = textwrap.dedent("""\
        def describe(header, keys):
            infos = list(map(header.lookup, keys))
            n = header.count_samples()
            header.close()
            return [str(i) for i in infos], n + 1
        """)
    func = ast.parse(golden).body[0]
    methods = python_inputs.object_methods(func, "header")
    assert methods["lookup"] == "stub:str_word"  # passed to map: a function
    assert methods["close"] == "stub:none"  # result unused
    assert methods["count_samples"].startswith("stub:int")  # its result is added to 1
    kinds = _kinds(golden, "describe")
    assert kinds["header"].startswith("obj:")
    outs = _run(golden, "describe", range(5))
    assert all(o.startswith("result: ([") for o in outs), outs


def test_a_dict_gets_the_keys_the_code_reads():
    golden = textwrap.dedent("""\
        def render(attrs, dialect):
            sep = dialect["sep"]
            if dialect.get("fmt") == "gff3":
                return sep.join("%s=%s" % kv for kv in sorted(attrs.items()))
            return sep.join("%s %s" % kv for kv in sorted(attrs.items())) + dialect["suffix"]
        """)
    kinds = _kinds(golden, "render")
    # dialect.get("fmt"): "fmt" may be absent (optkeys wraps the dict of every key read)
    assert kinds["dialect"].startswith("optkeys:")
    optional, inner = ast.literal_eval(kinds["dialect"][len("optkeys:") :])
    assert optional == ["fmt"] and inner.startswith("dictkeys:")
    keys = ast.literal_eval(inner[len("dictkeys:") :])
    assert set(keys) == {"sep", "fmt", "suffix"} and "gff3" in keys["fmt"]
    outs = _run(golden, "render", range(12))
    assert all(o.startswith("result: ") for o in outs)
    # both formats are rendered: the compared-to value is among the choices
    mutant = golden.replace('== "gff3"', '!= "gff3"')
    assert _run(golden, "render", range(12), candidate=mutant) != outs
