"""Structured text inputs: the bioinformatics file formats a parser parameter expects.

Random words never get past the first line of a parser: a Newick reader needs balanced
parentheses and a ``;``, a FASTA reader a ``>`` header, a VCF reader its ``#CHROM`` line
and tab-separated columns. A human tester feeds such a function a small, well-formed
record of the right format, so synthesis does too when the evidence names the format:

* the parameter's **name** (``newick``, ``fasta_text``, ``vcf_line``, ``gff_file``);
* its **docstring** description (``newick (str): A Newick string``; ``:param handle: FASTA file``);
* the **string constants** of the body (and of the repository helpers the parameter is passed
  to): ``line.startswith('>')`` or ``l[0] == '>'`` is FASTA, ``'#CHROM'`` VCF, ``'@SQ'`` SAM,
  ``'##gff-version'`` GFF.

The parameter's *role* decides the shape of the value: a path (a file the harness writes), a
file handle (``io.StringIO``: read with ``.readline()``/``.read()``, or named ``handle``/``fh``),
a list of lines (``*_lines``), one data line (``line``, ``record``, ``row``), or the whole text.
Values are drawn from the case's seed, so golden and candidate see the same text; a probe
(python_evidence) replaces them with an empty one.
"""

from __future__ import annotations

import ast
import re

from biocoder_metric import pyast

FORMATS = ("fasta", "fastq", "newick", "nexus", "vcf", "sam", "bed", "gff")

#: The format a word in a parameter's name or description stands for.
_WORDS: tuple[tuple[str, str], ...] = (
    (r"nexus|(^|_)nex($|_)", "nexus"),
    (r"newick|nwk|(^|_)tree_?str(ing)?($|_)|(^|_)treestr", "newick"),
    (r"fastq|(^|_)fq($|_)", "fastq"),
    (r"fasta|(^|_)fa($|_)|(^|_)fna($|_)|(^|_)faa($|_)", "fasta"),
    (r"(^|_)vcf($|_)|(^|_)bcf($|_)|variant_?call", "vcf"),
    (r"(^|_)sam($|_)", "sam"),
    (r"(^|_)bed($|_)", "bed"),
    (r"(^|_)(gff3?|gtf)($|_)", "gff"),
)

#: Role of a parameter by its name, when its kind does not already say (path/list).
_HANDLE_NAME = re.compile(
    r"^(handle|fh|fileobj|file_obj|fobj|stream|infile|in_file|inp|input_handle|f_in|fin|fp)$"
)
_LINE_NAME = re.compile(r"(^|_)(line|record|row|rec)(_str|_string)?$")
_LINES_NAME = re.compile(r"(^|_)lines$")
_HANDLE_METHODS = {"readline", "readlines", "read", "seek", "tell"}


def _format_of_words(text: str) -> str | None:
    t = text.lower()
    for pattern, fmt in _WORDS:
        if re.search(pattern, t):
            return fmt
    return None


def _doc_description(doc: str, name: str) -> str:
    """The text a docstring gives parameter ``name`` (numpydoc, Google or Sphinx), or ''.

    The parameter's own line and the lines indented below it.
    """
    lines = doc.splitlines()
    head = re.compile(
        rf"^(\s*)(?:{re.escape(name)}\s*(?:\([^)\n]*\))?\s*:|:param\s+(?:[\w\[\], .]+\s+)?"
        rf"{re.escape(name)}\s*:|:type\s+{re.escape(name)}\s*:)"
    )
    for i, line in enumerate(lines):
        m = head.match(line)
        if not m:
            continue
        indent = len(m.group(1))
        out = [line]
        for more in lines[i + 1 :]:
            if more.strip() and len(more) - len(more.lstrip()) <= indent:
                break
            out.append(more)
        return "\n".join(out)
    return ""


def described(doc: str, name: str) -> str:
    """What a docstring says of parameter ``name`` (its line and those indented below), or ''."""
    return _doc_description(doc, name)


def _desc_format(doc: str, name: str) -> str | None:
    desc = _doc_description(doc, name)
    if not desc:
        return None
    for word, fmt in (
        ("nexus", "nexus"),
        ("newick", "newick"),
        ("fastq", "fastq"),
        ("fasta", "fasta"),
        ("vcf", "vcf"),
        (r"\bsam\b", "sam"),
        (r"\bbed\b", "bed"),
        (r"\bgff3?\b|\bgtf\b", "gff"),
    ):
        if re.search(word, desc, re.I):
            return fmt
    return None


