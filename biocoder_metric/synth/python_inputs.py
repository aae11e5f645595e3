"""Infer, for each parameter of a Python function, which generator should feed it.

Why a ranked list and not one answer: nothing about a parameter is certain (a name
like ``x`` can be a number or an array), so every source of evidence votes for value
*families* with a weight, and :mod:`biocoder_metric.synth.validate` tries the best
guess first and falls back to the next one when the golden rejects the inputs.

Evidence, strongest first: annotations, defaults, docstring types (numpydoc, Google,
Sphinx), call sites in the repository, how the body uses the parameter (attribute
access, indexing, arithmetic, ``range``/``open``/``len``), and finally its name
(``seq`` is DNA, ``k`` a small count, ``p`` a probability, ``path`` a file the harness
creates). A family is then refined into a concrete *kind* (an entry of :data:`KINDS`),
which :mod:`biocoder_metric.synth.python_harness` turns into generator code.
"""

from __future__ import annotations

import ast
import copy
import functools
import keyword
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from biocoder_metric import pyast
from biocoder_metric.synth import python_cli
from biocoder_metric.synth.python_evidence import (
    default_example,
    defaults_of,
    documented_example,
    edge_slice,
    none_compared,
    py3_idioms,
    unwrap_copies,
)
from biocoder_metric.synth.python_files import constant_list, file_kind, handle_kind, lines_expr, prefix_kind
from biocoder_metric.synth.python_formats import described, format_expr, format_kind
from biocoder_metric.synth.python_slice import dispatch_choices
from biocoder_metric.synth.python_text import regex_samples, text_structure

#: How often a value the body compares with ``None`` is ``None`` (``if self.path is None:``,
#: ``if args.extract is None``): the harness's ``_nullable`` and the ``maybe:`` field kind.
NULL_RATE = 0.25

#: Concrete generator kinds. Each is an expression over ``_r`` (a ``random.Random``) in the
#: harness; helpers named ``_bc_*`` come from the harness prelude. Arrays share one length
#: (``_bc_n``) and one 2-D shape (``_bc_h``, ``_bc_w``) per call: numeric code usually needs
#: its arrays to match (weights and signal, image and mask).
KINDS: dict[str, str] = {
    "int_small": "_r.randint(0, 10)",
    "int_pos": "_r.randint(1, 20)",
    "int_signed": "_r.randint(-50, 50)",
    "int_end": "_r.randint(10, 20)",
    "float_unit": "round(_r.random(), 6)",
    "float_pos": "round(_r.uniform(0.1, 100.0), 6)",
    "float": "round(_r.uniform(-100.0, 100.0), 6)",
    "bool": "_r.random() < 0.5",
    # words come from the case's few shared words half the time (``_bc_word``): a name argument
    # and the keys of a dict or the names in a file then meet
    "str_word": "_bc_word(_r)",
    "str_dna": "_bc_seq(_r, 'ACGT', 5, 30)",
    "str_rna": "_bc_seq(_r, 'ACGU', 5, 30)",
    "str_protein": "_bc_seq(_r, 'ACDEFGHIKLMNPQRSTVWY', 5, 30)",
    # few names, some repeated: two chromosome arguments must often match; '1'/'X' for code that strips 'chr'
    # the separators tables and lines use (a word never is one; a parser rejects most)
    "str_sep": "_r.choice(['\\t', ',', ' ', ';', '|', ':'])",
    "str_chrom": "_r.choice(['chr1', 'chr1', 'chr2', 'chr2', 'chrX', '1', 'X'])",
    "str_line": "_bc_line(_r)",
    "path_text": "_bc_file(_r, 'text')",
    "path_fasta": "_bc_file(_r, 'fasta')",
    "path_fastq": "_bc_file(_r, 'fastq')",
    "path_out": "_bc_outpath(_r)",
    # an empty directory the function writes into (``os.path.join(out_dir, name)``)
    "path_dir": "_bc_outdir(_r)",
    # a graph as an adjacency dict whose neighbours are keys too (the case's shared words)
    "dict_graph": "_bc_graph(_r)",
    # an open text file the function writes to; what it holds after the call is shown
    "handle_out": "_bc_outhandle(_r)",
    "list_int": "[_r.randint(0, 20) for _ in range(_r.randint(1, 8))]",
    "list_float": "[round(_r.uniform(0.0, 10.0), 6) for _ in range(_bc_n)]",
    "list_str": "[_bc_word(_r) for _ in range(_r.randint(1, 6))]",
    "list_dna": "[_bc_seq(_r, 'ACGT', 5, 20) for _ in range(_r.randint(1, 6))]",
    "dict_str_int": "{_bc_word(_r): _r.randint(0, 20) for _ in range(_r.randint(1, 6))}",
    "dict_str_ndarray": "{_bc_word(_r): _bc_np(_r).rand(_bc_h, _bc_w) for _ in range(_r.randint(1, 4))}",
    "dict_str_float": "{_bc_word(_r): round(_r.random(), 6) for _ in range(_r.randint(1, 6))}",
    # a translation table (``Dict[str, str]``): words to words, the case's shared ones included
    "dict_str_str": "{_bc_word(_r): _bc_word(_r) for _ in range(_r.randint(1, 6))}",
    # spans by name (``start, end = spans[gene]``): ordered pairs
    "dict_str_pair": "{_bc_word(_r): tuple(sorted(_r.randint(0, 100) for _ in range(2))) for _ in range(_r.randint(1, 6))}",
    # dicts of number lists (some empty: ``len(d[k]) == 0`` is a branch), keyed by words or by numbers
    "dict_str_list": "{_bc_word(_r): [_r.randint(0, 50) for _ in range(_r.randint(0, 5))] for _ in range(_r.randint(1, 6))}",
    "dict_int_list": "{_r.randint(0, 20): [_r.randint(0, 50) for _ in range(_r.randint(0, 5))] for _ in range(_r.randint(1, 6))}",
    "set_str": "set(_bc_word(_r) for _ in range(_r.randint(1, 6)))",
    "tuple_int": "tuple(_r.randint(0, 20) for _ in range(2))",
    # words added onto a tuple of strings (``('', np.nan) + ALIASES``), some of the case's shared ones
    "tuple_str": "tuple(_bc_word(_r) for _ in range(_r.randint(0, 4)))",
    "ndarray1": "_bc_np(_r).rand(_bc_n)",
    "ndarray1_int": "_bc_np(_r).randint(0, 10, size=_bc_n)",
    "ndarray2": "_bc_np(_r).rand(_bc_h, _bc_w)",
    "ndarray2_int": "_bc_np(_r).randint(0, 5, size=(_bc_h, _bc_w))",
    # rank 3 (variants x samples x ploidy, stacks of images): small codes, -1 for missing
    "ndarray3": "_bc_np(_r).rand(_bc_h, _bc_w, 2)",
    "ndarray3_int": "_bc_np(_r).randint(-1, 3, size=(_bc_h, _bc_w, 2))",
    # genomic positions: sorted, distinct, at the scale of a chromosome region
    "ndarray1_pos": "__import__('numpy').sort(_bc_np(_r).choice(100000, size=_bc_n, replace=False)) + 1",
    "ndarray2_bool": "_bc_np(_r).rand(_bc_h, _bc_w) > 0.5",
    # masks and flags (``is_accessible : array_like, bool``): both values, at every rank
    "ndarray1_bool": "_bc_np(_r).rand(_bc_n) > 0.5",
    "ndarray3_bool": "_bc_np(_r).rand(_bc_h, _bc_w, 2) > 0.5",
    "ndarray_strel": "_bc_np(_r).rand(3, 3) > 0.3",
    "series": "_bc_series(_r, _bc_n)",
    # several series of their own lengths (``A_kn : list of numpy arrays``, round 31)
    "list_ndarray1": "[_bc_np(_r).rand(_r.randint(5, 30)) for _ in range(_r.randint(1, 4))]",
    "str_path": "_bc_pathname(_r, [])",
    "a_type": "_bc_ns",
    # a callback that hands back what it is given (a key function, a filter or grouping step
    # whose result the caller looks up again): the one function sure to return what fits
    "passthrough": "(lambda *a, **k: a[0] if a else None)",
    "none": "None",
}

#: Lines of text when nothing says what a file holds (a word and two numbers, tab-separated):
#: what is entered by ``with`` and read by nothing, a prefix's file no reader describes.
TEXT_LINES = "lines:" + repr(("\t", ["str", "int", "int"]))

#: Weights of each evidence source (see module docstring for the order).
W_ANNOTATION, W_DEFAULT, W_DOC, W_CALLSITE, W_USAGE, W_NAME = 10.0, 8.0, 6.0, 5.0, 3.0, 2.0
#: Evidence from a helper a parameter is passed on to (``forwarded_votes``): this share of its
#: weight there, per level, at most ``FORWARD_DEPTH`` levels of calls down.
W_FORWARD, FORWARD_DEPTH = 0.75, 2

_STR_METHODS = {
    "upper", "lower", "strip", "rstrip", "lstrip", "split", "rsplit", "startswith", "endswith",
    "replace", "find", "rfind", "index", "count", "format", "encode", "isdigit", "isalpha",
    "splitlines", "partition", "rpartition", "title", "capitalize", "casefold", "translate",
    "zfill", "center", "ljust", "rjust", "isupper", "islower", "join",
    # the rest of what only text has (round 32: ``docstring.expandtabs()`` was read as an object's)
    "expandtabs", "isspace", "isalnum", "isnumeric", "isdecimal", "istitle", "isidentifier",
    "isprintable", "isascii", "removeprefix", "removesuffix", "swapcase", "format_map", "rindex",
}  # fmt: skip
_LIST_METHODS = {"append", "extend", "pop", "sort", "insert", "remove", "reverse"}
_DICT_METHODS = {"keys", "items", "values", "get", "update", "setdefault", "popitem"}
_ARRAY_ATTRS = {
    "shape", "ndim", "dtype", "astype", "reshape", "sum", "mean", "max", "min", "T", "flatten",
    "ravel", "size", "copy", "argmax", "argmin", "std", "cumsum", "nonzero", "any", "all",
    "argsort", "clip", "round", "flat", "fill", "var", "dot", "squeeze", "transpose",
}  # fmt: skip
#: pandas-only attributes (a numpy array has none of them): the parameter is a Series/DataFrame.
_SERIES_ATTRS = {
    "abs", "median", "iloc", "loc", "iat", "at", "isnull", "isna", "notnull", "fillna", "dropna", "apply",
    "unique", "nunique", "value_counts", "idxmax", "idxmin", "quantile", "rolling", "diff", "shift",
    "to_numpy", "rank", "between", "cummax", "cummin", "cumprod",
}  # fmt: skip
#: What only a pandas table has (a Series or an array has none of them).
_FRAME_ATTRS = {"columns", "itertuples", "iterrows", "groupby", "pivot_table", "melt"}
#: What is read on a table's column and only a pandas column has (``tmp['ins_code'].fillna('')``,
#: ``df['name'].str.upper()``): the value subscripted with the string is a DataFrame.
#: (``astype`` and ``tolist`` are numpy's too: a dict of arrays has them.)
_COLUMN_ATTRS = _SERIES_ATTRS | {"map", "str", "dt", "cat", "to_list", "isin"}
_SET_METHODS = {"add", "discard", "union", "intersection", "difference", "issubset"}
#: Calls that read, write or test files: a function making them joins paths onto real directories.
_FILE_CALLS = frozenset(
    {"open", "to_csv", "savefig", "savetxt", "makedirs", "mkdir", "listdir", "exists", "isfile", "isdir",
     "glob", "copy", "copyfile", "move", "rename", "remove", "unlink", "walk", "scandir", "to_excel"}
)  # fmt: skip


def _touches_files(body: ast.AST) -> bool:
    """Whether the function reads, writes or tests files itself (``open(...)``, ``os.makedirs``)."""
    for n in ast.walk(body):
        if isinstance(n, ast.Call):
            f = n.func
            if pyast.callee_name(f) in _FILE_CALLS:
                return True
    return False


#: Calls whose first argument is a directory.
_DIR_CALLS = {"listdir", "makedirs", "mkdir", "scandir", "walk", "chdir", "isdir", "rmtree"}
#: (``stat(fp).st_size`` of ``from os import stat``, ``getmtime(p)``: the bare names a flattened
#: golden calls, round 30)
_PATH_CALLS = {
    "open", "exists", "isfile", "isdir", "getsize", "basename", "dirname", "splitext", "abspath",
    "stat", "lstat", "getmtime", "getctime", "access", "realpath", "islink",
}  # fmt: skip
_NUMERIC_CALLS = {"abs", "round", "math", "sqrt", "log", "log2", "log10", "exp", "floor", "ceil"}


@dataclass
class ParamSpec:
    """One parameter and its ranked generator kinds (best first)."""

    name: str
    kinds: list[str]
    has_default: bool = False
    default_src: str | None = None
    kw_only: bool = False
    votes: dict[str, float] = field(default_factory=dict)
    #: ``*args``: the value is a sequence spread into the call after the positional parameters
    star: bool = False


# ---------------------------------------------------------------------------- type strings


def family_of_type(text: str) -> str | None:
    """Map a type written in an annotation or docstring to a value family (or ``None``)."""
    t = text.strip().strip("`").lower()
    t = re.sub(r"optional\[(.*)\]", r"\1", t)
    t = re.sub(r",?\s*optional$", "", t).strip()
    if not t:
        return None
    if re.match(r"(typing\.)?(dict|mapping|defaultdict|ordereddict)\b", t):
        return _dict_family(t)  # what it maps to is inside: ``Dict[str, np.ndarray]`` is a dict
    if re.search(r"dataframe\b", t) and not re.search(r"\b(list|dict|iterable|sequence|tuple)\b", t):
        return "frame"  # ``pd.DataFrame``, a project's subclass (``LFDataFrame instance``; round 31)
    if re.fullmatch(r"((pd|pandas)\.)?series", t):
        return "series"
    if re.search(r"\b(list|sequence|iterable)\b", t) and re.search(r"\b(arrays|ndarrays?)\b", t):
        return "list_ndarray"  # ``Python list of numpy arrays``, ``list[np.ndarray]`` (round 31)
    if re.search(r"\b(ndarray|np\.array|numpy\.array|array_like|array-like|array|matrix)\b", t):
        return "ndarray"
    if re.search(r"\b(list|sequence|iterable|tuple of|list of)\b", t) or t.startswith(("list[", "sequence[")):
        if "str" in t:
            return "list_str"
        if "float" in t:
            return "list_float"
        if "int" in t:
            return "list_int"
        return "list"
    if t.startswith(("tuple", "typing.tuple")):
        return "tuple"
    if re.search(r"\b(dict|mapping)\b", t) or t.startswith("dict["):
        return _dict_family(t)
    if re.search(r"\bset\b", t):
        return "set"
    if re.search(r"\bbool(ean)?\b", t):
        return "bool"
    if re.search(r"\b(int|integer)\b", t):
        return "int"
    if re.search(r"\b(float|number|real|double)\b", t):
        return "float"
    if re.search(r"\b(path|filename|file)\b", t):
        return "path"
    if re.search(r"\b(str|string|unicode)\b", t):
        return "str"
    if t in ("none", "nonetype"):
        return "none"
    return None


def _dict_family(t: str) -> str:
    """The family of a mapping type by what it maps to: ``dict[str, str]``/``Dict[str, float]``,
    ``dict of str to list``, ``mapping str -> float``. Values a table's user reads as text
    (``onecode.get(aa, undef_code)``) drawn as numbers hide what the code does with them."""
    m = re.search(r"(?:dict|mapping)\s*\[\s*[\w.]+\s*,\s*([\w.]+)", t) or re.search(
        r"(?:dict|mapping)\b.*?(?:\bto\b|->|:)\s*(?:an?\s+)?([\w.]+)", t
    )
    value = m.group(1) if m else ""
    if value in ("str", "string", "unicode"):
        return "dict_str"
    if value in ("float", "double", "number"):
        return "dict_float"
    if value in ("list", "sequence", "tuple", "typing.list"):
        return "dict_list"
    if value in ("ndarray", "array", "np.ndarray", "numpy.ndarray"):
        return "dict_ndarray"
    return "dict"


def documented_array_kind(text: str) -> str | None:
    """The array kind a documented type spells out: its rank from ``shape=(n_states, n_samples)``,
    ``shape (N,)``, ``2-D``/``2D``, and integer or boolean elements from ``dtype='int'``/``of int``."""
    t = text.lower()
    if not re.search(r"\b(ndarray|array|matrix|array_like|array-like)\b", t):
        return None
    rank = None
    m = re.search(r"shape\s*[=:]?\s*\(([^)]*)\)", t)
    if m:
        rank = len([d for d in m.group(1).split(",") if d.strip()])
    else:
        m = re.search(r"\b([123])-?d\b", t)
        rank = int(m.group(1)) if m else None
    if rank is None or not 1 <= rank <= 3:
        return None
    rest = re.sub(r"shape\s*[=:]?\s*\([^)]*\)", " ", t)  # ``shape (n_int,)`` says nothing of elements
    if re.search(r"\bbool", rest):
        return f"ndarray{rank}_bool"
    if re.search(r"\b(u?int\d*|integers?)\b", rest):
        return f"ndarray{rank}_int"
    return f"ndarray{rank}"


def documented_axes(text: str) -> dict[int, int]:
    """Axis sizes a documented shape fixes: ``shape (n_variants, 2)`` -> {1: 2}."""
    m = re.search(r"shape\s*[=:]?\s*\(([^)]*)\)", text.lower())
    if not m:
        return {}
    dims = [d.strip() for d in m.group(1).split(",") if d.strip()]
    return {i: int(d) for i, d in enumerate(dims) if d.isdigit() and 1 <= int(d) <= 16}


def _rank(kind: str) -> int | None:
    m = re.match(r"ndarray([123])", kind)
    return int(m.group(1)) if m else (1 if kind.startswith("list_") else None)


def docstring_types(doc: str | None) -> dict[str, str]:
    """Parameter name -> type text from a numpydoc, Google or Sphinx docstring."""
    out: dict[str, str] = {}
    if not doc:
        return out
    for m in re.finditer(r":type\s+(\w+)\s*:\s*([^\n]+)", doc):  # Sphinx :type x: int
        out.setdefault(m.group(1), m.group(2))
    for m in re.finditer(r":param\s+([\w\[\], .]+?)\s+(\w+)\s*:", doc):  # Sphinx :param int x:
        out.setdefault(m.group(2), m.group(1))
    for m in re.finditer(r"^\s*(\w+)\s*\(([^)\n]+)\)\s*:", doc, re.M):  # Google x (int): ...
        out.setdefault(m.group(1), m.group(2))
    for m in re.finditer(r"^\s*(\w+)\s+:\s+([^\n]+)$", doc, re.M):  # numpydoc x : int
        out.setdefault(m.group(1), m.group(2))
    for m in re.finditer(r"^\s*(\w+):\s+([^\n]+)$", doc, re.M):  # x: list of str
        if len(m.group(2).split()) <= 3:  # a short note names a type; a sentence only describes
            out.setdefault(m.group(1), m.group(2))
    for m in re.finditer(r"^\s*(\w+)\s+--\s+([^\n]+)$", doc, re.M):  # x -- LFDataFrame instance
        if len(m.group(2).split()) <= 4:  # a short note names a type; a sentence only describes
            out.setdefault(m.group(1), m.group(2))
    return out


# ---------------------------------------------------------------------------- names


_NAME_RULES: tuple[tuple[str, str], ...] = (
    (r"^(is_|has_|use_|do_|should_|allow_|skip_|keep_|wants?_|verbose|quiet|strict|force|debug|flag)", "bool"),
    # switches named for what they turn on or off (``index_only``, ``dry_run``, ``no_header``)
    (r"(^[a-z]+_only$|^only_|^dry_?run$|^no_|^enable_|^disable_)", "bool"),
    (r"(^|_)(dir|directory|folder|outdir|workdir|tmpdir|tempdir|dirpath|wdir)($|_)", "dir"),
    (r"(^|_)(path|file|filename|fname|fn|infile|outfile|fasta|fastq|bam|vcf|bed)s?($|_)", "path"),
    (r"(^|_)(seqs|sequences|reads|names|ids|labels_list|items|words|lines|tokens|keys)$", "list_str"),
    (r"(^|_)(seq|sequence|dna|rna|read|kmer|motif|primer|codon|barcode|adapter|nucleotides?)($|_)", "str"),
    (r"(^|_)(protein|peptide|aa|residues?)($|_)", "str"),
    (r"(^|_)(chrom|chromosome|contig)($|_)", "str"),
    (r"(^|_)(pixels|image|img|data2d|matrix|labels|mask|im|structuring|strel|selem|footprint)($|_)", "ndarray"),
    (r"^(x|y|arr|array|values|vals|signal|weights|scores|counts|log2|depths|data)$", "ndarray"),
    (r"(^|_)(prob|probability|p|pval|alpha|frac|fraction|ratio|purity|rate|threshold|thresh|cutoff|pct|percent)($|_)", "float"),
    (r"(^|_)(k|n|num|number|count|size|length|len|width|height|window|depth|min|max|start|end|pos|position|offset|idx|index|i|j|order|step|iter|iterations|n_iter|ploidy|copies|level|radius|nbins|bins)($|_)", "int"),
    (r"(^|_)(name|label|text|string|s|prefix|suffix|sep|delimiter|mode|method|kind|type|key|tag|title|sample|id|query|url|header|word)($|_)", "str"),
    (r"(^|_)(scale|sigma|mean|std|var|weight|score|value|factor|tol|eps|epsilon|gamma|beta|lambda|logr)($|_)", "float"),
    (r"(^|_)(args|opts|options|params|config|settings|kwargs)$", "dict"),
    (r"(^|_)(adj|adjacency|graph|neighbors|neighbours|successors|predecessors)($|_)", "graph"),
    (r"(^|_)(node|vertex)($|_)", "str"),  # a graph's node: one of the words its mapping is keyed by
)  # fmt: skip


#: A leading word that makes the whole name a count (``n_seqs``, ``num_reads``): an int.
_COUNT_WORDS = frozenset({"n", "num", "number", "nb", "count", "total"})
#: A trailing word that makes the name a collection of what the rest names (``seq_list``).
_COLLECTION_WORDS = {"list": "list", "lst": "list", "array": "list", "arr": "list", "set": "set"}
_ELEMENT_LISTS = {"int": "list_int", "float": "list_float", "str": "list_str", "path": "list_str"}


