"""What a path argument's file must hold, from how the function reads it.

A parameter that is a path gets a temporary file. What goes in it decides whether the golden
gets past its first line: ``splt = line.strip().split('\\t'); pos = int(splt[1])`` raises on a
file of words, and ``if 'variant' not in table.columns: raise`` raises on a table without that
column. A human tester writes the file the reader expects. This module reads the reader:

* **Lines.** ``for line in open(P)``, ``with open(P) as fh: for line in fh``, ``fh.readlines()``,
  ``fh.read().splitlines()``, ``csv.reader(fh, delimiter=...)``: the separator each line is split
  on, how many fields the code indexes or unpacks, and which of them it converts with ``int()``
  or ``float()``. The file gets 1 to 6 such lines.
* **Tables.** ``pandas.read_csv(P, sep=...)`` / ``read_table(P)``: the columns the code indexes
  or tests for (``df['depth']``, ``'variant' in df.columns``), written with that separator and a
  header.

Nothing here decides *whether* a parameter is a path (python_inputs does); only what its file
holds. A reader this module does not recognise keeps the plain file kinds.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from biocoder_metric import pyast
from biocoder_metric.synth.python_text import regex_samples, split_separator

#: Calls that open a file for reading with the path as first argument.
_OPENERS = frozenset({"open"})
_OPENER_MODULES = frozenset({"gzip", "io", "codecs", "bz2"})
#: String methods a line goes through before it is split (``line.strip().split('\t')``).
_LINE_METHODS = frozenset({"strip", "rstrip", "lstrip", "lower", "upper", "replace", "decode"})
#: Conversions of a field to a number, and the field type each asks for.
_CONVERTERS = {"int": "int", "float": "float", "Decimal": "float", "Fraction": "int"}
#: Fields written when the code indexes none (``parts = line.split()`` passed on whole).
DEFAULT_FIELDS = 4
#: Most fields a line gets (a constant index far out is not a column count).
MAX_FIELDS = 24


def _is_name(node: ast.AST, names: set[str]) -> bool:
    return isinstance(node, ast.Name) and node.id in names


def _stem_of(node: ast.AST, target: str) -> bool:
    """``target``, or ``target`` with an ending taken off (``fn.replace('.snp.strand', '')``,
    ``os.path.splitext(fn)[0]``): the same path for a prefix drawn without one, so ``stem +
    '.log'`` is a companion file of the prefix too (round 32)."""
    if _is_name(node, {target}):
        return True
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "replace"
        and _is_name(node.func.value, {target})
        and len(node.args) == 2
        and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.args)
        and re.fullmatch(r"(\.[A-Za-z]\w*)+", node.args[0].value)
        and node.args[1].value == ""
    ):
        return True
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.slice, ast.Constant)
        and node.slice.value == 0
        and isinstance(node.value, ast.Call)
        and pyast.callee_name(node.value.func) == "splitext"
        and len(node.value.args) == 1
        and _is_name(node.value.args[0], {target})
    )


def _opens(node: ast.AST, target: str) -> bool:
    """``open(target, ...)`` (or ``gzip.open`` ...) for reading."""
    if not (isinstance(node, ast.Call) and node.args and _is_name(node.args[0], {target})):
        return False
    f = node.func
    if not (
        (isinstance(f, ast.Name) and f.id in _OPENERS)
        or (
            isinstance(f, ast.Attribute)
            and f.attr == "open"
            and isinstance(f.value, ast.Name)
            and f.value.id in _OPENER_MODULES
        )
    ):
        return False
    mode = (
        node.args[1]
        if len(node.args) > 1
        else next((k.value for k in node.keywords if k.arg == "mode"), None)
    )
    return not (
        isinstance(mode, ast.Constant) and isinstance(mode.value, str) and set(mode.value) & set("wax")
    )


def _unwrap(node: ast.AST) -> ast.AST:
    """``line.strip().lower()`` -> ``line``."""
    return pyast.unwrap_methods(node, _LINE_METHODS)


class _Reader:
    """The handles, line variables and split variables of one path parameter in one body."""

    def __init__(self, body: ast.AST, target: str, handle: bool = False) -> None:
        self.body = body
        # ``handle``: the parameter *is* the open file (``for row in csv.reader(fh)``)
        self.handles: set[str] = {target} if handle else set()
        self.lines: set[str] = set()  # one line of text
        self.line_lists: set[str] = set()  # a list of lines
        self.splits: dict[str, str] = {}  # name -> separator its fields were split on
        self.unpacked: dict[str, tuple[str, list[str]]] = {}  # (separator, field names)
        self.direct: set[ast.AST] = set()  # ``open(P)`` iterated inline
        for node in ast.walk(body):
            if isinstance(node, ast.withitem) and _opens(node.context_expr, target):
                if isinstance(node.optional_vars, ast.Name):
                    self.handles.add(node.optional_vars.id)
            elif isinstance(node, ast.Assign) and _opens(node.value, target):
                self.handles.update(t.id for t in node.targets if isinstance(t, ast.Name))
            elif _opens(node, target):
                self.direct.add(node)
        for _ in range(3):  # lines of lines of handles: a few passes reach a fixed point
            for node in ast.walk(body):
                self._step(node)

    def _is_handle(self, node: ast.AST) -> bool:
        return _is_name(node, self.handles) or node in self.direct

    def _lines_of(self, node: ast.AST) -> bool:
        """Whether iterating ``node`` gives lines: a handle, ``fh.readlines()``, ``fh.read().splitlines()``."""
        if self._is_handle(node) or _is_name(node, self.line_lists):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "readlines" and self._is_handle(node.func.value):
                return True
            if node.func.attr == "splitlines":
                inner = node.func.value
                return (
                    isinstance(inner, ast.Call)
                    and isinstance(inner.func, ast.Attribute)
                    and inner.func.attr == "read"
                    and self._is_handle(inner.func.value)
                )
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("enumerate", "list")
        ):
            return any(self._lines_of(a) for a in node.args)
        return False

    def _csv_rows(self, node: ast.AST) -> str | None:
        """``csv.reader(fh, delimiter=C)``: the delimiter (',' by default)."""
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "reader"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "csv"
            and node.args
            and self._lines_of(node.args[0])
        ):
            for k in node.keywords:
                value = k.value
                if isinstance(value, ast.Call) and _is_name(value.func, {"str"}) and len(value.args) == 1:
                    value = value.args[0]  # delimiter=str('\t'), the Python 2 idiom
                if k.arg == "delimiter" and isinstance(value, ast.Constant) and isinstance(value.value, str):
                    return value.value
            return ","
        return None

    def _is_line(self, node: ast.AST) -> bool:
        """A line variable, or one element of a list of lines (``lines[0]``)."""
        return _is_name(node, self.lines) or (
            isinstance(node, ast.Subscript) and _is_name(node.value, self.line_lists)
        )

    def split_sep(self, node: ast.AST) -> str | None:
        """The separator when ``node`` is a line split into fields (``line.strip().split('\\t')``)."""
        got = split_separator(node)
        return got[1] if got is not None and self._is_line(_unwrap(got[0])) else None

    def _bind(self, target: ast.AST, value: ast.AST, loop: bool) -> None:
        if loop:
            rows = self._csv_rows(value)
            if rows is not None and isinstance(target, ast.Name):
                self.splits[target.id] = rows
                return
            if self._lines_of(value):
                if isinstance(target, ast.Name):
                    self.lines.add(target.id)
                elif (
                    isinstance(target, ast.Tuple)
                    and len(target.elts) == 2
                    and isinstance(target.elts[1], ast.Name)
                ):
                    self.lines.add(target.elts[1].id)  # for i, line in enumerate(fh)
            return
        if isinstance(target, ast.Name):
            if self._lines_of(value) and not _is_name(value, self.handles):
                self.line_lists.add(target.id)  # lines = fh.readlines()
            elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "next":
                if value.args and self._lines_of(value.args[0]):
                    self.lines.add(target.id)  # header = next(fh)
            elif isinstance(value, ast.Subscript) and _is_name(value.value, self.line_lists):
                self.lines.add(target.id)  # first = lines[0]
            elif (
                _is_name(_unwrap(value), self.lines) and value is not None and not _is_name(value, self.lines)
            ):
                self.lines.add(target.id)  # line = line.strip()
            else:
                sep = self.split_sep(value)
                if sep is not None:
                    self.splits[target.id] = sep
                rows = self._csv_rows(value)
                if rows is not None:
                    self.line_lists.discard(target.id)
                    self.splits.setdefault("__rows__" + target.id, rows)
        elif isinstance(target, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Name) for e in target.elts):
            sep = self.split_sep(value)
            if sep is None and isinstance(value, ast.Name) and value.id in self.splits:
                sep = self.splits[value.id]  # fields = line.split(); a, b, c = fields
            if sep is not None:
                self.unpacked[target.elts[0].id] = (sep, [e.id for e in target.elts])

    def _step(self, node: ast.AST) -> None:
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            it = node.iter
            rows_name = it.id if isinstance(it, ast.Name) else None
            if rows_name and "__rows__" + rows_name in self.splits and isinstance(node.target, ast.Name):
                self.splits[node.target.id] = self.splits["__rows__" + rows_name]
            self._bind(node.target, it, loop=True)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            self._bind(node.targets[0], node.value, loop=False)

    def layout(self) -> tuple[str, list[str]] | None:
        """(separator, per-field type) of the lines, or ``None`` when no line is split."""
        seps: list[str] = []
        width = 0
        types: dict[int, str] = {}
        for name, sep in self.splits.items():
            if name.startswith("__rows__"):
                continue
            seps.append(sep)
            for node in ast.walk(self.body):
                if isinstance(node, ast.Subscript) and _is_name(node.value, {name}):
                    idx = node.slice
                    if (
                        isinstance(idx, ast.Constant)
                        and isinstance(idx.value, int)
                        and 0 <= idx.value < MAX_FIELDS
                    ):
                        width = max(width, idx.value + 1)
                        types.setdefault(idx.value, "str")
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id in _CONVERTERS
                    and node.args
                    and isinstance(node.args[0], ast.Subscript)
                    and _is_name(node.args[0].value, {name})
                    and isinstance(node.args[0].slice, ast.Constant)
                    and isinstance(node.args[0].slice.value, int)
                    and 0 <= node.args[0].slice.value < MAX_FIELDS
                ):
                    types[node.args[0].slice.value] = _CONVERTERS[node.func.id]
        fixed = None
        for sep, names in self.unpacked.values():
            seps.append(sep)
            fixed = len(names)
            conv = {
                n.args[0].id: _CONVERTERS[n.func.id]
                for n in ast.walk(self.body)
                if isinstance(n, ast.Call)
                and isinstance(n.func, ast.Name)
                and n.func.id in _CONVERTERS
                and n.args
                and isinstance(n.args[0], ast.Name)
            }
            for i, nm in enumerate(names):
                types[i] = conv.get(nm, types.get(i, "str"))
        if not seps:
            return None
        n = fixed if fixed is not None else (width or DEFAULT_FIELDS)
        fields = [types.get(i, "str") for i in range(n)]
        if fixed is None and not width:
            # fields passed on whole: numbers when the body converts anything, else words
            conv = any(
                isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id in _CONVERTERS
                for c in ast.walk(self.body)
            )
            fields = ["int" if conv else "str"] * n
        return seps[0], fields


def constant_list(node: ast.AST | None, body: ast.AST, kind: type) -> list | None:
    """The values of a literal list of ``kind`` (``[0, 1]``, ``['chrom', 'start']``), or of a local
    name bound once to such lists joined by ``+`` (``colnames = shared + rest``)."""
    if isinstance(node, (ast.List, ast.Tuple)):
        vals = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, kind)]
        return vals if len(vals) == len(node.elts) and vals else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = constant_list(node.left, body, kind), constant_list(node.right, body, kind)
        return left + right if left and right else None
    if isinstance(node, ast.Name):
        bound = [
            n.value
            for n in ast.walk(body)
            if isinstance(n, ast.Assign)
            and len(n.targets) == 1
            and isinstance(n.targets[0], ast.Name)
            and n.targets[0].id == node.id
        ]
        if len(bound) == 1 and not isinstance(bound[0], ast.Name):
            return constant_list(bound[0], body, kind)
    return None


#: Columns added to a table whose reader picks columns by position beyond those the code names.
_PAD_COLUMN = "col%d"


def _read_table(
    node: ast.AST, target: str, body: ast.AST
) -> tuple[str, bool, list[str], int, list[str]] | None:
    """How ``pd.read_csv(target, ...)`` / ``read_table`` reads its file: (separator, whether the
    file has a header line, the column names the call itself gives (``names=[...]``), the fewest
    columns it needs (``usecols=[0, 5]``: six), the columns it names as the index
    (``index_col='replicon'``)), else ``None``."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("read_csv", "read_table")
        and node.args
        and _is_name(node.args[0], {target})
    ):
        return None
    sep = "," if node.func.attr == "read_csv" else "\t"
    header, names, least, index = True, [], 0, []
    for k in node.keywords:
        if (
            k.arg in ("sep", "delimiter")
            and isinstance(k.value, ast.Constant)
            and isinstance(k.value.value, str)
        ):
            sep = k.value.value
        elif k.arg == "delim_whitespace":
            sep = " "
        elif k.arg == "names":
            names = constant_list(k.value, body, str) or []
            if not names:
                return None  # columns named by values the code computes: not the code's vocabulary
            header = False
        elif k.arg == "header":
            if isinstance(k.value, ast.Constant) and k.value.value is None:
                header = False
            elif not (isinstance(k.value, ast.Constant) and k.value.value == 0):
                return None
        elif k.arg == "usecols":
            picked = constant_list(k.value, body, int)
            if picked:
                least = max(picked) + 1
        elif k.arg == "index_col":  # the file must have that column (round 31)
            if isinstance(k.value, ast.Constant) and isinstance(k.value.value, str):
                index = [k.value.value]
            else:
                index = constant_list(k.value, body, str) or []
    if not header and not names:
        return None  # columns by position only: a header line would be read as data
    sep = sep if len(sep) <= 2 and sep not in ("\\s+",) else (" " if sep == "\\s+" else None)
    return (sep, header, names, least, index) if sep is not None else None


