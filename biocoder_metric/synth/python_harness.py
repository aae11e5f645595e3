"""Write a Python harness (``context``) for a function: slice + generators + canonical printout.

The program has exactly the shape the engine runs (docs/ARCHITECTURE.md "Fuzz
placeholders"): one ``<<insert solution here>>`` line and one fuzz placeholder,
``<|int;range=0,999999999|>``, which seeds a ``random.Random`` inside the program. Every
argument is drawn from that generator, so one placeholder gives arbitrarily rich
inputs (DNA strings, arrays, temporary files) while golden and candidate still see
identical values for a case.

The printout is canonical so that only behaviour is compared, not representation
accidents: floats with 10 significant digits, dicts and sets sorted, numpy arrays
as shape + dtype kind + values, iterators drained, object addresses removed. After
the return value, every mutable argument (and ``self``'s attributes) is printed
again, so an in-place bug is caught too. An exception is printed as
``exception: TypeName`` instead of crashing: the candidate must fail where the golden
fails, and validation counts such cases (at most 20% are allowed).
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field

from biocoder_metric import pyast
from biocoder_metric.execution.harness import INSERT_MARKER
from biocoder_metric.synth import python_cli, python_files, python_lookups, python_stubs, python_text
from biocoder_metric.synth.python_evidence import (
    EXAMPLE_RATE,
    RETYPES,
    callsite_examples,
    char_constants,
    compared_constants,
    doc_examples,
    element_char_constants,
    equal_lengths,
    equalities,
    handles_missing,
    invalid_expr,
    keys_from_defaults,
    length_constants,
    length_multiple,
    none_checked,
    py3_idioms,
    required_defaults,
    scale_constants,
    type_checked,
)
from biocoder_metric.synth.python_formats import PRELUDE as FORMATS_PRELUDE
from biocoder_metric.synth.python_formats import helper_index
from biocoder_metric.synth.python_inputs import (
    NULL_RATE,
    ParamSpec,
    forwarded_params,
    infer_params,
    kind_expr,
    rank_kinds,
    refine_kinds,
    self_attributes,
    sub_attributes,
    usage_votes,
    used_votes,
)
from biocoder_metric.synth.python_slice import Slice, find_function

#: Printed when the call raises; validation counts these lines as golden errors.
EXCEPTION_PREFIX = "exception: "
#: Printed when the probe call (an invalid argument on purpose) raises: expected, not counted.
PROBE_EXCEPTION_PREFIX = "probe exception: "
#: Printed when an attempt's inputs are rejected and drawn again; a probe line for validation
#: (neither a golden error nor variation of the output), compared by the judge like every line.
RETRY_PREFIX = "probe retry exception: "
#: Starts the stderr line where a harness says where the call raised (``_bc_diag``).
DIAG_PREFIX = "bc-diag "
#: Draws of a case's inputs before its exception counts: generated inputs that fit together only
#: sometimes (a tree with more than two leaves, a key the table holds) still give a result.
ATTEMPTS = 3
#: Share of cases that add a probe call.
PROBE_RATE = 0.4


def _nullable(expr: str) -> str:
    """``expr``, or ``None`` in :data:`NULL_RATE` of the cases."""
    return f"(None if _r.random() < {NULL_RATE} else {expr})"


#: Share of calls with an integer argument at a boundary (c - 1, c, c + 1 of a compared constant),
#: split among the parameters that have boundaries.
BOUNDARY_RATE = 0.35
SEED_PLACEHOLDER = "<|int;range=0,999999999|>"
#: Share of constructed ``self`` objects taken from a literal constructor call of the repository.
CONSTRUCT_EXAMPLE_RATE = 0.7

#: The helpers every synthesised harness carries. Stdlib only (numpy imported lazily), Python 3.9.
PRELUDE = r'''
import random as _bc_random
import re as _bc_re
import os as _bc_os
import io as _bc_io

_BC_LIMIT = 20000


def _bc_seq(_r, alphabet, lo, hi):
    return "".join(_r.choice(alphabet) for _ in range(_r.randint(lo, hi)))


def _bc_word(_r, fresh=0.5):
    """A word: one of the case's four shared words, or (``fresh`` of the time) a new one.
    Keys drawn for a dict, names in a file and a name argument then often meet, so lookups
    and joins are reached; a new word keeps the miss reachable too."""
    pool = _r.__dict__.get("_bc_pool")
    if pool is None:
        pool = _r._bc_pool = [_bc_seq(_r, "abcdefghijklmnopqrstuvwxyz", 3, 10) for _ in range(4)]
    return _bc_seq(_r, "abcdefghijklmnopqrstuvwxyz", 3, 10) if _r.random() < fresh else _r.choice(pool)


def _bc_graph(_r):
    """An adjacency mapping over the case's shared words: every neighbour is itself a key, so
    a traversal (``for nb in adj[node]: ... adj[nb]``) walks on, and cycles and leaves occur."""
    _bc_word(_r, 0)
    pool = sorted(set(_r._bc_pool))
    return {w: _r.sample(pool, _r.randint(0, min(3, len(pool)))) for w in pool}


def _bc_line(_r):
    return " ".join(_bc_seq(_r, "abcdefghij", 2, 6) for _ in range(_r.randint(1, 5)))


def _bc_np(_r):
    import numpy
    return numpy.random.RandomState(_r.randint(0, 2 ** 31 - 1))


def _bc_axes(_r, a, axes):
    """``a`` with the axis sizes the code checks (``ac.shape[1] != 2``), in most cases."""
    import numpy
    if _r.random() < 0.8:
        for k, size in axes.items():
            if -a.ndim <= k < a.ndim and a.shape[k]:
                a = numpy.take(a, numpy.arange(size) % a.shape[k], axis=k)
    return a


class _bc_ns:
    """A plain object with the attributes the function reads (``self.size_range.min``)."""

    _bc_hashes = {}  # id -> (object, hash), kept out of the object: the code may list its fields

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __hash__(self):
        # a set of drawn objects iterates in the same order on every run, and for every program
        # (golden or candidate) that builds the same objects, however many times it asks a stub:
        # a stable hash of the fields when first hashed (not the address, not str's seeded hash)
        got = _bc_ns._bc_hashes.get(id(self))
        if got is None or got[0] is not self:
            try:
                h = __import__("zlib").crc32(_bc_stub_key(self).encode("utf-8", "replace"))
            except Exception:
                h = 0
            got = _bc_ns._bc_hashes[id(self)] = (self, h)
        return got[1]

    def __getitem__(self, key):  # a record read by key too (``feature['Name']``): its items
        items = self.__dict__.get("_bc_items")
        lookup = self.__dict__.get("_bc_getitem")  # ``db[gene_id]``: a value that follows the key
        if lookup is not None and (items is None or key not in items):
            return lookup(key)
        if items is None:
            raise TypeError("'_bc_ns' object is not subscriptable")
        return items[key]

    def __setitem__(self, key, value):
        if "_bc_items" not in self.__dict__:
            raise TypeError("'_bc_ns' object does not support item assignment")
        self.__dict__["_bc_items"][key] = value

    def __repr__(self):  # ``out.write(str(rec))``: its fields, never a memory address (not reproducible)
        shown = ", ".join(
            "%s=%s" % (k, "<function>" if callable(v) else repr(v))
            for k, v in sorted(self.__dict__.items())
            if not k.startswith("_bc_")
        )
        return "_bc_ns(%s)" % shown

    def __bool__(self):  # ``if self.tabix_file:``: an object is there (``__len__`` is not asked)
        return True

    def __len__(self):  # ``len(cnarr)``: a table-like object is as long as its columns
        if "_bc_len" in self.__dict__:  # ``len(feature)``: drawn with its fields
            return self.__dict__["_bc_len"]
        items = self.__dict__.get("_bc_items")
        if items is not None:
            return len(items)
        for v in self.__dict__.values():
            if hasattr(v, "shape") and getattr(v, "ndim", 0) >= 1:
                return len(v)
        raise TypeError("object of type '_bc_ns' has no len()")

    def __contains__(self, key):  # ``'gc' in cnr``
        if "_bc_items" not in self.__dict__:
            raise TypeError("argument of type '_bc_ns' is not iterable")
        return key in self.__dict__["_bc_items"]

    def __enter__(self):  # ``with conn:``: the object itself, as most resources return
        return self

    def __exit__(self, *exc):
        return False


class _bc_fns(_bc_ns):
    """An object that is called too (``m(compound)`` beside ``m.set(...)``): its drawn function."""

    def __call__(self, *args, **kwargs):
        return self.__dict__["_bc_call"](*args, **kwargs)


#: Set per case when the code handles missing values: tables, Series and arrays get gaps.
_bc_gap = [False]


def _bc_holes(_r, v):
    """``v`` with about a fifth of its float values NaN, in cases with gaps (``_bc_gap``); a list
    of floats gets ``float('nan')``; anything else is unchanged."""
    if not _bc_gap[0]:
        return v
    try:
        if hasattr(v, "dtype") and v.dtype.kind == "f":
            v = v.copy()
            v[_bc_np(_r).rand(*v.shape) < 0.2] = float("nan")
        elif isinstance(v, list) and v and all(type(x) is float for x in v):
            v = [float("nan") if _r.random() < 0.2 else x for x in v]
    except Exception:
        pass
    return v


def _bc_series(_r, n=None):
    """``n`` values: the case's length, shared with its arrays and tables (they are combined)."""
    import pandas
    return pandas.Series(_bc_holes(_r, _bc_np(_r).rand(n if n is not None else _bc_np(_r).randint(5, 20))))