def name_words(name: str) -> list[str]:
    """The words of an identifier, lower-cased: ``seq1Idx`` -> ``seq, idx``; digits are dropped.

    Why: the rules match words, and compound names hide them (``seq1idx``, ``startPos``)."""
    s = re.sub(r"([a-z])([A-Z])", r"\1_\2", name)
    s = re.sub(r"(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])", "_", s)
    return [w for w in s.lower().split("_") if w and not w.isdigit()]


def _subject(words: list[str]) -> str | None:
    """The word that says what the values are: the head, or the one before a collection word."""
    content = [w for w in words if w not in _COLLECTION_WORDS]
    return content[-1] if content else None


def _rule_family(text: str) -> str | None:
    for pattern, fam in _NAME_RULES:
        if re.search(pattern, text):
            return fam
    return None


def family_of_name(name: str) -> str | None:
    """The value family a parameter's name suggests, read as an English compound: the last word
    is the head (``seq_len`` is a length, ``chrom_start`` a position, ``read_count`` a count,
    ``contig_lengths`` several lengths, ``seq_list`` a list of sequences), a leading ``n_`` or
    ``num_`` makes a count (``n_seqs``), and only a name whose head says nothing is matched as
    a whole. Why: matching anywhere in the name took ``seq_len`` for a sequence."""
    n = name.lower()
    if _rule_family(n) == "bool":
        return "bool"
    whole = _rule_family(n)
    words = name_words(name)
    if not words:
        return whole
    head, rest = words[-1], "_".join(words[:-1])
    if len(words) > 1 and words[0] in _COUNT_WORDS and head not in _COLLECTION_WORDS:
        return "int"
    if len(words) > 1 and head in _COLLECTION_WORDS:
        if _COLLECTION_WORDS[head] == "set":
            return "set"
        inner = family_of_name(rest)
        if inner == "graph":  # ``adj_list``: an adjacency list is a graph, not a list of graphs
            return "graph"
        return _ELEMENT_LISTS.get(inner or "", "list")
    if len(words) > 1 and len(head) > 1 and _rule_family(head):
        return _rule_family(head)
    plural = len(head) > 3 and head.endswith("s") and not head.endswith(("ss", "us", "is", "os", "as"))
    if whole and (len(words) == 1 or not plural):
        return whole
    if head in ("indices", "indexes"):
        return "list_int"
    if plural:  # a plural head: several of the singular (``positions``), or several things (``records``)
        fam = _rule_family(head[:-3] + "y" if head.endswith("ies") else head[:-1])
        return _ELEMENT_LISTS.get(fam or "", fam or "list")
    return None


def refine(family: str, name: str) -> list[str]:
    """Concrete kinds for a value family, ordered by what the parameter's name suggests."""
    n = name.lower()
    words = name_words(name)
    if (
        family == "str"
        and len(words) > 1
        and _rule_family(words[-1]) == "str"
        and not re.search(
            r"^(seq|sequence|dna|rna|read|kmer|motif|primer|codon|barcode|adapter|nucleotides?|"
            r"protein|peptide|aa|residues?|chrom|chromosome|contig)$",
            words[-1],
        )
    ):
        n = words[-1]  # the head names what the string is (``seq_name`` is a name, not a sequence)
    if family == "str":
        if re.search(r"^(sep|separator|delimiter|delim|field_sep|fs|sep_char|delim_char)$", n):
            return ["str_sep", "str_word"]  # a field separator: one character, not a word
        if re.search(r"protein|peptide|(^|_)aa($|_)|residue", n):
            return ["str_protein", "str_word"]
        if re.search(r"rna", n):
            return ["str_rna", "str_dna"]
        if re.search(r"seq|dna|read|kmer|motif|primer|codon|barcode|adapter|nucleo", n):
            return ["str_dna", "str_word"]
        if re.search(r"chrom|contig", n):
            return ["str_chrom", "str_word"]
        if re.search(r"line|text|row|record", n):
            return ["str_line", "str_word"]
        return ["str_word", "str_dna"]
    if family == "int":
        if re.search(r"^(end|stop)$|_(end|stop)$", n):
            return ["int_end", "int_small", "int_pos"]  # an interval's end: above its start's range
        if re.search(
            r"(^|_)(k|n|num|size|length|len|width|height|window|order|step|iter|n_iter|ploidy|radius|bins|nbins|level)($|_)",
            n,
        ):
            return ["int_pos", "int_small"]
        return ["int_small", "int_pos", "int_signed"]
    if family == "float":
        if re.search(
            r"prob|(^|_)p($|_)|pval|alpha|frac|ratio|purity|rate|thresh|cutoff|pct|percent|weight", n
        ):
            return ["float_unit", "float_pos"]
        if re.search(r"scale|sigma|std|var|tol|eps|gamma|beta|lambda|factor", n):
            return ["float_pos", "float_unit"]
        return ["float", "float_unit"]
    if family == "unit":  # ordered against 0 and 1: a fraction (_unit_bounded)
        return ["float_unit", "float_pos"]
    if family == "dir":
        return ["path_dir", "str_word"]
    if family == "graph":
        return ["dict_graph", "dict_str_list"]
    if family == "handle_out":
        return ["handle_out", "path_out"]
    if family == "path":
        if "fastq" in n:
            return ["path_fastq", "path_text"]
        if re.search(r"fasta|fa($|_)", n):
            return ["path_fasta", "path_text"]
        if re.search(r"out|dest|target|save|write", n):
            return ["path_out", "path_text"]
        return ["path_text", "path_fasta"]
    if family == "ndarray":
        if re.search(r"structuring|strel|selem|footprint", n):
            return ["ndarray_strel", "ndarray2_bool"]
        if re.search(r"label|int|index|idx|counts?$", n):
            return ["ndarray2_int", "ndarray1_int"]
        if re.search(r"mask", n):
            return ["ndarray2_bool", "ndarray2"]
        if re.search(r"pixel|image|img|matrix|im$|2d|x_data|data$", n):
            return ["ndarray2", "ndarray2_int"]
        return ["ndarray1", "ndarray2", "list_float"]
    if family == "list":
        if re.search(r"seq|read", n):
            return ["list_dna", "list_str"]
        if family_of_name(name) == "list_str":
            return ["list_str", "list_int"]
        return ["list_int", "list_str", "list_float"]
    return {
        "list_str": ["list_dna", "list_str"]
        if re.search(r"seq|read|kmer|primer|motif|barcode|adapter|codon|dna|rna", _subject(words) or n)
        else ["list_str", "list_int"],
        "list_int": ["list_int", "list_float"],
        "list_float": ["list_float", "list_int"],
        "dict": ["dict_str_int", "dict_str_float"],
        "dict_str": ["dict_str_str", "dict_str_int"],
        "dict_float": ["dict_str_float", "dict_str_int"],
        "dict_pair": ["dict_str_pair", "dict_str_list"],
        "set": ["set_str"],
        "tuple": ["tuple_int"],
        "tuple_str": ["tuple_str", "tuple_int"],
        "mask": ["ndarray1_bool", "ndarray2_bool"],
        "bool": ["bool"],
        "none": ["none"],
        "series": ["series", "ndarray1"],
        "frame": ["frame"],
        "type": ["a_type"],
        "dict_ndarray": ["dict_str_ndarray", "dict_str_float"],
        "dict_list": ["dict_str_list", "dict_int_list"],
        "dict_numkey_list": ["dict_int_list", "dict_str_list"],
        "list_ndarray": ["list_ndarray1", "list_float"],
    }.get(family, ["int_small"])


# ---------------------------------------------------------------------------- usage in body


def _is_target(node: ast.AST, target: str) -> bool:
    """Whether ``node`` is the expression ``target`` (a name, or ``self.attr``)."""
    if "." in target:
        base, attr = target.rsplit(".", 1)
        return isinstance(node, ast.Attribute) and node.attr == attr and _is_target(node.value, base)
    return isinstance(node, ast.Name) and node.id == target


class _CallsToName(ast.NodeTransformer):
    """Every call of ``target`` (``f(...)``, ``ns.f(...)``, ``self.m(...)``) -> the name ``name``."""

    def __init__(self, target: str, name: str):
        self.target, self.name = target, name

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if _is_target(node.func, self.target):
            return ast.copy_location(ast.Name(id=self.name, ctx=ast.Load()), node)
        return node


def calls_to_name(body: ast.AST, target: str, name: str) -> ast.AST:
    """A copy of ``body`` where each call of ``target`` is the name ``name``: how the code uses
    what a call returns, analysed like a variable."""
    tree = _CallsToName(target, name).visit(copy.deepcopy(body))
    return ast.fix_missing_locations(tree)


def called(body: ast.AST, target: str) -> bool:
    """Whether ``body`` calls ``target`` itself (a parameter that is a function: ``key(x)``)."""
    return any(isinstance(n, ast.Call) and _is_target(n.func, target) for n in ast.walk(body))


#: Kinds a function's value is never drawn from (a class, a nested function, an output path).
NOT_RESULTS = ("stub:", "callable:", "passthrough", "a_type", "member:", "path_out", "path_dir", "handle_out")


def unpacked_kind(body: ast.AST, target: str, depth: int = 0) -> str | None:
    """``fixed:[...]`` when ``target`` is unpacked into names (``ok, opener = target``): a tuple
    of that many values, each typed by how its name is used (one called is a function)."""
    if depth > 2:
        return None
    for node in ast.walk(body):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], (ast.Tuple, ast.List))
            and 2 <= len(node.targets[0].elts) <= 8
            and all(isinstance(e, ast.Name) for e in node.targets[0].elts)
            and _is_target(node.value, target)
        ):
            fields = []
            for e in node.targets[0].elts:
                name = e.id  # type: ignore[attr-defined]
                if called(body, name):
                    fields.append("callable:" + repr(result_kind(body, name, "ret", depth + 1)))
                    continue
                votes = usage_votes(body, name)
                kinds = refine_kinds(body, name, rank_kinds(name, votes), votes, depth + 1)
                fields.append(next((k for k in kinds if not k.startswith(NOT_RESULTS)), "int_small"))
            return "fixed:" + repr(fields)
    return None


def result_kind(body: ast.AST, target: str, hint: str, depth: int = 0) -> str:
    """The kind of what calls of ``target`` return, from how ``body`` uses their values."""
    res = "_bc_res_" + re.sub(r"\W", "_", target)
    tree = calls_to_name(body, target, res)
    fixed = unpacked_kind(tree, res, depth)
    if fixed:
        return fixed
    votes = usage_votes(tree, res)
    kinds = refine_kinds(tree, res, rank_kinds(hint, votes), votes, depth + 1)
    return next((k for k in kinds if not k.startswith(NOT_RESULTS)), "int_small")


#: Public name of the target test, for the modules that analyse uses the same way (python_stubs).
is_target = _is_target

#: Attributes that are data (not methods) on arrays and pandas objects.
_DATA_ATTRS = {
    "shape",
    "ndim",
    "dtype",
    "T",
    "size",
    "flat",
    "iloc",
    "loc",
    "iat",
    "at",
    "real",
    "imag",
    "values",
}


def aliases(body: ast.AST, target: str) -> list[str]:
    """``target`` and the local names bound to it unchanged (``method = self.merge_method.value``)."""
    out = [target]
    for node in ast.walk(body):
        if (
            isinstance(node, ast.withitem)
            and isinstance(node.optional_vars, ast.Name)
            and _is_target(node.context_expr, target)
            and node.optional_vars.id not in out
        ):  # with helper(path) as fh: (a handle or object the helper opened)
            out.append(node.optional_vars.id)
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if _is_target(node.value, target) and node.targets[0].id not in out:
                out.append(node.targets[0].id)
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Tuple)
            and isinstance(node.value, ast.Tuple)
            and len(node.value.elts) == len(node.targets[0].elts)
        ):
            for t, v in zip(node.targets[0].elts, node.value.elts, strict=True):  # y, w = signal, weights
                if isinstance(t, ast.Name) and _is_target(v, target) and t.id not in out:
                    out.append(t.id)
        if (
            isinstance(node, (ast.For, ast.comprehension))
            and isinstance(node.target, ast.Name)
            and isinstance(node.iter, (ast.Tuple, ast.List))
            and any(_is_target(e, target) for e in node.iter.elts)
            and node.target.id not in out
        ):  # for arr in (probes, segments): ``arr`` is each of them in turn (round 30)
            out.append(node.target.id)
    return out


def _unpacked_pair(tree: ast.AST) -> bool:
    """Whether ``_bc_value`` (a looked-up value) is unpacked into two names (``a, b = _bc_value``)."""
    return any(
        isinstance(n, ast.Assign)
        and isinstance(n.value, ast.Name)
        and n.value.id == "_bc_value"
        and len(n.targets) == 1
        and isinstance(n.targets[0], ast.Tuple)
        and len(n.targets[0].elts) == 2
        for n in ast.walk(tree)
    )


def _none_compared(body: ast.AST, target: str) -> bool:
    """Whether the code compares ``target`` with ``None`` (``args.extract is None``)."""
    return any(_is_target(x, target) for x in none_compared(body))


def _guarded_key(body: ast.AST, target: str, key: str) -> bool:
    """Whether ``key`` is tested for membership in ``target`` (``if k not in spans``) or runs
    over it (``for k in d``): subscripted by such a key, ``target`` is a mapping (a list is
    looked through with ``.index``, not indexed by what it holds)."""
    for node in ast.walk(body):
        if (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], (ast.In, ast.NotIn))
            and isinstance(node.left, ast.Name)
            and node.left.id == key
            and _is_target(node.comparators[0], target)
        ):
            return True
        if (
            isinstance(node, (ast.For, ast.comprehension))
            and isinstance(node.target, ast.Name)
            and node.target.id == key
            and _is_target(node.iter, target)
        ):
            return True
    return False


def usage_votes(body: ast.AST, target: str) -> dict[str, float]:
    """Families suggested by how ``target`` (or a local alias of it) is used inside ``body``,
    and inside the functions defined in ``body`` it is passed to (``W_FORWARD`` as strong)."""
    votes: dict[str, float] = defaultdict(float)
    nested = _nested_defs(body)
    for i, t in enumerate(aliases(body, target)):
        for fam, w in _usage_votes(body, t).items():
            votes[fam] += w if i == 0 else w * 0.75
        for inner, param in _passed_to_nested(body, t, nested):
            for fam, w in _usage_votes(inner, param).items():
                votes[fam] += w * W_FORWARD
    return dict(votes)


_NESTED_CACHE: dict[int, tuple[ast.AST, dict[str, ast.AST]]] = {}


def _nested_defs(body: ast.AST) -> dict[str, ast.AST]:
    """The functions defined inside ``body`` (not ``body`` itself), by name."""
    hit = _NESTED_CACHE.get(id(body))
    if hit is not None and hit[0] is body:
        return hit[1]
    out = {
        n.name: n
        for n in ast.walk(body)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n is not body
    }
    _NESTED_CACHE[id(body)] = (body, out)
    return out


def _passed_to_nested(body: ast.AST, target: str, nested: dict[str, ast.AST]) -> list[tuple[ast.AST, str]]:
    """(nested function, its parameter) for each call in ``body`` of a function defined in it
    that ``target`` is passed to: ``left = compound_instances(uninstantiated_left)`` where
    ``def compound_instances(uninstantiated): for c, v in uninstantiated.items(): ...``. Why: a
    local helper's body is where the code uses what it hands over, and the value was typed by
    its own few uses (a number, where the helper iterates its items)."""
    if not nested:
        return []
    out: list[tuple[ast.AST, str]] = []
    for node in ast.walk(body):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in nested):
            continue
        inner = nested[node.func.id]
        slots = _callee_params(node, inner)
        given = [(i, a) for i, a in enumerate(node.args)] + [(k.arg, k.value) for k in node.keywords if k.arg]
        for slot, arg in given:
            if _is_target(arg, target) and slot in slots and slots[slot].arg != target:
                out.append((inner, slots[slot].arg))
    return out


def _read_through(body: ast.AST) -> set[int]:
    """ids of the attribute nodes something is read on or subscripted (``x.index.is_unique``,
    ``x.index[0]``): values, not methods."""
    return {
        id(n.value)
        for n in ast.walk(body)
        if isinstance(n, (ast.Attribute, ast.Subscript)) and isinstance(n.value, ast.Attribute)
    }


_COLUMN_CACHE: dict[int, tuple[ast.AST, set[int]]] = {}


def _column_reads(body: ast.AST, called: set[int]) -> set[int]:
    """ids of the values a pandas column attribute is read on (``x['c'].fillna(0)``,
    ``x['c'].values``, not called: a dict's ``values()`` is), once per body (this runs for every
    target analysed in it)."""
    hit = _COLUMN_CACHE.get(id(body))
    if hit is not None and hit[0] is body:
        return hit[1]
    out = {
        id(n.value)
        for n in ast.walk(body)
        if isinstance(n, ast.Attribute)
        and (n.attr in _COLUMN_ATTRS or n.attr == "values" and id(n) not in called)
    }
    _COLUMN_CACHE[id(body)] = (body, out)
    return out


#: Calls whose arguments (or a shape tuple's elements) are counts: ``range``, array allocation.
_COUNT_CALLS = frozenset({"range", "zeros", "ones", "empty", "full", "xrange"})


def _counted(arg: ast.AST, target: str) -> bool:
    """``target`` in integer arithmetic as a call's argument (``stop + 1``, ``n // 2``), or an
    element of a shape tuple (``(bins,)``, ``(n, m + 1)``)."""
    if isinstance(arg, ast.Tuple):
        return any(_is_target(e, target) or _counted(e, target) for e in arg.elts)
    return (
        isinstance(arg, ast.BinOp)
        and isinstance(arg.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv))
        and any(_is_target(side, target) for side in (arg.left, arg.right))
    )


#: Missing-value markers a string is sometimes compared with (``tsl in (np.nan, '', 'tslNA')``).
_MISSING_MARKERS = frozenset({"np.nan", "numpy.nan", "math.nan", "pd.NA", "None"})


def dictreader_kind(body: ast.AST, target: str) -> str | None:
    """``dictrows:(separator, [columns])`` when ``target`` is read by ``csv.DictReader`` (``for
    row in csv.DictReader(f, delimiter='\\t')``) and the rows are read by column name (``row['id']``,
    ``'equation' in row``, ``row.get('name')``): a table whose header has those columns. Why
    (round 27): the handle was drawn as plain lines (or a number), and no row had a column."""
    for node in ast.walk(body):
        if not (
            isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.target, ast.Name | ast.Tuple)
        ):
            continue
        it, row = _enumerated(node.iter, node.target)
        if not (
            isinstance(it, ast.Call)
            and ast.unparse(it.func) in ("csv.DictReader", "DictReader")
            and it.args
            and _is_target(it.args[0], target)
            and isinstance(row, ast.Name)
        ):
            continue
        sep_node = next(
            (k.value for k in it.keywords if k.arg == "delimiter"), it.args[1] if len(it.args) > 1 else None
        )
        if isinstance(sep_node, ast.Call) and sep_node.args:  # delimiter=str('\t')
            sep_node = sep_node.args[0]
        sep = (
            sep_node.value if isinstance(sep_node, ast.Constant) and isinstance(sep_node.value, str) else ","
        )
        columns = read_keys(body, row.id)
        if columns:
            return "dictrows:" + repr((sep, columns[:12]))
    return None


def _unit_bounded(body: ast.AST, target: str) -> bool:
    """Whether ``target`` is ordered against the ends of the unit interval (``if x < 0 or x > 1:
    raise``, ``0 <= maf <= 0.5``): a fraction or a probability. Both a zero and a one (or a float
    half) are needed: ``count > 1`` alone is a count."""
    bounds: set[float] = set()
    for node in ast.walk(body):
        if not isinstance(node, ast.Compare):
            continue
        parts = [node.left, *node.comparators]
        for i, op in enumerate(node.ops):
            if not isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
                continue
            a, b = parts[i], parts[i + 1]
            for mine, other in ((a, b), (b, a)):
                if _is_target(mine, target) and isinstance(other, ast.Constant):
                    v = other.value
                    if isinstance(v, bool) or not isinstance(v, (int, float)):
                        return False
                    bounds.add(float(v))
    return bool(bounds) and bounds <= {0.0, 0.5, 1.0} and 0.0 in bounds and (bounds & {0.5, 1.0}) != set()


def _int_named(body: ast.AST, name: str) -> bool:
    """Whether ``name`` is a position: a ``range``/``enumerate`` loop variable or bound to ``len(...)``
    or an int constant (``lst.pop(i)`` of ``for i in range(n)``)."""
    for n in ast.walk(body):
        if isinstance(n, ast.For | ast.comprehension) and isinstance(n.iter, ast.Call):
            f = n.iter.func
            if isinstance(f, ast.Name) and f.id in ("range", "enumerate"):
                names = [t.id for t in ast.walk(n.target) if isinstance(t, ast.Name)]
                if name in (names if f.id == "range" else names[:1]):
                    return True
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in n.targets):
            v = n.value
            if (isinstance(v, ast.Constant) and isinstance(v.value, int)) or (
                isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "len"
            ):
                return True
    return False