def file_kind(body: ast.AST, target: str, columns: Callable[[ast.AST, str], list[str]]) -> str | None:
    """The kind of a file for path parameter ``target``: ``file:(inner kind, separator)``, or ``None``.

    ``columns(body, name)`` gives the string keys ``name`` is indexed with or tested for
    (python_inputs.string_columns, passed in so that this module does not import its caller).
    """
    for node in ast.walk(body):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            read = _read_table(node.value, target, body)
            if read is not None:
                sep, header, names, least, index = read
                frame = node.targets[0].id
                cols = names or list(
                    dict.fromkeys(index + columns(body, frame) + columns(body, frame + ".columns"))
                )
                if cols and cols == index:  # only the index named: a value column beside it
                    cols.append(_PAD_COLUMN % len(cols))
                if cols and len(cols) < least:  # usecols=[0, 1]: the named columns among the first
                    cols += [_PAD_COLUMN % i for i in range(len(cols), least)]
                if cols:
                    return "file:" + repr(("frame:" + repr(cols), sep) + (() if header else (False,)))
    for node in ast.walk(body):  # tables.append(pd.read_csv(f, index_col='sample')): not bound
        read = _read_table(node, target, body)
        if read is not None and (read[2] or read[4]):
            sep, header, names, least, index = read
            cols = names or [*index, _PAD_COLUMN % len(index)]
            if len(cols) < least:
                cols += [_PAD_COLUMN % i for i in range(len(cols), least)]
            return "file:" + repr(("frame:" + repr(cols), sep) + (() if header else (False,)))
    searched = searched_texts(body, target)
    if searched:
        return "file:" + repr(("searched:" + repr(searched), None))
    layout = _Reader(body, target).layout()
    if layout is None:
        return None
    sep, fields = layout
    return "file:" + repr(("lines:" + repr((sep, fields)), None))