def _bc_frame(_r, columns, n=None):
    """A table of ``n`` rows; ``columns`` a list of names, or a dict naming the columns that
    hold text (the strings the code compares them with; None: drawn by the column's name), or
    None: a table read only by position, of 4 to 24 numeric columns."""
    import pandas
    rs = _bc_np(_r)
    n = n if n is not None else _r.randint(5, 20)
    if columns is None:
        columns = ["c%d" % i for i in range(_r.randint(4, 24))]
    data = {}
    for c in columns:
        low = c.lower()
        text = columns.get(c) if isinstance(columns, dict) else None
        if text is not None:
            data[c] = [_r.choice(text) if text and _r.random() < 0.6 else _bc_word(_r) for _ in range(n)]
        elif low in ("chromosome", "chrom", "chr", "contig"):
            data[c] = [_r.choice(["chr1", "chr2", "chrX"]) for _ in range(n)]
        elif low in ("gene", "name", "id", "sample", "label") or low.endswith(("_id", "_name", "_gene")):
            # names repeat (the case's shared words): rows group, join and match (round 30)
            data[c] = [_bc_word(_r, 0.3) for _ in range(n)]
        elif low in ("start", "end", "pos", "position", "depth", "count", "n"):
            data[c] = sorted(rs.randint(0, 1000, size=n)) if low in ("start", "end") else rs.randint(0, 50, size=n)
        else:
            data[c] = rs.randn(n)
            if _bc_gap[0] and _r.random() < 0.6:  # some columns with gaps (round 32)
                data[c] = _bc_holes(_r, data[c])
    return pandas.DataFrame(data)


def _bc_text(_r, seps, numeric):
    """Lines (when a newline is among ``seps``) of fields joined by the other separators."""
    def field():
        return str(_r.randint(0, 99)) if numeric else _bc_word(_r)
    inner = [s for s in seps if s not in ("\n", "\r\n")] or [" "]
    def line():
        return _r.choice(inner).join(field() for _ in range(_r.randint(3, 7)))
    if any(s in ("\n", "\r\n") for s in seps):
        return "\n".join(line() for _ in range(_r.randint(1, 4))) + "\n"
    return line()


_bc_files = []
_BC_FORMATS = ("fasta", "fastq", "newick", "nexus", "vcf", "sam", "bed", "gff")


def _bc_file(_r, kind, keys=()):
    path = "./_bc_in_%d.%s" % (len(_bc_files), kind if kind in _BC_FORMATS else "txt")
    with open(path, "w") as fh:
        if kind in _BC_FORMATS and kind not in ("fasta", "fastq"):
            fh.write(_bc_format(_r, kind, keys) if keys else _bc_format(_r, kind))
        for i in range(_r.randint(1, 4) if kind in ("fasta", "fastq", "text") else 0):
            seq = _bc_seq(_r, "ACGT", 10, 40)
            if kind == "fasta":
                fh.write(">seq%d\n%s\n" % (i, seq))
            elif kind == "fastq":
                fh.write("@read%d\n%s\n+\n%s\n" % (i, seq, _bc_seq(_r, "ABCDEFGHIJ", len(seq), len(seq))))
            else:
                fh.write(_bc_line(_r) + "\n")
    _bc_files.append(path)
    return path


#: File name endings a bioinformatics path is likely to carry (with the ones the code names).
_BC_SUFFIXES = [".fastq", ".fq", ".fasta", ".fa", ".gz", ".bam", ".sam", ".vcf", ".bed", ".gff", ".txt", ".tsv", ".csv"]


def _bc_pathname(_r, suffixes):
    """A file name only handled as a string: directories, a stem, then up to two endings."""
    name = "/".join(_bc_seq(_r, "abcdefgh", 1, 5) for _ in range(_r.randint(1, 3)))
    for _ in range(_r.randint(0, 2)):
        own = suffixes and _r.random() < 0.6
        name += _r.choice(list(suffixes) if own else _BC_SUFFIXES + [""])
    return name


def _bc_command(_r, shell):
    """A command the function runs: a harmless, deterministic one (``echo`` of a drawn word, or
    an exit status), a string for a shell or an argument list. A drawn word run as a command is
    whatever program of that name the machine has, or none, so its output was the machine's."""
    import sys

    if hasattr(sys.stdout, "reconfigure"):  # the child's lines where the code ran it
        sys.stdout.reconfigure(line_buffering=True)
    word, status = _bc_seq(_r, "abcdefgh", 2, 6), _r.choice([0, 0, 1, 2])
    if _r.random() < 0.7:
        argv = ["echo", word] + [_bc_seq(_r, "abcdefgh", 1, 4) for _ in range(_r.randint(0, 2))]
    else:
        argv = ["sh", "-c", "exit %d" % status] if not shell else ["exit", str(status)]
    return " ".join(argv) if shell else argv


def _bc_dropkeys(_r, d, optional):
    """``d`` without some of the keys the code allows to be missing (``opts.get('k')``)."""
    for k in optional:
        if k in d and _r.random() < 0.4:
            del d[k]
    return d


def _bc_checked(_r, make):
    """A path the code checks (exists, isfile, getsize): now and then missing or empty."""
    u = _r.random()
    if u < 0.2:
        return "./_bc_missing_%d.txt" % len(_bc_files)
    path = make()
    if u < 0.35 and _bc_os.path.isfile(path):
        open(path, "w").close()
    return path


def _bc_outpath(_r):
    path = "./_bc_out_%d.txt" % len(_bc_files)
    _bc_files.append(path)
    return path


class _bc_Out(_bc_io.StringIO):
    """An open text file the function writes to (``print(..., file=out)``); shown by what it holds."""


def _bc_searched(_r, texts):
    """Lines of text; in about half the cases one of ``texts`` (what the code looks for) among them."""
    lines = [_bc_line(_r) for _ in range(_r.randint(1, 4))]
    if _r.random() < 0.5:
        lines.insert(_r.randint(0, len(lines)), _r.choice(texts).rstrip("\n"))
    return "\n".join(lines) + "\n"


def _bc_indir(_r, suffixes, subdirs):
    """A folder the code lists: 0 to 4 text files named with the endings it looks for (now and
    then another), and with ``subdirs`` 0 to 3 subfolders holding such files too."""
    path = "./_bc_in_%d_dir" % len(_bc_files)
    _bc_files.append(path)

    def fill(folder):
        _bc_os.makedirs(folder, exist_ok=True)
        for _ in range(_r.randint(0, 4)):
            end = _r.choice(suffixes) if suffixes and _r.random() < 0.8 else ".txt"
            with open(_bc_os.path.join(folder, _bc_word(_r) + end), "w") as fh:
                fh.write("\n".join(_bc_line(_r) for _ in range(_r.randint(1, 3))) + "\n")

    fill(path)
    for _ in range(_r.randint(0, 3) if subdirs else 0):
        fill(_bc_os.path.join(path, _bc_word(_r)))
    return path


def _bc_outhandle(_r):
    return _bc_Out()


def _bc_outdir(_r):
    """An empty directory for the function to write into; what it writes there is shown."""
    path = "./_bc_out_%d_dir" % len(_bc_files)
    _bc_os.makedirs(path, exist_ok=True)
    _bc_files.append(path)
    return path


def _bc_float(v):
    if v != v:
        return "nan"
    if v in (float("inf"), float("-inf")):
        return "inf" if v > 0 else "-inf"
    text = "%.10g" % v
    return "0" if text == "-0" else text


def _bc_show(v, depth=0):
    if depth > 20:
        return "..."
    d = depth + 1
    if isinstance(v, _bc_Out):
        return "written(%r)" % v.getvalue()
    if v is None or isinstance(v, bool):
        return repr(v)
    if isinstance(v, int):
        return repr(int(v))
    if isinstance(v, float):
        return _bc_float(v)
    if isinstance(v, (str, bytes)):
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(_bc_show(x, d) for x in v) + "]"
    if isinstance(v, tuple):
        return "(" + ", ".join(_bc_show(x, d) for x in v) + ")"
    if isinstance(v, dict):
        items = sorted((_bc_show(k, d), _bc_show(x, d)) for k, x in v.items())
        return "{" + ", ".join("%s: %s" % kv for kv in items) + "}"
    if isinstance(v, (set, frozenset)):
        return "set(" + ", ".join(sorted(_bc_show(x, d) for x in v)) + ")"
    mod = type(v).__module__ or ""
    if mod.startswith("numpy"):
        if hasattr(v, "shape") and hasattr(v, "tolist") and getattr(v, "ndim", 0) > 0:
            return "array%s[%s](%s)" % (tuple(v.shape), v.dtype.kind, _bc_show(v.tolist(), d))
        if hasattr(v, "item"):
            return _bc_show(v.item(), d)
    if mod.startswith("pandas"):
        if hasattr(v, "columns"):
            return "DataFrame(%s, %s, %s)" % (_bc_show([str(c) for c in v.columns], d), _bc_show(list(v.index), d), _bc_show(v.values.tolist(), d))
        if hasattr(v, "index") and hasattr(v, "tolist"):
            return "Series(%s, %s)" % (_bc_show(list(v.index), d), _bc_show(v.tolist(), d))
    if hasattr(v, "__next__") or type(v).__name__ in ("map", "filter", "zip", "generator", "range", "dict_keys", "dict_values", "dict_items"):
        import itertools
        return "iter" + _bc_show(list(itertools.islice(v, 10000)), d)
    if hasattr(v, "__dict__") and (not callable(v) or isinstance(v, _bc_ns)):
        return type(v).__name__ + _bc_show({k: x for k, x in vars(v).items() if not k.startswith("__")}, d)
    return _bc_re.sub(r" at 0x[0-9a-fA-F]+", "", repr(v))


def _bc_near(_r, consts, draw, rate=0.35):
    """A boundary value of a constant the code compares with (at ``rate``), a value at its scale, or ``draw()``."""
    u = _r.random()
    if u < rate:
        return _r.choice(consts) + _r.choice([-1, 0, 1])
    top = max((abs(c) for c in consts if abs(c) <= 10 ** 8), default=0)
    if u < rate + 0.25 and top >= 2:  # a range at the code's scale, never an allocation-sized one
        return _r.randint(0, 2 * top)
    return draw()