def _usage_votes(body: ast.AST, target: str) -> dict[str, float]:
    votes: dict[str, float] = defaultdict(float)
    unit = _unit_bounded(body, target)
    if unit:  # round 26: its int bounds voted an int, drawn 0..10, and nearly always rejected
        votes["unit"] += 6.0
    valued = False  # the values of a mapping looked up by a guarded key are typed once
    called = {id(n.func) for n in ast.walk(body) if isinstance(n, ast.Call)}
    columns_read = _column_reads(body, called)
    keyed_pops = {  # x.pop(key) with a key that is no position (a string, a name bound to one)
        id(n.func)
        for n in ast.walk(body)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "pop"
        and n.args
        and not (isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, int))
        and not isinstance(n.args[0], ast.UnaryOp | ast.BinOp)
        and not (isinstance(n.args[0], ast.Name) and _int_named(body, n.args[0].id))
    }

    def vote(fam: str, w: float = W_USAGE) -> None:
        votes[fam] += w

    for node in ast.walk(body):
        if (
            isinstance(node, ast.Call)
            and node.args
            and any(k.arg == "axis" for k in node.keywords)
            and isinstance(node.args[0], (ast.Compare, ast.BinOp, ast.UnaryOp))
            and any(_is_target(n, target) for n in ast.walk(node.args[0]))
        ):
            vote("ndarray", 3.0)  # np.all(x >= 0, axis=-1): an elementwise test reduced along an axis
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Subscript)
            and _is_target(node.value.value, target)
            and node.attr in _STR_METHODS
            and not (isinstance(node.value.slice, ast.Constant) and isinstance(node.value.slice.value, str))
        ):
            vote("list_str", 4.0)  # arr[2].split(';'): a sequence of strings (a split line, a list of names)
        if (
            isinstance(node, ast.AugAssign)
            and isinstance(node.op, ast.Add)
            and _is_target(node.value, target)
            and isinstance(node.target, ast.Name)
            and node.target.id in _list_accumulators(body)
        ):
            vote("list", 4.0)  # warnings += get_warning(f), warnings = []: a list (round 31)
        if _two_axis_index(node, target):
            # ``data.iloc[:, first:last]``, ``df.loc[rows, 'name']``: rows *and* columns, which
            # only a table has (a Series raises "Too many indexers"; round 31)
            vote("frame", 6.0)
        if isinstance(node, ast.Attribute) and _is_target(node.value, target):
            a = node.attr
            if a == "index" and id(node) in _read_through(body):
                # ``resid.index.is_unique``, ``df.index[0]``: pandas' row labels, read through (a
                # list's ``index`` is a method, only called or handed on, and an array has none;
                # round 31)
                vote("series", 6.0)
            elif a not in _DATA_ATTRS and id(node) not in called and isinstance(node.ctx, ast.Load):
                vote("object", 1.0)  # ``size_range.min`` read, not called: a field of an object
            elif a in ("write", "writelines") and id(node) in called:
                vote("handle_out", 5.0)  # out.write(line): an open file written to
            elif a == "values" and id(node) not in called and isinstance(node.ctx, ast.Load):
                # ``table.start.values[1:]``: pandas' array, read not called (a dict's ``values``
                # is a method; round 30: a dict was drawn and every call raised)
                vote("series", 4.0)
            elif a in _FRAME_ATTRS:
                vote("frame", 4.0)  # table.itertuples(), data.columns: only a table has them
            elif a in _STR_METHODS:
                vote("str")
            elif a == "pop" and id(node) in keyed_pops:
                vote("dict")  # ``d.pop(tag)``: removed by key (a list pops by position; round 32)
            elif a in _LIST_METHODS:
                vote("list")
            elif a in _DICT_METHODS:
                vote("dict")
                if a in ("keys", "values", "setdefault", "popitem") and id(node) in called:
                    # what no list or string has (``for r in self.regions.keys()``), over the
                    # ``len(x)``/``x[k]`` any container has (round 26: those tied it to a list)
                    vote("dict", 2.0)
            elif a in _ARRAY_ATTRS:
                vote("ndarray")
            elif a in _SERIES_ATTRS:
                vote("series", 4.0)
            elif a in _SET_METHODS:
                vote("set")
            else:
                vote("object", 1.0)
        elif isinstance(node, ast.Subscript) and _is_target(node.value, target):
            sl = node.slice
            if isinstance(sl, ast.Tuple):
                vote("ndarray")
            elif isinstance(sl, ast.Compare) and _own_column(sl, target):
                vote("frame", 4.0)  # df[df['strand'] == '+']: rows picked by one of its columns
            elif (
                isinstance(sl, ast.Compare)
                or (isinstance(sl, ast.Name) and sl.id in _mask_names(body))
                or (isinstance(sl, ast.UnaryOp) and isinstance(sl.op, ast.Invert))
            ):
                # x[x > 0] / x[small_mask] / x[~mask]: boolean-mask indexing; of a table when the
                # rows picked are read by column (``tgt = cnarr[~is_anti]; tgt['log2']``, round 30)
                picked = [a for a in row_aliases(body, target) if a != target]
                vote("frame" if any(string_columns(body, a) for a in picked) else "ndarray", 4.0)
            elif isinstance(sl, ast.Constant) and isinstance(sl.value, str):
                vote("dict")
                if id(node) in _vector_operands(body):
                    vote("frame", 4.0)  # cnarr['log2'] < 0.5: a column, compared or computed elementwise
                elif id(node) in columns_read:
                    vote("frame", 4.0)  # tmp['ins_code'].fillna(''): a column, read as pandas' Series
            elif isinstance(sl, ast.Slice):
                vote("str", 1.0)
                vote("list", 1.0)
            elif isinstance(sl, ast.Name) and _guarded_key(body, target, sl.id):
                vote("dict", 3.0)  # if k not in spans: ...; spans[k] / for k in d: d[k]: a mapping
                looked = None if valued else _looked_up(body, target, sl.id)
                if looked is not None:
                    valued = True
                    if _unpacked_pair(looked):
                        vote("dict_pair", 4.0)  # start, end = spans[k]: values are pairs
                    else:
                        inner = usage_votes(looked, "_bc_value")
                        if inner.get("list", 0.0) + inner.get("ndarray", 0.0) >= 1.5:
                            vote("dict_list", 4.0)  # depths = d[k]; depths[i]: values are lists
            else:
                vote("list", 1.5)
                vote("ndarray", 1.0)
        elif isinstance(node, ast.BinOp) and (
            _is_target(node.left, target) or _is_target(node.right, target)
        ):
            other = node.right if _is_target(node.left, target) else node.left
            if isinstance(other, ast.Constant) and isinstance(other.value, str):
                vote("str")
            elif isinstance(node.op, ast.Add) and (
                isinstance(other, ast.JoinedStr)
                or (
                    isinstance(other, ast.Call)
                    and (
                        (isinstance(other.func, ast.Attribute) and other.func.attr in _STR_METHODS)
                        or (isinstance(other.func, ast.Name) and other.func.id in ("str", "repr", "chr"))
                    )
                )
            ):
                vote("str")  # sep.join(parts) + suffix, str(n) + unit: concatenated with a string
            elif isinstance(node.op, ast.Add) and isinstance(other, (ast.Tuple, ast.List)):
                # ('', np.nan) + ALIASES, [0] + xs: a sequence of that type, of strings when the
                # literal's constants are (round 30: an int was drawn and every call raised)
                texts = [e for e in other.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
                seq = "tuple" if isinstance(other, ast.Tuple) else "list"
                vote(seq + "_str" if texts else seq, 4.0)
            elif isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant):
                pass  # "fmt" % target says nothing
            elif isinstance(other, ast.Constant) and isinstance(other.value, float):
                vote("float")
            else:
                vote("number", 2.0)
        elif isinstance(node, ast.AugAssign) and _is_target(node.target, target):
            vote("number", 1.5)
        elif isinstance(node, ast.Compare):
            parts = [node.left, *node.comparators]
            elementwise = [_elementwise_operands(body).get(id(p)) for p in parts if _is_target(p, target)]
            if any(elementwise):
                vote(next(f for f in elementwise if f), 5.0)  # (x == label).values: x is a column
                continue
            if any(
                isinstance(p, ast.Subscript)
                and _is_target(p.value, target)
                and edge_slice(p.slice) is not None
                for p in parts
            ) and any(isinstance(p, ast.Constant) and isinstance(p.value, str) and p.value for p in parts):
                vote("str", 3.0)  # tsl[:3] == 'tsl', name[-4:] == '.bam': a prefix or suffix (round 26)
                continue
            if any(_is_target(p, target) for p in parts):
                for p, op in zip(parts[1:], node.ops, strict=False):
                    if (
                        isinstance(op, (ast.In, ast.NotIn))
                        and _is_target(node.left, target)
                        and isinstance(p, (ast.Tuple, ast.List, ast.Set))
                        and p.elts
                        and all(
                            (isinstance(e, ast.Constant) and isinstance(e.value, str))
                            or (isinstance(e, ast.Name) and re.match(r"^_?[A-Z][A-Z0-9_]+$", e.id))
                            # a missing-value marker beside strings (``x in (np.nan, '', 'NA')``)
                            or ast.unparse(e) in _MISSING_MARKERS
                            for e in p.elts
                        )
                        and any(
                            (isinstance(e, ast.Constant) and isinstance(e.value, str))
                            or isinstance(e, ast.Name)
                            for e in p.elts
                        )
                    ):
                        vote("str")  # x in ('a', 'b') / x in (MODE_A, MODE_B): one of those strings
                        continue
                    if isinstance(op, (ast.In, ast.NotIn)) and _is_target(p, target):
                        vote("list", 1.0)
                        vote("str", 1.0)
                        continue
                    others = [q for q in parts if not _is_target(q, target)]
                    if isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) and not any(
                        isinstance(q, ast.Constant) for q in others
                    ):
                        vote("number", 1.0)  # gap <= params['max_gap']: ordered against a value, a number
                    for q in others:
                        if isinstance(q, ast.Constant):
                            if isinstance(q.value, bool) or q.value is None:
                                continue
                            if isinstance(q.value, str):
                                vote("str")
                            elif isinstance(q.value, int) and not unit:
                                vote("int", 2.0)
                            elif isinstance(q.value, float):
                                vote("float", 2.0)
        elif isinstance(node, ast.Call):
            fn = node.func
            fname = pyast.callee_name(fn)
            base = fn.value.id if isinstance(fn, ast.Attribute) and isinstance(fn.value, ast.Name) else ""
            args = list(node.args) + [k.value for k in node.keywords]
            if not any(_is_target(a, target) for a in args):
                if fname in _COUNT_CALLS and any(_counted(a, target) for a in node.args):
                    # ``range(start, stop + 1)``, ``np.zeros((bins,))``: a count or bound, an int
                    # (round 26: the arithmetic voted only "number", and an array was drawn)
                    vote("int", 4.0)
                continue
            first = bool(node.args) and _is_target(node.args[0], target)
            if fname == "isinstance" and len(node.args) == 2 and _is_target(node.args[1], target):
                vote("type", 10.0)
            elif (
                fname == "print"
                and any(k.arg == "file" and _is_target(k.value, target) for k in node.keywords)
                or first
                and fname == "writer"
                and base == "csv"
                or fname == "dump"
                and base in ("json", "yaml")
                and len(node.args) >= 2
                and _is_target(node.args[1], target)
            ):
                vote("handle_out", 6.0)  # print(..., file=out), csv.writer(out), json.dump(obj, out)
            elif (
                first
                and fname == "join"
                and isinstance(fn, ast.Attribute)
                and ast.unparse(fn.value) not in ("os.path", "path", "posixpath", "osp")
            ):
                vote("list_str", 4.0)  # ", ".join(parts): strings to join
            elif (
                first
                and fname == "join"
                and ast.unparse(fn) in ("os.path.join", "path.join", "osp.join")
                and _touches_files(body)
            ):
                vote("dir", 3.0)  # os.path.join(out_dir, name), then files opened: a directory
            elif fname == "join" and isinstance(fn, ast.Attribute):
                vote("str", 2.0)  # os.path.join(root, name): parts of a path
            elif first and fname in _DIR_CALLS:
                vote("dir", 5.0)  # os.listdir(folder), os.makedirs(out_dir)
            elif first and base == "subprocess":
                vote("list_str", 4.0)  # subprocess.run(cmd): a command and its arguments
            elif first and fname == "write" and isinstance(fn, ast.Attribute) and len(node.args) == 1:
                vote("str", 3.0)  # fh.write(text): what is written to a text file (round 27)
            elif fname == "range":
                vote("int", 4.0)
            elif (
                fname in ("map", "filter", "imap", "imap_unordered", "starmap", "map_async", "starmap_async")
                and len(node.args) >= 2
                and _is_target(node.args[1], target)
            ):
                vote("list", 3.0)  # map(f, xs), pool.map(work, chunks): what a function is applied to
            elif fname in ("min", "max") and isinstance(fn, ast.Name) and len(node.args) >= 2:
                vote("number", 2.0)  # max(lo, min(hi, q)): values compared, not a collection
            elif fname in _PATH_CALLS or (base in ("os", "path") and fname not in ("join",)):
                vote("path", 4.0)
            elif fname in ("read_csv", "read_table") and node.args and _is_target(node.args[0], target):
                vote("path", 4.0)  # pandas reads a table from it (python_files writes one)
            elif fname in (
                "len",
                "sorted",
                "enumerate",
                "zip",
                "set",
                "list",
                "tuple",
                "reversed",
                "sum",
                "min",
                "max",
                "any",
                "all",
            ):
                vote("list", 1.5)
                if fname == "len" and _uses_numpy(body):
                    vote("ndarray", 1.0)  # len() of an array is as common as of a list in numpy code
            elif fname in ("float",) or fname in _NUMERIC_CALLS:
                vote("number", 2.0)
            elif fname == "int":
                vote("number", 1.0)
                vote("str", 0.5)
            elif (base in ("np", "numpy", "scipy", "ndimage", "ndi", "pd") or fname.startswith("as")) and any(
                _is_target(a, target) for a in node.args
            ):
                vote("ndarray", 3.0)
            elif base in ("np", "numpy"):
                vote("number", 2.0)  # np.linspace(a, b, num=bins), np.round(x, decimals=d): an option
            elif base == "re" or fname in ("compile", "match", "search", "sub", "findall"):
                vote("str", 3.0)
        elif isinstance(node, (ast.For, ast.comprehension)) and (
            _is_target(node.iter, target)
            or (isinstance(node.iter, ast.BoolOp) and any(_is_target(v, target) for v in node.iter.values))
        ):
            vote("list", 2.0 if _is_target(node.iter, target) else 3.0)  # for a in x / for a in x or []
        elif (
            isinstance(node, (ast.For, ast.comprehension))
            and _items_of(node.iter, target)
            and isinstance(node.target, ast.Tuple)
            and len(node.target.elts) == 2
            and isinstance(node.target.elts[1], ast.Name)
        ):
            # for key, value in target.items(): how ``value`` is used types the dict's values
            # (and the loop itself is a mapping's: only a mapping's items unpack so)
            vote("dict")
            inner = _usage_votes(body, node.target.elts[1].id)
            if inner.get("ndarray", 0.0) >= W_USAGE:
                vote("dict_ndarray", 4.0)
            elif inner.get("list", 0.0) >= W_USAGE - 1.0:  # for x in value / value[i]: lists
                vote("dict_list", 4.0)
        elif (
            isinstance(node, ast.For)
            and isinstance(node.target, ast.Name)
            and _keys_of(node.iter, target)
            and (looked := _looked_up(node, target, node.target.id)) is not None
        ):
            # for k in sorted(d.keys()): ... len(d[k]) ...: ``d[k]`` types the values, ``k`` the keys
            inner = _usage_votes(looked, "_bc_value")
            if inner.get("list", 0.0) + inner.get("ndarray", 0.0) >= 1.5:
                keys = _usage_votes(node, node.target.id)
                vote("dict_numkey_list" if keys.get("number", 0.0) >= 1.0 else "dict_list", 4.0)
        elif isinstance(node, ast.Starred) and _is_target(node.value, target):
            vote("list", 3.0)  # print(*fields(site)), f(*args): spread, so a sequence (round 26)
        elif isinstance(node, (ast.If, ast.While, ast.IfExp)) and _is_target(node.test, target):
            vote("bool", 1.5)
        elif (
            isinstance(node, ast.UnaryOp)
            and isinstance(node.op, ast.Not)
            and _is_target(node.operand, target)
        ):
            vote("bool", 1.5)
        elif (
            isinstance(node, ast.UnaryOp)
            and isinstance(node.op, ast.Invert)
            and _is_target(node.operand, target)
        ):
            vote("mask", 4.0)  # cnarr[~is_anti]: a boolean mask, inverted (round 30: an int was drawn)
        elif isinstance(node, ast.BoolOp) and any(_is_target(v, target) for v in node.values):
            vote("bool", 1.5)
    if unit:  # the arithmetic on a fraction says it is a number, which it is: that one
        votes["unit"] += votes.pop("number", 0.0) + votes.pop("float", 0.0) + votes.pop("int", 0.0)
    return dict(votes)


_VECTOR_CACHE: dict[int, tuple[ast.AST, set[int]]] = {}


def _vector_operands(body: ast.AST) -> set[int]:
    """ids of the nodes used as operands of comparisons joined by ``|``/``&`` or of arithmetic with arrays."""
    hit = _VECTOR_CACHE.get(id(body))
    if hit is not None and hit[0] is body:
        return hit[1]
    out: set[int] = set()
    for node in ast.walk(body):
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitOr, ast.BitAnd)):
            for side in (node.left, node.right):
                if isinstance(side, ast.Compare):
                    out.update(id(p) for p in [side.left, *side.comparators])
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, (ast.BitOr, ast.BitAnd)):
            if isinstance(node.value, ast.Compare):
                out.update(id(p) for p in [node.value.left, *node.value.comparators])
            for side in ast.walk(node.value):
                if isinstance(side, ast.Compare):
                    out.update(id(p) for p in [side.left, *side.comparators])
    _VECTOR_CACHE[id(body)] = (body, out)
    return out


_ELEMENTWISE_CACHE: dict[int, tuple[ast.AST, dict[int, str]]] = {}
#: numpy functions whose first argument, a comparison, is elementwise (``np.where(a > b, ...)``).
_NP_ELEMENTWISE = {
    "where",
    "sum",
    "any",
    "all",
    "count_nonzero",
    "flatnonzero",
    "nonzero",
    "logical_not",
    "mean",
}


def _elementwise_operands(body: ast.AST) -> dict[int, str]:
    """ids of the operands of comparisons whose result is used as an array -> the family it shows:
    ``(cnarr.chromosome == label).values`` (a Series: ``.values`` is pandas'), ``(a > 0).sum()``,
    ``x[a < b]`` (a mask of another array) or ``np.where(a > b, ...)`` (arrays).

    Why: the comparison alone reads as two scalars (a chromosome name and a label); a comparison
    whose *result* has ``.values`` or indexes an array compares arrays, and scalars there make the
    golden raise on every call."""
    hit = _ELEMENTWISE_CACHE.get(id(body))
    if hit is not None and hit[0] is body:
        return hit[1]
    out: dict[int, str] = {}

    def mark(cmp: ast.AST, fam: str) -> None:
        if isinstance(cmp, ast.Compare) and not any(
            isinstance(op, (ast.In, ast.NotIn, ast.Is, ast.IsNot)) for op in cmp.ops
        ):
            # the column is the first operand that is not a literal (``chrom == label``: the
            # label stays a scalar; pandas compares a column with one value far more often)
            p = next((q for q in [cmp.left, *cmp.comparators] if not isinstance(q, ast.Constant)), None)
            if p is not None:
                out.setdefault(id(p), fam)

    for node in ast.walk(body):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Compare):
            if node.attr == "values" or node.attr in _SERIES_ATTRS:
                mark(node.value, "series")
            elif node.attr in _ARRAY_ATTRS:
                mark(node.value, "ndarray")
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Compare):
            mark(node.slice, "ndarray")
        elif (
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in ("np", "numpy")
            and node.func.attr in _NP_ELEMENTWISE
        ):
            mark(node.args[0], "ndarray")
    _ELEMENTWISE_CACHE[id(body)] = (body, out)
    return out


def _two_axis_index(node: ast.AST, target: str) -> bool:
    """Whether ``node`` is ``target.iloc[a, b]`` or ``target.loc[a, b]``: a row and a column."""
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr in ("iloc", "loc")
        and _is_target(node.value.value, target)
        and isinstance(node.slice, ast.Tuple)
        and len(node.slice.elts) == 2
    )


def _selected_columns(body: ast.AST, target: str) -> list[str]:
    """Columns ``target`` selects by name: ``df.loc[:, 'gene']``, ``df.loc[rows, ['a', 'b']]``,
    ``df.loc[:, cols]`` and ``df[cols]`` with ``cols`` a local list of names (round 31)."""
    out: list[str] = []
    for node in ast.walk(body):
        if not isinstance(node, ast.Subscript):
            continue
        if _two_axis_index(node, target) and node.value.attr == "loc":
            col = node.slice.elts[1]
            if isinstance(col, ast.Constant) and isinstance(col.value, str):
                out.append(col.value)
            else:
                out += constant_list(col, body, str) or []
        elif _is_target(node.value, target) and isinstance(node.slice, (ast.Name, ast.List)):
            out += constant_list(node.slice, body, str) or []
    return out


def string_columns(body: ast.AST, target: str) -> list[str]:
    """String keys ``target`` is indexed with or tested for (``'depth' in cnarr``): a table's columns."""
    out: list[str] = []
    for node in ast.walk(body):
        if isinstance(node, ast.Subscript) and _is_target(node.value, target):
            if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
                out.append(node.slice.value)
        elif (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], (ast.In, ast.NotIn))
        ):
            if (
                _is_target(node.comparators[0], target)
                and isinstance(node.left, ast.Constant)
                and isinstance(node.left.value, str)
            ):
                out.append(node.left.value)
    return list(dict.fromkeys(out))


def _own_column(test: ast.Compare, target: str) -> bool:
    """Whether a comparison reads one of ``target``'s columns (``df['strand'] == '+'``)."""
    return any(
        isinstance(side, ast.Subscript)
        and _is_target(side.value, target)
        and isinstance(side.slice, ast.Constant)
        and isinstance(side.slice.value, str)
        for side in [test.left, *test.comparators]
    )


def _rows_of(node: ast.AST, names: list[str]) -> bool:
    """Whether ``node`` is one of ``names`` or rows selected from it (``tmp.iloc[idx]``,
    ``df.loc[mask]``, ``df[df.x > 0]``): what a column is then read from."""
    while isinstance(node, ast.Subscript) and not (
        isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)
    ):
        node = node.value
        if isinstance(node, ast.Attribute) and node.attr in ("iloc", "loc"):
            node = node.value
    return any(_is_target(node, name) for name in names)


def _bound_to(body: ast.AST, names: list[str], fits, repeat: bool = False) -> list[str]:
    """``names`` and the locals assigned a value ``fits(value, names)`` accepts (``x = <value>``,
    one name on the left); with ``repeat``, also those assigned from the ones just added."""
    names = list(names)
    grew = True
    while grew:
        grew = False
        for node in ast.walk(body):
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id not in names
                and fits(node.value, names)
            ):
                names.append(node.targets[0].id)
                grew = repeat
    return names