def _read_whole(body: ast.AST, target: str) -> set[str]:
    """Names bound to the whole text of file ``target``: ``log = fh.read()`` of ``with
    open(target) as fh``, ``text = open(target).read()``."""
    handles = set()
    for n in ast.walk(body):
        if (
            isinstance(n, ast.withitem)
            and _opens(n.context_expr, target)
            and isinstance(n.optional_vars, ast.Name)
        ):
            handles.add(n.optional_vars.id)
        if (
            isinstance(n, ast.Assign)
            and len(n.targets) == 1
            and isinstance(n.targets[0], ast.Name)
            and _opens(n.value, target)
        ):
            handles.add(n.targets[0].id)
    out = set()
    for n in ast.walk(body):
        if (
            isinstance(n, ast.Assign)
            and len(n.targets) == 1
            and isinstance(n.targets[0], ast.Name)
            and isinstance(n.value, ast.Call)
            and isinstance(n.value.func, ast.Attribute)
            and n.value.func.attr == "read"
            and (_is_name(n.value.func.value, handles) or _opens(n.value.func.value, target))
        ):
            out.add(n.targets[0].id)
    return out


def searched_texts(body: ast.AST, target: str) -> list[str]:
    """Texts that match what the code looks for in the whole text of file ``target`` (``re.search(
    'ERROR: panels not aligned', log)``, ``'Done' in log``), or []. Why: a log or report file the
    code reads to look for a message held random lines, so the message was never found and the
    function returned the same on every case (round 32); the file holds one of these now and then."""
    names = _read_whole(body, target)
    if not names:
        return []
    out: list[str] = []
    for n in ast.walk(body):
        if (
            isinstance(n, ast.Call)
            and pyast.callee_name(n.func) in ("search", "match", "findall", "finditer", "fullmatch")
            and len(n.args) >= 2
            and _is_name(n.args[1], names)
            and isinstance(n.args[0], ast.Constant)
            and isinstance(n.args[0].value, str)
        ):
            out += (regex_samples(n.args[0].value, n=3) or [])[:3]
        elif (
            isinstance(n, ast.Compare)
            and isinstance(n.ops[0], ast.In | ast.NotIn)
            and isinstance(n.left, ast.Constant)
            and isinstance(n.left.value, str)
            and _is_name(n.comparators[0], names)
        ):
            out.append(n.left.value)
    return list(dict.fromkeys(t for t in out if t))[:6]