def _string_constants(node: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _constants_format(consts: list[str]) -> str | None:
    """The format the body's string constants point at (markers a parser of it tests for)."""
    s = set(consts)
    if any(c.startswith("#CHROM") or c.startswith("##fileformat=VCF") for c in s):
        return "vcf"
    if s & {"@SQ", "@HD", "@RG", "@PG"}:
        return "sam"
    if any(c.startswith("##gff-version") for c in s):
        return "gff"
    if "@" in s and "+" in s:
        return "fastq"
    if ">" in s:
        return "fasta"
    return None


def members_format(nodes: list[ast.AST]) -> str | None:
    """The format a class's methods test their text for, together (``'#CHROM'`` in one method,
    ``'##'`` in another): what the stream its constructor takes holds (round 27: a parser's
    stream was plain text, as nothing in ``__init__`` itself said VCF)."""
    return _constants_format([c for n in nodes for c in _string_constants(n)])


def _helpers_called_with(func: ast.AST, target: str, helpers: dict[str, ast.AST]) -> list[ast.AST]:
    out = []
    for n in ast.walk(func):
        if isinstance(n, ast.Call):
            f = n.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if name in helpers and any(
                isinstance(a, ast.Name) and a.id == target for a in [*n.args, *(k.value for k in n.keywords)]
            ):
                out.append(helpers[name])
    return out


def helper_index(sources: list[str] | tuple[str, ...]) -> dict[str, ast.AST]:
    """Function name -> definition, over sliced helper sources (what a parameter may be passed to)."""
    out: dict[str, ast.AST] = {}
    for src in sources:
        try:
            tree = pyast.parse(src)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.setdefault(node.name, node)
    return out


def text_format(func: ast.AST, target: str, helpers: dict[str, ast.AST] | None = None) -> str | None:
    """The file format ``target`` holds by its name, its docstring description or the body's markers."""
    name = target.rsplit(".", 1)[-1]
    fmt = _format_of_words(name)
    if fmt:
        return fmt
    doc = ast.get_docstring(func) if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    if doc:
        fmt = _desc_format(doc, name)
        if fmt:
            return fmt
    if "." in target:
        return None
    fmt = _constants_format(_string_constants(func))
    if fmt:
        return fmt
    for h in _helpers_called_with(func, target, helpers or {}):
        fmt = _constants_format(_string_constants(h))
        if fmt:
            return fmt
    return None


def is_handle(func: ast.AST, target: str) -> bool:
    """Whether ``target`` is used like an open file (``.readline()``, ``.read()``) or named like one."""
    return bool(_HANDLE_NAME.match(target.rsplit(".", 1)[-1])) or _used_as_handle(func, target)


def _used_as_handle(func: ast.AST, target: str) -> bool:
    """Whether ``target``'s own methods are a file's (``.readline()``, ``.read()``)."""
    for n in ast.walk(func):
        if (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr in _HANDLE_METHODS
            and isinstance(n.func.value, ast.Name)
            and n.func.value.id == target
        ):
            return True
    return False


_PATH_TESTS = {"isfile", "exists", "isdir", "is_file"}
#: Calls that need the file to be there (a test like ``isfile`` does not).
_PATH_READS = {"open", "stat", "lstat", "getsize", "getmtime"}


def _opened_as_path(func: ast.AST, target: str) -> bool:
    """Whether ``target`` itself is handed to a call that needs the file (``stat(fp)``, ``open(fp)``).
    Why: a FASTA text drawn for ``seqs_fp`` (a docstring's ``string``) was stat'ed as a file name
    and every call raised (round 30)."""
    for n in ast.walk(func):
        if isinstance(n, ast.Call) and n.args and isinstance(n.args[0], ast.Name) and n.args[0].id == target:
            f = n.func
            if pyast.callee_name(f) in _PATH_READS:
                return True
    return False


def _path_checked(func: ast.AST, target: str) -> bool:
    """``isfile(x)`` / ``os.path.exists(expanduser(x))``: the text may also name a file."""
    for n in ast.walk(func):
        if isinstance(n, ast.Call):
            f = n.func
            name = pyast.callee_name(f)
            if (
                name in _PATH_TESTS
                and n.args
                and any(isinstance(x, ast.Name) and x.id == target for x in ast.walk(n.args[0]))
            ):
                return True
    return False


def role_of(func: ast.AST, target: str, top_kind: str) -> str | None:
    """How the text reaches the function: ``path``, ``handle``, ``lines``, ``line`` or ``text`` (None: not text)."""
    name = target.rsplit(".", 1)[-1]
    if top_kind == "handle_out":
        return None  # a file the function writes to, not one it reads
    if _used_as_handle(func, target) or (
        is_handle(func, target) and not top_kind.startswith("path")
    ):  # named like a handle (``fp``) but only handed to ``stat``/``open``: a path (round 30)
        return "handle"
    if _LINES_NAME.search(name):  # vcf_lines, mol2_lines: a list of lines, whatever the name's format word
        return "lines"
    if _LINE_NAME.search(name):  # vcf_line, record: one data line
        return "line"
    if top_kind.startswith("path") or (top_kind.startswith("str") and _opened_as_path(func, target)):
        return "path"  # (``stat(seqs_fp).st_size``, ``open(fasta)``: a string the code opens names a file)
    if top_kind.startswith("list_str"):
        return "lines"
    if top_kind.startswith(("str", "text:", "regex:")):
        return "line" if _described_as_line(func, name) else "text"
    return None


def _described_as_line(func: ast.AST, name: str) -> bool:
    """Whether the docstring calls the parameter one line (``feature : Feature or str. If a
    string, a GFF or GTF-format line``): a whole file there is parsed as one mangled record."""
    doc = ast.get_docstring(func) if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    desc = _doc_description(doc, name) if doc else ""
    return bool(re.search(r"\bline\b", desc, re.I)) and not re.search(r"\b(lines|file|files)\b", desc, re.I)


def format_kind(
    func: ast.AST, target: str, top_kind: str, helpers: dict[str, ast.AST] | None = None
) -> str | None:
    """``fmt:ROLE:FORMAT`` for a parameter that holds a file format, else ``None``.

    A handle with no recognisable format still gets one (``fmt:handle:text``): an open file of
    text lines, not a number.
    """
    role = role_of(func, target, top_kind)
    if role is None:
        return None
    fmt = text_format(func, target, helpers)
    if fmt is None:
        return "fmt:handle:text" if role == "handle" else None
    if role == "text" and _path_checked(func, target):
        role = "textorpath"  # if isfile(newick): newick = open(newick).read(): either, in some cases each
    if role == "path" and fmt in ("fasta", "fastq"):
        return f"path_{fmt}"  # the plain kinds already write these files
    if fmt in ("newick", "nexus") and role in ("lines", "line"):
        role = "text"
    always = {"gff": {"ID", "Name"}, "vcf": {"DP"}}.get(fmt)  # what every drawn record carries
    keys = [k for k in read_keys_of_records(func) if k not in always] if always else []
    if keys:  # ``features.get('product', '-')``: records that carry it in some cases (round 32)
        fmt += "@" + repr(keys)
    return f"fmt:{role}:{fmt}"


#: Most attribute keys a format's records are given.
MAX_RECORD_KEYS = 8


def read_keys_of_records(func: ast.AST) -> list[str]:
    """The string keys the body reads by ``x['key']``, ``x.get('key')`` or ``'key' in x``: in a GFF
    or VCF reader, the attributes and INFO fields it looks for (random records carried only
    ``ID``/``Name``/``DP``, so every fallback the code takes for a missing one was all it ran)."""
    out: list[str] = []
    for n in ast.walk(func):
        key = None
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant):
            key = n.slice.value
        elif (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr == "get"
            and n.args
            and isinstance(n.args[0], ast.Constant)
        ):
            key = n.args[0].value
        elif (
            isinstance(n, ast.Compare)
            and isinstance(n.ops[0], ast.In | ast.NotIn)
            and isinstance(n.left, ast.Constant)
        ):
            key = n.left.value
        if isinstance(key, str) and re.fullmatch(r"[A-Za-z_][\w.]{0,29}", key) and key not in out:
            out.append(key)
    return sorted(out)[:MAX_RECORD_KEYS]