def row_aliases(body: ast.AST, target: str) -> list[str]:
    """``target``'s aliases and the locals bound to rows selected from them (``fwd =
    df[df['strand'] == '+']``, ``sub = df.iloc[:10]``): tables with the same columns."""

    def rows(names: list[str]) -> list[str]:
        return _bound_to(
            body,
            names,
            lambda value, names: isinstance(value, ast.Subscript) and _rows_of(value, names),
            repeat=True,
        )

    names = rows(aliases(body, target))
    # for key, group in df.groupby('entrez_id'): each group has the table's columns (round 31)
    grouped = False
    for node in ast.walk(body):
        if (
            isinstance(node, (ast.For, ast.comprehension))
            and isinstance(node.target, ast.Tuple)
            and len(node.target.elts) == 2
            and isinstance(node.target.elts[1], ast.Name)
            and isinstance(node.iter, ast.Call)
            and isinstance(node.iter.func, ast.Attribute)
            and node.iter.func.attr == "groupby"
            and any(_is_target(node.iter.func.value, n) for n in names)
            and node.target.elts[1].id not in names
        ):
            names.append(node.target.elts[1].id)
            grouped = True
    return rows(names) if grouped else names


def frame_columns(body: ast.AST, target: str) -> list[str]:
    """The columns a table ``target`` must have: the string keys it, a local bound to it
    (``tmp = self.df[record]``) or rows selected from either (``tmp.iloc[idx]['name']``) is
    indexed with. Why: a table drawn without a column the code reads raises KeyError on every
    call."""
    names = row_aliases(body, target)
    out = [c for name in names for c in string_columns(body, name)]
    for node in ast.walk(body):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
            and isinstance(node.value, ast.Subscript)
            and _rows_of(node.value, names)
        ):
            out.append(node.slice.value)
    out += _attribute_columns(body, names)
    out += [c for name in names for c in _selected_columns(body, name)]
    return list(dict.fromkeys(out))


@functools.cache
def _frame_members() -> frozenset[str]:
    """What a pandas table has of its own (``start`` is no member: a column read as an attribute)."""
    import pandas

    return frozenset(dir(pandas.DataFrame)) | frozenset(dir(pandas.Series))


#: A table's methods whose first argument (or ``by=``) names its columns.
_BY_COLUMN_CALLS = {
    "groupby",
    "sort_values",
    "set_index",
    "drop_duplicates",
    "pivot_table",
    "nlargest",
    "nsmallest",
}


def _attribute_columns(body: ast.AST, names: list[str]) -> list[str]:
    """Columns read as attributes (``table.start.values``) of the tables ``names``, or of their
    rows (``for row in table.itertuples(): row.chrom``; ``for _, row in table.iterrows():
    row['chrom']``). Why: a table drawn with only its string-keyed columns had none of these,
    and every call raised (round 30)."""
    out: list[str] = []
    for name in names:
        out += [a for a in sub_attributes(body, name) if a not in _frame_members() and not a.startswith("_")]
    for node in ast.walk(body):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _BY_COLUMN_CALLS
            and any(_is_target(node.func.value, n) for n in names)
        ):  # dframe.groupby('entrez_id'), df.sort_values(by=['chrom', 'start'])
            given = node.args[:1] + [k.value for k in node.keywords if k.arg in ("by", "keys", "subset")]
            out += [c for g in given for c in (_str_constants(g) or [])]
        if not isinstance(node, (ast.For, ast.comprehension)):
            continue
        it = node.iter
        if not (
            isinstance(it, ast.Call)
            and isinstance(it.func, ast.Attribute)
            and it.func.attr in ("itertuples", "iterrows")
            and any(_is_target(it.func.value, n) for n in names)
        ):
            continue
        row = node.target
        if it.func.attr == "iterrows" and isinstance(row, ast.Tuple) and len(row.elts) == 2:
            row = row.elts[1]
        if isinstance(row, ast.Name):
            out += [a for a in sub_attributes(body, row.id) if not a.startswith("_")]
            out += string_columns(body, row.id)
    return out


def _column_read(node: ast.AST, names: list[str]) -> str | None:
    """The column ``node`` reads from one of ``names`` (``df['c']``, ``df.iloc[i]['c']``), or None."""
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.slice, ast.Constant)
        and isinstance(node.slice.value, str)
        and _rows_of(node.value, names)
    ):
        return node.slice.value
    return None


def _str_constants(node: ast.AST | None) -> list[str] | None:
    """A string constant, or a list/tuple/set of them, as a list; None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)) and node.elts:
        got = [_str_constants(e) for e in node.elts]
        return None if any(g is None for g in got) else [v for g in got for v in g]
    return None


def string_valued_columns(body: ast.AST, target: str, cols: list[str]) -> dict[str, list[str]]:
    """Columns of the table ``target`` that hold text -> the strings the code compares them with.
    Text shows as ``df['c'].str``, ``df['c'].fillna('')``, ``df['c'] == 'chr1'``,
    ``df['c'].isin(['+', '-'])`` or ``df['c'] + '_'``. Why: a column drawn as floats where the
    code joins it with a string or fills it with one raises on every call (pandas will not add
    a string to a float column), and one compared with ``'+'`` never matches."""
    names = row_aliases(body, target)
    parents = {id(child): node for node in ast.walk(body) for child in ast.iter_child_nodes(node)}
    out: dict[str, list[str]] = {}
    for node in ast.walk(body):
        col = _column_read(node, names)
        if col is None or col not in cols:
            continue
        up = parents.get(id(node))
        call = parents.get(id(up)) if isinstance(up, ast.Attribute) else None
        consts: list[str] | None = None
        if isinstance(up, ast.Attribute) and up.attr == "str":
            consts = []
        elif (
            isinstance(up, ast.Attribute)
            and up.attr in ("fillna", "isin")
            and isinstance(call, ast.Call)
            and call.func is up
            and call.args
        ):
            consts = _str_constants(call.args[0])
            if up.attr == "fillna" and consts is not None:
                consts = []  # what fills a gap is text, not a value the column holds
        elif isinstance(up, ast.Compare) and len(up.ops) == 1 and isinstance(up.ops[0], (ast.Eq, ast.NotEq)):
            other = up.comparators[0] if up.left is node else up.left
            consts = _str_constants(other)
        elif isinstance(up, ast.BinOp) and isinstance(up.op, ast.Add):
            other = up.right if up.left is node else up.left
            consts = [] if _str_constants(other) is not None else None
        if consts is not None:
            out[col] = list(dict.fromkeys([*out.get(col, []), *consts]))
    return out


def sub_attributes(body: ast.AST, target: str) -> list[str]:
    """Attributes read on ``target`` that no builtin, numpy or pandas type explains (``self.size_range.min``)."""
    called = {id(n.func) for n in ast.walk(body) if isinstance(n, ast.Call)}
    out: list[str] = []
    for node in ast.walk(body):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Load)
            and _is_target(node.value, target)
            and id(node) not in called
            and node.attr not in _DATA_ATTRS
            and not node.attr.startswith("__")
        ):
            out.append(node.attr)
    return list(dict.fromkeys(out))


def text_separators(body: ast.AST, target: str) -> list[str]:
    """Short punctuation constants passed to ``target``'s string methods (``text.index('\\n')``, ``.split(',')``)."""
    out: list[str] = []
    names = {target} | _derived_names(body, target)
    for node in ast.walk(body):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and any(_is_target(node.func.value, t) for t in names)
            and node.func.attr in _STR_METHODS
        ):
            for a in node.args[:1]:
                if (
                    isinstance(a, ast.Constant)
                    and isinstance(a.value, str)
                    and 0 < len(a.value) <= 2
                    and not any(ch.isalnum() for ch in a.value)
                ):
                    out.append(a.value)
    return list(dict.fromkeys(out))


def _derived_names(body: ast.AST, target: str) -> set[str]:
    """Local names computed from ``target`` (``firstline = text[:i]``, ``for group in groups.split(',')``)."""
    out: set[str] = set()
    for node in ast.walk(body):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value, bound = node.value, node.targets[0].id
        elif isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.target, ast.Name):
            value, bound = node.iter, node.target.id
        else:
            continue
        if any(_is_target(n, target) for n in ast.walk(value)):
            out.add(bound)
    return out


def regex_patterns(body: ast.AST, target: str) -> list[str]:
    """Literal patterns of ``re.search/match/fullmatch(PATTERN, target)``: strings to draw ``target`` from."""
    out: list[str] = []
    for node in ast.walk(body):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "re"
            and node.func.attr in ("search", "match", "fullmatch")
            and len(node.args) >= 2
            and _is_target(node.args[1], target)
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            out.append(node.args[0].value)
    return out


_POSITIONS = re.compile(r"^(pos|positions?|starts|loci|coords|coordinates|variant_pos|bp)$")


def array_rank(body: ast.AST, target: str) -> int:
    """The least number of dimensions ``target`` must have for the body's indexing (0: no evidence).

    ``x[:, k]`` needs 2, ``x[..., 0, 1]`` 3 (an ellipsis counts as one), ``x.shape[2]`` 3,
    ``x.sum(axis=1)`` / ``np.all(x, axis=1)`` 2, ``x.ndim == 3`` 3.
    """
    rank = 0
    names = set(aliases(body, target))

    def mine(n: ast.AST) -> bool:
        return any(_is_target(n, t) for t in names)

    for node in ast.walk(body):
        if isinstance(node, ast.Subscript) and mine(node.value) and isinstance(node.slice, ast.Tuple):
            rank = max(rank, len(node.slice.elts))
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "shape"
            and mine(node.value.value)
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, int)
        ):
            rank = max(rank, node.slice.value + 1 if node.slice.value >= 0 else -node.slice.value)
        elif isinstance(node, ast.Call):
            on_target = (isinstance(node.func, ast.Attribute) and mine(node.func.value)) or (
                bool(node.args) and any(mine(n) for n in ast.walk(node.args[0]))
            )
            if not on_target:
                continue
            for k in node.keywords:
                if k.arg != "axis":
                    continue
                try:
                    v = pyast.literal_eval(k.value)
                except (ValueError, TypeError, SyntaxError):
                    continue
                if isinstance(v, int) and not isinstance(v, bool):
                    rank = max(rank, v + 1 if v >= 0 else -v)
        elif (
            isinstance(node, ast.Compare)
            and isinstance(node.left, ast.Attribute)
            and node.left.attr == "ndim"
            and mine(node.left.value)
            and isinstance(node.ops[0], (ast.Eq, ast.GtE))
            and isinstance(node.comparators[0], ast.Constant)
            and isinstance(node.comparators[0].value, int)
        ):
            rank = max(rank, node.comparators[0].value)
    return min(rank, 3)


def _int_valued(body: ast.AST, target: str) -> bool:
    """Whether the array holds integer codes: compared (itself or an element/slice) with integer constants."""
    for node in ast.walk(body):
        if isinstance(node, ast.Compare):
            parts = [node.left, *node.comparators]
            hit = any(
                _is_target(p, target) or (isinstance(p, ast.Subscript) and _is_target(p.value, target))
                for p in parts
            )
            if hit and any(
                isinstance(p, ast.Constant) and isinstance(p.value, int) and not isinstance(p.value, bool)
                for p in parts
            ):
                return True
    return False


def fixed_axes(body: ast.AST, target: str) -> dict[int, int]:
    """Axis sizes the code compares with a constant (``ac.shape[1] != 2``, ``x.shape[-1] == 3``):
    {axis: size}, sizes 1 to 16."""
    out: dict[int, int] = {}
    for n in ast.walk(body):
        if not (isinstance(n, ast.Compare) and len(n.ops) == 1):
            continue
        for side, other in ((n.left, n.comparators[0]), (n.comparators[0], n.left)):
            if (
                isinstance(side, ast.Subscript)
                and isinstance(side.value, ast.Attribute)
                and side.value.attr == "shape"
                and _is_target(side.value.value, target)
                and isinstance(side.slice, ast.Constant)
                and type(side.slice.value) is int
                and isinstance(other, ast.Constant)
                and type(other.value) is int
                and 1 <= other.value <= 16
            ):
                out.setdefault(side.slice.value, other.value)
    return out


def shaped_array_kind(body: ast.AST, target: str, kinds: list[str]) -> str | None:
    """An array kind of the rank the body indexes (and integer codes when compared with integers), or ``None``."""
    if not kinds or not kinds[0].startswith("ndarray"):
        return None
    rank = array_rank(body, target)
    name = target.rsplit(".", 1)[-1].lower()
    if rank <= 1 and _POSITIONS.match(name):
        return "ndarray1_pos"
    if (
        rank < 2
        or kinds[0].startswith(f"ndarray{rank}")
        or kinds[0] in ("ndarray_strel",)
        or (rank == 2 and kinds[0].startswith("ndarray2"))
    ):
        return None
    integer = _int_valued(body, target) or kinds[0].endswith("_int")
    return f"ndarray{rank}" + ("_int" if integer else "")


class _AnyKeyToName(ast.NodeTransformer):
    """``target[k]`` with a key that is no constant (``db[gene_id]``) -> the name ``result``."""

    def __init__(self, target: str, result: str):
        self.target, self.result, self.found = target, result, False

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        self.generic_visit(node)
        if (
            _is_target(node.value, self.target)
            and isinstance(node.ctx, ast.Load)
            and not isinstance(node.slice, (ast.Constant, ast.Slice))
        ):
            self.found = True
            return ast.copy_location(ast.Name(id=self.result, ctx=ast.Load()), node)
        return node


def looked_up_kind(body: ast.AST, target: str, depth: int) -> str | None:
    """The kind of what ``target[k]`` gives for keys that are no constants (``db[gene_id].start``),
    from how that value is used; None when ``target`` is never looked up so."""
    import copy as _copy

    result = "_bc_looked_up"
    swap = _AnyKeyToName(target, result)
    tree = swap.visit(_copy.deepcopy(body))
    if not swap.found:
        return None
    votes = usage_votes(tree, result)
    kinds = refine_kinds(tree, result, rank_kinds(result, votes), votes, depth + 1) if votes else ["str_word"]
    return kinds[0] if not kinds[0].startswith("stub:") else "str_word"


class _KeyToName(ast.NodeTransformer):
    """``target['k']`` / ``target.get('k', ...)`` -> the name ``result``: a value analysed like a variable."""

    def __init__(self, target: str, key: str, result: str):
        self.target, self.key, self.result = target, key, result

    def _name(self, node: ast.AST) -> ast.AST:
        return ast.copy_location(ast.Name(id=self.result, ctx=ast.Load()), node)

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        self.generic_visit(node)
        if (
            _is_target(node.value, self.target)
            and isinstance(node.slice, ast.Constant)
            and node.slice.value == self.key
            and isinstance(node.ctx, ast.Load)
        ):
            return self._name(node)
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        f = node.func
        if (
            isinstance(f, ast.Attribute)
            and f.attr == "get"
            and _is_target(f.value, self.target)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and node.args[0].value == self.key
        ):
            return self._name(node)
        return node


def _got_key(node: ast.AST, target: str) -> ast.AST | None:
    """The key of ``target.get(key, ...)``, or None when ``node`` is no such call."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and _is_target(node.func.value, target)
        and node.args
    ):
        return node.args[0]
    return None


def _string(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def read_keys(body: ast.AST, target: str) -> list[str]:
    """String keys read from ``target``: ``d['fmt']``, ``d.get('fmt')``, ``'fmt' in d``."""
    out = list(string_columns(body, target))
    out += [k for node in ast.walk(body) if (k := _string(_got_key(node, target))) is not None]
    return list(dict.fromkeys(out))


def optional_keys(body: ast.AST, target: str) -> list[str]:
    """String keys the code allows to be missing: read with ``d.get('k')`` or tested with
    ``'k' in d``."""
    out = []
    for node in ast.walk(body):
        key = _got_key(node, target)
        if (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], (ast.In, ast.NotIn))
            and _is_target(node.comparators[0], target)
        ):
            key = node.left
        if _string(key) is not None:
            out.append(_string(key))
    return list(dict.fromkeys(out))


def key_kinds(body: ast.AST, target: str, keys: list[str], depth: int) -> dict[str, str]:
    """The kind of each key's value, from how ``target['key']`` is used (compared with 'gff3': that string)."""
    import copy as _copy

    out: dict[str, str] = {}
    for k in keys[:10]:
        result = "_bc_key_" + re.sub(r"\W", "_", k)
        tree = _KeyToName(target, k, result).visit(_copy.deepcopy(body))
        votes = usage_votes(tree, result)
        kinds = (
            refine_kinds(tree, result, rank_kinds(k, votes), votes, depth + 1)
            if (votes or family_of_name(k))
            else ["str_word"]
        )
        out[k] = kinds[0] if not kinds[0].startswith("stub:") else "str_word"
    return out


_KNOWN_METHODS = _STR_METHODS | _LIST_METHODS | _DICT_METHODS | _ARRAY_ATTRS | _SERIES_ATTRS | _SET_METHODS


class _MethodCallToName(ast.NodeTransformer):
    """``target.m(...)`` -> the name ``result``: the call's result analysed like a variable."""

    def __init__(self, target: str, method: str, result: str):
        self.target, self.method, self.result = target, method, result

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr == self.method and _is_target(f.value, self.target):
            return ast.copy_location(ast.Name(id=self.result, ctx=ast.Load()), node)
        return node


def _attributes_stored(body: ast.AST, target: str) -> bool:
    """``target.value = x`` (``prob.tolerance.value = 1e-9``): only an object takes attributes."""
    return any(
        isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and _is_target(n.value, target)
        for n in ast.walk(body)
    )


#: What a pandas DataFrame has (methods and attributes) that code commonly uses.
_TABLE_MEMBERS = (
    _FRAME_ATTRS
    | _SERIES_ATTRS
    | _ARRAY_ATTRS
    | {"merge", "join", "sort_values", "sort_index", "reset_index", "set_index", "drop", "drop_duplicates",
       "rename", "query", "pivot", "head", "tail", "to_csv", "to_dict", "isin", "describe", "assign",
       "filter", "agg", "aggregate", "transform", "nlargest", "nsmallest", "sample", "replace", "where",
       "mask", "count", "corr", "append", "update", "get", "keys", "items", "index", "values", "empty",
       "dtypes", "to_string", "duplicated", "select_dtypes", "interpolate", "explode", "stack", "unstack",
       "reindex", "combine_first", "pct_change", "to_records", "tolist", "eq", "ne", "gt", "lt", "ge", "le"}
)  # fmt: skip


def _pandas_table(votes: dict[str, float], methods: dict[str, str], subs: list[str]) -> bool:
    """Whether a value the uses vote a table for (above every other family) only has pandas'
    methods and attributes called or read on it."""
    frame = votes.get("frame", 0.0)
    return (
        frame > 0
        and all(frame >= w for f, w in votes.items() if f != "frame")
        and set(methods) <= _TABLE_MEMBERS
        and set(subs) <= _TABLE_MEMBERS
    )


def _object_holder(body: ast.AST, target: str, depth: int) -> tuple[str, list[str], dict[str, str]]:
    """The name whose attribute reads and method calls type an object: ``target`` itself, or,
    when nothing is read on it, the first local bound to it unchanged that has some. Why: a
    helper's value is usually kept before it is used (``prob = solver.create_problem()`` then
    ``prob.namespace(...)``, ``parser = ArgumentParser()`` then ``parser.add_argument(...)``), and
    an object typed only by the call itself had no fields, so the golden raised on every call."""
    for name in aliases(body, target):
        subs = sub_attributes(body, name)
        methods = object_methods(body, name, depth)
        if subs or methods:
            return name, subs, methods
    return target, [], {}


class _Renamed(ast.NodeTransformer):
    def __init__(self, names: set[str], to: str):
        self.names, self.to = names, to

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.names:
            return ast.copy_location(ast.Name(id=self.to, ctx=node.ctx), node)
        return node


def merged_holders(body: ast.AST, target: str, holder: str) -> ast.AST:
    """``body`` with the other locals bound once to ``target`` read as ``holder``: two values of
    one stub (``m = prob.namespace(...)``, ``z = prob.namespace(...)``) are one kind of object,
    so ``z.sum(...)`` types it as much as ``m.set(...)`` does (before, the first local's uses
    alone did, and ``z.sum`` raised on every call). ``body`` itself when there are none."""
    if "." in holder:
        return body
    assigned: dict[str, int] = defaultdict(int)
    for node in ast.walk(body):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            assigned[node.id] += 1
    others = {a for a in aliases(body, target)[1:] if a != holder and "." not in a and assigned[a] == 1}
    if holder in others or not others or assigned[holder] > 1:
        return body
    return ast.fix_missing_locations(_Renamed(others, holder).visit(copy.deepcopy(body)))


def object_methods(body: ast.AST, target: str, depth: int = 1, known: bool = False) -> dict[str, str]:
    """Methods the code calls on an object of no known type (``header.get_info(k)``, ``fh.close()``),
    or passes on as functions (``map(header.get_info, keys)``): method -> ``stub:KIND``, a function
    returning one generated value of the kind the call's use suggests (``None`` when unused).
    ``depth`` is the object's own nesting: a method's value is typed one level deeper, so the
    value of a method of a parameter may itself be an object with methods.
    ``known``: also the methods a builtin, numpy or pandas value has (``z.sum(...)`` on an
    object already shown to be one by other methods: a drawn object has no ``sum``).
    """
    import copy as _copy

    called: list[str] = []
    passed: list[str] = []
    for node in ast.walk(body):
        if isinstance(node, ast.Call):
            f = node.func
            if (
                isinstance(f, ast.Attribute)
                and _is_target(f.value, target)
                and (known or f.attr not in _KNOWN_METHODS)
                and not f.attr.startswith("__")
            ):
                called.append(f.attr)
            funcs = (
                [node.args[0]] if isinstance(f, ast.Name) and f.id in ("map", "filter") and node.args else []
            )
            funcs += [k.value for k in node.keywords if k.arg == "key"]
            for a in funcs:
                if (
                    isinstance(a, ast.Attribute)
                    and _is_target(a.value, target)
                    and a.attr not in _KNOWN_METHODS
                ):
                    passed.append(a.attr)  # map(obj.method, xs), sorted(xs, key=obj.rank): a function
    statements = {id(n.value) for n in ast.walk(body) if isinstance(n, ast.Expr)}
    kept = {  # methods whose value the code keeps or passes on (not only called for effect)
        n.func.attr
        for n in ast.walk(body)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and _is_target(n.func.value, target)
        and id(n) not in statements
    }
    out: dict[str, str] = {}
    for m in dict.fromkeys(called + passed):
        result = f"_bc_ret_{m.lstrip('_')}"
        tree = _MethodCallToName(target, m, result).visit(_copy.deepcopy(body))
        votes = usage_votes(tree, result)
        fixed = unpacked_kind(tree, result) if m in kept else None
        if fixed:  # ``errors, warnings = pack.check()``: a tuple of that many values
            out[m] = "stub:" + fixed
        elif m in passed and m not in called:
            out[m] = "stub:str_word"
        elif not votes and m in kept:
            # ``is_xx = cnarr.guess_xx(); if is_xx is not None: ...``: a value nothing types is
            # still a value (always ``None`` would leave the code after it unreached)
            ranked = rank_kinds(m.removeprefix("get_"), {})
            out[m] = "stub:" + refine_kinds(tree, result, ranked, {}, max(depth + 1, 1))[0]
        elif not votes:
            out[m] = "stub:none"
        else:
            out[m] = (
                "stub:"
                + refine_kinds(
                    tree, result, rank_kinds(m.removeprefix("get_"), votes), votes, max(depth + 1, 1)
                )[0]
            )
    return out