#: Calls that test whether a path exists.
_EXISTENCE_TESTS = frozenset({"exists", "isfile", "getsize"})
#: Calls that read or test the file a path names (first argument): a prefix's files must exist.
_PATH_READERS = frozenset(
    {"open", "exists", "isfile", "getsize", "read_csv", "read_table", "loadtxt", "genfromtxt"}
)


def _suffix_of(node: ast.AST, target: str) -> str | None:
    """The literal suffix of ``target + '.bim'``, ``'{}.bim'.format(target)``, ``f'{target}.bim'``."""
    if (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Add)
        and _stem_of(node.left, target)
        and isinstance(node.right, ast.Constant)
        and isinstance(node.right.value, str)
    ):
        return node.right.value
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and isinstance(node.func.value, ast.Constant)
        and isinstance(node.func.value.value, str)
        and node.func.value.value.startswith("{}")
        and len(node.args) == 1
        and _is_name(node.args[0], {target})
    ):
        return node.func.value.value[2:]
    if (
        isinstance(node, ast.JoinedStr)
        and len(node.values) == 2
        and isinstance(node.values[0], ast.FormattedValue)
        and _is_name(node.values[0].value, {target})
        and isinstance(node.values[1], ast.Constant)
    ):
        return node.values[1].value
    if (
        isinstance(node, ast.Call)
        and ast.unparse(node.func) in ("os.path.join", "path.join", "osp.join", "join")
        and len(node.args) == 2
        and _is_name(node.args[0], {target})
        and isinstance(node.args[1], ast.Constant)
        and isinstance(node.args[1].value, str)
        and _FILE_NAME.match(node.args[1].value)
    ):
        # os.path.join(results_dir, 'counts.tsv'): a folder holding that file (round 27)
        return "/" + node.args[1].value
    return None


