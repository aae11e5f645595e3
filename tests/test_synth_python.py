"""Python harness synthesis without running code: inference, slicing, rendering (and real tasks)."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from biocoder_metric.execution import harness
from biocoder_metric.synth import python_harness, python_inputs, python_slice
from biocoder_metric.synth.pipeline import SynthOptions, candidates

REPOS = Path(__file__).resolve().parent.parent.parent / "shared" / "repos"


def _func(code: str) -> ast.FunctionDef:
    return ast.parse(textwrap.dedent(code)).body[0]


def _kinds(code: str, repo=None) -> dict[str, list[str]]:
    return {p.name: p.kinds for p in python_inputs.infer_params(_func(code), repo)}


def test_docstring_types_numpydoc_google_sphinx():
    numpy_doc = _kinds('''
        def f(a, b, c):
            """Do it.

            Parameters
            ----------
            a : int
                count
            b : list of str
            c : numpy.ndarray
            """
    ''')
    assert numpy_doc["a"][0].startswith("int")
    assert numpy_doc["b"][0] in ("list_str", "list_dna")
    assert numpy_doc["c"][0].startswith("ndarray")
    google = _kinds('''
        def f(x, y):
            """Args:
                x (float): a value
                y (bool): a flag
            """
    ''')
    assert google["x"][0].startswith("float") and google["y"][0] == "bool"
    sphinx = _kinds('''
        def f(x, y):
            """:param str x: name
            :type y: dict
            """
    ''')
    assert sphinx["x"][0].startswith("str") and sphinx["y"][0].startswith("dict")


def test_annotations_and_defaults_beat_names():
    k = _kinds("def f(seq: int, p=3, q: 'list[float]' = None): return seq")
    assert k["seq"][0].startswith("int")  # annotation over the name 'seq'
    assert k["p"][0].startswith("int")  # default 3 over the name 'p' (a probability)
    assert k["q"][0] == "list_float"


def test_names_pick_bioinformatics_values():
    k = _kinds("def f(dna_seq, protein, k, purity, fasta_path, chrom): pass")
    assert k["dna_seq"][0] == "str_dna"
    assert k["protein"][0] == "str_protein"
    assert k["k"][0] == "int_pos"
    assert k["purity"][0] == "float_unit"
    assert k["fasta_path"][0] == "path_fasta"
    assert k["chrom"][0] == "str_chrom"


def test_body_usage_decides_unnamed_parameters():
    k = _kinds("""
        def f(a, b, c, d, e):
            for i in range(a):
                pass
            b.append(1)
            x = c.upper()
            y = d["key"]
            with open(e) as fh:
                pass
            return d.shape
    """)
    assert k["a"][0].startswith("int")
    assert k["b"][0].startswith("list")
    assert k["c"][0].startswith("str")
    assert k["e"][0].startswith("path")


def test_joined_values_are_strings_and_commands_are_lists_of_strings():
    k = _kinds("""
        def f(parts, sep, root, name, cmd):
            label = sep.join(parts)
            out = os.path.join(root, name + ".txt")
            subprocess.run(cmd, check=True)
            return label, out
    """)
    assert k["parts"][0] == "list_str"  # str.join takes strings, not the ints of a bare "list"
    assert k["root"][0].startswith("str")  # os.path.join is not str.join: its parts are strings
    # an argument list a harmless program runs (round 24), the plain list of strings after it
    assert k["cmd"][0] == "command:argv" and "list_str" in k["cmd"], k["cmd"]
    star = python_harness.analyse("def g(*args):\n    return ' '.join(args)\n", "g").params[0]
    assert star.star and star.kinds[0] == "list_str"


def test_compared_strings_become_choices():
    k = _kinds("""
        def f(mode):
            if mode == "fast":
                return 1
            elif mode in ("slow", "exact"):
                return 2
            return mode.lower()
    """)
    assert k["mode"][0].startswith("choice:")
    assert {"fast", "slow", "exact"} <= set(ast.literal_eval(k["mode"][0][len("choice:") :]))


def test_call_sites_in_the_repository_vote(tmp_path: Path):
    (tmp_path / "use.py").write_text("from m import f\nf(3.5, 'x')\nf(1.25, 'y')\n")
    k = _kinds("def f(a, b): return a", repo=tmp_path)
    assert k["a"][0].startswith("float")
    assert k["b"][0].startswith("str")


def _mini_repo(tmp_path: Path) -> Path:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "consts.py").write_text("BASES = 'ACGT'\nUNUSED = 1\n")
    (pkg / "seqs.py").write_text(
        textwrap.dedent('''
        import numpy as np
        import somepackage_not_in_image
        from .consts import BASES
        from collections import Counter

        COMPLEMENT = {"A": "T", "C": "G", "G": "C", "T": "A"}
        OTHER = 5

        def _clean(s):
            return "".join(c for c in s.upper() if c in BASES)

        def revcomp(seq):
            """Reverse complement."""
            return "".join(COMPLEMENT[c] for c in reversed(_clean(seq)))

        def counts(seq):
            return Counter(_clean(seq))

        def broken(x):
            return somepackage_not_in_image.go(x)

        class Track:
            SCALE = 2

            def helper(self):
                return self.SCALE * self.width

            def area(self, n):
                return self.helper() * n + self.height
    ''')
    )
    return tmp_path


def test_repository_slice_is_transitive_and_minimal(tmp_path: Path):
    repo = _mini_repo(tmp_path)
    golden = "def counts(seq):\n    return Counter(_clean(seq))\n"
    sl = python_slice.slice_repository(golden, "counts", repo, "pkg/seqs.py")
    text = "\n".join(sl.imports + sl.definitions)
    assert "from collections import Counter" in sl.imports
    assert "def _clean" in text and "BASES = 'ACGT'" in text  # through the relative import
    assert "COMPLEMENT" not in text and "OTHER" not in text and "UNUSED" not in text
    assert sl.unresolved == []
    bad = python_slice.slice_repository(
        "def broken(x):\n    return somepackage_not_in_image.go(x)\n", "broken", repo, "pkg/seqs.py"
    )
    assert bad.unresolved and "not in the reference image" in bad.unresolved[0]


def test_methods_get_their_class_members_and_generated_fields(tmp_path: Path):
    repo = _mini_repo(tmp_path)
    golden = "def area(self, n):\n    return self.helper() * n + self.height\n"
    sl = python_slice.slice_repository(golden, "area", repo, "pkg/seqs.py")
    assert sl.class_name == "Track"
    assert any("def helper" in m for m in sl.class_members) and any(
        "SCALE = 2" in m for m in sl.class_members
    )
    subject = python_harness.analyse(golden, "area", repo, sl.class_name, sl.class_members)
    assert subject.method == "instance"
    assert {a for a, _ in subject.attrs} == {"height", "width"}  # read by the method and by its helper
    plan = python_harness.plans(subject)[0]
    ctx = python_harness.render(subject, sl, plan)
    assert "_bc_obj = Track.__new__(Track)" in ctx and "_bc_obj.height = " in ctx


_SEED_PROBE = """
import sys
from biocoder_metric.synth import python_harness, python_slice
repo, golden = sys.argv[1], sys.argv[2]
sl = python_slice.slice_repository(golden, "score", repo, "pkg/track.py")
subject = python_harness.analyse(golden, "score", repo, sl.class_name, sl.class_members, sl.definitions)
print(python_harness.render(subject, sl, python_harness.plans(subject)[0]))
"""


def test_repository_slice_and_harness_do_not_depend_on_the_hash_seed(tmp_path: Path):
    """The class members' free names are resolved in first-use order, not a set's (hash-seed) order.

    A harness's digest keys caches and the shipped file, so the same function must give the same
    bytes in every interpreter. Twelve helpers named only by other members make a set-ordered
    resolution differ between seeds almost surely.
    """
    import subprocess
    import sys

    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    names = [f"helper_{c}" for c in "abcdefghijkl"]
    helpers = "".join(f"def {n}(x):\n    return x + {i}\n\n" for i, n in enumerate(names))
    calls = " + ".join(f"{n}(self.v)" for n in names)
    (pkg / "track.py").write_text(
        helpers
        + "class Track:\n"
        + f"    def total(self):\n        return {calls}\n\n"
        + "    def score(self, n):\n        return self.total() * n\n"
    )
    golden = "def score(self, n):\n    return self.total() * n\n"
    texts = set()
    for seed in ("1", "2", "3", "4"):
        run = subprocess.run(
            [sys.executable, "-c", _SEED_PROBE, str(tmp_path), golden],
            capture_output=True,
            text=True,
            env={**__import__("os").environ, "PYTHONHASHSEED": seed},
            cwd=Path(__file__).resolve().parent.parent,
            check=True,
        )
        texts.add(run.stdout)
    assert len(texts) == 1
    assert all(f"def {n}" in next(iter(texts)) for n in names)


def test_golden_only_slice_uses_known_imports_and_symbolic_constants():
    golden = "def f(x, mode):\n    if mode == MODE_FAST:\n        return np.sum(x)\n    return Counter(x)\n"
    sl = python_slice.slice_golden(golden, "f")
    assert "import numpy as np" in sl.imports and "from collections import Counter" in sl.imports
    assert "MODE_FAST = 'MODE_FAST'" in sl.definitions
    assert python_slice.slice_golden("def f(x):\n    return helper(x)\n", "f").unresolved == ["helper"]


def test_golden_only_slice_binds_compat_numpy_and_logger_names_its_package_imported():
    """A function cut out of its package keeps bare names the package imported from six, numpy or
    scipy.stats, and its module logger; each gets the binding the package had, and only those."""
    golden = (
        "def summarise(table, axis):\n"
        "    logger.info('summarising %d rows', len(table))\n"
        "    out = {}\n"
        "    for k, v in iteritems(table):\n"
        "        if not isinstance(k, text_type):\n"
        "            warnings.warn(k, OddKeyWarning)\n"
        "        out[k] = gmean(v) + dot(v, v)\n"
        "    return out\n"
    )
    sl = python_slice.slice_golden(golden, "summarise")
    assert sl.unresolved == []
    assert "from six import iteritems" in sl.imports and "from six import text_type" in sl.imports
    assert "from scipy.stats import gmean" in sl.imports and "from numpy import dot" in sl.imports
    assert "logger = __import__('logging').getLogger(__name__)" in sl.definitions
    assert "class OddKeyWarning(Warning):\n    pass" in sl.definitions
    ns: dict = {}
    exec("\n".join(sl.imports + ["import warnings"] + sl.definitions + [golden]), ns)
    assert issubclass(ns["OddKeyWarning"], Warning)
    # a name used as anything but a logger is not taken for one; a callable object is not an export
    other = "def f(x):\n    logger.info(x)\n    return logger(x)\n"
    assert python_slice.slice_golden(other, "f").unresolved == ["logger"]
    assert python_slice.slice_golden("def f(x):\n    return test(x)\n", "f").unresolved == ["test"]
    # a helper among the siblings wins over an image name
    helper = "def dot(a, b):\n    return 0\n"
    sl = python_slice.slice_golden("def f(v):\n    return dot(v, v)\n", "f", helpers={"dot": helper})
    assert "from numpy import dot" not in sl.imports and any("def dot" in d for d in sl.definitions)


def test_rendered_harness_is_in_the_engine_grammar():
    golden = "def gc(seq):\n    return (seq.count('G') + seq.count('C')) / max(len(seq), 1)\n"
    sl = python_slice.slice_golden(golden, "gc")
    subject = python_harness.analyse(golden, "gc")
    ctx = python_harness.render(subject, sl, python_harness.plans(subject)[0])
    row = {
        "task_id": "t",
        "language": "python",
        "function_name": "gc",
        "context": ctx,
        "signature": "def gc(seq)",
    }
    assert ctx.count(harness.INSERT_MARKER) == 1
    assert [p.kind for p in harness.find_placeholders(ctx, "t")] == ["int"]
    progs = harness.build_harness_programs(row, golden, fuzz_cases=3, seed=0)
    assert len(set(progs)) == 3  # one seed per case
    for p in progs:
        ast.parse(p)


@pytest.mark.upstream
def test_real_python_tasks_get_candidates(upstream_dir: Path):
    from biocoder_dataset.configs import load_problems

    rows = [r for r in load_problems("python_public", source_dir=upstream_dir) if r["kind"] == "harness"]
    repos = {"cnvkit": str(REPOS / "cnvkit")} if (REPOS / "cnvkit").is_dir() else {}
    with_candidates = 0
    for r in rows:
        cands, reason, _ = candidates(dict(r, context=None), SynthOptions(repos=repos))
        if cands:
            with_candidates += 1
            for _, _, ctx in cands:
                prog = harness.build_harness_programs(
                    dict(r, context=ctx), r["golden_code"], fuzz_cases=1, seed=0
                )[0]
                ast.parse(prog)
        else:
            assert reason
    assert with_candidates >= 50, with_candidates


def test_a_chain_deeper_than_the_slicers_recursion_is_sliced_whole(tmp_path: Path):
    """A golden that reaches a definition through more than ``MAX_DEPTH`` others gets all of them:
    names met that deep are resolved afterwards, not dropped (the harness failed with NameError)."""
    depth = python_slice.MAX_DEPTH + 6
    chain = "".join(f"def f{i}(x):\n    return f{i + 1}(x) + {i}\n\n\n" for i in range(depth))
    chain += f"def f{depth}(x):\n    return x * 2\n"
    golden = "def top(x):\n    return f0(x) - 1\n"
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "chain.py").write_text(chain + "\n\n" + golden)
    sl = python_slice.slice_repository(golden, "top", tmp_path, tmp_path / "pkg" / "chain.py")
    assert not sl.unresolved
    defined = {ast.parse(d).body[0].name for d in sl.definitions}
    assert {f"f{i}" for i in range(depth + 1)} <= defined
    ns: dict = {}
    exec("\n\n".join(sl.definitions) + "\n\n" + golden, ns)
    assert ns["top"](5) == 5 * 2 + sum(range(depth)) - 1


def test_a_class_body_calling_another_classs_method_comes_after_what_that_method_needs():
    """``_converters = Converter.converters()`` runs ``Converter``'s method while the class is
    defined: what the method reads (``Unit``) must be defined first, as for ``Converter(...)``."""
    defs = [
        "class Reader:\n    _converters = Converter.converters()\n",
        "class Converter:\n    @classmethod\n    def converters(cls):\n        return {'u': Unit}\n",
        "class Unit(int):\n    pass\n",
    ]
    ordered = python_slice.definition_order(defs)
    ns: dict = {}
    exec("\n".join(ordered), ns)
    assert ns["Reader"]._converters == {"u": ns["Unit"]}