def _same_elements(node: ast.AST) -> ast.AST:
    """What a loop's iterable holds the elements of: ``xs[i:]``, ``sorted(xs)``, ``reversed(xs)``,
    ``list(xs)`` iterate the elements of ``xs``."""
    return unwrap_copies(node, ("sorted", "reversed", "list", "tuple", "set"))


def _enumerated(it: ast.AST, var: ast.AST) -> tuple[ast.AST, ast.AST]:
    """``for i, v in enumerate(xs)`` -> (``xs``, ``v``); any other loop as it is."""
    if (
        isinstance(it, ast.Call)
        and isinstance(it.func, ast.Name)
        and it.func.id == "enumerate"
        and it.args
        and isinstance(var, ast.Tuple)
        and len(var.elts) == 2
    ):
        return it.args[0], var.elts[1]
    return it, var


def _loop_targets(body: ast.AST, target: str) -> list[ast.AST]:
    """The loop targets of ``for v in target`` (and ``for i, v in enumerate(target)``: ``v``;
    ``for s, n in kmers[i:]``, ``sorted(target)``, ``reversed(target)``: the same elements)."""
    out = []
    holders = _element_copies(body, target)
    for node in ast.walk(body):
        if not isinstance(node, (ast.For, ast.comprehension)):
            continue
        it, var = _enumerated(_same_elements(node.iter), node.target)
        it = _same_elements(it)
        if (
            isinstance(it, ast.Call)
            and isinstance(it.func, ast.Name)
            and it.func.id == "zip"
            and isinstance(var, ast.Tuple)
            and len(var.elts) == len(it.args)
        ):
            # for v, lab in zip(values, labels): ``lab`` is an element of ``labels``
            out += [
                v for a, v in zip(it.args, var.elts, strict=True) if any(_is_target(a, h) for h in holders)
            ]
            continue
        if any(_is_target(it, h) for h in holders):
            out.append(var)
    return out + _lambda_elements(body, holders)


#: Calls that apply a ``key=`` function to each element of their first argument.
_KEYED_CALLS = {"sorted", "min", "max", "sort", "groupby", "nlargest", "nsmallest"}


def _lambda_elements(body: ast.AST, holders: list[str]) -> list[ast.AST]:
    """The parameter of a one-argument ``lambda`` applied to each element of a holder:
    ``sorted(xs, key=lambda r: r.id)``, ``xs.sort(key=...)``, ``map(lambda r: ..., xs)``,
    ``filter(lambda r: ..., xs)``. Why: elements read only there were drawn as numbers, and
    every call raised (round 30)."""
    out: list[ast.AST] = []
    for node in ast.walk(body):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        fname = pyast.callee_name(f)
        pairs: list[tuple[ast.AST, ast.AST]] = []
        if fname in _KEYED_CALLS:
            seq = (
                f.value
                if fname == "sort" and isinstance(f, ast.Attribute)
                else (node.args[0] if node.args else None)
            )
            pairs += [(k.value, seq) for k in node.keywords if k.arg == "key" and seq is not None]
        elif fname in ("map", "filter") and len(node.args) == 2:
            pairs.append((node.args[0], node.args[1]))
        for fn, seq in pairs:
            if (
                isinstance(fn, ast.Lambda)
                and len(fn.args.args) == 1
                and any(_is_target(_same_elements(seq), h) for h in holders)
            ):
                out.append(ast.Name(id=fn.args.args[0].arg, ctx=ast.Store()))
    return out


def pair_keyed_kind(body: ast.AST, target: str, depth: int) -> str | None:
    """``pairkeyed:([key field kinds], value kind)`` when the code unpacks ``target``'s keys
    as tuples (``for (compound, rxn), value in target.items()``, ``for (i, j) in target``):
    a dict keyed by tuples, each field typed by its own use. Why: a dict drawn with word keys
    cannot be unpacked so, and the golden raised on every call."""
    for node in ast.walk(body):
        if not isinstance(node, (ast.For, ast.comprehension)) or not isinstance(node.target, ast.Tuple):
            continue
        var = node.target
        if _items_of(node.iter, target) and len(var.elts) == 2:
            key, value = var.elts
        elif _keys_of(node.iter, target):
            key, value = var, None
        else:
            continue
        if not (
            isinstance(key, ast.Tuple)
            and 2 <= len(key.elts) <= 4
            and all(isinstance(e, ast.Name) for e in key.elts)
            and (value is None or isinstance(value, ast.Name))
        ):
            continue

        def typed(name: str) -> str:
            sv = usage_votes(body, name)
            if not sv:
                return "int_small"
            return refine_kinds(body, name, rank_kinds(name, sv), sv, max(2, depth + 1))[0]

        fields = [typed(e.id) for e in key.elts]
        return "pairkeyed:" + repr((fields, typed(value.id) if value is not None else "int_small"))
    return None


#: Kinds whose payload gives a value its structure: a mapping's values typed so are worth a kind.
_STRUCTURED = ("fixed:", "obj:", "objlist:", "frame:", "tuplelist:", "dictkeys:", "dictlist:")


def valued_kind(body: ast.AST, target: str, depth: int) -> str | None:
    """``keyed:(key kind, value kind)`` when ``for key, value in target.items()`` gives its values
    a structure: unpacked (``pairs, direction = value``, ``for k, (a, b) in d.items()``), or read
    as an object or table. Why: the values were drawn as numbers, and unpacking or reading them
    raised on every call (round 30)."""
    if depth > 1:
        return None
    for node in ast.walk(body):
        if not (
            isinstance(node, (ast.For, ast.comprehension))
            and _items_of(node.iter, target)
            and isinstance(node.target, ast.Tuple)
            and len(node.target.elts) == 2
            and isinstance(node.target.elts[0], ast.Name)
        ):
            continue
        key, value = node.target.elts

        def typed(name: str) -> str:
            sv = usage_votes(body, name)
            kinds = refine_kinds(body, name, rank_kinds(name, sv), sv, depth + 1)
            return next((k for k in kinds if not k.startswith(NOT_RESULTS)), "int_small")

        if isinstance(value, ast.Tuple) and all(isinstance(e, ast.Name) for e in value.elts):
            shape = "fixed:" + repr([typed(e.id) for e in value.elts])  # type: ignore[attr-defined]
        elif isinstance(value, ast.Name):
            shape = typed(value.id)
            if not shape.startswith(_STRUCTURED):
                continue
        else:
            continue
        key_kind = typed(key.id) if usage_votes(body, key.id) else "str_word"
        return "keyed:" + repr((key_kind, shape))
    return None


def _len_taken(body: ast.AST, target: str) -> bool:
    """Whether the code asks ``len(target)``."""
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and n.func.id == "len"
        and len(n.args) == 1
        and _is_target(n.args[0], target)
        for n in ast.walk(body)
    )


def _element_copies(body: ast.AST, target: str) -> list[str]:
    """``target`` and the locals that hold its elements: ``children = list(db.children(f))``,
    ``rows = sorted(target)``, ``kept = target[:]``. Why: the code often copies an iterable
    (a generator, most often) into a list before looping over it, and the loop's uses are
    what type the elements."""
    # (and the locals bound to it or a copy unchanged: ``chunks = variants.by_ranges(segs)``,
    # ``peds = list(parse(r)); pairs = peds``, round 31)
    names = _bound_to(
        body,
        [target],
        lambda value, names: (
            any(_is_target(_same_elements(value), n) for n in names)
            or (  # kids = pop + pop, rows = header + rows: a list joined with itself or another
                isinstance(value, ast.BinOp)
                and isinstance(value.op, ast.Add)
                and any(_is_target(side, n) for side in (value.left, value.right) for n in names)
            )
        ),
        repeat=True,
    )
    # warnings += get_warning(f): the list added onto holds its elements
    names += [
        n.target.id
        for n in ast.walk(body)
        if isinstance(n, ast.AugAssign)
        and isinstance(n.op, ast.Add)
        and isinstance(n.target, ast.Name)
        and n.target.id not in names
        and any(_is_target(n.value, h) for h in names)
        and n.target.id in _list_accumulators(body)
    ]
    return names


def _recursed_fields(body: ast.AST, holder: str, target: str) -> list[str]:
    """Fields of ``holder`` whose elements the function hands back to itself in ``target``'s
    place (``for node in tree.children: print_tree(node, level + 1)``): a tree's children."""
    if not isinstance(body, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    names = [a.arg for a in [*body.args.posonlyargs, *body.args.args]]
    if target not in names:
        return []
    slot = names.index(target)
    if names and names[0] in ("self", "cls"):
        slot -= 1  # self.walk(child): the method's own arguments, without ``self``
    out = []
    for loop in ast.walk(body):
        if not (
            isinstance(loop, (ast.For, ast.comprehension))
            and isinstance(loop.target, ast.Name)
            and isinstance(loop.iter, ast.Attribute)
            and _is_target(loop.iter.value, holder)
        ):
            continue
        var = loop.target.id
        for call in ast.walk(body):
            if not (isinstance(call, ast.Call) and pyast.callee_name(call.func) == body.name):
                continue
            given = call.args[slot] if 0 <= slot < len(call.args) else None
            given = given or next((k.value for k in call.keywords if k.arg == target), None)
            if isinstance(given, ast.Name) and given.id == var and loop.iter.attr not in out:
                out.append(loop.iter.attr)
    return out


def _held_in(body: ast.AST, target: str) -> bool:
    """Whether ``target`` is used as a container: tested for membership (``k in target``),
    looped over, or measured (``len(target)``). No number or flag allows any of them."""
    for n in ast.walk(body):
        if (
            isinstance(n, ast.Compare)
            and any(isinstance(op, (ast.In, ast.NotIn)) for op in n.ops)
            and any(_is_target(c, target) for c in n.comparators)
        ):
            return True
        if isinstance(n, (ast.For, ast.comprehension)) and _is_target(n.iter, target):
            return True
        if (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name)
            and n.func.id == "len"
            and n.args
            and _is_target(n.args[0], target)
        ):
            return True
    return False


def _list_accumulators(body: ast.AST) -> set[str]:
    """Locals started as a list (``hits = []``, ``list()``) that lists are added onto."""
    return {
        n.targets[0].id
        for n in ast.walk(body)
        if isinstance(n, ast.Assign)
        and len(n.targets) == 1
        and isinstance(n.targets[0], ast.Name)
        and (
            isinstance(n.value, ast.List)
            or isinstance(n.value, ast.Call)
            and isinstance(n.value.func, ast.Name)
            and n.value.func.id == "list"
            and not n.value.args
        )
    }


def _unpacked_later(body: ast.AST, name: str) -> ast.Tuple | None:
    """The names ``name`` is unpacked into by an assignment of its own (``a, b, c = name``),
    when that is the one thing assigned from it whole."""
    found = [
        n.targets[0]
        for n in ast.walk(body)
        if isinstance(n, ast.Assign)
        and len(n.targets) == 1
        and isinstance(n.targets[0], ast.Tuple)
        and isinstance(n.value, ast.Name)
        and n.value.id == name
    ]
    return found[0] if len(found) == 1 else None


def _element_targets(body: ast.AST, target: str) -> list[ast.AST]:
    """Names bound to one element of ``target``: loop targets (:func:`_loop_targets`), then a name
    assigned an element picked by a varying position (``occr = target[i]``), typed as a loop
    variable would be."""
    out = _loop_targets(body, target)
    for node in ast.walk(body):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Subscript)
            and _is_target(node.value.value, target)
            and _positional(node.value.slice)
        ):
            out.append(node.targets[0])
    return out


def _positional(index: ast.AST) -> bool:
    """An index that is a varying position, not a key, a slice or a constant: arithmetic, or a
    name an int would have (``i``, ``seq_idx``). Why: ``rec = by_name[name]`` reads a dict, and
    ``x = t[0]`` may be a field of a tuple (as :func:`element_names` has it)."""
    if isinstance(index, ast.BinOp) or (isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub)):
        return True  # (``~mask`` and ``not x`` pick no position, round 30)
    return isinstance(index, ast.Name) and family_of_name(index.id) == "int"


def element_kind(body: ast.AST, target: str, depth: int = 0) -> str | None:
    """A container kind typed by how its elements are used, or ``None``.

    ``depth``: of ``target`` in the value being typed; its elements are one level deeper, so
    nesting ends (a recursive ``for node in node['children']`` included).

    * ``for i, j, _, value in data``: a list of 4-tuples, each field typed by its own use
      (``tuplelist:[...]``);
    * ``for occr in target: occr.values()`` or ``occr['key']``: a list of dicts (``dictlist:...``,
      with the string keys read);
    * ``for name in target: name.upper()``: a list of strings.
    """
    for var in _element_targets(body, target):
        if isinstance(var, ast.Name):
            var = _unpacked_later(body, var.id) or var  # for entry in r: name, start, end = entry
        if (
            isinstance(var, ast.Tuple)
            and 2 <= len(var.elts) <= 6
            and all(isinstance(e, ast.Name) for e in var.elts)
        ):
            fields = []
            for e in var.elts:
                sv = usage_votes(body, e.id)
                fields.append(
                    refine_kinds(body, e.id, rank_kinds(e.id, sv), sv, max(2, depth + 1))[0]
                    if sv
                    else "int_small"
                )
            return "tuplelist:" + repr(fields)
        if not isinstance(var, ast.Name):
            continue
        keys = read_keys(body, var.id)
        sv = usage_votes(body, var.id)
        if keys or sv.get("dict", 0) >= W_USAGE:
            return "dictlist:" + repr(key_kinds(body, var.id, keys, max(1, depth)))
        if sv and max(sv, key=lambda f: sv[f]) == "str" and sv["str"] >= W_USAGE:
            return "list_dna" if re.search(r"seq|read", target.lower()) else "list_str"
        if sv and max(sv, key=lambda f: sv[f]) == "path" and sv["path"] >= W_USAGE and depth < 2:
            # for one_file in files: pd.read_csv(one_file, ...): files that exist, each holding
            # what the reader expects (a list of words opened is missing files; round 31)
            elem = refine_kinds(body, var.id, rank_kinds(var.id, sv), sv, depth + 1)[0]
            if elem.startswith(("path_", "file:", "checked:")) and elem not in ("path_out", "path_dir"):
                return "listof:" + repr(elem)
    # ``hits[0]['score']``, ``hits[i].get('id')``: an element picked by position and read by string
    # keys is a dict, so ``target`` is a list of dicts
    import copy as _copy

    item = "_bc_item"
    # also through aliases (``hits = report['hits']``)
    tree = _ItemToName(set(aliases(body, target)), item).visit(_copy.deepcopy(body))
    keys = read_keys(tree, item)
    if keys:
        return "dictlist:" + repr(key_kinds(tree, item, keys, max(1, depth)))
    return None


class _ItemToName(ast.NodeTransformer):
    """``t[i]`` for ``t`` in ``targets`` (an index that is not a string or a slice) -> the name ``result``."""

    def __init__(self, targets: set[str], result: str):
        self.targets, self.result = targets, result

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        self.generic_visit(node)
        if (
            any(_is_target(node.value, t) for t in self.targets)
            and isinstance(node.ctx, ast.Load)
            and not isinstance(node.slice, ast.Slice)
            and not (isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str))
        ):
            return ast.copy_location(ast.Name(id=self.result, ctx=ast.Load()), node)
        return node


#: Calls whose value holds the same elements as their first argument.
_SAME_ELEMENTS = frozenset({"sorted", "list", "tuple", "reversed"})
#: Most fields a tuple element gets from constant indexes (``row[5]``).
MAX_TUPLE = 12


def element_names(body: ast.AST, target: str) -> list[str]:
    """Names bound to one element of ``target``, also through copies (``s = sorted(target)``,
    ``target[:]``): loop variables, the parameter of a ``key=lambda x: ...`` of ``sorted``/``min``/
    ``max``/``.sort``, and ``cur = s[i]`` with an index that is not a constant."""
    copies = [target]
    for node in ast.walk(body):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            v = node.value
            if (
                isinstance(v, ast.Call)
                and isinstance(v.func, ast.Name)
                and v.func.id in _SAME_ELEMENTS
                and v.args
                and any(_is_target(v.args[0], c) for c in copies)
            ) or (
                isinstance(v, ast.Subscript)
                and isinstance(v.slice, ast.Slice)
                and any(_is_target(v.value, c) for c in copies)
            ):
                copies.append(node.targets[0].id)
    out: list[str] = []
    for c in copies:
        out += [v.id for v in _loop_targets(body, c) if isinstance(v, ast.Name)]
    for node in ast.walk(body):
        if isinstance(node, ast.Call):
            key = next((k.value for k in node.keywords if k.arg == "key"), None)
            if not (isinstance(key, ast.Lambda) and key.args.args):
                continue
            f = node.func
            source = (
                node.args[0]
                if isinstance(f, ast.Name) and f.id in ("sorted", "min", "max") and node.args
                else f.value
                if isinstance(f, ast.Attribute) and f.attr == "sort"
                else None
            )
            if source is not None and any(_is_target(source, c) for c in copies):
                out.append(key.args.args[0].arg)
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Subscript)
            and not isinstance(node.value.slice, (ast.Constant, ast.Slice))
            and any(_is_target(node.value.value, c) for c in copies)
        ):
            out.append(node.targets[0].id)
    return list(dict.fromkeys(out))


def _char_reads_only(body: ast.AST, elems: list[str]) -> bool:
    """Whether every constant-index read of the elements is compared with a short string
    (``line[0] == '#'``, ``s[-1] in '*.'``): the elements are strings, not tuples (round 32: a
    list of lines was drawn as 1-tuples, and no line ever started with ``#``)."""
    reads = [
        n
        for n in ast.walk(body)
        if isinstance(n, ast.Subscript)
        and isinstance(n.value, ast.Name)
        and n.value.id in elems
        and isinstance(n.slice, ast.Constant | ast.UnaryOp)
    ]
    if not reads:
        return False
    compared = set()
    for n in ast.walk(body):
        if isinstance(n, ast.Compare):
            sides = [n.left, *n.comparators]
            if any(
                isinstance(q, ast.Constant) and isinstance(q.value, str) and len(q.value) <= 4 for q in sides
            ):
                compared |= {id(q) for q in sides}
    return all(id(r) in compared for r in reads)


def indexed_tuple_kind(body: ast.AST, target: str, depth: int) -> str | None:
    """``tuplelist:[...]`` when the elements of ``target`` are read by constant indexes only
    (``sorted(t, key=lambda x: (x[5], x[1]))``, ``cur = t[i]; cur[6]``): tuples as wide as the
    largest index, each field typed by the use of ``element[k]``."""
    import copy as _copy

    width = 0
    elems = element_names(body, target)
    for node in ast.walk(body):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id in elems
            and isinstance(node.slice, ast.Constant)
            and type(node.slice.value) is int
            and 0 <= node.slice.value < MAX_TUPLE
        ):
            width = max(width, node.slice.value + 1)
    if not width or _char_reads_only(body, elems):
        return None
    fields = []
    for k in range(width):
        votes: dict[str, float] = defaultdict(float)
        for e in elems:
            result = f"_bc_field_{k}"
            tree = _KeyToName(e, k, result).visit(_copy.deepcopy(body))  # type: ignore[arg-type]
            for fam, w in usage_votes(tree, result).items():
                votes[fam] += w
        kinds = rank_kinds("x", votes) if votes else ["int_small"]
        fields.append(next((kd for kd in kinds if not kd.startswith(NOT_RESULTS)), "int_small"))
    return "tuplelist:" + repr(fields)


def _element_name(body: ast.AST, target: str) -> str | None:
    """The loop variable of ``for x in target`` / ``for i, x in enumerate(target)``, if any."""
    return next((v.id for v in _element_targets(body, target) if isinstance(v, ast.Name)), None)


def _mask_names(body: ast.AST) -> set[str]:
    """Local names assigned a comparison (``small_mask = sizes < insert``) and ``mask`` parameters."""
    out = {
        n.targets[0].id
        for n in ast.walk(body)
        if isinstance(n, ast.Assign)
        and len(n.targets) == 1
        and isinstance(n.targets[0], ast.Name)
        and isinstance(n.value, ast.Compare)
    }
    if isinstance(body, (ast.FunctionDef, ast.AsyncFunctionDef)):  # parameters named as masks
        out |= {a.arg for a in body.args.args + body.args.kwonlyargs if re.search(r"(^|_)mask($|_)", a.arg)}
    return out