_bc_mixed = {}


def _bc_reclass(_r, v, classes, rate=0.3):
    """Sometimes ``v`` as an instance of one of ``classes`` (stand-ins of classes with no source the
    code tests it for with ``isinstance``): a subclass of both, with ``v``'s value or fields."""
    if not classes or _r.random() >= rate:
        return v
    c = _r.choice(classes)
    base = type(v)
    if base is bool or not (isinstance(v, (_bc_ns, str, bytes, int, float, tuple, list, dict))):
        return v
    try:
        k = _bc_mixed.get((c, base))
        if k is None:
            k = _bc_mixed[(c, base)] = type(c.__name__, (c, base), {})
        if isinstance(v, _bc_ns):
            o = object.__new__(k)
            o.__dict__.update(vars(v))
            return o
        return k(v)
    except Exception:
        return v


def _bc_retype(_r, v, types, rate=0.3):
    """Sometimes ``v`` as another of the types the code tests it for (``isinstance(seq, str)``
    ... ``elif isinstance(seq, list)``): each branch of a type dispatch gets values."""
    if _r.random() >= rate:
        return v
    names = [t for t in types if type(v).__name__ != t]
    _r.shuffle(names)
    for t in names:
        try:
            if t in ("list", "tuple", "set", "frozenset"):
                if isinstance(v, dict):
                    items = list(v)
                elif hasattr(v, "tolist"):
                    items = v.tolist()
                elif isinstance(v, (str, bytes, list, tuple, set, frozenset)):
                    items = sorted(v, key=repr) if isinstance(v, (set, frozenset)) else list(v)
                else:
                    continue
                return {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[t](items)
            if t == "str":
                if isinstance(v, (list, tuple)) and all(isinstance(x, str) for x in v):
                    return "".join(v)
                if isinstance(v, (int, float, bytes)) and not isinstance(v, bool):
                    return v.decode() if isinstance(v, bytes) else str(v)
            elif t == "bytes" and isinstance(v, str):
                return v.encode()
            elif t == "int" and isinstance(v, float):
                return int(v)
            elif t == "float" and isinstance(v, int) and not isinstance(v, bool):
                return float(v)
            elif t == "ndarray" and isinstance(v, (list, tuple)):
                import numpy
                return numpy.asarray(v)
            elif t == "dict" and isinstance(v, (list, tuple)):
                return {x: i for i, x in enumerate(v) if isinstance(x, (str, int))}
        except Exception:
            continue
    return v


def _bc_scalar(v):
    """Whether ``v`` is one value (or none), not a collection."""
    return v is None or isinstance(v, (str, bytes, int, float, bool))


def _bc_element(_r, c, like):
    """One element of collection ``c`` (one of ``like``'s type first), or ``like`` when none."""
    if hasattr(c, "tolist"):
        pool = c.tolist()
    elif isinstance(c, (list, tuple)):
        pool = list(c)
    elif isinstance(c, (set, frozenset)):
        pool = sorted(c, key=repr)
    else:
        return like
    if not isinstance(pool, list):
        return like
    pool = [x for x in pool[:5000] if _bc_scalar(x) and x is not None]
    same = [x for x in pool if like is not None and type(x) is type(like)]
    pool = same or pool
    return _r.choice(pool) if pool else like


def _bc_meet(_r, a, b, rate=0.5):
    """Sometimes ``a`` and ``b`` made equal (``chrom == self.chrom``), or the scalar one set to an
    element of the other (``cnarr.chromosome == label``, compared elementwise): values the code
    compares for equality, drawn apart, never meet."""
    if _r.random() >= rate:
        return a, b
    try:
        if _bc_scalar(a) and _bc_scalar(b):
            if a is not None and (b is None or isinstance(a, type(b)) or isinstance(b, type(a))):
                return a, a
            return a, b
        if _bc_scalar(b):
            return a, _bc_element(_r, a, b)
        if _bc_scalar(a):
            return _bc_element(_r, b, a), b
    except Exception:
        pass
    return a, b


def _bc_item(v, key):
    """``v[key]``, or None where it has no such item (read to make a value meet it)."""
    try:
        return v[key]
    except Exception:
        return None


def _bc_same_len(v, other):
    """``v`` cut or repeated to ``len(other)`` (lists, tuples, strings, 1-D arrays); else unchanged."""
    try:
        n = len(other)
        if not len(v):
            return v
    except TypeError:
        return v
    if hasattr(v, "shape") and getattr(v, "ndim", 0) == 1:
        import numpy
        return numpy.resize(v, n)
    if isinstance(v, (list, tuple, str)):
        return (v * (n // len(v) + 1))[:n]
    return v


def _bc_digits(_r, digits):
    """Another number of as many digits (no new leading zero)."""
    first = "123456789" if len(digits) > 1 and digits[0] != "0" else "0123456789"
    return _r.choice(first) + "".join(_r.choice("0123456789") for _ in digits[1:])


def _bc_vary(_r, v):
    """A value like a documented example (``For example, ['@<TRIPOS>MOLECULE', ...]``): its digit
    runs redrawn with as many digits (a negative number after a space now and then positive), runs
    of DNA letters redrawn, a list's, tuple's or dict's items each varied, and a list of plain
    values now and then shorter or longer."""
    if isinstance(v, bool):
        return _r.random() < 0.5
    if isinstance(v, int):
        return _r.randint(0, max(2 * abs(v), 10)) * (-1 if v < 0 else 1)
    if isinstance(v, float):
        if v == 0.0 and _r.random() < 0.5:  # an origin (``xyz=(0.0, 0.0, 0.0)``) is not the only point
            return round(_r.uniform(-10.0, 10.0), 6)
        return round(v * _r.uniform(0.5, 1.5), 6)
    if isinstance(v, str):
        out = _bc_re.sub(r"[0-9]+", lambda m: _bc_digits(_r, m.group()), v)
        # a signed column (`` -1.1786``) now and then positive, as wide (a separator stays)
        out = _bc_re.sub(r"(?<=\s)-(?=[0-9])", lambda m: "-" if _r.random() < 0.75 else " ", out)
        return _bc_re.sub(r"[ACGT]{4,}", lambda m: "".join(_r.choice("ACGT") for _ in m.group()), out)
    if isinstance(v, tuple) and v and all(isinstance(x, str) and "\n" not in x for x in v) and _r.random() < 0.5:
        # names to pick (``records=('ATOM', 'HETATM')``): now and then some of them, in another order
        return tuple(_r.sample(v, _r.randint(1, len(v))))
    if isinstance(v, tuple):
        return tuple(_bc_vary(_r, x) for x in v)
    if isinstance(v, dict):
        return {k: _bc_vary(_r, x) for k, x in v.items()}
    if isinstance(v, list):
        plain = v and all(_bc_scalar(x) and not (isinstance(x, str) and "\n" in x) for x in v)
        n = _r.randint(1, 2 * len(v)) if plain and _r.random() < 0.5 else len(v)
        return [_bc_vary(_r, v[i % len(v)]) for i in range(n)]
    return v


def _bc_resize(_r, v, lengths):
    """Sometimes ``v`` cut or repeated to a length the code compares ``len(v)`` with (c - 1, c, c + 1)."""
    if _r.random() >= 0.35 or not isinstance(v, (str, list)):
        return v
    n = max(0, _r.choice(lengths) + _r.choice([-1, 0, 1]))
    base = v or (["A"] if isinstance(v, list) else "A")
    return (base * (n // len(base) + 1))[:n]


def _bc_multiple(_r, v, k):
    """Mostly ``v`` cut or repeated to a whole number of ``k`` (``len(seq) % 3``), sometimes as drawn."""
    if _r.random() >= 0.75 or not isinstance(v, (str, list)):
        return v
    n = k * max(1, round(len(v) / k))
    base = v or (["A"] if isinstance(v, list) else "A")
    return (base * (n // len(base) + 1))[:n]


def _bc_like(_r, v, consts):
    """Sometimes a copy of a constant the code compares ``v`` with (``tuple(arr) != HEADER``): as
    it is, with one element changed, or with elements added (a header line with samples)."""
    if _r.random() >= 0.5:
        return v
    try:
        c = _r.choice(consts())
    except Exception:
        return v
    if isinstance(c, (list, tuple)) and isinstance(v, (list, tuple)):
        out = list(c)
        u = _r.random()
        if u < 0.25 and out and v:
            out[_r.randrange(len(out))] = v[0]
        elif u < 0.75:
            out += list(v[: _r.randint(1, 3)])
        return tuple(out) if isinstance(v, tuple) else out
    if type(c) is type(v):
        return c
    if isinstance(c, (str, int, float)) and isinstance(v, (str, int, float)):
        return c  # a named constant a scalar is tested against (``algo == TM_OTSU``): its own type
    return v


def _bc_plant(_r, v, chars):
    """Sometimes ``v`` with a character the code tests for put where it looks (``s[0] == 'M'``)."""
    if _r.random() >= 0.4 or not isinstance(v, str) or not v:
        return v
    i, text = _r.choice(chars)
    if i is None:  # anywhere (``'@in' in cmd``): put in, the rest kept
        k = _r.randint(0, len(v))
        return v[:k] + text + v[k:]
    if not -len(v) <= i < len(v) or len(text) > len(v):
        return v
    i %= len(v)
    i = min(i, len(v) - len(text))
    return v[:i] + text + v[i + len(text):]


def _bc_plant_each(_r, v, chars):
    """``v`` with some of its strings (a dict's keys) planted as ``_bc_plant`` plants one."""
    try:
        if isinstance(v, dict):
            return {(_bc_plant(_r, k, chars) if isinstance(k, str) else k): x for k, x in v.items()}
        if isinstance(v, (list, tuple, set)):
            return type(v)(_bc_plant(_r, x, chars) if isinstance(x, str) else x for x in v)
    except Exception:
        pass
    return v


def _bc_member(_r, obj, cls):
    """One of the ``cls`` objects ``obj`` holds (a node of a tree), breadth first; None if none.

    Lists, tuples, dict values and fields only: a set's order would differ between runs.
    """
    seen, queue, found = set(), [obj], []
    while queue and len(seen) < 5000:
        v = queue.pop(0)
        if id(v) in seen or isinstance(v, (str, bytes, int, float)):
            continue
        seen.add(id(v))
        if isinstance(v, cls):
            found.append(v)
        if isinstance(v, (list, tuple)):
            queue += list(v)
        elif isinstance(v, dict):
            queue += list(v.values())
        elif hasattr(v, "__dict__") and not callable(v):
            queue += list(vars(v).values())
    return _r.choice(found) if found else None


def _bc_print(label, v):
    text = _bc_show(v)
    if len(text) > _BC_LIMIT:
        text = text[:_BC_LIMIT] + "...(%d chars)" % len(text)
    print(label + text)


def _bc_diag(e):
    # stderr, never compared: where the call failed (the first frame below the harness's own),
    # with the type of every local there, for the plan search's repair (python_repair). Never
    # raises: whatever the exception or its locals do, the case's output stays the same.
    try:
        import sys
        tb = e.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_name.startswith("_bc_"):
            tb = tb.tb_next
        if tb is None:
            return
        f = tb.tb_frame
        types = {}
        for k, v in list(f.f_locals.items())[:60]:
            if not k.startswith("_bc"):
                types[k] = type(v).__name__
        if "self" in f.f_locals:
            for k, v in list(vars(f.f_locals["self"]).items())[:60]:
                types["self." + k] = type(v).__name__
        code = f.f_code
        sys.stderr.write("bc-diag " + repr((type(e).__name__, code.co_name, tb.tb_lineno - code.co_firstlineno, str(e)[:300], types, _bc_origins(e, tb))) + "\n")
    except BaseException:
        pass


def _bc_origins(e, tb):
    # Which generated value the failure is about, wherever it raised (a helper the golden
    # called, a method of one of its values): a local of the frame that raised, of a type the
    # message names, that is by identity an argument, a self attribute or a stub's result, or a
    # value inside one (an element, a field, a key's value). [(slot name, path, type name)],
    # the path in python_access's steps: ("elem",), ("index", i), ("attr", name), ("key", k).
    out = []
    try:
        named = set(_bc_re.findall(r"'(\w+)'", str(e)))
        if not named:
            return out
        made = {}
        budget = [4000]

        def note(name, v, path=()):
            budget[0] -= 1
            if budget[0] < 0:
                return
            made.setdefault(id(v), []).append((name, path, v))
            if len(path) >= 6 or isinstance(v, (str, bytes, int, float)) or v is None:
                return
            if isinstance(v, list):
                for x in v[:40]:
                    note(name, x, path + (("elem",),))
            elif isinstance(v, tuple):
                for i, x in enumerate(v[:8]):
                    note(name, x, path + (("index", i),))
            elif isinstance(v, dict):
                for k, x in list(v.items())[:30]:
                    if isinstance(k, str):
                        note(name, x, path + (("key", k),))
            elif type(v).__name__ in ("_bc_ns", "_bc_fns"):
                for k, x in list(vars(v).items())[:30]:
                    if not k.startswith(("_bc_", "__")):
                        note(name, x, path + (("attr", k),))
            elif callable(v) and isinstance(getattr(v, "_bc_made", None), list):
                for x in v._bc_made[:10]:  # what a drawn method returned (``_bc_callable``)
                    note(name, x, path + (("call",),))

        given = e.__traceback__.tb_frame.f_locals
        passed = [v for k, v in given.items() if _bc_re.match(r"_bc_a\d+$", k)]
        passed += list((given.get("_bc_kw") or {}).values())
        f, code = tb.tb_frame, tb.tb_frame.f_code
        for p in code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]:
            v = f.f_locals.get(p, _bc_origins)
            if p == "self" and hasattr(v, "__dict__"):
                for k, a in list(vars(v).items())[:60]:
                    note("self." + k, a)
            elif any(v is x for x in passed):
                note(p, v)
        for slot, v in (globals().get("_bc_stub_case") or {}).get("made", {}).values():
            note(slot, v)
        while tb.tb_next is not None:
            tb = tb.tb_next
        fr = tb.tb_frame  # where it raised: the value it failed on is one of the locals there
        if fr.f_code.co_name.startswith("_bc_"):
            return out
        values = list(fr.f_locals.values())[:60]
        if "self" in fr.f_locals and hasattr(fr.f_locals["self"], "__dict__"):
            values += list(vars(fr.f_locals["self"]).values())[:60]
        reach = list(values)  # ``h.gene_ref.alternate_of().name``: reached from a local through
        for _ in range(3):  # the fields and drawn methods of objects the harness built
            nxt = []
            for v in reach:
                if type(v).__name__ in ("_bc_ns", "_bc_fns"):
                    nxt += [x for k, x in list(vars(v).items())[:30] if not k.startswith(("_bc_", "__"))]
                elif callable(v) and isinstance(getattr(v, "_bc_made", None), list):
                    nxt += v._bc_made[:10]
            values += nxt
            reach = nxt
        for v in values:
            if type(v).__name__ not in named:
                continue
            for name, path, x in made.get(id(v), ()):
                if x is v and (name, path, type(v).__name__) not in out:
                    out.append((name, path, type(v).__name__))
    except BaseException:
        pass
    return out[:6]


def _bc_print_files():
    for path in _bc_files:
        if "_bc_out_" not in path:
            continue
        if _bc_os.path.isfile(path):
            with open(path, "rb") as fh:
                _bc_print("file %s: " % path, fh.read())
        elif _bc_os.path.isdir(path):
            # every file written under the directory, by relative name, in a fixed order
            for root, dirs, names in sorted(_bc_os.walk(path)):
                dirs.sort()
                for name in sorted(names):
                    full = _bc_os.path.join(root, name)
                    with open(full, "rb") as fh:
                        _bc_print("file %s: " % _bc_os.path.relpath(full, "."), fh.read())
'''


PRELUDE = (
    PRELUDE
    + FORMATS_PRELUDE
    + python_lookups.PRELUDE
    + python_files.PRELUDE
    + python_text.PRELUDE
    + python_stubs.KEY_PRELUDE
    + python_cli.PRELUDE
)


@dataclass
class Plan:
    """One choice of generators: what feeds each parameter (and each ``self`` attribute)."""

    args: list[tuple[ParamSpec, str | None]]  # (param, kind) ; kind None = left to its default
    attrs: list[tuple[str, str]] = field(default_factory=list)  # (self attribute, kind)
    label: str = ""
    #: vary defaulted parameters (passed by keyword in about half the cases) and add probe calls
    explore: bool = True
    #: share of cases that replay an example call (docstring, call sites) instead of generated values
    example_rate: float = EXAMPLE_RATE
    #: ``self`` built as ``Cls(...)`` from these ``__init__`` parameters (python_construct), not ``__new__``
    construct: list[tuple[ParamSpec, str]] | None = None
    #: literal constructor calls of the repository ({parameter: source}), replayed in most cases
    construct_examples: list[dict[str, str]] = field(default_factory=list)
    #: the factory function that builds ``self`` (``read_tree(text)``); None: the class itself
    construct_callee: str | None = None
    #: (stub slot, kind) for names with no source (python_stubs): ``helper()``, ``ns.f()``, ``ns.X``
    stubs: list[tuple[str, str]] = field(default_factory=list)
    #: every array of a case has one size on every axis (``_bc_n == _bc_h == _bc_w``): code that
    #: combines a matrix with a vector (``u_kn - N_k``, ``labels[segmented]``, ``C @ V``) needs
    #: their axes to agree, which independent draws rarely do
    square: bool = False

    def describe(self) -> dict[str, str]:
        out = {p.name: (k or "default") for p, k in self.args}
        out.update({f"self.{a}": k for a, k in self.attrs})
        out.update({f"stub {s}": k for s, k in self.stubs})
        if not self.explore:
            out["_explore"] = "off"
        if self.example_rate != EXAMPLE_RATE:
            out["_examples"] = str(self.example_rate)
        if self.square:
            out["_shapes"] = "square"
        for p, k in self.construct or []:
            out[f"self.{self.construct_callee or '__init__'}.{p.name}"] = k
        return out


@dataclass
class Subject:
    """What the harness calls: a function, or a method of a class (instance, static, class, property)."""

    function_name: str
    func: ast.FunctionDef
    method: str | None = None  # None | "instance" | "property" | "static" | "class"
    class_name: str = "_BCSubject"
    params: list[ParamSpec] = field(default_factory=list)
    attrs: list[tuple[str, list[str]]] = field(default_factory=list)  # self attribute -> ranked kinds
    missing_methods: list[str] = field(default_factory=list)
    examples: list[dict[str, str]] = field(default_factory=list)  # docstring example calls
    scales: dict[str, list[int]] = field(default_factory=dict)  # parameter -> scale constants
    lengths: dict[str, list[int]] = field(default_factory=dict)  # parameter -> lengths it is compared with
    multiples: dict[str, int] = field(default_factory=dict)  # parameter -> k of ``len(p) % k``
    chars: dict[str, list[tuple[int, str]]] = field(default_factory=dict)  # parameter -> (index, char) tested
    #: container parameter -> (index, text) its elements (a dict's keys) are tested for
    element_chars: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    #: parameter -> module constants it is compared with for equality (``tuple(arr) != HEADER``)
    likes: dict[str, list[str]] = field(default_factory=dict)
    #: lookups keyed by parameters: (container, key slots) (python_lookups)
    agreements: list[tuple[tuple[str, str], tuple, bool | str]] = field(default_factory=list)
    #: (parameter, mapping) where an element of the parameter is looked up (python_lookups)
    compositions: list[tuple[str, tuple[str, str]]] = field(default_factory=list)
    #: filters over another input's elements: (container, inputs, items, key, mode) (python_lookups)
    selections: list[tuple[tuple[str, str], list[str], str, str, str]] = field(default_factory=list)
    #: stub slots for names with no source -> ranked kinds (python_stubs)
    stubs: list[tuple[str, list[str]]] = field(default_factory=list)
    #: defaulted parameters the body rejects when left to their default (always given)
    required: list[str] = field(default_factory=list)
    #: parameters and ``self.x`` attributes the body compares with ``None``: ``None`` now and then
    nullable: list[str] = field(default_factory=list)
    #: parameters the body tests with ``isinstance`` -> the types tested: drawn as each of them
    #: now and then, and probed with a value of none of them
    typed: dict[str, list[str]] = field(default_factory=dict)
    #: names with no source only tested with ``isinstance`` (python_stubs ``Stubs.classes``)
    stub_classes: list[str] = field(default_factory=list)
    #: the returned function's parameters the code tests with ``isinstance`` -> the types tested
    returned_typed: dict[str, list[str]] = field(default_factory=dict)
    #: pairs of inputs compared for equality (python_evidence ``equalities``): made to meet
    equal: list[tuple[tuple[str, str | None], tuple[str, str | None]]] = field(default_factory=list)
    #: pairs of parameters whose lengths the body requires equal
    same_lengths: list[tuple[str, str]] = field(default_factory=list)
    #: the body handles missing values (python_evidence ``handles_missing``): tables and arrays
    #: drawn with gaps (NaN) in some cases
    gaps: bool = False
    #: the parameters of the function the golden builds and returns (a factory: ``return
    #: convert`` of a nested ``def convert(entry)``, or a lambda): each case calls it on drawn
    #: arguments, since the function object itself shows nothing; None: it returns no function
    returned: list[ParamSpec] | None = None
    #: the arguments of the command line the golden reads from ``sys.argv`` (python_cli), set
    #: before each call; None: it reads none
    argv: list | None = None


#: Kinds of float values that get gaps where the code handles missing values (tables and
#: Series get theirs from ``_bc_frame``/``_bc_series``).
_GAPPED_KINDS = frozenset({"ndarray1", "ndarray2", "ndarray3", "list_float"})

#: Calls of a returned function per case (each on fresh arguments).
RETURNED_CALLS = 3


def _stub_classes_tested(subject: Subject, typed: dict[str, list[str]], name: str) -> str:
    """The classes with no source that ``isinstance`` tests ``name`` for, as a tuple's items
    (``"A, B, "``), or ``""``. Why: a class only tested, never built, is ``class A: pass`` in the
    harness; no drawn value is one, so every branch the dispatch guards went untested."""
    held = [t for t in typed.get(name, ()) if t in subject.stub_classes]
    return "".join(f"{t}, " for t in held)


def _returned_lines(subject: Subject) -> list[str]:
    """Harness lines calling the function the golden returned (``_bc_made``) on drawn arguments,
    ``RETURNED_CALLS`` times: its values (or its exceptions' types) are the case's output. An
    argument the function tests with ``isinstance`` against a class with no source is an
    instance of it now and then (``_bc_reclass``)."""
    params = subject.returned or []

    def value(p: ParamSpec) -> str:
        held = _stub_classes_tested(subject, subject.returned_typed, p.name)
        expr = kind_expr(p.kinds[0])
        return f"_bc_reclass(_r, {expr}, ({held}))" if held else expr

    args = ", ".join(value(p) for p in params if not p.kw_only)
    kwargs = ", ".join(f"{p.name!r}: {value(p)}" for p in params if p.kw_only and not p.has_default)
    return [
        "if callable(_bc_made):",
        f"    for _bc_k in range({RETURNED_CALLS}):",
        "        try:",
        f"            _bc_print('returned function: ', _bc_made(*[{args}], **{{{kwargs}}}))",
        "        except Exception as _bc_e:",
        "            print('returned function raises: ' + type(_bc_e).__name__)",
    ]


def _own_nodes(func: ast.AST):
    """The nodes of ``func``'s body outside the functions and lambdas defined in it."""
    todo = list(ast.iter_child_nodes(func))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))


def returned_function(func: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.FunctionDef | None:
    """The function ``func`` defines and returns (``def convert(entry): ...; return convert``,
    ``return lambda x: x > cutoff``) as a definition, or None. Why: a factory's result is a
    function object, the same in every case; what the golden computes shows only when that
    function is called, so the harness calls it."""
    defined = {n.name: n for n in func.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for node in _own_nodes(func):
        if not isinstance(node, ast.Return) or node.value is None:
            continue
        if isinstance(node.value, ast.Name) and node.value.id in defined:
            inner = defined[node.value.id]
            return inner if isinstance(inner, ast.FunctionDef) else None
        if isinstance(node.value, ast.Lambda):
            lam = node.value
            return ast.fix_missing_locations(
                ast.FunctionDef(
                    name="_bc_lambda",
                    args=lam.args,
                    body=[ast.Return(value=lam.body)],
                    decorator_list=[],
                    returns=None,
                    type_params=[],
                )
            )
    return None


def analyse(
    golden: str,
    function_name: str,
    repo_dir=None,
    class_name: str | None = None,
    class_members=(),
    helper_sources=(),
    inherited=(),
) -> Subject:
    """Parse the golden and infer its parameters (and ``self`` attributes for methods).

    ``helper_sources``: the sliced definitions (what a parameter may be passed on to: a parser
    helper's markers say which file format the parameter holds).
    ``inherited``: methods the class gets from its sliced bases (not stubbed).
    """
    tree = py3_idioms(pyast.parse(golden))  # ``iteritems(d)`` read as ``d.items()``
    func, _ = find_function(tree, function_name)
    if func is None:
        raise ValueError(f"golden code does not define {function_name!r}")
    decos = {ast.unparse(d) for d in func.decorator_list}
    args = list(func.args.posonlyargs) + list(func.args.args)
    first = args[0].arg if args else None
    method = None
    if "property" in decos or any(d.endswith(".setter") for d in decos):
        method = "property"
    elif "staticmethod" in decos:
        method = "static"
    elif "classmethod" in decos or first == "cls":
        method = "class"
    elif first == "self":
        method = "instance"
    subject = Subject(
        function_name=function_name, func=func, method=method, class_name=class_name or "_BCSubject"
    )
    keyed = keys_from_defaults(func)  # ``x[p]`` with ``p='ATOM'`` analysed as ``x['ATOM']``
    helpers = helper_index([*helper_sources, *class_members])
    subject.params = infer_params(
        keyed, repo_dir, skip_first=method in ("instance", "property", "class"), helpers=helpers
    )
    names = [p.name for p in subject.params if not p.kw_only and not p.star]
    subject.examples = doc_examples(func, names)
    subject.examples += [
        e for e in callsite_examples(repo_dir, function_name, names, func) if e not in subject.examples
    ]

    forwarded: dict[str, list] = {}

    def forwards(name: str) -> list:
        """The helpers' parameters ``name`` is passed on to, found once per parameter."""
        if name not in forwarded:
            forwarded[name] = forwarded_params(func, name, helpers)
        return forwarded[name]

    def constants(reader):
        """``reader``'s constants per parameter: from the body, else from the first helper the
        parameter is passed on to that has some (``len(seq) % 3`` in the parser it forwards to)."""
        out = {}
        for p in subject.params:
            got = reader(func, p.name)
            for callee, arg, _ in [] if got else forwards(p.name):
                got = reader(callee, arg.arg)
                if got:
                    break
            if got:
                out[p.name] = got
        return out

    subject.scales = constants(scale_constants)
    subject.lengths = constants(length_constants)
    subject.multiples = constants(length_multiple)
    subject.chars = constants(char_constants)
    subject.element_chars = constants(element_char_constants)
    subject.likes = constants(compared_constants)
    subject.required = required_defaults(func, [p.name for p in subject.params if p.has_default])
    subject.typed = type_checked(func, [p.name for p in subject.params])
    subject.equal = equalities(
        func,
        [p.name for p in subject.params],
        (first or "self") if method in ("instance", "property") else None,
    )
    subject.nullable = none_checked(
        func,
        [p.name for p in subject.params],
        (first or "self") if method in ("instance", "property") else None,
    )
    subject.same_lengths = equal_lengths(func, [p.name for p in subject.params])
    subject.gaps = handles_missing(func)
    subject.argv = python_cli.argv_spec(func)
    inner = returned_function(func)
    if inner is not None:
        subject.returned = [
            p for p in infer_params(inner, repo_dir, helpers=helpers) if p.kinds and not p.star
        ]
        subject.returned_typed = type_checked(inner, [p.name for p in subject.returned])
    subject.agreements, subject.compositions = python_lookups.lookups(
        func,
        [p.name for p in subject.params],
        (first or "self") if method in ("instance", "property", "class") else None,
        [*helper_sources, *class_members],
    )
    subject.selections = python_lookups.selections(
        func,
        [p.name for p in subject.params],
        (first or "self") if method in ("instance", "property") else None,
    )
    if method in ("instance", "property", "class"):
        self_name = first or "self"
        data, methods = self_attributes(func, self_name)
        provided = set()
        for member in class_members:
            try:
                node = pyast.parse(member).body[0]
            except (SyntaxError, IndexError):
                continue
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                provided.add(node.name)
            elif isinstance(node, ast.Assign):
                provided.update(t.id for t in node.targets if isinstance(t, ast.Name))
        provided.add(function_name)  # a method calling itself recursively
        provided.update(inherited)
        # ``self.__class__(...)``: every object has it (a stub there cannot even be assigned)
        missing = [
            m for m in methods if m not in provided and not (m.startswith("__") and hasattr(object, m))
        ]
        # A method of the class with no source here is stubbed: its return value becomes one more
        # generated input, typed from how the golden uses the call (``self.wants_objects()`` -> bool).
        for m in missing:
            target = f"_bc_call_{m.lstrip('_')}"
            stubbed = _CallToName(self_name, m, target).visit(copy.deepcopy(func))
            votes = usage_votes(stubbed, target)
            kinds = refine_kinds(stubbed, target, rank_kinds(m.removeprefix("get_"), votes), votes)
            subject.attrs.append((m, ["stub:" + k for k in kinds[:3]]))
        # Helper methods sliced in read fields too; the instance needs those as well.
        member_nodes: list[ast.AST] = []
        for member in class_members:
            try:
                node = pyast.parse(member).body[0]
            except (SyntaxError, IndexError):
                continue
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                member_nodes.append(node)
                more, _ = self_attributes(node, self_name)
                data += [a for a in more if a not in data]
        # A field is typed by its use in the golden *and* in the sliced members: ``__iter__`` returning
        # ``iter(self.tips)`` says ``tips`` is a sequence even when the golden only loops over ``self``.
        scope = ast.Module(body=[keyed, *member_nodes], type_ignores=[])
        aliases = _property_aliases(member_nodes, self_name)
        for attr in data:
            if attr in provided:
                continue
            votes = used_votes(keyed, f"{self_name}.{attr}", helpers)
            if not votes and attr in aliases:
                # read through a property (``df`` returning ``self._df``): the golden's use of the
                # property types the field
                target = f"{self_name}.{aliases[attr]}"
                votes = usage_votes(keyed, target)
                if votes:
                    subject.attrs.append((attr, refine_kinds(keyed, target, rank_kinds(attr, votes), votes)))
                    continue
            if not votes and member_nodes:
                votes = usage_votes(scope, f"{self_name}.{attr}")
                subject.attrs.append(
                    (attr, refine_kinds(scope, f"{self_name}.{attr}", rank_kinds(attr, votes), votes))
                )
                continue
            # a field the sliced members read too is typed with their reads beside the golden's
            # (``self._first_offset(pos)`` reads ``self.index.offsets``, which the golden's own
            # ``self.index.blocks`` never showed: the drawn object lacked it, and raised)
            shared = member_nodes and any(sub_attributes(m, f"{self_name}.{attr}") for m in member_nodes)
            where = scope if shared else keyed
            subject.attrs.append(
                (attr, refine_kinds(where, f"{self_name}.{attr}", rank_kinds(attr, votes), votes))
            )
        for attr, _ in subject.attrs:  # ``self._line.startswith('#CHROM')``: a field tested so (round 22)
            tested = char_constants(func, f"{self_name}.{attr}")
            if tested:
                subject.chars[f"self.{attr}"] = tested
            # ``algo = self.threshold_algorithm; if algo == centrosome.threshold.TM_OTSU``: a
            # field compared with named constants is sometimes one of them (round 26)
            named = compared_constants(func, f"{self_name}.{attr}")
            if named:
                subject.likes[f"self.{attr}"] = named
    return subject


def _property_aliases(members: list[ast.AST], self_name: str) -> dict[str, str]:
    """Field -> property for sliced properties whose body is just ``return self.field``."""
    out: dict[str, str] = {}
    for node in members:
        if not isinstance(node, ast.FunctionDef) or "property" not in {
            ast.unparse(d) for d in node.decorator_list
        }:
            continue
        body = [b for b in node.body if not (isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant))]
        if len(body) == 1 and isinstance(body[0], ast.Return):
            v = body[0].value
            if isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) and v.value.id == self_name:
                out.setdefault(v.attr, node.name)
    return out


class _CallToName(ast.NodeTransformer):
    """``self.m(...)`` -> the name ``target``: the call's result analysed like a variable."""

    def __init__(self, self_name: str, method: str, target: str):
        self.self_name, self.method, self.target = self_name, method, target

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        f = node.func
        if (
            isinstance(f, ast.Attribute)
            and f.attr == self.method
            and isinstance(f.value, ast.Name)
            and f.value.id == self.self_name
        ):
            return ast.copy_location(ast.Name(id=self.target, ctx=ast.Load()), node)
        return node


def _alt(kinds: list[str], rank: int) -> str:
    """The ``rank``-th choice, except where the first is certain (a class tested with ``isinstance``)."""
    if kinds and kinds[0] == "a_type":
        return kinds[0]
    return kinds[min(rank, len(kinds) - 1)]


def plans(subject: Subject, limit: int = 4) -> list[Plan]:
    """Generator plans to try, best guess first (see module docstring of python_inputs)."""
    out: list[Plan] = []
    seen: set[str] = set()

    def add(args, attrs, label, stubs=None):
        p = Plan(args=args, attrs=attrs, label=label, stubs=stubs if stubs is not None else stubs0)
        key = repr(p.describe())
        if key not in seen:
            seen.add(key)
            out.append(p)

    attrs0 = [(a, ks[0]) for a, ks in subject.attrs]
    stubs0 = [(s, ks[0]) for s, ks in subject.stubs]
    add([(p, p.kinds[0]) for p in subject.params], attrs0, "best guess")
    # the fallback a golden that hangs or fails on probes and varied defaults still gets
    p = Plan(
        args=[(p, None if p.has_default else p.kinds[0]) for p in subject.params],
        attrs=attrs0,
        label="defaults kept",
        explore=False,
        stubs=stubs0,
    )
    if repr(p.describe()) not in seen:
        seen.add(repr(p.describe()))
        out.append(p)
    if len(subject.examples) >= 2:
        # real inputs (the repository's tests, docstrings) for code random values cannot feed: a
        # parser of VCF lines, a tree reader; the gates still decide whether that tests enough
        p = Plan(
            args=[(p, p.kinds[0]) for p in subject.params],
            attrs=attrs0,
            label="examples",
            example_rate=0.9,
            stubs=stubs0,
        )
        if repr(p.describe()) not in seen:
            seen.add(repr(p.describe()))
            out.insert(1, p)
    for rank in (1, 2):
        add(
            [(p, _alt(p.kinds, rank)) for p in subject.params],
            [(a, _alt(ks, rank)) for a, ks in subject.attrs],
            f"alternative {rank}",
            [(st, _alt(ks, rank)) for st, ks in subject.stubs],
        )
    return out[:limit]


def _mangle(attr: str, class_name: str) -> str:
    """The name Python gives ``self.__x`` inside class ``class_name`` (the harness sets it from outside)."""
    if attr.startswith("__") and not attr.endswith("__"):
        return f"_{class_name.lstrip('_')}{attr}"
    return attr


def _replaced_args(
    order: list[tuple[str, str, bool]], positional: list[str], pos: int, value: str
) -> tuple[str, str]:
    """Sources of the positional list and keyword dict of the call with argument ``pos`` set to ``value``.

    Shared by the probe and the boundary sweep: a keyword argument is overridden in a copy of
    ``_bc_kw`` (and so passed even where the case left it to its default), a positional one
    replaced in place.
    """
    pname, var, kw = order[pos]
    if kw:
        return ", ".join(positional), f"dict(_bc_kw, **{{{pname!r}: {value}}})"
    k = positional.index(var) if var in positional else positional.index(f"*{var}")
    return ", ".join([*positional[:k], value, *positional[k + 1 :]]), "dict(_bc_kw)"


def _sweep_lines(
    sweeps: list[tuple[int, list[int]]],
    order: list[tuple[str, str, bool]],
    positional: list[str],
    target: str,
) -> list[str]:
    """Lines of the boundary sweep: one bounded argument at c - 1, c and c + 1 of one constant.

    A random draw lands on exactly ``c`` of ``if offset >= 2 ** 48`` too rarely for ten cases to
    tell ``>=`` from ``>``; the sweep does it in every case it picks that constant, and it does not
    crowd the main call, which keeps its own rate of valid values. Its lines are probe lines (an
    exception is expected there and its type compared; validation does not count it as a golden
    error, nor as the output varying with the input).
    """
    lines = [f"_bc_which = _r.randrange({len(sweeps)})"]
    for j, (pos, consts) in enumerate(sweeps):
        args, kwargs = _replaced_args(order, positional, pos, "_bc_c + _bc_d")
        lines.append(f"{'if' if j == 0 else 'elif'} _bc_which == {j}:")
        lines.append(f"    _bc_c = _r.choice({consts!r})")
        lines.append("    for _bc_d in (-1, 0, 1):")
        lines.append("        try:")
        lines.append(f"            _bc_print('probe boundary: ', {target}(*[{args}], **{kwargs}))")
        lines.append("        except (Exception, SystemExit) as _bc_e:")
        lines.append(f"            print({PROBE_EXCEPTION_PREFIX!r} + type(_bc_e).__name__)")
    return lines


def _container_expr(subject: Subject, ref: tuple[str, str], variables: dict[str, str]) -> str | None:
    """The harness expression of a lookup's container (python_lookups), None where there is none."""
    what, name = ref
    if what == "param":
        root, *rest = name.split(".")
        expr = variables.get(root)
    elif what == "attr":
        first, *rest = name.split(".")
        if subject.method in ("instance", "property"):
            expr = f"_bc_field(_bc_obj, {_mangle(first, subject.class_name)!r})"
        elif subject.method in ("static", "class"):
            expr = f"_bc_field({subject.class_name}, {first!r})"
        else:
            return None
    else:
        return f"globals().get({name!r})"
    for attr in rest:  # ``self.index_file.indices``: each level read the same forgiving way
        expr = f"_bc_field({expr}, {attr!r})" if expr is not None else None
    return expr


def _equality_lines(subject: Subject, variables: dict[str, str]) -> list[str]:
    """``a.x == b.y``: in some cases the two made equal, or the scalar side set to an element of
    the other when that is a collection compared elementwise (``series == label``, ``_bc_meet``)."""
    instance = subject.method in ("instance", "property")

    def place(side: tuple[str, str | None]) -> tuple[str, str | None] | None:
        root, attr = side
        if root == "self":
            return ("_bc_obj", _mangle(attr, subject.class_name)) if instance and attr else None
        return (variables[root], attr) if root in variables else None

    lines: list[str] = []
    for left, right in subject.equal:
        src, dst = place(left), place(right)
        if src is None or dst is None:
            continue
        if dst[1] and dst[1].startswith("["):  # the item first: two scalars meet at its value
            src, dst = dst, src
        a, b = (
            (f"_bc_item({v}, {at[1:]})" if at.startswith("[") else f"_bc_field({v}, {at!r})") if at else v
            for v, at in (src, dst)
        )
        lines.append("if _bc_ex is None:")
        lines.append(f"    _bc_ea, _bc_eb = _bc_meet(_r, {a}, {b})")
        for (var, attr), new in ((src, "_bc_ea"), (dst, "_bc_eb")):
            if attr and attr.startswith("["):
                continue  # an item (``df['gene']``) is read, the other side set to meet it
            if attr:
                lines.append("    try:")
                lines.append(f"        setattr({var}, {attr!r}, {new})")
                lines.append("    except Exception:")
                lines.append("        pass")
            else:
                lines.append(f"    {var} = {new}")
    return lines


def _agreement_lines(subject: Subject, variables: dict[str, str]) -> list[str]:
    """Lines that rebuild arguments from the keys of what the code looks them up in
    (python_lookups): example calls are left as written."""
    lines: list[str] = []
    for pname, ref in subject.compositions:
        expr = _container_expr(subject, ref, variables)
        if pname in variables and expr is not None and expr != variables[pname]:
            var = variables[pname]
            lines.append(f"if _bc_ex is None: {var} = _bc_compose(_r, {var}, {expr})")
    kept = []
    slot_vars = dict(variables)
    for ref, slots, nested in subject.agreements:
        expr = _container_expr(subject, ref, variables)
        for s in slots:  # ``P['key']``: that item of the mapping parameter P (round 31)
            base, bracket, key = str(s[1]).partition("[")
            if s[0] == "var" and bracket and base in variables:
                slot_vars[s[1]] = f"{variables[base]}[{key}"
        if expr is not None and all(s[0] != "var" or s[1] in slot_vars for s in slots):
            kept.append((expr, slots, nested))
    if kept:
        names = sorted({s[1] for _, slots, _ in kept for s in slots if s[0] == "var"})
        items = [n for n in names if n not in variables]
        table = "[" + ", ".join(f"({expr}, {slots!r}, {nested!r})" for expr, slots, nested in kept) + "]"
        lines.append("if _bc_ex is None:")
        pad = "    "
        if items:  # an item may be missing, or its mapping no mapping, in some cases
            lines.append("    try:")
            pad = "        "
        values = "{" + ", ".join(f"{n!r}: {slot_vars[n]}" for n in names) + "}"
        lines.append(f"{pad}_bc_v = _bc_agree(_r, {values}, {table})")
        lines += [f"{pad}{slot_vars[n]} = _bc_v[{n!r}]" for n in names]
        if items:
            lines += ["    except Exception:", "        pass"]
    instance = subject.method in ("instance", "property")
    params = {p.name for p in subject.params}
    for (what, name), inputs, items, key, mode in subject.selections:
        args = []
        for n in inputs:
            if n in variables:
                args.append(variables[n])
            elif instance and n not in params:
                args.append("_bc_obj")  # the method's self
            else:
                break
        else:
            if what == "param" and name in variables:
                var = variables[name]
                lines.append(
                    f"if _bc_ex is None: {var} = _bc_select(_r, {var}, _bc_try_items(({items}), {', '.join(args)}), {key}, {mode!r})"
                )
            elif what == "attr" and instance:
                field_ = _mangle(name, subject.class_name)
                lines += [
                    "if _bc_ex is None:",
                    "    try:",
                    f"        _bc_obj.{field_} = _bc_select(_r, _bc_obj.{field_}, _bc_try_items(({items}), {', '.join(args)}), {key}, {mode!r})",
                    "    except Exception:",
                    "        pass",
                ]
    return lines


def _construct_lines(
    class_name: str, construct: list[tuple[ParamSpec, str]], examples: list[dict[str, str]]
) -> list[str]:
    """``_bc_obj = Cls(...)``: a repository call's literals in most cases (when there are any),
    else required parameters generated and defaulted ones by keyword in about half the cases."""
    if examples:
        out = [f"_bc_cex = _r.choice({examples!r}) if _r.random() < {CONSTRUCT_EXAMPLE_RATE} else None"]
    else:
        out = ["_bc_cex = None"]
    out.append("_bc_ckw = {}")
    for p, kind in construct:
        given = f"eval(_bc_cex[{p.name!r}]) if _bc_cex is not None and {p.name!r} in _bc_cex else {kind_expr(kind)}"
        if p.has_default:
            out.append(f"if ({p.name!r} in _bc_cex) if _bc_cex is not None else _r.random() < 0.5:")
            out.append(f"    _bc_ckw[{p.name!r}] = {given}")
        else:
            out.append(f"_bc_ckw[{p.name!r}] = {given}")
    # a constructor that rejects the generated values counts like a golden exception (gate 1)
    out.append("try:")
    out.append(f"    _bc_obj = {class_name}(**_bc_ckw)")
    out.append("except Exception as _bc_e:")
    out += _retry_lines()
    out.append("    return")
    return out


def _retry_lines() -> list[str]:
    """The body of an attempt's ``except``: the exception's type as a retry line and the next
    attempt, or, on the last attempt, as the case's exception (the golden-error gate counts those)."""
    return [
        f"    if _bc_try < {ATTEMPTS - 1}:",
        f"        print({RETRY_PREFIX!r} + type(_bc_e).__name__)",
        "        continue",
        "    _bc_diag(_bc_e)",
        f"    print({EXCEPTION_PREFIX!r} + type(_bc_e).__name__)",
    ]


def render(subject: Subject, sl: Slice, plan: Plan) -> str:
    """The complete harness program for one plan."""
    lines: list[str] = [
        "# harness synthesized by biocoder-eval (biocoder_metric.synth), see docs/synthesis.md"
    ]
    # Annotations stay unevaluated: the reference image runs Python 3.9, where repository code
    # written for 3.10+ (``x: int | None``) would fail at definition time over a type hint.
    lines.append("from __future__ import annotations")
    lines += sl.imports
    lines.append(PRELUDE.strip("\n"))
    lines.append("")
    if plan.stubs:  # names with no source (python_stubs): functions of their arguments
        lines.append(python_stubs.PRELUDE.strip("\n"))
        lines.append("")
        lines += python_stubs.module_lines([s for s, _ in plan.stubs])
        lines += python_stubs.init_lines(plan.stubs, kind_expr)
        lines.append("")
    lines += [d.rstrip() + "\n" for d in sl.definitions]
    if subject.method:
        bases = f"({', '.join(sl.class_bases)})" if sl.class_bases else ""
        lines.append(f"class {subject.class_name}{bases}:")
        for member in sl.class_members:
            lines += ["    " + ln if ln.strip() else "" for ln in member.splitlines()]
        lines.append(f"    {INSERT_MARKER}")
    else:
        lines.append(INSERT_MARKER)
    lines.append("")
    lines.append("")
    lines.append("def _bc_main():")
    body = [
        f"_r = _bc_random.Random({SEED_PLACEHOLDER})",
        "_bc_random.seed(_r.randint(0, 2 ** 31 - 1))",
        "_bc_n, _bc_h, _bc_w = _r.randint(5, 20), _r.randint(3, 10), _r.randint(3, 10)",
    ]
    if plan.square:
        body.append("_bc_n = _bc_h = _bc_w = _r.randint(3, 12)")
    if any(
        imp.split()[1].split(".")[0] == "numpy" for imp in sl.imports if imp.startswith(("import ", "from "))
    ):
        body.append("import numpy as _bc_numpy")
        body.append("_bc_numpy.random.seed(_r.randint(0, 2 ** 31 - 1))")
    if plan.stubs:
        body += python_stubs.maker_lines(plan.stubs, kind_expr)
    shown: list[tuple[str, str]] = []
    positional: list[str] = []
    keywords: list[tuple[str, str, str]] = []  # (parameter, variable, condition for passing it)
    probes: list[tuple[int, str]] = []  # (argument position in ``order``, invalid expression)
    sweeps: list[tuple[int, list[int]]] = []  # (argument position in ``order``, its boundary constants)
    order: list[tuple[str, str, bool]] = []  # (parameter, variable, by keyword)
    examples = subject.examples if plan.explore else []
    start = len(body)  # the lines of one attempt (inputs drawn, then the call) start here
    if plan.stubs:
        body += python_stubs.attempt_lines(plan.stubs)
    if subject.argv is not None:  # the command line the golden parses itself (python_cli)
        body.append(f"__import__('sys').argv = ['prog'] + _bc_cli(_r, {subject.argv!r})")
    if subject.gaps and plan.explore:  # half the cases have gaps in their tables and arrays
        body.append("_bc_gap[0] = _r.random() < 0.5")
    if examples:
        body.append(
            f"_bc_ex = _r.choice({examples!r}) if _bc_try == 0 and _r.random() < {plan.example_rate} else None"
        )
    else:
        body.append("_bc_ex = None")
    if subject.method in ("instance", "property") and plan.construct is not None:
        # built first: an argument may be one of the objects it holds (``member:`` kinds)
        body += _construct_lines(
            plan.construct_callee or subject.class_name, plan.construct, plan.construct_examples
        )
    omitted = False  # positional arguments after an omitted default must become keywords
    # boundary values often sit on an error path (c + 1 of ``if n >= c: raise``): shared among the
    # parameters that have them, so about one per call is at a boundary and most calls stay valid
    bounded = {
        p.name
        for p, kind in plan.args
        if plan.explore and kind and kind.startswith("int") and p.name in subject.scales
    }
    near_rate = round(BOUNDARY_RATE / max(1, len(bounded)), 3)
    has_star = any(p.star for p, _ in plan.args)
    for i, (p, kind) in enumerate(plan.args):
        var = f"_bc_a{i}"
        if kind is None:
            omitted = True
            continue
        expr = kind_expr(kind)
        if subject.gaps and plan.explore and kind in _GAPPED_KINDS:
            expr = f"_bc_holes(_r, {expr})"
        consts = subject.scales[p.name] if p.name in bounded else None
        if consts:
            expr = f"_bc_near(_r, {consts!r}, lambda: {expr}, {near_rate})"
        plain = kind.startswith(("str_", "list_"))  # not records of a format: resizing would break them
        for tested, kinds, planter in (
            (subject.chars, ("str_", "text:", "struct:", "choice:"), "_bc_plant"),  # the string
            (subject.element_chars, ("list_", "dict_", "set_", "tuple_"), "_bc_plant_each"),  # its elements
        ):
            chars = tested.get(p.name) if plan.explore and kind.startswith(kinds) else None
            if chars:
                expr = f"{planter}(_r, {expr}, {chars!r})"
        lengths = subject.lengths.get(p.name) if plan.explore and plain else None
        if lengths:
            expr = f"_bc_resize(_r, {expr}, {lengths!r})"
        multiple = subject.multiples.get(p.name) if plan.explore and plain else None
        if multiple:
            expr = f"_bc_multiple(_r, {expr}, {multiple})"
        likes = subject.likes.get(p.name) if plan.explore else None
        if likes:  # read when the case runs: a constant with no source leaves the value as drawn
            expr = f"_bc_like(_r, {expr}, lambda: [{', '.join(likes)}])"
        # last, over what the helpers above shaped (they expect the drawn type):
        retypes = [t for t in subject.typed.get(p.name, ()) if t in RETYPES]
        if plan.explore and len(retypes) > 1:  # a dispatch on two or more types: each gets values
            expr = f"_bc_retype(_r, {expr}, {tuple(retypes)!r})"
        held = _stub_classes_tested(subject, subject.typed, p.name)
        if plan.explore and held:  # ``isinstance(entry, BaseReactionEntry)`` of a class with no source
            expr = f"_bc_reclass(_r, {expr}, ({held}))"
        if plan.explore and p.name in subject.nullable and not (p.has_default and p.default_src == "None"):
            # ``if charmap is None:`` has a path no drawn value reaches (a ``None`` default
            # already shows whenever the parameter is left out)
            expr = _nullable(expr)
        # an example's literal is evaluated fresh per case: mutating it cannot leak into the next case
        value = f"(eval(_bc_ex[{p.name!r}]) if _bc_ex is not None and {p.name!r} in _bc_ex else {expr})"
        # with ``*args``, a parameter before it is always positional (by keyword it would clash)
        by_keyword = p.kw_only or ((omitted or (p.has_default and plan.explore)) and not has_star)
        if p.has_default and plan.explore and by_keyword:
            # a defaulted parameter: given by keyword in about half the cases, left out otherwise,
            # so a changed default shows (an example call decides for itself); one the body rejects
            # when left to its default (``assert cols is not None``) is always given
            coin = "True" if p.name in subject.required else "_r.random() < 0.5"
            body.append(f"_bc_give{i} = ({p.name!r} in _bc_ex) if _bc_ex is not None else {coin}")
            body.append(f"{var} = {value} if _bc_give{i} else None")
        else:
            body.append(f"{var} = {value}")
        order.append((p.name, var, by_keyword))
        if by_keyword:
            keywords.append((p.name, var, f"_bc_give{i}" if p.has_default and plan.explore else "True"))
        else:
            positional.append(f"*{var}" if p.star else var)
        if kind.startswith(
            (
                "list",
                "vocab_list",
                "dict",
                "set",
                "ndarray",
                "frame",
                "series",
                "obj",
                "ctor",
                "fmt:lines",
                "tuplelist",
                "dictlist",
                "dictkeys",
                "handle_out",
            )
        ):
            shown.append((p.name, var))
        bad = invalid_expr(kind) if plan.explore else None
        if plan.explore and p.name in subject.typed and not kind.startswith(("default:", "none")):
            # ``else: raise TypeError(...)`` after the type tests: a value of none of the types
            bad = f"_r.choice([{bad}, None])" if bad else "None"
        if bad:
            probes.append((len(order) - 1, bad))
        if consts:
            sweeps.append((len(order) - 1, consts))
    name = _mangle(subject.function_name, subject.class_name) if subject.method else subject.function_name
    if subject.method in ("instance", "property") and plan.construct is None:
        body.append(f"_bc_obj = {subject.class_name}.__new__({subject.class_name})")
    if subject.method in ("instance", "property"):
        for attr, kind in plan.attrs:
            field_ = _mangle(attr, subject.class_name)
            if plan.construct is not None:
                # a built object's own attributes stay its own: ``self.shape`` delegated to the
                # array it wraps, a class constant, a field a base's ``__init__`` set. Only what
                # it lacks is generated (a generated ``shape`` breaks the object it describes)
                body.append("try:")
                body.append(f"    _bc_obj.{field_}")
                body.append("except Exception:")
                body.append(f"    _bc_obj.{field_} = {kind_expr(kind)}")
            else:
                expr = kind_expr(kind)
                chars = subject.chars.get(f"self.{attr}") if plan.explore else None
                if chars and kind.startswith(("str_", "text:", "struct:", "choice:")):
                    expr = f"_bc_plant(_r, {expr}, {chars!r})"  # the field's tested prefix, in most cases
                likes = subject.likes.get(f"self.{attr}") if plan.explore else None
                if likes:
                    expr = f"_bc_like(_r, {expr}, lambda: [{', '.join(likes)}])"
                if plan.explore and f"self.{attr}" in subject.nullable:
                    expr = _nullable(expr)  # ``if self.path is None: raise ...``
                body.append(f"_bc_obj.{field_} = {expr}")
    if plan.explore:
        # every input exists now: make the ones the code looks up in each other agree
        body += _agreement_lines(subject, {p: v for p, v, _ in order})
        body += _equality_lines(subject, {p: v for p, v, _ in order})
        variables = {p: v for p, v, _ in order}
        for a, b in subject.same_lengths:  # ``assert len(a) == len(b)``: equal in most cases
            if a in variables and b in variables:
                va, vb = variables[a], variables[b]
                body.append(f"if _bc_ex is None and _r.random() < 0.9: {vb} = _bc_same_len({vb}, {va})")
    body.append("_bc_kw = {}")
    for pname, var, cond in keywords:
        if cond == "True":
            body.append(f"_bc_kw[{pname!r}] = {var}")
        else:
            body.append(f"if {cond}:")
            body.append(f"    _bc_kw[{pname!r}] = {var}")
    arglist = ", ".join(positional + ["**_bc_kw"])
    if subject.method in ("instance", "property"):
        target = f"_bc_obj.{name}"
    elif subject.method in ("static", "class"):
        target = f"{subject.class_name}.{name}"
    else:
        target = name
    call = target if subject.method == "property" else f"{target}({arglist})"
    body.append("try:")
    if subject.returned is not None:
        body.append(f"    _bc_made = {call}")
        body.append("    _bc_print('result: ', _bc_made)")
    else:
        body.append(f"    _bc_print('result: ', {call})")
    # ``sys.exit(1)`` on bad input is the code's error path like an exception (round 26: it
    # ended the case, and the whole harness was rejected as a golden that fails)
    body.append("except (Exception, SystemExit) as _bc_e:")
    body += _retry_lines()
    body.append("break")
    # inputs the golden rejects are drawn again, up to ATTEMPTS times: each rejection's exception
    # type is printed (compared like any output), so a candidate must reject the same draws
    made = ["_bc_made = None"] if subject.returned is not None else []  # set even if every draw fails
    body = [*body[:start], *made, f"for _bc_try in range({ATTEMPTS}):", *("    " + b for b in body[start:])]
    if subject.returned is not None:
        body += _returned_lines(subject)
    for pname, var in shown:
        body.append(f"_bc_print('after {pname}: ', {var})")
    if subject.method in ("instance", "property"):
        body.append("_bc_print('after self: ', {k: v for k, v in vars(_bc_obj).items()})")
    if probes and subject.method != "property":
        # one argument replaced by an invalid value: the error paths (the exception type is compared)
        body.append(f"if _r.random() < {PROBE_RATE}:")
        body.append(f"    _bc_which = _r.randrange({len(probes)})")
        for j, (pos, bad) in enumerate(probes):
            args, kwargs = _replaced_args(order, positional, pos, bad)
            body.append(f"    {'if' if j == 0 else 'elif'} _bc_which == {j}:")
            body.append(f"        _bc_pargs, _bc_pkw = [{args}], {kwargs}")
        body.append("    try:")
        body.append(f"        _bc_print('probe: ', {target}(*_bc_pargs, **_bc_pkw))")
        body.append("    except (Exception, SystemExit) as _bc_e:")
        body.append(f"        print({PROBE_EXCEPTION_PREFIX!r} + type(_bc_e).__name__)")
    if sweeps and subject.method != "property":
        body += _sweep_lines(sweeps, order, positional, target)
    body.append("_bc_print_files()")
    lines += ["    " + b for b in body]
    lines.append("")
    lines.append("")
    lines.append('if __name__ == "__main__":')
    lines.append("    _bc_main()")
    return "\n".join(lines) + "\n"