#: A plain file name a folder is joined with (no folder of its own, no placeholder).
_FILE_NAME = re.compile(r"^[\w.-]+\.\w+$")


class _SuffixToName(ast.NodeTransformer):
    """``target + suffix`` (any spelling of :func:`_suffix_of`) -> the name ``name``."""

    def __init__(self, target: str, suffix: str, name: str) -> None:
        self.target, self.suffix, self.name = target, suffix, name

    def visit(self, node: ast.AST) -> ast.AST:
        if isinstance(node, ast.expr) and _suffix_of(node, self.target) == self.suffix:
            return ast.copy_location(ast.Name(id=self.name, ctx=ast.Load()), node)
        return self.generic_visit(node)


def prefix_kind(body: ast.AST, target: str, columns: Callable[[ast.AST, str], list[str]]) -> str | None:
    """``prefix:[(suffix, file kind or None[, True]), ...]`` (True: its existence is tested) when ``target`` is a path prefix whose files
    the code reads (``open(prefix + '.bim')``, ``pd.read_csv('{}.fam'.format(prefix))``), else
    ``None``. Each file's content is what its reader expects, found as for a path parameter by
    reading the body with ``prefix + suffix`` replaced by a name (:func:`file_kind`)."""
    import copy

    bound: dict[str, str] = {}  # local -> suffix (``fn = prefix + '.map'``)
    for node in ast.walk(body):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            suffix = _suffix_of(node.value, target)
            if suffix:
                bound[node.targets[0].id] = suffix
    suffixes: list[str] = []
    tested: set[str] = set()  # files whose existence the code tests (``os.path.isfile(p + '.bai')``)
    for node in ast.walk(body):
        if not (isinstance(node, ast.Call) and node.args):
            continue
        f = node.func
        name = pyast.callee_name(f)
        if name not in _PATH_READERS or (name == "open" and _writes(node)):
            continue
        arg = node.args[0]
        suffix = _suffix_of(arg, target) or (bound.get(arg.id) if isinstance(arg, ast.Name) else None)
        if suffix and suffix not in suffixes and len(suffix) <= 40 and "/" not in suffix[1:]:
            suffixes.append(suffix)
        if suffix and name in _EXISTENCE_TESTS:
            tested.add(suffix)
    if not suffixes:
        return None
    files = []
    for i, suffix in enumerate(suffixes[:6]):
        name = f"_bc_pfx{i}"
        tree = _SuffixToName(target, suffix, name).visit(copy.deepcopy(body))
        for local, suf in bound.items():  # ``fn = prefix + '.map'``: the local is that file too
            if suf == suffix:
                tree = _rename(tree, local, name)
        got = file_kind(ast.fix_missing_locations(tree), name, columns)
        # a file whose existence is tested is missing now and then: the branch for its absence
        # (an index to build, a default to take) runs too (round 32: every case found it)
        files.append((suffix, got, True) if suffix in tested else (suffix, got))
    return "prefix:" + repr(files)