def _keys_of(node: ast.AST, target: str) -> bool:
    """``target``, ``target.keys()``, possibly wrapped (``sorted(target)``, ``list(target.keys())``)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1:
        return _keys_of(node.args[0], target)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "keys"
        and not node.args
    ):
        return _is_target(node.func.value, target)
    return _is_target(node, target)


def _looked_up(loop: ast.For, target: str, key: str) -> ast.AST | None:
    """A copy of ``loop`` with ``target[key]`` read as the name ``_bc_value``; None if it never is."""
    import copy

    hits = 0

    class _Value(ast.NodeTransformer):
        def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
            nonlocal hits
            self.generic_visit(node)
            if (
                isinstance(node.ctx, ast.Load)
                and _is_target(node.value, target)
                and isinstance(node.slice, ast.Name)
                and node.slice.id == key
            ):
                hits += 1
                return ast.copy_location(ast.Name(id="_bc_value", ctx=ast.Load()), node)
            return node

    out = _Value().visit(copy.deepcopy(loop))
    return out if hits else None


def _items_of(node: ast.AST, target: str) -> bool:
    """``target.items()``, possibly wrapped (``list(target.items())``, ``sorted(...)``)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
        return _items_of(node.args[0], target)
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "items"
        and _is_target(node.func.value, target)
    )


def _uses_numpy(body: ast.AST) -> bool:
    return any(isinstance(n, ast.Name) and n.id in ("np", "numpy") for n in ast.walk(body))


def compared_strings(body: ast.AST, target: str) -> list[str]:
    """String constants ``target`` (or an alias) is compared with (``mode == 'fast'``): good values to feed it."""
    out: list[str] = []
    for t in aliases(body, target):
        out.extend(_compared_strings(body, t))
    return list(dict.fromkeys(out))


def _compared_ints(body: ast.AST, target: str) -> list[int]:
    """Int constants ``target`` (or an alias) is tested for equality with (``res == 0``,
    ``code != -1``; not ordered against: a bound is no value to feed it)."""
    out: list[int] = []
    names = aliases(body, target)
    for node in ast.walk(body):
        if not isinstance(node, ast.Compare) or not all(
            isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops
        ):
            continue
        parts = [node.left, *node.comparators]
        if any(_is_target(p, t) for p in parts for t in names):
            out += [
                p.value
                for p in parts
                if isinstance(p, ast.Constant) and isinstance(p.value, int) and not isinstance(p.value, bool)
            ]
            out += [
                -p.operand.value
                for p in parts
                if isinstance(p, ast.UnaryOp)
                and isinstance(p.op, ast.USub)
                and isinstance(p.operand, ast.Constant)
                and type(p.operand.value) is int
            ]
    return list(dict.fromkeys(out))[:6]


def _compared_strings(body: ast.AST, target: str) -> list[str]:
    out: list[str] = []
    for node in ast.walk(body):
        if isinstance(node, ast.Compare):
            parts = [node.left, *node.comparators]
            if not any(_is_target(p, target) for p in parts):
                continue
            for p in parts:
                if isinstance(p, ast.Constant) and isinstance(p.value, str):
                    out.append(p.value)
                elif isinstance(p, ast.Name) and p.id != target and re.match(r"^_?[A-Z][A-Z0-9_]+$", p.id):
                    out.append(p.id)  # a symbolic module constant (python_slice defines NAME = 'NAME')
                elif isinstance(p, (ast.List, ast.Tuple, ast.Set)):
                    out.extend(
                        e.value for e in p.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
                    )
                    out.extend(
                        e.id
                        for e in p.elts
                        if isinstance(e, ast.Name) and re.match(r"^_?[A-Z][A-Z0-9_]+$", e.id)
                    )
    return list(dict.fromkeys(out))


# ---------------------------------------------------------------------------- call sites


def callsite_votes(
    repo_dir: str | Path | None,
    function_name: str,
    param_names: list[str],
    func: ast.FunctionDef | ast.AsyncFunctionDef | None = None,
) -> dict[str, dict[str, float]]:
    """Families of the literal arguments passed to ``function_name`` in the repository (with
    ``func``: only by the calls that can reach that definition, python_callsites)."""
    from biocoder_metric.synth.python_callsites import calls_of

    out: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    if not repo_dir:
        return {}
    for node in calls_of(repo_dir, function_name, func):
        pairs = list(zip(param_names, node.args, strict=False)) + [
            (k.arg, k.value) for k in node.keywords if k.arg
        ]
        for pname, arg in pairs:
            fam = _literal_family(arg)
            if fam:
                out[pname][fam] += W_CALLSITE
    return {k: dict(v) for k, v in out.items()}


def _literal_family(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, bool):
            return "bool"
        if isinstance(v, int):
            return "int"
        if isinstance(v, float):
            return "float"
        if isinstance(v, str):
            return "str"
        return None
    if isinstance(node, (ast.List, ast.ListComp)):
        return "list"
    if isinstance(node, (ast.Dict, ast.DictComp)):
        return "dict"
    if isinstance(node, ast.Tuple):
        return "tuple"
    if isinstance(node, ast.Set):
        return "set"
    return None


def decorator_evidence(func: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, list[str]]:
    """Families per parameter from command-line decorators (``@click.option('--cores',
    default=1)``, ``@click.argument('n', type=int)``, ``is_flag=True``): a click command's
    parameters are typed by its options, which its signature does not show."""
    out: dict[str, list[str]] = {}
    for d in func.decorator_list:
        if not (
            isinstance(d, ast.Call)
            and isinstance(d.func, ast.Attribute)
            and d.func.attr in ("option", "argument")
        ):
            continue
        names = [a.value for a in d.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        plain = [n for n in names if n.isidentifier()]
        longest = max(names, key=len, default="")
        param = plain[0] if plain else longest.lstrip("-").replace("-", "_")
        fams: list[str] = []
        for k in d.keywords:
            if k.arg == "default":
                fams.append(_literal_family(k.value) or "")
            elif k.arg == "type":
                fams.append(family_of_type(ast.unparse(k.value).split(".")[-1].lower()) or "")
            elif k.arg == "is_flag" and isinstance(k.value, ast.Constant) and k.value.value is True:
                fams.append("bool")
        if param.isidentifier() and any(fams):
            out[param] = [f for f in fams if f]
    return out


# ---------------------------------------------------------------------------- per function


def _resolve_number(votes: dict[str, float], name: str) -> None:
    """``number`` evidence goes to int or float, whichever the name or other votes prefer."""
    w = votes.pop("number", 0.0)
    if not w:
        return
    if votes.get("float", 0) > votes.get("int", 0) or family_of_name(name) == "float":
        votes["float"] = votes.get("float", 0) + w
    else:
        votes["int"] = votes.get("int", 0) + w


def rank_kinds(name: str, votes: dict[str, float]) -> list[str]:
    """Concrete kinds, best first, from accumulated family votes (name as tie-breaker and fallback)."""
    votes = dict(votes)
    votes.pop("object", None)
    if votes.get("frame"):  # string-keyed *and* used elementwise: a table, not a dict
        votes["frame"] += votes.pop("dict", 0.0)
    # a dict (annotation) whose values are lists, text, numbers or arrays
    for specific in ("dict_numkey_list", "dict_list", "dict_str", "dict_float", "dict_ndarray", "dict_pair"):
        if votes.get(specific):
            votes[specific] += votes.pop("dict", 0.0)
    if votes.get("list_ndarray"):  # a declared list of arrays: list and array uses confirm it
        votes["list_ndarray"] += votes.pop("list", 0.0) + votes.pop("ndarray", 0.0)
    _resolve_number(votes, name)
    by_name = family_of_name(name)
    if by_name == "dict" and votes.get("object") and not votes.get("dict"):
        by_name = None  # ``args.path``, never ``args['path']``: a namespace, whatever its name
    if by_name:
        votes[by_name] = votes.get(by_name, 0.0) + W_NAME
    if by_name == "path":  # a path *is* a string: string usage confirms the name
        votes["path"] += votes.pop("str", 0.0)
    if by_name == "graph":  # an adjacency mapping *is* a dict: dict usage confirms the name
        votes["graph"] += votes.pop("dict", 0.0)
    families = sorted(votes, key=lambda f: (-votes[f], f))
    kinds: list[str] = []
    for fam in families:
        for k in refine(fam, name):
            if k not in kinds:
                kinds.append(k)
    for fallback in ("int_small", "str_word", "list_int"):
        if fallback in ("int_small", "list_int") and families and families[0] in ("path", "dir"):
            # a path drawn as a number is a file descriptor to ``os.path.exists(3)`` or ``open(3)``:
            # whatever the process has open there, so the output was the machine's (round 27)
            continue
        if fallback not in kinds:
            kinds.append(fallback)
    return kinds


def declared_votes(arg: ast.arg, default: ast.expr | None, doc: dict[str, str]) -> dict[str, float]:
    """Families a parameter's declaration gives: its annotation, default and docstring type."""
    votes: dict[str, float] = defaultdict(float)
    for fam, w in (
        (family_of_type(ast.unparse(arg.annotation)) if arg.annotation is not None else None, W_ANNOTATION),
        (_literal_family(default) if default is not None else None, W_DEFAULT),
        (family_of_type(doc[arg.arg]) if arg.arg in doc else None, W_DOC),
    ):
        if fam:
            votes[fam] += w
    return dict(votes)


def _callee_params(call: ast.Call, callee: ast.AST) -> dict[int | str, ast.arg]:
    """The callee's parameter each argument slot of ``call`` binds: position -> arg (``self``
    skipped for ``obj.method(...)``), keyword -> arg."""
    if not isinstance(callee, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return {}
    a = callee.args
    positional = list(a.posonlyargs) + list(a.args)
    if isinstance(call.func, ast.Attribute) and positional and positional[0].arg in ("self", "cls"):
        positional = positional[1:]
    out: dict[int | str, ast.arg] = dict(enumerate(positional))
    out.update({p.arg: p for p in [*a.args, *a.kwonlyargs]})
    return out


def forwarded_params(
    body: ast.AST,
    target: str,
    helpers: dict[str, ast.AST] | None,
    depth: int = 0,
    seen: frozenset[str] = frozenset(),
) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, ast.arg, int]]:
    """The parameters of sliced helpers that ``target`` is passed on to unchanged
    (``coverage_mask(protein, peptides)`` in ``coverage``; ``self.method(x)`` too, a method of
    ``x`` never), each with its level (1: called from ``body``), at most ``FORWARD_DEPTH`` levels
    down. A thin wrapper's body shows nothing about what it forwards; a person writing its test
    reads the callee, and so does this."""
    if not helpers or depth >= FORWARD_DEPTH:
        return []
    own = getattr(body, "name", None)
    out: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, ast.arg, int]] = []
    for node in ast.walk(body):
        if not isinstance(node, ast.Call):
            continue
        fn = node.func
        name = fn.id if isinstance(fn, ast.Name) else None
        if (
            isinstance(fn, ast.Attribute)
            and isinstance(fn.value, ast.Name)
            and fn.value.id in ("self", "cls")
        ):
            name = fn.attr  # a method of the same class; ``x.append(...)`` says nothing of a helper
        callee = helpers.get(name) if name else None
        if callee is None or name == own or name in seen:
            continue
        slots = _callee_params(node, callee)
        bound: list[ast.arg] = []
        for i, arg in enumerate(node.args):
            if isinstance(arg, ast.Starred):
                break
            if _is_target(arg, target) and i in slots:
                bound.append(slots[i])
        bound += [slots[k.arg] for k in node.keywords if k.arg in slots and _is_target(k.value, target)]
        for p in bound:
            if any(c is callee and q is p for c, q, _ in out):
                continue
            out.append((callee, p, depth + 1))
            out += forwarded_params(callee, p.arg, helpers, depth + 1, seen | {name})
    return out


def forwarded_votes(body: ast.AST, target: str, helpers: dict[str, ast.AST] | None) -> dict[str, float]:
    """Families from what the helpers ``target`` is passed on to (:func:`forwarded_params`) declare
    and do with it: their annotation, default, docstring type and use, ``W_FORWARD`` times as
    strong per level."""
    out: dict[str, float] = defaultdict(float)
    for callee, p, level in forwarded_params(body, target, helpers):
        for fam, w in _callee_votes(callee, p).items():
            out[fam] += w * W_FORWARD**level
    return dict(out)


def _callee_votes(callee: ast.AST, p: ast.arg) -> dict[str, float]:
    """Families a helper's parameter ``p`` is given by what the helper declares and does with it."""
    votes = dict(
        declared_votes(p, defaults_of(callee).get(p.arg), docstring_types(ast.get_docstring(callee)))
    )
    for fam, w in usage_votes(callee, p.arg).items():
        votes[fam] = votes.get(fam, 0.0) + w
    return votes


def forwarded_kind(
    body: ast.AST,
    target: str,
    kinds: list[str],
    helpers: dict[str, ast.AST] | None,
    declared: bool = False,
) -> list[str]:
    """``kinds`` with what the sliced helpers ``target`` is passed on to read of it
    (:func:`forwarded_params`): an object gets the fields a helper reads too (``get_compound_dict(nm)``
    reads ``nm.compounds`` beside the body's ``nm.reactions``), and a value the body itself does
    not use and nothing declares (``declared``: an annotation, docstring type, default or call
    site) is drawn first as the helper's parameter is, when that carries a payload (its fields,
    columns or keys). Votes alone carry the family across, never the payload: a table whose
    columns only the helper names lost them."""
    forwarded = forwarded_params(body, target, helpers)
    if not forwarded or not kinds:
        return kinds
    theirs: list[str] = []
    for callee, p, _ in forwarded:
        if usage_votes(callee, p.arg):  # the helper uses it (not only passes it on again)
            votes = _callee_votes(callee, p)
            theirs.append(refine_kinds(callee, p.arg, rank_kinds(p.arg, votes), votes)[0])
    if not theirs:
        return kinds
    if kinds[0].startswith("obj:"):
        fields = pyast.literal_eval(kinds[0][len("obj:") :])
        for kind in theirs:
            if kind.startswith("obj:"):
                for name, sub in pyast.literal_eval(kind[len("obj:") :]).items():
                    fields.setdefault(name, sub)
        merged = "obj:" + repr(fields)
        return [merged, *kinds[1:]]
    first = theirs[0]
    if (
        not declared
        and sum(usage_votes(body, target).values()) < W_USAGE
        and first.startswith(_PAYLOAD_KINDS)
    ):  # only passed on: drawn as the helper's parameter
        return [first, *(k for k in kinds if k != first)]
    return kinds


#: Kinds whose payload says what the value holds (fields, columns, keys).
_PAYLOAD_KINDS = ("obj:", "objlist:", "frame:", "dictkeys:", "optkeys:")


def used_votes(body: ast.AST, target: str, helpers: dict[str, ast.AST] | None) -> dict[str, float]:
    """Families from how ``body`` uses ``target`` and from the helpers it passes it on to."""
    votes = dict(usage_votes(body, target))
    for fam, w in forwarded_votes(body, target, helpers).items():
        votes[fam] = votes.get(fam, 0.0) + w
    return votes


#: Kinds (by prefix) whose values are of each Python type, for :func:`with_example`.
_EXAMPLE_FITS: dict[type, tuple[str, ...]] = {
    str: ("str", "choice:", "text:", "struct:", "regex:", "vocab_str:", "pick:"),
    list: ("list", "vocab_list:", "tuplelist", "dictlist"),
    tuple: ("tuple",),
    dict: ("dict",),
}


def with_example(kinds: list[str], example: object) -> list[str]:
    """``kinds`` with the documented example's kind first when the best guess is of the example's
    type (a list of lines for a list, text for a string), second otherwise: the example is the
    author's, the type the evidence's."""
    kind = "example:" + repr(example)
    rest = [k for k in kinds if k != kind]
    fits = _EXAMPLE_FITS.get(type(example), ())
    at = 0 if rest and rest[0].startswith(fits) else 1
    return [*rest[:at], kind, *rest[at:]]


#: String kinds a documented alphabet replaces (a word or another alphabet's letters).
_ALPHABET_KINDS = frozenset({"str_word", "str_dna", "str_rna", "str_protein"})
_ALPHABET_WORDS: tuple[tuple[str, str], ...] = (
    (r"amino[- ]?acids?|proteins?|peptides?|polypeptides?|residues?", "str_protein"),
    (r"\brna\b|ribonucleic|\bmrna\b|transcripts?", "str_rna"),
    (r"\bdna\b|nucleotides?|nucleic|genomic|\bbases\b", "str_dna"),
)


def described_alphabet(description: str, drawn: str) -> str | None:
    """The sequence kind a parameter's docstring description names (``amino acid sequence`` ->
    residues), or None. ``X sequence`` decides (the word right before ``sequence``: ``DNA sequence
    of a protein``); a description that only names one alphabet (``the peptide``) decides for a
    parameter already drawn as a sequence, not for a word (``protein name``)."""
    text = description.lower()
    if not text:
        return None
    for pattern, kind in _ALPHABET_WORDS:
        if re.search(rf"(?:{pattern})\s+(?:sequences?|seqs?|strings?)\b", text):
            return kind
    named = {kind for pattern, kind in _ALPHABET_WORDS if re.search(pattern, text)}
    return named.pop() if len(named) == 1 and drawn != "str_word" else None


def infer_params(
    func: ast.FunctionDef | ast.AsyncFunctionDef,
    repo_dir: str | Path | None = None,
    skip_first: bool = False,
    helpers: dict[str, ast.AST] | None = None,
) -> list[ParamSpec]:
    """A :class:`ParamSpec` per parameter of ``func`` (``self``/``cls`` skipped with ``skip_first``)."""
    func = py3_idioms(func)  # ``iteritems(d)`` read as ``d.items()``
    a = func.args
    positional = list(a.posonlyargs) + list(a.args)
    if skip_first and positional:
        positional = positional[1:]
    defaults = defaults_of(func)
    doc = docstring_types(ast.get_docstring(func))
    names = [p.arg for p in positional]
    sites = callsite_votes(repo_dir, func.name, names, func)
    decorated = decorator_evidence(func)
    specs: list[ParamSpec] = []
    for arg, kw_only in [(p, False) for p in positional] + [(p, True) for p in a.kwonlyargs]:
        votes: dict[str, float] = defaultdict(float)
        d = defaults.get(arg.arg)
        for fam, w in declared_votes(arg, d, doc).items():
            if fam in ("bool", "int", "float") and _held_in(func, arg.arg):
                # declared a scalar, used as a container (``x not in only_these`` of a documented
                # ``bool``): the declaration is wrong, the use is what runs (round 31)
                continue
            votes[fam] += w
        for fam in decorated.get(arg.arg, []):
            votes[fam] += W_DEFAULT
        for fam, w in sites.get(arg.arg, {}).items():
            votes[fam] += w
        for fam, w in used_votes(func, arg.arg, helpers).items():
            votes[fam] += w
        kinds = refine_kinds(func, arg.arg, rank_kinds(arg.arg, votes), votes, helpers=helpers)
        kinds = forwarded_kind(
            func,
            arg.arg,
            kinds,
            helpers,
            declared=bool(d is not None or arg.annotation or arg.arg in doc or sites.get(arg.arg)),
        )
        shaped = documented_array_kind(doc[arg.arg]) if arg.arg in doc else None
        if (
            shaped
            and _rank(kinds[0]) is not None
            and (
                _rank(kinds[0]) != _rank(shaped)
                or (shaped.endswith(("_int", "_bool")) and kinds[0] in ("ndarray1", "ndarray2", "ndarray3"))
            )
        ):  # the docstring spells out the rank (or integer or boolean elements) the usage did not show
            kinds = [shaped, *(k for k in kinds if k != shaped)]
        alphabet = (
            described_alphabet(described(ast.get_docstring(func) or "", arg.arg), kinds[0])
            if kinds and kinds[0] in _ALPHABET_KINDS
            else None
        )
        if alphabet and alphabet != kinds[0]:
            # ``sequence (str): amino acid sequence to digest``: residues, not nucleotides (round 32)
            kinds = [alphabet, *(k for k in kinds if k != alphabet)]
        example = documented_example(func, arg.arg)
        if example is None:  # the author's own value of it, as literal as a documented one
            example = default_example(d)
        if example is not None:
            kinds = with_example(kinds, example)
        axes = documented_axes(doc[arg.arg]) if arg.arg in doc else {}
        if axes and kinds and kinds[0].startswith("ndarray"):  # ``shape (n_variants, 2)``
            kinds.insert(0, "axes:" + repr((axes, kinds[0])))
        specs.append(
            ParamSpec(
                name=arg.arg,
                kinds=kinds,
                has_default=d is not None,
                default_src=ast.unparse(d) if d is not None else None,
                kw_only=kw_only,
                votes=dict(votes),
            )
        )
    share_mask_rank(func, specs)
    if a.vararg is not None:  # ``*args``: the extra positional arguments, a sequence of values
        specs.insert(len(positional), vararg_spec(func, a.vararg, helpers))
    if a.kwarg is not None:  # ``**kwargs``: the keys the body reads, by keyword (round 26)
        specs += kwarg_specs(func, a.kwarg.arg, {sp.name for sp in specs}, helpers)
    return specs


def kwarg_specs(
    func: ast.FunctionDef | ast.AsyncFunctionDef,
    kwarg: str,
    taken: set[str],
    helpers: dict[str, ast.AST] | None = None,
) -> list[ParamSpec]:
    """A keyword-only :class:`ParamSpec` per string key the body reads from ``**kwarg``
    (``kwargs['protein']``, ``kwargs.get('timeout', 5)``, ``'verbose' in kwargs``), typed by how
    the value read is used; a key read with ``get`` or tested with ``in`` is optional (a defaulted
    parameter: left out in some cases). Why: an empty ``**kwargs`` made every required key a
    ``KeyError``, and every optional one its fallback, so the code's own paths never ran."""
    import copy as _copy

    optional = set(optional_keys(func, kwarg))
    out: list[ParamSpec] = []
    for key in read_keys(func, kwarg)[:10]:
        if not key.isidentifier() or keyword.iskeyword(key) or key in taken or key.startswith("_bc"):
            continue
        result = "_bc_key_" + key
        tree = _KeyToName(kwarg, key, result).visit(_copy.deepcopy(func))
        votes = usage_votes(tree, result)
        kinds = (
            refine_kinds(tree, result, rank_kinds(key, votes), votes, helpers=helpers)
            if votes or family_of_name(key)
            else ["str_word"]
        )
        kinds = [k for k in kinds if not k.startswith("stub:")] or ["str_word"]
        out.append(
            ParamSpec(
                name=key,
                kinds=kinds,
                has_default=key in optional,
                default_src="None" if key in optional else None,
                kw_only=True,
                votes=dict(votes),
            )
        )
    return out