def format_expr(kind: str) -> str:
    """The harness expression of a ``fmt:ROLE:FORMAT`` kind (helpers in :data:`PRELUDE`);
    ``FORMAT@[keys]``: records carrying those attribute or INFO keys now and then."""
    _, role, fmt = kind.split(":", 2)
    fmt, _, keyed = fmt.partition("@")
    args = f"{fmt!r}, {keyed}" if keyed else repr(fmt)
    if role == "path":
        return f"_bc_file(_r, {args})"
    if role == "handle":
        return f"_bc_handle(_bc_format(_r, {args}))"
    if role == "lines":
        return f"_bc_format(_r, {args}).splitlines(True)"
    if role == "line":
        return f"_bc_format_line(_r, {args})"
    if role == "textorpath":
        return f"(_bc_file(_r, {args}) if _r.random() < 0.3 else _bc_format(_r, {args}))"
    return f"_bc_format(_r, {args})"


def invalid_format_expr(kind: str) -> str:
    """An empty input of the same role (the probe's invalid value)."""
    role = kind.split(":", 2)[1]
    return {"path": "'./_bc_missing_input.txt'", "handle": "_bc_handle('')", "lines": "[]"}.get(role, "''")


#: Harness helpers (stdlib only, Python 3.9): well-formed records of each format from ``_r``.
PRELUDE = r'''
def _bc_newick(_r, depth, counter):
    # branch lengths on every branch in most trees (tree statistics need them all), on most
    # branches in the others (a reader's branch for a missing length)
    if depth == 0 and len(counter) == 1:
        counter.append(_r.choice([1.0, 1.0, 1.0, 1.0, 1.0, 0.8]))
    if depth > 0 and (depth > 3 or _r.random() < 0.35 * depth):
        counter[0] += 1
        text = "t%d" % counter[0]
    else:
        text = "(" + ",".join(_bc_newick(_r, depth + 1, counter) for _ in range(_r.choice([2, 2, 2, 3]))) + ")"
        if _r.random() < 0.3:
            counter[0] += 1
            text += "n%d" % counter[0]
    if depth and _r.random() < counter[1]:
        text += ":%s" % round(_r.uniform(0.01, 2.0), 3)
    return text


def _bc_attrs(_r, keys, sep):
    """Attributes (GFF) or INFO fields (VCF) the code reads by key, each in about half the records."""
    return "".join("%s%s=%s" % (sep, k, _r.choice([_bc_word(_r), str(_r.randint(0, 99))]))
                   for k in keys if _r.random() < 0.5)


def _bc_format(_r, fmt, keys=()):
    """A small well-formed text in ``fmt`` (fasta, fastq, newick, vcf, sam, bed, gff, text); a GFF
    record's attributes and a VCF record's INFO carry the ``keys`` the code reads, now and then."""
    chroms = ["chr1", "chr2", "chrX"]
    out = []
    if fmt == "newick":
        return _bc_newick(_r, 0, [0]) + ";"
    if fmt == "nexus":
        # a TAXA block and a TRANSLATE table (leaves written as numbers) in some files, a rooting
        # comment on some trees: the parts of Nexus a reader has branches for
        trees = [_bc_newick(_r, 0, [0]) for _ in range(_r.randint(1, 3))]
        tips = sorted(set(_bc_re.findall(r"t\d+", " ".join(trees))), key=lambda t: int(t[1:]))
        text = "#NEXUS\n"
        # the layout BEAST and FigTree write: one entry per line, the closing ';' on a line of its own
        if _r.random() < 0.4:
            text += "BEGIN TAXA;\n    DIMENSIONS NTAX=%d;\n    TAXLABELS\n%s\n    ;\nEND;\n" % (
                len(tips), "\n".join("        " + t for t in tips))
        text += "BEGIN TREES;\n"
        if _r.random() < 0.5:
            text += "    TRANSLATE\n" + ",\n".join("        %s %s" % (t[1:], t) for t in tips) + "\n    ;\n"
            trees = [_bc_re.sub(r"\bt(\d+)", r"\1", t) for t in trees]
        for i, t in enumerate(trees):
            text += "    TREE tree%d = %s%s;\n" % (i + 1, _r.choice(["", "", "[&R] ", "[&U] "]), t)
        return text + "END;\n"
    if fmt == "fasta":
        for i in range(_r.randint(1, 4)):
            seq = _bc_seq(_r, "ACGT", 10, 90)
            out.append(">seq%d%s" % (i + 1, _r.choice(["", " sample %d" % _r.randint(1, 9)])))
            out += [seq[j:j + 60] for j in range(0, len(seq), 60)]
    elif fmt == "fastq":
        for i in range(_r.randint(1, 4)):
            seq = _bc_seq(_r, "ACGT", 10, 60)
            out += ["@read%d" % (i + 1), seq, "+", _bc_seq(_r, "#+5:?ABCDEFGHI", len(seq), len(seq))]
    elif fmt == "vcf":
        samples = ["S%d" % (i + 1) for i in range(_r.randint(1, 3))]
        out += ["##fileformat=VCFv4.2", '##INFO=<ID=DP,Number=1,Type=Integer,Description="Depth">',
                '##FORMAT=<ID=GT,Number=1,Type=String,Description="Genotype">',
                "##contig=<ID=chr1,length=100000>"]
        out += ['##INFO=<ID=%s,Number=1,Type=String,Description="%s">' % (k, k) for k in keys]
        out += [
                "\t".join(["#CHROM", "POS", "ID", "REF", "ALT", "QUAL", "FILTER", "INFO", "FORMAT"] + samples)]
        pos = 0
        for _ in range(_r.randint(1, 5)):
            pos += _r.randint(1, 5000)
            ref = _r.choice("ACGT")
            alt = _r.choice([a for a in "ACGT" if a != ref])
            gts = [_r.choice(["0/0", "0/1", "1/1", "./.", "0|1"]) for _ in samples]
            out.append("\t".join([_r.choice(chroms[:1]), str(pos), _r.choice([".", "rs%d" % pos]), ref, alt,
                                  str(_r.randint(1, 99)), _r.choice(["PASS", "."]),
                                  "DP=%d" % _r.randint(1, 99) + (_bc_attrs(_r, keys, ";") if keys else ""),
                                  "GT"] + gts))
    elif fmt == "sam":
        out += ["@HD\tVN:1.6\tSO:coordinate", "@SQ\tSN:chr1\tLN:100000"]
        for i in range(_r.randint(1, 4)):
            seq = _bc_seq(_r, "ACGT", 10, 40)
            out.append("\t".join(["read%d" % (i + 1), str(_r.choice([0, 16, 4, 99])), "chr1", str(_r.randint(1, 5000)),
                                  str(_r.randint(0, 60)), "%dM" % len(seq), "*", "0", "0", seq,
                                  _bc_seq(_r, "#+5:?ABCDEFGHI", len(seq), len(seq))]))
    elif fmt == "bed":
        for i in range(_r.randint(1, 5)):
            start = _r.randint(0, 10000)
            out.append("\t".join([_r.choice(chroms), str(start), str(start + _r.randint(1, 2000)), "feat%d" % (i + 1),
                                  str(_r.randint(0, 1000)), _r.choice("+-")]))
    elif fmt == "gff":
        out.append("##gff-version 3")
        for i in range(_r.randint(1, 5)):
            start = _r.randint(1, 10000)
            out.append("\t".join([_r.choice(chroms), "src", _r.choice(["gene", "mRNA", "exon", "CDS"]), str(start),
                                  str(start + _r.randint(1, 2000)), _r.choice([".", str(_r.randint(0, 100))]),
                                  _r.choice("+-"), _r.choice([".", "0"]),
                                  "ID=f%d;Name=g%d" % (i + 1, _r.randint(1, 9))
                                  + (_bc_attrs(_r, keys, ";") if keys else "")]))
    else:
        out += [_bc_line(_r) for _ in range(_r.randint(1, 5))]
    return "\n".join(out) + "\n"


def _bc_format_line(_r, fmt, keys=()):
    """One data line of ``fmt`` (no header lines, no newline)."""
    lines = [ln for ln in _bc_format(_r, fmt, keys).splitlines() if ln and not ln.startswith(("#", "@", ">", "+"))]
    if fmt in ("fasta", "fastq") or not lines:
        return _bc_format(_r, fmt, keys).splitlines()[0]
    return _r.choice(lines)


def _bc_handle(text):
    import io
    return io.StringIO(text)
'''