def _writes(node: ast.Call) -> bool:
    """``open(P, 'w')`` (or ``'a'``, ``'x'``): a file the code makes, not one it reads."""
    mode = (
        node.args[1]
        if len(node.args) > 1
        else next((k.value for k in node.keywords if k.arg == "mode"), None)
    )
    return (
        isinstance(mode, ast.Constant) and isinstance(mode.value, str) and bool(set(mode.value) & set("wax"))
    )


def _rename(tree: ast.AST, old: str, new: str) -> ast.AST:
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id == old:
            n.id = new
    return tree


def handle_kind(body: ast.AST, target: str) -> str | None:
    """``handle:(lines kind)`` when parameter ``target`` is itself read as an open file whose lines
    are split into fields (``for row in csv.reader(target, delimiter='\\t')``, ``for line in
    target: line.split()``), else ``None``: the same layout as a path's file, as a text handle."""
    layout = _Reader(body, target, handle=True).layout()
    if layout is None:
        return None
    return "handle:" + repr("lines:" + repr(layout))


def lines_expr(kind: str) -> str:
    """The generator expression of a ``lines:(separator, field types)`` kind."""
    return f"_bc_lines(_r, {kind[len('lines:') :]})"


#: Harness helpers (stdlib only; ``_bc_files`` and ``_bc_seq`` come from the main prelude).
PRELUDE = r'''

def _bc_lines(_r, layout):
    """1 to 6 lines of fields joined by the separator, typed per column."""
    sep, fields = layout
    def one(t):
        if t == "int":  # small values half the time: they meet the small thresholds code compares with
            return str(_r.randint(0, 10) if _r.random() < 0.5 else _r.randint(0, 1000))
        if t == "float":
            return "%.3f" % _r.uniform(0, 100)
        return _bc_word(_r)
    return "".join(sep.join(one(t) for t in fields) + "\n" for _ in range(_r.randint(1, 6)))


def _bc_prefixed(_r, files):
    """A path prefix with one file per suffix the code opens (``prefix + '.bim'``), each holding
    what its reader expects (``files``: (suffix, content, separator, header[, tested])); a file
    whose existence the code tests is left out about a third of the time."""
    prefix = "./_bc_pfx_%d" % len(_bc_files)
    for suffix, content, sep, header, *tested in files:
        if tested and tested[0] and _r.random() < 0.3:
            continue
        _bc_put(prefix + suffix, content, sep, header)
    return prefix


def _bc_write(_r, content, sep, header=True):
    """A new input file holding ``content`` (a table is written with its header, unless the
    reader names the columns itself)."""
    path = "./_bc_in_%d.txt" % len(_bc_files)
    _bc_put(path, content, sep, header)
    return path


def _bc_put(path, content, sep, header):
    """Write ``content`` (text, or a table) to the input file ``path`` and list it."""
    folder = _bc_os.path.dirname(path)
    if folder and not _bc_os.path.isdir(folder):  # prefix + '/counts.tsv': a folder of files
        _bc_os.makedirs(folder, exist_ok=True)
    if hasattr(content, "to_csv"):
        content.to_csv(path, sep=sep, index=False, header=header)
    else:
        with open(path, "w") as fh:
            fh.write(content)
    _bc_files.append(path)
'''