def _array_aliases(func: ast.AST, name: str) -> set[str]:
    """``name`` and the locals that are the same array or a copy of it (``out = labels.copy()``,
    ``a = np.asarray(labels)``)."""
    out = {name}
    for node in ast.walk(func):
        if not (
            isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
        ):
            continue
        v = node.value
        if (
            isinstance(v, ast.Call)
            and isinstance(v.func, ast.Attribute)
            and v.func.attr == "copy"
            and not v.args
        ):
            v = v.func.value
        elif (
            isinstance(v, ast.Call)
            and isinstance(v.func, ast.Attribute)
            and v.func.attr in ("array", "asarray")
            and v.args
        ):
            v = v.args[0]
        if isinstance(v, ast.Name) and v.id == name:
            out.add(node.targets[0].id)
    return out


def share_mask_rank(func: ast.AST, specs: list[ParamSpec]) -> None:
    """``labels_new[segmented != 0]`` (``labels_new = labels.copy()``): a mask made from one
    array parameter indexes another, so both have one shape. Arrays of one rank share the
    case's shape (``_bc_n``, ``_bc_h`` x ``_bc_w``); a mask of another rank is an IndexError in
    every case. The masked parameter's rank wins (integer elements when either holds integers)."""
    by_name = {sp.name: sp for sp in specs}
    for sp in specs:
        rank = _rank(sp.kinds[0]) if sp.kinds and sp.kinds[0].startswith("ndarray") else None
        if rank is None:
            continue
        names = _array_aliases(func, sp.name)
        for node in ast.walk(func):
            if not (
                isinstance(node, ast.Subscript)
                and isinstance(node.value, ast.Name)
                and node.value.id in names
            ):
                continue
            test = node.slice
            if not (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name)):
                continue
            other = by_name.get(test.left.id)
            if other is None or other is sp or not other.kinds or not other.kinds[0].startswith("ndarray"):
                continue
            theirs = _rank(other.kinds[0])
            if theirs is None or theirs == rank:
                continue
            suffix = "_int" if other.kinds[0].endswith("_int") or "int" in sp.kinds[0] else ""
            wanted = f"ndarray{rank}{suffix}"
            if wanted in KINDS:
                other.kinds = [wanted, *(k for k in other.kinds if k != wanted)]


#: Kinds a ``*args`` value may take: sequences, spread into the call.
_SEQUENCE_KINDS = ("list", "tuple", "vocab_list", "dictlist", "tuplelist", "objlist")


def vararg_spec(
    func: ast.FunctionDef | ast.AsyncFunctionDef, arg: ast.arg, helpers: dict[str, ast.AST] | None
) -> ParamSpec:
    """The :class:`ParamSpec` of ``*args``: a sequence whose elements are typed by how the body
    uses the tuple (``for a in args``, ``' '.join(args)``, ``args[0]``) or by the annotation (the
    type of each element)."""
    votes: dict[str, float] = defaultdict(float, usage_votes(func, arg.arg))
    typed = [f for f in votes if f.startswith("list_")]  # ``" ".join(args)``: strings
    votes[max(typed, key=lambda f: votes[f]) if typed else "list"] += W_ANNOTATION  # a tuple, whatever else
    kinds = [
        k
        for k in refine_kinds(func, arg.arg, rank_kinds(arg.arg, votes), votes, helpers=helpers)
        if k.startswith(_SEQUENCE_KINDS)
    ]
    fam = family_of_type(ast.unparse(arg.annotation)) if arg.annotation is not None else None
    if fam in ("str", "int", "float"):
        kinds.insert(0, f"list_{fam}")
    kinds = list(dict.fromkeys(kinds + ["list_str", "list_int"]))
    if command_kind(func, arg.arg) == "command:argv":  # subprocess.run(args): ``*args`` is the argv
        kinds.insert(0, "command:argv")
    return ParamSpec(name=arg.arg, kinds=kinds, votes=dict(votes), star=True)


#: ``os.path`` functions that only take a name apart (the file is never touched).
_NAME_CALLS = frozenset({"basename", "dirname", "splitext", "split", "normpath", "splitdrive", "relpath"})
#: Calls that look at a file's existence or size (os.path's, os.stat, pathlib's).
_EXISTENCE_CALLS = frozenset(
    {"exists", "isfile", "lexists", "getsize", "access", "stat", "is_file", "getmtime"}
)


def _calls_with(body: ast.AST, target: str) -> list[ast.Call]:
    """The calls ``target`` is an argument of."""
    return [
        n
        for n in ast.walk(body)
        if isinstance(n, ast.Call)
        and any(_is_target(a, target) for a in [*n.args, *(k.value for k in n.keywords)])
    ]


def _names_only(body: ast.AST, target: str) -> bool:
    """Whether ``target`` is only handed to ``os.path`` functions that take a name apart
    (``os.path.splitext(fn)``): a file name, never a file."""
    calls = _calls_with(body, target)
    return bool(calls) and all(
        isinstance(c.func, ast.Attribute)
        and c.func.attr in _NAME_CALLS
        and "path" in ast.unparse(c.func.value)
        for c in calls
    )


def _existence_checked(body: ast.AST, target: str) -> bool:
    """Whether the code asks if ``target`` exists or is empty (``os.path.isfile(f)``,
    ``os.path.getsize(f) == 0``, ``Path(f).exists()``)."""
    for n in ast.walk(body):
        if not isinstance(n, ast.Call):
            continue
        name = n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")
        if name not in _EXISTENCE_CALLS:
            continue
        if n.args and _is_target(n.args[0], target):
            return True
        recv = n.func.value if isinstance(n.func, ast.Attribute) else None
        if recv is not None and (
            _is_target(recv, target)
            or isinstance(recv, ast.Call)
            and any(_is_target(a, target) for a in recv.args)
        ):
            return True
    return False


def _suffixes(body: ast.AST) -> list[str]:
    """File name endings the code looks for: what ``.endswith()`` is given, and short strings
    compared with something (``ext == '.gz'``, ``ext in ('.fa', '.fasta')``)."""
    found: list[str] = []
    for n in ast.walk(body):
        consts: list[ast.AST] = []
        if (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr == "endswith"
            and n.args
        ):
            consts = n.args[0].elts if isinstance(n.args[0], ast.Tuple) else [n.args[0]]
        elif isinstance(n, ast.Compare):
            for side in [n.left, *n.comparators]:
                consts += side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
        for c in consts:
            if (
                isinstance(c, ast.Constant)
                and isinstance(c.value, str)
                and re.fullmatch(r"\.?[\w.]{1,12}", c.value)
            ):
                found.append(c.value if c.value.startswith(".") else "." + c.value)
    return list(dict.fromkeys(found))[:12]


def _divided_in_place(body: ast.AST, target: str) -> bool:
    """Whether the body divides ``target`` (or a slice of it) in place: ``x /= n``, ``x[i] /= n``."""
    return any(
        isinstance(n, ast.AugAssign)
        and isinstance(n.op, ast.Div)
        and (
            _is_target(n.target, target)
            or (isinstance(n.target, ast.Subscript) and _is_target(n.target.value, target))
        )
        for n in ast.walk(body)
    )


#: Calls that list a folder's entries (``os.listdir(d)``, ``glob(os.path.join(d, '*.hmm'))``,
#: ``Path(d).iterdir()``).
_LISTINGS = frozenset({"listdir", "scandir", "walk", "iterdir", "glob", "iglob", "rglob"})


def listed_dir(body: ast.AST, target: str) -> tuple[list[str], bool] | None:
    """(file endings the code looks for, whether it looks for subfolders) when folder ``target``
    is listed, else None. Why: an empty folder (``path_dir``) made every listing empty, so what
    the code does per entry never ran (round 32). The endings come from glob patterns
    (``'*.hmm'``) and from ``endswith`` tests on the entries; subfolders from an ``isdir`` test."""
    listed = False
    entries: set[str] = set()
    suffixes: list[str] = []
    for n in ast.walk(body):
        if not (isinstance(n, ast.Call) and pyast.callee_name(n.func) in _LISTINGS):
            continue
        inside = [*n.args, n.func.value] if isinstance(n.func, ast.Attribute) else list(n.args)
        if not any(_is_target(x, target) for a in inside for x in ast.walk(a)):
            continue
        listed = True
        for c in ast.walk(n):
            if isinstance(c, ast.Constant) and isinstance(c.value, str) and "*" in c.value:
                tail = c.value.rsplit("*", 1)[1]
                if tail.startswith(".") and 1 < len(tail) <= 12:
                    suffixes.append(tail)
    if not listed:
        return None
    for n in ast.walk(body):  # the names bound to the entries: ``for name in os.listdir(d)``
        if isinstance(n, ast.For | ast.comprehension) and any(
            isinstance(c, ast.Call) and pyast.callee_name(c.func) in _LISTINGS for c in ast.walk(n.iter)
        ):
            entries |= {t.id for t in ast.walk(n.target) if isinstance(t, ast.Name)}
    for n in ast.walk(body):
        if (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr == "endswith"
            and any(isinstance(x, ast.Name) and x.id in entries for x in ast.walk(n.func.value))
            and n.args
        ):
            arg = n.args[0]
            if isinstance(arg, ast.Name) and isinstance(body, ast.FunctionDef | ast.AsyncFunctionDef):
                arg = defaults_of(body).get(arg.id, arg)  # ``name.endswith(suffix)``, ``suffix='.hmm'``
            for c in ast.walk(arg):
                if isinstance(c, ast.Constant) and isinstance(c.value, str) and 0 < len(c.value) <= 12:
                    suffixes.append(c.value)
    subdirs = any(
        isinstance(n, ast.Call) and pyast.callee_name(n.func) in ("isdir", "is_dir") for n in ast.walk(body)
    )
    return sorted(set(suffixes))[:6], subdirs


def refine_kinds(
    body: ast.AST,
    target: str,
    kinds: list[str],
    votes: dict[str, float],
    depth: int = 0,
    helpers: dict[str, ast.AST] | None = None,
) -> list[str]:
    """Kinds with payloads from how ``target`` is used: choices, table columns, text, regex matches, objects."""
    kinds = list(kinds)
    if (
        kinds
        and kinds[0].startswith("ndarray")
        and kinds[0].endswith("_int")
        and _divided_in_place(body, target)
    ):
        # ``counts /= n``: an integer array cannot hold the quotient (numpy raises); floats first
        floats = kinds[0].removesuffix("_int")
        kinds = [floats, *(k for k in kinds if k != floats)]
    # a file format named by the parameter, its docstring or the parser's markers (python_formats):
    # a well-formed record first, the plain kinds stay as the alternatives
    fmt = format_kind(body, target, kinds[0], helpers) if depth == 0 and kinds else None
    if "frame" in kinds:
        cols: list[str] | dict[str, list[str] | None] = frame_columns(body, target)
        text = string_valued_columns(body, target, cols)
        if text:  # {column: None (drawn by its name) or the strings it holds}
            cols = {c: text.get(c) for c in cols}
        positional = not cols and any(_two_axis_index(n, target) for n in ast.walk(body))
        if (cols or positional) and "series" in kinds and kinds.index("series") < kinds.index("frame"):
            # what only a table has outranks what a Series and a table share (``x.quantile(0.75)``
            # beside ``x.loc[:, ids]`` and ``x.median(axis=1)``: a table; round 31)
            kinds.remove("frame")
            kinds.insert(kinds.index("series"), "frame")
        kinds = (
            # a table read only by position (``data.iloc[:, -n:]``) gets unnamed numeric columns
            [("frame:" + repr(cols or None)) if k == "frame" else k for k in kinds]
            if cols or positional
            else [k for k in kinds if k != "frame"]
        )
    top = kinds[0] if kinds else ""
    encoded = encoded_kind(body, target)
    command = command_kind(body, target) if depth == 0 and "." not in target else None
    if command:  # subprocess.call(command, shell=True): a command with a known output
        kinds.insert(0, command)
    elif encoded:  # base64.b64decode(source.encode()): text in the encoding the code decodes
        kinds.insert(0, encoded)
    elif depth == 0 and _passed_as(body, target, "dtype"):  # np.frombuffer(raw, dtype=dtype)
        kinds.insert(0, "choice:" + repr(list(DTYPES)))
    elif top.startswith(("str", "path")):
        patterns = regex_patterns(body, target)
        samples = regex_samples(patterns[0]) if patterns else None
        structure = text_structure(body, target) if top.startswith("str") else None
        if samples:
            kinds.insert(0, "regex:" + repr(samples))
        elif structure:  # region.rsplit(':', 1), then span.split('-'): the shape the parser takes apart
            kinds.insert(0, "struct:" + repr(structure))
        else:
            seps = text_separators(body, target)
            if seps:
                numeric = any(
                    isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("int", "float")
                    for n in ast.walk(body)
                )
                kinds.insert(0, "text:" + repr((seps, numeric)))
        named = _names_only(body, target)
        if top.startswith("path") and (
            named
            or not votes.get("path")
            and any(
                isinstance(n, ast.Attribute) and _is_target(n.value, target) and n.attr in _STR_METHODS
                for n in ast.walk(body)
            )
        ):
            # named like a path, only handled as a string: vary the string, with the endings the
            # code looks for (``prefix.endswith('impute2')``, ``ext == '.gz'``)
            suffixes = _suffixes(body)
            kinds.insert(0, f"str_path:{suffixes!r}" if suffixes else "str_path")
    if top.startswith("path") and top not in ("path_out", "path_dir") and not kinds[0].startswith("str_path"):
        content = file_kind(
            body, target, string_columns
        )  # the lines or table the reader expects (python_files)
        if content:
            kinds.insert(0, content)
        if kinds[0].startswith(("path_", "file:")) and kinds[0] not in ("path_out", "path_dir"):
            if _existence_checked(body, target):  # os.path.isfile(f) and getsize(f): test both ways
                kinds.insert(0, f"checked:{kinds[0]!r}")
    if (
        depth == 0
        and "." not in target
        and (not kinds or kinds[0].startswith(("str", "path", "int", "text")))
    ):
        # open(prefix + '.bim'): files beside it (``prefix = get_prefix(fn)``: a helper's value too)
        prefixed = next(
            filter(None, (prefix_kind(body, a, string_columns) for a in aliases(body, target))), None
        )
        if prefixed:
            kinds.insert(0, prefixed)
    if depth == 0 and python_cli.parsed_param(body, target):  # parser.parse_args(argv): a command line
        spec = python_cli.cli_spec(body)
        if spec is not None:
            kinds.insert(0, "cli:" + repr(spec))
    if depth == 0 and kinds[0] != "a_type" and "." not in target and called(body, target):
        # a parameter the body calls is a function: its value for given arguments is drawn from
        # them (the same call, the same value), typed by how the body uses what it returns
        kinds[:0] = ["callable:" + repr(result_kind(body, target, "ret")), "passthrough"]
    if not kinds[0].startswith(("file:", "fmt:", "callable:")) and (
        depth == 0 or target.startswith("_bc_ret_")
    ):
        # the parameter is the open file itself (python_files), or what ``with`` binds it to
        # (``with ctx.open(path) as fh``: a method's value that is a handle)
        handle = next(filter(None, (dictreader_kind(body, a) for a in aliases(body, target))), None)
        handle = handle or next(filter(None, (handle_kind(body, a) for a in aliases(body, target))), None)
        if handle:
            kinds.insert(0, handle)
        elif any(
            isinstance(n, ast.withitem) and _is_target(n.context_expr, target) for n in ast.walk(body)
        ) and not kinds[0].startswith(
            ("obj:", "handle:")
        ):  # ``with ctx.open() as f: parse(f)``: what is entered is most often an open text file
            kinds.insert(0, "handle:" + repr(TEXT_LINES))
    choices = compared_strings(body, target)
    if helpers and depth == 0:  # getattr(self, 'pwdist_' + kind): a name the pattern picks a member by
        choices += [c for c in dispatch_choices(body, target, helpers) if c not in choices]
    if choices and any(k.startswith(("str", "text", "regex")) for k in kinds[:2]):
        kinds.insert(0, "choice:" + repr(choices))
    ints = (
        _compared_ints(body, target) if kinds and kinds[0] in ("int_small", "int_pos", "int_signed") else []
    )
    if ints:  # ``if not res == 0``, ``if code != -1``: that value half the time (round 30: a helper's
        # status drawn 0..10 was 0 in one case of eleven, and the output never varied)
        kinds.insert(0, "intchoice:" + repr((ints, kinds[0])))
    paired = pair_keyed_kind(body, target, depth) if kinds and kinds[0].startswith("dict") else None
    valued = (
        valued_kind(body, target, depth) if kinds and kinds[0].startswith("dict") and not paired else None
    )
    if paired:  # for (compound, rxn), value in d.items(): keys are tuples
        kinds.insert(0, paired)
    elif valued:  # for key, (pairs, direction) in d.items(): values unpacked or read as objects
        kinds.insert(0, valued)
    elif kinds and kinds[0].startswith("dict_") and depth < 2:
        # the keys are read on the value or on a local it is bound to (``results = bar(w)``;
        # ``results['Delta_f']``: a stub's result, round 31)
        holder = next((a for a in aliases(body, target) if read_keys(body, a)), target)
        keys = read_keys(body, holder)
        if keys:  # dialect['fmt'], opts.get('min_len'): a dict with exactly the keys the code reads
            kinds.insert(0, "dictkeys:" + repr(key_kinds(body, holder, keys, depth)))
            optional = optional_keys(body, holder)
            if optional:  # opts.get('fasta'), 'fasta' in opts: the code expects it may be absent
                kinds.insert(0, "optkeys:" + repr((optional, kinds[0])))
    shaped = shaped_array_kind(body, target, kinds)
    if shaped:  # x[:, k], axis=1, x.shape[2]: the rank the indexing needs
        kinds = [shaped, *(k for k in kinds if k != shaped)]
    axes = fixed_axes(body, target) if kinds and kinds[0].startswith("ndarray") else {}
    if axes:  # ``if ac.shape[1] != 2: raise``: that axis has that size in most cases
        kinds.insert(0, "axes:" + repr((axes, kinds[0])))
    # a list of dicts inside a dict (``psm['items']`` of ``{'refs': [{'decoy': ...}]}``) is typed
    # one level deeper than objects are
    elem = element_kind(body, target, depth) if depth < 3 else None
    if elem is None and depth < 2:
        elem = indexed_tuple_kind(body, target, depth)  # row[5], row[1] of each element
    if elem and (not kinds or kinds[0].startswith(("list", "tuple", "set", "ndarray1"))) and kinds[0] != elem:
        # how the elements are used says more than a plain "list" vote (moved first if ranked lower)
        kinds = [elem, *(k for k in kinds if k != elem)]
    # every loop over it types its elements: ``for mRNA in db.children(g)`` reads ``mRNA.id``,
    # ``for exon in db.children(mRNA)`` asks ``len(exon)`` (one stub, one kind of element)
    loop_vars = list(dict.fromkeys(v.id for v in _element_targets(body, target) if isinstance(v, ast.Name)))
    elem_body = body
    if not loop_vars and depth < 3 and kinds and kinds[0].startswith(("list", "tuple", "int", "ndarray1")):
        # ``kids[i].get_file()``, ``kids = pop + pop``: elements picked by position and read as
        # objects are typed as a loop's would be (round 31)
        import copy as _copy

        item = f"_bc_elem{depth}"  # a name of its own per level (a field's elements are typed inside)
        holders = _element_copies(body, target)
        item_tree = _ItemToName(set(holders), item).visit(_copy.deepcopy(body))
        if sub_attributes(item_tree, item) or object_methods(item_tree, item, depth + 1):
            elem_body, loop_vars = item_tree, [item]
    # (as deep as an object's fields are typed: ``for exon in tx.exons`` of ``for tx in
    # gene.transcripts`` reads ``exon.end`` three levels down, and ints there raised on every call)
    outer_body = body
    if loop_vars and depth < 3:
        body = elem_body
        elem_subs = {sub: var for var in reversed(loop_vars) for sub in sub_attributes(body, var)}
        # methods of their own called on the elements (``[r for r in runs if r.get_id() == rid]``):
        # stubs typed by their use, as a parameter's are (round 30: numbers were drawn)
        elem_methods: dict[str, str] = {}
        for var in loop_vars:
            for m, k in object_methods(body, var, depth + 1).items():
                elem_methods.setdefault(m, k)
        if elem_subs or elem_methods:
            fields = {}
            for sub, loop_var in sorted(elem_subs.items(), key=lambda kv: loop_vars.index(kv[1])):
                sv = usage_votes(body, f"{loop_var}.{sub}")
                if not sv:  # only passed on: a scalar named like what it is (row.chromosome, row.log2)
                    fam = family_of_name(sub)
                    sv = {"float" if fam in ("ndarray", "float", None) else fam: W_ANNOTATION}
                fields[sub] = refine_kinds(body, f"{loop_var}.{sub}", rank_kinds(sub, sv), sv, depth + 1)[0]
            for m, k in elem_methods.items():
                fields.setdefault(m, k)
            if any(_len_taken(body, v) for v in loop_vars):
                fields["_bc_len"] = "int_pos"  # [len(i) for i in children]: a feature's length
            kinds.insert(0, "objlist:" + repr(fields))  # for row in rows: row.chromosome ...
    body = outer_body
    known = sum(w for f, w in votes.items() if f != "object")
    # (the holder is only looked for where an object can come of it: few typed uses, or key reads
    # that may sit beside fields and methods)
    holder, subs, methods = (
        _object_holder(body, target, depth)
        if depth < 3 and (known < W_USAGE * 2 or any(read_keys(body, a) for a in aliases(body, target)))
        else (target, [], {})
    )
    if methods:
        # an object (its own methods show it): every method called on it is one of its own, also
        # those named like a builtin's, and every local bound to the same stub's value adds its uses
        body = merged_holders(body, target, holder)
        subs, methods = sub_attributes(body, holder), object_methods(body, holder, depth, known=True)
    # a record read both ways (``f.start`` and ``f['Name']``, ``cnr.center_all()`` and
    # ``cnr['log2']``) is an object whatever else its uses suggest: the key reads' dict votes do
    # not make it a plain dict
    keys = read_keys(body, holder) if subs or methods else []
    typed = known >= W_USAGE * 2 and not keys  # its uses say what it is: no object
    if (methods or subs) and _pandas_table(votes, methods, subs):
        # ``df['score'].isnull()`` and ``df.groupby('gene')``: a table read by key whose methods are
        # all pandas', not a record of its own (round 32: drawn as an object of stubs)
        typed, keys = True, []
    if typed:
        subs, methods = [], {}
    stored = depth < 3 and not typed and _attributes_stored(body, holder)
    if subs or (methods and votes.get("object")) or stored or keys:
        fields = {}
        for sub in subs:
            if sub in methods:
                continue
            sub_target = f"{holder}.{sub}"
            sv = usage_votes(body, sub_target)
            fields[sub] = (
                refine_kinds(body, sub_target, rank_kinds(sub, sv), sv, depth + 1)[0] if sv else "str_word"
            )
            if _none_compared(body, sub_target):  # ``if args.extract is None``: sometimes unset
                fields[sub] = "maybe:" + repr(fields[sub])
        fields.update(methods)
        if keys:  # the values its keys hold (``_bc_ns.__getitem__``)
            fields["_bc_items"] = "dictkeys:" + repr(key_kinds(body, holder, keys, depth))
        if _len_taken(body, holder) and not keys:
            fields["_bc_len"] = "int_pos"  # len(f) of an object with fields: its own length
        if methods and called(body, holder):  # m.set(xs) and m(x): an object that is called too
            fields["_bc_call"] = "callable:" + repr(result_kind(body, holder, "ret", depth + 1))
        looked_up = looked_up_kind(body, holder, depth) if depth < 2 else None
        if looked_up:  # db[gene_id] beside db.children(...): a lookup whose value follows the key
            fields["_bc_getitem"] = "callable:" + repr(looked_up)
        for sub in _recursed_fields(body, holder, target) if depth == 0 else ():
            # for node in tree.children: print_tree(node, level + 1): its elements are nodes of
            # the same kind, two levels deep, the last with none (round 31: numbers were drawn)
            leaf = dict(fields, **{sub: "default:[]"})
            fields[sub] = "objlist:" + repr(dict(fields, **{sub: "objlist:" + repr(leaf)}))
        columns = {k: v for k, v in fields.items() if k != "_bc_len"}  # (a table has a length)
        if columns and set(columns.values()) == {"series"}:
            # every field a pandas column (``table.start.values``, ``table.end.cummax()``): a table
            # with those columns, drawn at the scale its column names say (round 30)
            kinds.insert(0, "frame:" + repr(list(columns)))
        else:
            kinds.insert(0, "obj:" + repr(fields))
    if (
        fmt
        and not kinds[0].startswith(("choice:", "regex:", "a_type"))
        and (
            not kinds[0].startswith("obj:") or (fmt.startswith("fmt:handle:") and _read_only_object(kinds[0]))
        )
        and not (kinds[0].startswith(("handle:", "callable:")) and fmt.endswith(":text"))
        and not _split_into_fields(kinds[0])
    ):  # plain text lines say less than the fields a reader splits them into
        kinds = [fmt, *(k for k in kinds if k != fmt)]
    if kinds and kinds[0] == "list_str":
        # for fmt in out_format: if fmt not in {'bed', 'vcf'}: raise: the elements are those words,
        # now and then another (round 27: random words made every call raise)
        words = [
            w
            for v in _loop_targets(body, target)
            if isinstance(v, ast.Name)
            for w in compared_strings(body, v.id)
        ]
        if words:
            kinds.insert(0, "vocab_list:" + repr(list(dict.fromkeys(words))[:12]))
    listing = listed_dir(body, target) if kinds and kinds[0] == "path_dir" else None
    if listing is not None:  # a folder the code lists: entries to find, not an empty folder
        kinds.insert(0, "indir:" + repr(listing))
    fixed = unpacked_kind(body, target, depth) if "." not in target else None
    if fixed and not (kinds and kinds[0].startswith(("fixed:", "tuple", "callable:"))):
        # chrom, name, pos = info: a tuple that wide, each field typed by its name's use (round 30:
        # a parameter, or a field of a helper's tuple, unpacked so was drawn as a number)
        kinds.insert(0, fixed)
    return kinds


#: What the code may do with an open file it reads beside reading it.
_READ_HANDLE_FIELDS = frozenset({"readline", "readlines", "read", "seek", "tell", "close", "name", "closed"})


def _read_only_object(kind: str) -> bool:
    """Whether an ``obj:`` kind is an object only read from (``stream.readline()``): an open
    file, not an object of its own (round 26: a parser's stream was drawn with a ``readline``
    returning numbers, and no line ever started with ``#``)."""
    fields = pyast.literal_eval(kind[len("obj:") :])
    return (
        bool(fields)
        and set(fields) <= _READ_HANDLE_FIELDS
        and bool(set(fields) & {"readline", "readlines", "read"})
    )


def _split_into_fields(kind: str) -> bool:
    """A ``struct:`` kind whose top split is not into lines: the code takes one record apart
    (``ident, _, desc = header[1:].partition(' ')``), which says more than a format's marker
    (``header.startswith('>')``); text split into lines is still better drawn as the format."""
    if not kind.startswith("struct:"):
        return False
    spec = pyast.literal_eval(kind[len("struct:") :])
    return spec[1] not in ("\n", "\r\n")


def self_attributes(
    func: ast.FunctionDef | ast.AsyncFunctionDef, self_name: str = "self"
) -> tuple[list[str], list[str]]:
    """(data attributes read, methods called) on ``self`` inside ``func``, in order of first use."""
    data: list[str] = []
    methods: list[str] = []
    assigned: set[str] = set()
    for node in ast.walk(func):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and _is_target(node.func.value, self_name)
        ):
            methods.append(node.func.attr)
    for node in ast.walk(func):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == self_name
        ):
            if isinstance(node.ctx, ast.Store):
                assigned.add(node.attr)
            elif node.attr not in methods:
                data.append(node.attr)
    return list(dict.fromkeys(data)), list(dict.fromkeys(methods))


#: A type name that may be one of the repository's own classes (``Record``, ``vcfpy.Record``).
_CLASS_TYPE = re.compile(r"^(?:[a-z_]\w*\.)*([A-Z]\w*)$")
_NOT_CLASSES = frozenset(
    {
        "Any",
        "Optional",
        "Union",
        "List",
        "Dict",
        "Set",
        "Tuple",
        "Iterable",
        "Sequence",
        "Callable",
        "Iterator",
        "Mapping",
        "None",
        "True",
        "False",
        "DataFrame",
        "Series",
        "Path",
        "ArrayLike",
        "NDArray",
        "Number",
        "Generator",
        "Type",
        "TextIO",
        "IO",
    }
)


def class_hints(func: ast.FunctionDef | ast.AsyncFunctionDef, skip_first: bool = False) -> dict[str, str]:
    """Parameter -> the class its annotation or docstring names (``rec: vcfpy.Record`` -> ``Record``)."""
    doc = docstring_types(ast.get_docstring(func))
    args = list(func.args.posonlyargs) + list(func.args.args)
    if skip_first and args:
        args = args[1:]
    out: dict[str, str] = {}
    for a in args + list(func.args.kwonlyargs):
        texts = [ast.unparse(a.annotation).strip("'\"")] if a.annotation is not None else []
        texts += [doc[a.arg].split(",")[0].strip().strip("`~")] if a.arg in doc else []
        for text in texts:
            m = _CLASS_TYPE.match(text.strip())
            if m and m.group(1) not in _NOT_CLASSES:
                out[a.arg] = m.group(1)
                break
    return out


def constructor_kind(
    class_source: str, class_name: str, repo_dir: str | Path | None = None, defaulted: bool = False
) -> str | None:
    """``ctor:`` kind building ``class_name`` from generated values for its ``__init__``'s required
    parameters (and its defaulted ones with ``defaulted``: ``SeqRecords(id_list=None,
    seq_list=None)`` built from defaults alone is empty)."""
    try:
        tree = pyast.parse(class_source)
    except SyntaxError:
        return None
    cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name), None)
    if cls is None:
        return None
    init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    if init is None:
        return f"ctor:{class_name}:{{}}"
    fields = {
        p.name: p.kinds[0]
        for p in infer_params(init, repo_dir, skip_first=True)
        if p.kinds
        and not p.star
        and (not p.has_default or (defaulted and not p.kinds[0].startswith(("stub:", "a_type", "none"))))
    }
    if any(k.startswith(("stub:", "a_type")) for k in fields.values()):
        return None
    return f"ctor:{class_name}:{fields!r}"


#: Calls that decode their first argument, and the encoding it is then in.
_DECODERS = {
    "b64decode": "b64",
    "standard_b64decode": "b64",
    "urlsafe_b64decode": "b64",
    "decodebytes": "b64",
    "a2b_base64": "b64",
    "fromhex": "hex",
    "unhexlify": "hex",
    "a2b_hex": "hex",
    "literal_eval": "literal",
}
#: Modules whose ``loads`` reads JSON text.
_JSON_MODULES = {"json", "ujson", "simplejson", "orjson"}
#: The text of each encoding, drawn from ``_r``: random bytes (whole 8-byte words, so any numpy
#: dtype can view them), a JSON object, a Python literal.
ENCODED_EXPRS = {
    "b64": "__import__('base64').b64encode(bytes(_r.randrange(256) for _ in range(8 * _r.randint(0, 6)))).decode()",
    "hex": "bytes(_r.randrange(256) for _ in range(_r.randint(0, 12))).hex()",
    "json": "__import__('json').dumps({_bc_seq(_r, 'abcdef', 1, 5): _r.choice([_r.randint(-9, 99), "
    "_bc_seq(_r, 'ACGT', 1, 8), [_r.randint(0, 9) for _ in range(_r.randint(0, 3))], None, True]) "
    "for _ in range(_r.randint(0, 5))})",
    "literal": "repr([_r.randint(-20, 20) for _ in range(_r.randint(0, 6))])",
}


#: numpy dtype names a ``dtype=`` argument takes.
DTYPES = ("float64", "float32", "int32", "int64", "uint8", "int16")


def _passed_as(body: ast.AST, target: str, keyword: str) -> bool:
    """Whether ``target`` is passed as ``keyword=`` to some call of the body."""
    return any(
        isinstance(node, ast.Call)
        and any(k.arg == keyword and _is_target(k.value, target) for k in node.keywords)
        for node in ast.walk(body)
    )


#: Calls that run their first argument as a command (of ``subprocess`` under any alias, and ``os``).
_SPAWNS = frozenset({"call", "run", "Popen", "check_call", "check_output", "getoutput", "getstatusoutput"})
_SHELL_SPAWNS = frozenset({"system", "popen", "getoutput", "getstatusoutput"})


def command_kind(body: ast.AST, target: str) -> str | None:
    """``command:shell`` or ``command:argv`` when ``target`` (or a name bound to it unchanged) is
    the command a call runs: ``subprocess.call(command, shell=True)``, ``os.system(cmd)``,
    ``Popen(cmd)``. Why: a drawn word run as a command is whatever program of that name the
    machine has (or none), so the golden's output was the machine's, not the code's, and varied
    between runs; a person testing such a wrapper gives it a command with a known output."""
    names = aliases(body, target)
    for node in ast.walk(body):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        f, shell_kw = node.func, [k.value for k in node.keywords if k.arg == "shell"]
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
            fn, mod = f.attr, f.value.id
            spawn = (fn in _SPAWNS and ("subprocess" in mod or mod in ("sp", "sub", "subp"))) or (
                mod == "os" and fn in ("system", "popen")
            )
        elif isinstance(f, ast.Name):  # ``from subprocess import call``: a bare ``call`` with ``shell=``
            fn = f.id
            spawn = fn in _SPAWNS - {"call", "run"} or (fn == "call" and bool(shell_kw))
        else:
            continue
        if spawn and any(_is_target(node.args[0], n) for n in names):
            shell = fn in _SHELL_SPAWNS or any(
                not (isinstance(v, ast.Constant) and not v.value) for v in shell_kw
            )
            return "command:shell" if shell else "command:argv"
    return None


def encoded_kind(body: ast.AST, target: str) -> str | None:
    """``encoded:ENC`` when ``target`` (or ``target.encode(...)``/``.strip()``) is decoded by the
    body (``base64.b64decode``, ``bytes.fromhex``, ``json.loads``, ``ast.literal_eval``)."""
    names = set(aliases(body, target))

    def is_text(node: ast.AST) -> bool:
        while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args[1:]:
            node = node.func.value  # source.encode('ascii'), text.strip()
        return isinstance(node, ast.Name) and node.id in names

    for node in ast.walk(body):
        if not (isinstance(node, ast.Call) and node.args and is_text(node.args[0])):
            continue
        f = node.func
        fname = pyast.callee_name(f)
        base = f.value.id if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) else ""
        if fname in _DECODERS:
            return "encoded:" + _DECODERS[fname]
        if fname == "loads" and base in _JSON_MODULES:
            return "encoded:json"
    return None


#: Methods whose calls are logging or housekeeping, not what the code computes: never output.
_QUIET_METHODS = frozenset(
    {
        "debug", "info", "warning", "warn", "error", "critical", "exception", "log", "fatal",
        "close", "flush", "setLevel", "addHandler", "removeHandler", "sleep", "update_progress",
        # drawing: how a figure is made is the author's choice (``set_ylim([0, 6])`` or ``(0, 6)``)
        "plot", "scatter", "bar", "barh", "hist", "fill_between", "arrow", "text", "annotate",
        "legend", "axhline", "axvline", "imshow", "autoscale", "grid", "savefig", "show",
        "tight_layout", "subplots_adjust", "set_xlabel", "set_ylabel", "set_title", "set_xlim",
        "set_ylim", "set_xticks", "set_yticks", "set_xticklabels", "set_yticklabels", "tick_params",
    }
)  # fmt: skip


def _field_expr(name: str, kind: str) -> str:
    """A drawn object's field: a method whose value the code never uses (``stub:none``) prints
    its calls (round 26: an object the code only tells what to do, ``log.subcommand(cmd)``, had
    nothing to show), unless it is logging or housekeeping."""
    if kind == "stub:none" and name not in _QUIET_METHODS and not name.startswith("_"):
        return f"_bc_noted({name!r})"
    return kind_expr(kind)


def kind_expr(kind: str) -> str:
    """The generator expression of a kind (``choice:[...]`` picks among compared-to strings)."""
    if kind.startswith("fmt:"):  # a record of a file format (python_formats)
        return format_expr(kind)
    if kind.startswith("command:"):  # a command the code runs (a string for a shell, or argv)
        return f"_bc_command(_r, {kind == 'command:shell'})"
    if kind.startswith("encoded:"):  # text in an encoding the code decodes
        return ENCODED_EXPRS[kind[len("encoded:") :]]
    if kind.startswith("member:"):  # one of the objects a constructed ``self`` holds (python_construct)
        return f"_bc_member(_r, _bc_obj, {kind[len('member:') :]})"
    if kind.startswith("ctor:"):  # one of the repository's classes, through its constructor
        _, name, fields = kind.split(":", 2)
        args = pyast.literal_eval(fields)
        return f"{name}(" + ", ".join(f"{k}={kind_expr(v)}" for k, v in args.items()) + ")"
    if kind.startswith("choice:"):
        return f"_r.choice({kind[len('choice:') :]} + [_bc_seq(_r, 'abcdefgh', 3, 6)])"
    if kind.startswith("intchoice:"):  # one of the values compared with, or a drawn one
        values, base = pyast.literal_eval(kind[len("intchoice:") :])
        return f"_r.choice({values!r} + [{kind_expr(base)}])"
    if kind.startswith("pick:"):  # one of the values, never another (a constructor's mode: setup)
        return f"_r.choice({kind[len('pick:') :]})"
    if kind.startswith(("vocab_str:", "vocab_list:")):
        # tokens the code recognises (python_search.vocabulary), now and then one it does not
        head, words = kind.split(":", 1)
        token = f"_r.choice({words} + [_bc_seq(_r, 'abcdefgh', 2, 4)])"
        items = f"[{token} for _ in range(_r.randint(1, 6))]"
        return f"''.join({items})" if head == "vocab_str" else items
    if kind.startswith("default:"):
        return kind[len("default:") :]
    if kind.startswith("example:"):  # around a value the docstring gives (python_evidence)
        return f"_bc_vary(_r, {kind[len('example:') :]})"
    if kind.startswith("frame:"):
        return f"_bc_frame(_r, {kind[len('frame:') :]}, _bc_n)"
    if kind.startswith("file:"):  # a file written with what the reader expects (python_files)
        inner, sep, *header = pyast.literal_eval(kind[len("file:") :])
        return f"_bc_write(_r, {kind_expr(inner)}, {sep!r}{''.join(f', {h!r}' for h in header)})"
    if kind.startswith("cli:"):  # a command line the golden's parser accepts (python_cli)
        return f"_bc_cli(_r, {kind[len('cli:') :]})"
    if kind.startswith("prefix:"):  # a path prefix with the files the code opens beside it
        files = []
        for suffix, inner, *tested in pyast.literal_eval(kind[len("prefix:") :]):
            content, sep, header = TEXT_LINES, None, True
            if inner:
                content, sep, *rest = pyast.literal_eval(inner[len("file:") :])
                header = rest[0] if rest else True
            optional = ", True" if tested and tested[0] else ""  # sometimes missing (round 32)
            files.append(f"({suffix!r}, {kind_expr(content)}, {sep!r}, {header!r}{optional})")
        return f"_bc_prefixed(_r, [{', '.join(files)}])"
    if kind.startswith("lines:"):
        return lines_expr(kind)
    if kind.startswith("dictrows:"):  # a table with a header row, read by ``csv.DictReader``
        sep, columns = pyast.literal_eval(kind[len("dictrows:") :])
        return f"__import__('io').StringIO(_bc_frame(_r, {columns!r}).to_csv(sep={sep!r}, index=False))"
    if kind.startswith("handle:"):  # an open text file: the lines its reader expects
        return f"__import__('io').StringIO({kind_expr(pyast.literal_eval(kind[len('handle:') :]))})"

    if kind.startswith("searched:"):  # text that holds what the code looks for, now and then
        return f"_bc_searched(_r, {kind[len('searched:') :]})"
    if kind.startswith("indir:"):  # a folder of entries with the endings the code looks for
        suffixes, subdirs = pyast.literal_eval(kind[len("indir:") :])
        return f"_bc_indir(_r, {suffixes!r}, {subdirs!r})"
    if kind.startswith("str_path:"):  # a file name with the endings the code looks for
        return f"_bc_pathname(_r, {kind[len('str_path:') :]})"
    if kind.startswith("axes:"):  # an array whose axes the code checks have those sizes (mostly)
        axes, inner = pyast.literal_eval(kind[len("axes:") :])
        return f"_bc_axes(_r, {kind_expr(inner)}, {axes!r})"
    if kind.startswith("maybe:"):  # a field the code compares with None: now and then None
        return (
            f"(None if _r.random() < {NULL_RATE} else {kind_expr(pyast.literal_eval(kind[len('maybe:') :]))})"
        )
    if kind.startswith("checked:"):  # a path the code checks: now and then missing or empty
        return f"_bc_checked(_r, lambda: {kind_expr(pyast.literal_eval(kind[len('checked:') :]))})"
    if kind.startswith("regex:"):
        return f"_r.choice({kind[len('regex:') :]})"
    if kind.startswith("struct:"):
        return f"_bc_struct(_r, {kind[len('struct:') :]})"
    if kind.startswith("text:"):
        seps, numeric = pyast.literal_eval(kind[len("text:") :])
        return f"_bc_text(_r, {seps!r}, {numeric!r})"
    if kind.startswith("obj:"):
        fields = pyast.literal_eval(kind[len("obj:") :])
        cls = "_bc_fns" if "_bc_call" in fields else "_bc_ns"  # one that is called too
        return cls + "(" + ", ".join(f"{k}={_field_expr(k, v)}" for k, v in fields.items()) + ")"
    if kind.startswith("fixed:"):  # a tuple the code unpacks into that many names
        fields = pyast.literal_eval(kind[len("fixed:") :])
        return "(" + ", ".join(kind_expr(f) for f in fields) + ",)"
    if kind.startswith("tuplelist:"):
        fields = pyast.literal_eval(kind[len("tuplelist:") :])
        return "[(" + ", ".join(kind_expr(f) for f in fields) + ",) for _ in range(_r.randint(1, 6))]"
    if kind.startswith("optkeys:"):  # a dict whose optional keys are now and then absent
        optional, inner = pyast.literal_eval(kind[len("optkeys:") :])
        return f"_bc_dropkeys(_r, {kind_expr(inner)}, {optional!r})"
    if kind.startswith("dictkeys:"):
        keys = pyast.literal_eval(kind[len("dictkeys:") :])
        return "{" + ", ".join(f"{k!r}: {kind_expr(v)}" for k, v in keys.items()) + "}"
    if kind.startswith("dictlist:"):
        keys = pyast.literal_eval(kind[len("dictlist:") :])
        if keys:
            one = "{" + ", ".join(f"{k!r}: {kind_expr(v)}" for k, v in keys.items()) + "}"
        else:
            one = KINDS["dict_str_int"]
        return f"[{one} for _ in range(_r.randint(1, 6))]"
    if kind.startswith("objlist:"):
        return f"[{kind_expr('obj:' + kind[len('objlist:') :])} for _ in range(_r.randint(1, 6))]"
    if kind.startswith("listof:"):  # a list of values of one kind (files a loop reads, round 31)
        return f"[{kind_expr(pyast.literal_eval(kind[len('listof:') :]))} for _ in range(_r.randint(1, 4))]"
    if kind.startswith("keyed:"):
        key, value = pyast.literal_eval(kind[len("keyed:") :])
        return f"{{{kind_expr(key)}: {kind_expr(value)} for _ in range(_r.randint(1, 6))}}"
    if kind.startswith("pairkeyed:"):
        fields, value = pyast.literal_eval(kind[len("pairkeyed:") :])
        key = "(" + ", ".join(kind_expr(f) for f in fields) + ",)"
        return f"{{{key}: {kind_expr(value)} for _ in range(_r.randint(1, 6))}}"
    if kind.startswith(("stub:", "callable:")):
        # a method with no source (``stub:``) or a parameter that is called (``callable:``): a
        # function whose value is drawn from its arguments, so the same call gives the same value
        inner = kind.split(":", 1)[1]
        if kind.startswith("callable:"):
            inner = pyast.literal_eval(inner)
        return f"_bc_callable(_r.randint(0, 2 ** 31 - 1), lambda _r: {kind_expr(inner)})"
    return KINDS[kind]
