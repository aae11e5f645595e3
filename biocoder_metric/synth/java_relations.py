"""Relations between a Java method's inputs that independent draws almost never satisfy.

Why: the Java harness draws every parameter and field on its own (``java_harness.generator``).
Code written for real data assumes things about how its inputs relate: two arrays walked by
one index are as long as each other (``if (x.length != w.length) throw``), an index points
inside the array it indexes (``rows[p]``), a count field is no larger than the array it
counts, a key is one of the map's keys (``counts.get(sample).length``), a matrix is
rectangular (``A[i].length != n`` throws) or square (``m[i][i]``). With independent draws the
golden throws on nearly every call, the harness is rejected ("golden raises on 40/40 calls"),
and the branches past those checks are never tested. A person writing the test would draw
the inputs so that they agree; this module reads the golden (and the helper members it
calls) for the evidence, and :func:`adjustments` writes the Java statements that make the
drawn values agree after they are drawn (one draw in a few keeps a fresh key, so the
"not found" path still runs).

Only parameters and fields the harness sets are related; locals are the golden's own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from biocoder_metric.synth.java_text import paren_end, statement_end
from biocoder_metric.validity.mutation import java_mask

#: Types whose values have a length the golden may compare or index within.
_SEQUENCE = re.compile(
    r"^(?:.+\[\]|String|CharSequence|StringBuilder|(?:java\.util\.)?(?:List|ArrayList|LinkedList|Vector|Collection)\b.*)$"
)
_MAP = re.compile(r"^(?:java\.util\.)?(?:Map|HashMap|TreeMap|LinkedHashMap|SortedMap|NavigableMap)\b")
_INT = {"int", "Integer", "short", "long"}
_CASTS = {"short": "short", "long": "long"}
#: ``x.length``, ``x.size()``, ``x.length()``: the length of ``x``.
_LEN = r"(?:\.\s*length\b(?:\s*\(\s*\))?|\.\s*size\s*\(\s*\))"
_ID = r"(?:this\s*\.\s*)?(\w+)"


@dataclass
class Relations:
    """What :func:`relations` found (names are parameters or fields the harness draws)."""

    #: groups of sequences indexed together or compared by length: cut to one length
    same_length: list[list[str]] = field(default_factory=list)
    #: int name -> (sequence, lowest allowed, amount below the length, whether it counts the
    #: sequence's elements rather than indexes one): ``lo <= n < len - off``
    within: dict[str, list[tuple[str, int, int, bool]]] = field(default_factory=dict)
    #: name -> map or sequence it is looked up in (drawn from its keys or elements, mostly)
    key_of: dict[str, str] = field(default_factory=dict)
    #: sequence -> sequence of its type it is searched for in (a slice of it, one draw in two)
    part_of: dict[str, str] = field(default_factory=dict)
    #: arrays of arrays used as square matrices (the others are made rectangular)
    square: set[str] = field(default_factory=set)
    #: name -> Java literals it is compared with for equality (``s.equals("fwd")``, ``case 3:``)
    choices: dict[str, list[str]] = field(default_factory=dict)
    #: string name -> (Java string literal, where: start, end or any) it is searched for
    planted: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    #: string name -> "int" or "real": the golden parses it as a number
    numeric: dict[str, str] = field(default_factory=dict)
    #: files the golden lists as folders (``dir.listFiles()``): a folder of a few files
    folders: set[str] = field(default_factory=set)

    def __bool__(self) -> bool:
        return any(vars(self).values())


def _same_sequence(types: dict[str, str], a: str, b: str) -> bool:
    """Two different drawn names of one sequence type (text and text, ``byte[]`` and ``byte[]``)."""
    ta, tb = types.get(a, "").replace(" ", ""), types.get(b, "").replace(" ", "")
    return a != b and ta == tb and bool(_SEQUENCE.match(ta))


def _offset(text: str | None) -> int:
    """``+ 1`` -> 1, ``- 2`` -> -2, ``None`` -> 0."""
    if not text:
        return 0
    return int(text.replace(" ", ""))


def _subscripts(body: str, var: str) -> list[tuple[str, int]]:
    """``(sequence, offset)`` for every ``seq[var + c]``, ``seq.get(var + c)``, ``seq.charAt(var + c)``."""
    v = re.escape(var)
    off = r"(\s*[+-]\s*\d+)?"
    out = [
        (m.group(1), _offset(m.group(2)))
        for m in re.finditer(r"(?<![\w.])" + _ID + r"\s*\[\s*" + v + off + r"\s*\]", body)
    ]
    out += [
        (m.group(1), _offset(m.group(2)))
        for m in re.finditer(
            r"(?<![\w.])" + _ID + r"\s*\.\s*(?:get|charAt|set|remove)\s*\(\s*" + v + off + r"\s*[,)]", body
        )
    ]
    return out


def _locals_of_lengths(mask: str) -> dict[str, str]:
    """Locals holding a length (``int n = a.length;``): local name -> sequence name."""
    return {
        m.group(1): m.group(2)
        for m in re.finditer(r"\bint\s+(\w+)\s*=\s*" + _ID + r"\s*" + _LEN + r"\s*[;,]", mask)
    }


def relations(code: str, types: dict[str, str]) -> Relations:
    """The relations between the drawn names ``types`` (name -> Java type) that ``code`` (the
    golden and the helper members it calls) relies on."""
    mask = java_mask(code)
    seqs = {n for n, t in types.items() if _SEQUENCE.match(t.replace(" ", ""))}
    maps = {n for n, t in types.items() if _MAP.match(t.replace(" ", ""))}
    ints = {n for n, t in types.items() if t in _INT}
    out = Relations()
    groups: list[set[str]] = []

    def join(a: str, b: str) -> None:
        if a == b or a not in seqs or b not in seqs:
            return
        hit = [g for g in groups if a in g or b in g]
        merged = {a, b}.union(*hit) if hit else {a, b}
        for g in hit:
            groups.remove(g)
        groups.append(merged)

    def bound(n: str, seq: str, lo: int, off: int, count: bool = False) -> None:
        if n in ints and seq in seqs and (seq, lo, off, count) not in out.within.get(n, []):
            out.within.setdefault(n, []).append((seq, lo, off, count))

    # a.length != b.length, a.size() == b.length ...
    for m in re.finditer(_ID + r"\s*" + _LEN + r"\s*[!=<>]=?\s*" + _ID + r"\s*" + _LEN, mask):
        join(m.group(1), m.group(2))
    lengths = _locals_of_lengths(mask)
    # loops: for (int i = START; i < BOUND; ...) BODY
    for m in re.finditer(r"\bfor\s*\(", mask):
        close = paren_end(mask, m.end() - 1)
        header = mask[m.end() : close - 1]
        parts = header.split(";")
        if len(parts) != 3:
            continue
        init = re.match(r"\s*(?:int\s+)?(\w+)\s*=\s*(.+?)\s*$", parts[0])
        if not init:
            continue
        var, start = init.group(1), init.group(2)
        cond = re.match(r"\s*" + re.escape(var) + r"\s*(<=?)\s*(.+?)\s*$", parts[1])
        if not cond:
            continue
        inclusive, bexpr = cond.group(1) == "<=", cond.group(2)
        body = mask[close : statement_end(mask, close)]
        subs = _subscripts(body, var)
        if not subs:
            continue
        # the sequence whose length bounds the loop, if any
        bl = re.fullmatch(_ID + r"\s*" + _LEN + r"\s*(?:-\s*(\d+))?", bexpr)
        bseq = bl.group(1) if bl else None
        if bseq is None:
            ln = re.fullmatch(r"(\w+)\s*(?:-\s*(\d+))?", bexpr)
            if ln and ln.group(1) in lengths:
                bseq = lengths[ln.group(1)]
        for seq, c in subs:
            if bseq is not None and seq != bseq and c <= 0:
                join(bseq, seq)
        # an int drawn for the bound: i < n with seq[i + c] -> n <= len(seq) - c
        nb = re.fullmatch(_ID + r"\s*(?:-\s*(\d+))?", bexpr)
        if nb and nb.group(1) in ints:
            minus = int(nb.group(2) or 0)
            for seq, c in subs:
                # the largest i is n - minus - 1 (n - minus with <=), and i + c < len(seq)
                bound(nb.group(1), seq, 1, c - minus - (0 if inclusive else 1), count=True)
        st = re.fullmatch(_ID, start.strip())
        if st and st.group(1) in ints:  # for (j = i; ...) seq[j]: i is an index of seq
            for seq, c in subs:
                bound(st.group(1), seq, max(0, -c), max(0, c))
    # direct subscripts by a drawn int: rows[p], s.charAt(k + 1)
    for n in ints:
        for seq, c in _subscripts(mask, n):
            bound(n, seq, max(0, -c), max(0, c))
    # keys: counts.get(sample), m.containsKey(k), names.indexOf(x), list.contains(x)
    for m in re.finditer(
        _ID + r"\s*\.\s*(get|containsKey|remove|getOrDefault|indexOf|contains)\s*\(\s*" + _ID + r"\s*[,)]",
        mask,
    ):
        holder, method, key = m.group(1), m.group(2), m.group(3)
        if key not in types or key == holder:
            continue
        if method in ("indexOf", "contains") and _same_sequence(types, holder, key):
            out.part_of.setdefault(key, holder)  # text in text: a piece of it
            continue
        if holder in maps and method in ("get", "containsKey", "remove", "getOrDefault"):
            out.key_of.setdefault(key, holder)
        elif holder in seqs and method in ("indexOf", "contains") and key not in ints:
            out.key_of.setdefault(key, holder)
    for m in re.finditer(
        _ID + r"\s*\.\s*(?:startsWith|endsWith|lastIndexOf)\s*\(\s*" + _ID + r"\s*[,)]", mask
    ):
        if _same_sequence(types, m.group(1), m.group(2)):
            out.part_of.setdefault(m.group(2), m.group(1))
    # element by element: hay[i + j] == needle[j] (or the other way round)
    for m in re.finditer(
        _ID + r"\s*\[[^\]]*[+-][^\]]*\]\s*[!=]=\s*" + _ID + r"\s*\[\s*\w+\s*\]"
        r"|" + _ID + r"\s*\[\s*\w+\s*\]\s*[!=]=\s*" + _ID + r"\s*\[[^\]]*[+-][^\]]*\]",
        mask,
    ):
        hay, needle = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        if _same_sequence(types, hay, needle):
            out.part_of.setdefault(needle, hay)
    # square matrices: m[i][i], or m[i][j] with j bounded by m.length or by i
    for n, t in types.items():
        if not t.replace(" ", "").endswith("[][]"):
            continue
        e = re.escape(n)
        if re.search(r"(?<![\w.])" + e + r"\s*\[\s*(\w+)\s*\]\s*\[\s*\1\s*\]", mask):
            out.square.add(n)
            continue
        for m in re.finditer(r"\bfor\s*\(\s*(?:int\s+)?(\w+)\s*=[^;]*;\s*\1\s*<=?\s*([^;]+);", mask):
            var, bexpr = m.group(1), m.group(2).strip()
            if not re.search(r"(?<![\w.])" + e + r"\s*\[[^\]]+\]\s*\[\s*" + re.escape(var) + r"\s*\]", mask):
                continue
            side = re.fullmatch(r"(?:this\s*\.\s*)?" + e + r"\s*\.\s*length|(\w+)(?:\s*[+-]\s*\d+)?", bexpr)
            if side and (side.group(1) is None or side.group(1) in lengths and lengths[side.group(1)] == n):
                out.square.add(n)
                break
            if (
                side
                and side.group(1)
                and re.search(r"(?<![\w.])" + e + r"\s*\[\s*" + re.escape(side.group(1)) + r"\s*\]", mask)
            ):
                out.square.add(n)  # m[i][j] with j < i: a triangle of a square matrix
                break
    out.same_length = [sorted(g) for g in groups]
    for n, t in types.items():
        if t in ("File", "java.io.File", "Path", "java.nio.file.Path") and re.search(
            r"(?<![\w.])" + re.escape(n) + r"\s*\.\s*(?:listFiles|list|isDirectory)\s*\(|"
            r"Files\s*\.\s*(?:list|walk|newDirectoryStream)\s*\(\s*" + re.escape(n) + r"\b",
            mask,
        ):
            out.folders.add(n)
    _literals(code, mask, types, out)
    return out


_STR = r'"(?:[^"\\\n]|\\.)*"'
_CHR = r"'(?:[^'\\\n]|\\.)+'"
_NUM = r"-?\d+(?:\.\d+)?[LlFfDd]?"
_PARSERS = {
    "Integer.parseInt": "int", "Integer.valueOf": "int", "Long.parseLong": "int", "Long.valueOf": "int",
    "Short.parseShort": "int", "Double.parseDouble": "real", "Double.valueOf": "real",
    "Float.parseFloat": "real", "Float.valueOf": "real", "new BigDecimal": "real", "new BigInteger": "int",
}  # fmt: skip


def _literals(code: str, mask: str, types: dict[str, str], out: Relations) -> None:
    """The literals the golden compares a drawn name with, looks for in it, or parses it as.

    Why: a value drawn at random is never ``"fwd"``, never contains ``"<FEATURE"``, never parses
    as a number and is never the ``-1`` sentinel, so the branches for them never run and their
    mutants survive. The literal's text is read from ``code`` at the place the mask (strings
    blanked) matched.
    """

    def lit(m: re.Match[str], group: int) -> str:
        return code[m.start(group) : m.end(group)]

    def choose(n: str, value: str) -> None:
        if n in types and value not in out.choices.get(n, []):
            out.choices.setdefault(n, []).append(value)

    def plant(n: str, value: str, where: str) -> None:
        if n in types and (value, where) not in out.planted.get(n, []) and value != '""':
            out.planted.setdefault(n, []).append((value, where))

    strings = {n for n, t in types.items() if t in ("String", "CharSequence")}
    nums = {n for n, t in types.items() if t in _INT or t in ("double", "float", "Double", "Long", "char")}
    q = r'("\s*"|"[^"\n]*")'  # a masked string literal: its quotes survive
    for m in re.finditer(_ID + r"\s*\.\s*(equals|equalsIgnoreCase|compareTo)\s*\(\s*" + q + r"\s*\)", mask):
        if m.group(1) in strings:
            choose(m.group(1), lit(m, 3))
    for m in re.finditer(q + r"\s*\.\s*(?:equals|equalsIgnoreCase)\s*\(\s*" + _ID + r"\s*\)", mask):
        if m.group(2) in strings:
            choose(m.group(2), lit(m, 1))
    for m in re.finditer(
        _ID + r"\s*\.\s*(startsWith|endsWith|contains|indexOf|lastIndexOf|split|replace|matches)\s*\(\s*" + q,
        mask,
    ):
        if m.group(1) in strings and m.group(2) != "matches":
            where = {"startsWith": "start", "endsWith": "end"}.get(m.group(2), "any")
            plant(m.group(1), lit(m, 3), where)
    for m in re.finditer(r"\bswitch\s*\(\s*" + _ID + r"\s*\)\s*\{", mask):
        n = m.group(1)
        if n not in types:
            continue
        depth, end = 0, len(mask)
        for j in range(m.end() - 1, len(mask)):
            depth += {"{": 1, "}": -1}.get(mask[j], 0)
            if depth == 0:
                end = j
                break
        body = mask[m.end() : end]
        for c in re.finditer(r"\bcase\s+(" + q[1:-1] + "|" + _CHR + "|" + _NUM + r")\s*[:,-]", body):
            choose(n, code[m.end() + c.start(1) : m.end() + c.end(1)])
    for parser, kind in _PARSERS.items():
        for m in re.finditer(re.escape(parser).replace(r"\ ", r"\s+") + r"\s*\(\s*" + _ID + r"\s*\)", mask):
            if m.group(1) in strings:
                out.numeric.setdefault(m.group(1), kind)
    # numbers and characters compared with a literal: n == -1, c != 'N', len >= 1000
    for m in re.finditer(_ID + r"\s*(==|!=|<=|>=|<|>)\s*(" + _CHR + "|" + _NUM + r")(?![\w.])", mask):
        if m.group(1) in nums:
            choose(m.group(1), lit(m, 3))
    for m in re.finditer(
        r"(?<![\w.])(" + _CHR + "|" + _NUM + r")\s*(==|!=|<=|>=|<|>)\s*" + _ID + r"\b(?!\s*[.(\[])", mask
    ):
        if m.group(3) in nums:
            choose(m.group(3), lit(m, 1))


def adjustments(rel: Relations, exprs: dict[str, str], types: dict[str, str], variant: int) -> list[str]:
    """Java statements, run after the draws and before the call, that make the values agree.

    ``exprs``: name -> the Java lvalue holding it (``_a0``, ``_o.rows``). Variant 2 keeps its
    ints unbounded and its matrices jagged: one plan still reaches the golden's error paths.
    """
    lines: list[str] = []
    for n in sorted(rel.folders):
        if n in exprs:
            path = "" if types[n].endswith("File") else ".toPath()"
            lines.append(f"{exprs[n]} = _bcDir(_r){path};")
    for n, values in rel.choices.items():
        if n in exprs:
            lines.append(_chosen(exprs[n], types[n], values))
    for n, kind in rel.numeric.items():
        if n in exprs:
            e = exprs[n]
            text = (
                "String.valueOf(_r.nextInt(2001) - 1000)"
                if kind == "int"
                else "_bcNum(_r.nextDouble() * 200 - 100)"
            )
            lines.append(f"if (_r.nextInt(4) != 0) {e} = {text};")
    for n, found in rel.planted.items():
        if n in exprs:
            e = exprs[n]
            for value, where in found:
                lines.append(
                    f'if ({e} != null && _r.nextBoolean()) {e} = _bcPlant({e}, {value}, "{where}", _r);'
                )
    for n, t in types.items():
        if n in exprs and t.replace(" ", "").endswith("[][]") and variant != 2:
            sq = "true" if n in rel.square else "false"
            lines.append(f"{exprs[n]} = _bcRect({exprs[n]}, {sq});")
    for group in rel.same_length:
        members = [exprs[n] for n in group if n in exprs]
        if len(members) < 2:
            continue
        lens = ", ".join(f"_bcLen({e})" for e in members)
        cut = " ".join(f"{e} = _bcCut({e}, _n);" for e in members)
        lines.append(f"{{ int _n = _bcMin({lens}); {cut} }}")
    for n, holder in rel.part_of.items():
        if n in exprs and holder in exprs:
            lines.append(f"{exprs[n]} = _bcSlice({exprs[holder]}, {exprs[n]}, _r);")
    for n, holder in rel.key_of.items():
        if n in exprs and holder in exprs:
            lines.append(f"{exprs[n]} = _bcKeyOf({exprs[holder]}, {exprs[n]}, _r);")
    if variant != 2:
        for n, bounds in rel.within.items():
            if n not in exprs:
                continue
            for seq, lo, off, count in bounds:
                if seq in exprs:
                    t, e = types.get(n, "int"), exprs[n]
                    hi = f"_bcLen({exprs[seq]})" + (
                        f" - {off}" if off > 0 else f" + {-off}" if off < 0 else ""
                    )
                    # a count (``nodeCount`` of ``m_nodes``) is often all of them: one draw in two
                    helper = "_bcCount" if count else "_bcWithin"
                    value = f"({_CASTS.get(t, 'int')}) {helper}({e}, {lo}, {hi})"
                    lines.append(
                        f"{e} = {e} == null ? null : {value};" if t == "Integer" else f"{e} = {value};"
                    )
    return lines


def _chosen(e: str, typ: str, values: list[str]) -> str:
    """``e`` becomes one of the literals (or one off a number) one draw in two."""
    if typ in ("String", "CharSequence"):
        options = values
    else:
        cast = {"int": "int", "Integer": "int", "short": "short", "long": "long", "Long": "long",
                "double": "double", "Double": "double", "float": "float", "char": "char"}.get(typ, typ)  # fmt: skip
        options = []
        for v in values:
            if v.startswith("'"):
                options.append(v if cast == "char" else f"({cast}) {v}")
                continue
            if cast == "char":
                continue
            plain = v.rstrip("LlFfDd")
            integral = cast in ("int", "short", "long")
            if integral and "." in plain:
                continue
            options += [f"({cast}) ({plain})", f"({cast}) ({plain} - 1)", f"({cast}) ({plain} + 1)"]
        if not options:
            return ""
    box = {"int": "Integer", "short": "Short", "long": "Long", "double": "Double", "float": "Float",
           "char": "Character", "boolean": "Boolean"}.get(typ, typ)  # fmt: skip
    arr = f"new {box}[]{{{', '.join(options)}}}"
    return f"if (_r.nextBoolean()) {e} = {arr}[_r.nextInt({len(options)})];"


#: Java helpers :func:`adjustments` calls (added to the harness's helpers).
HELPERS = r"""
    static int _bcLen(Object x) {
        if (x == null) return Integer.MAX_VALUE;
        if (x instanceof CharSequence) return ((CharSequence) x).length();
        if (x instanceof java.util.Collection) return ((java.util.Collection<?>) x).size();
        if (x instanceof java.util.Map) return ((java.util.Map<?, ?>) x).size();
        if (x.getClass().isArray()) return java.lang.reflect.Array.getLength(x);
        return Integer.MAX_VALUE;
    }
    static String _bcPlant(String s, String part, String where, java.util.Random r) {
        if (where.equals("start")) return part + s;
        if (where.equals("end")) return s + part;
        int at = r.nextInt(s.length() + 1);
        return s.substring(0, at) + part + s.substring(at);
    }
    @SuppressWarnings("unchecked")
    static <T> T _bcSlice(Object hay, T x, java.util.Random r) {
        int n = _bcLen(hay);
        if (x == null || n == 0 || n == Integer.MAX_VALUE || r.nextBoolean()) return x;
        int a = r.nextInt(n), b = a + 1 + r.nextInt(Math.min(n - a, 6));
        if (hay instanceof String && x instanceof String) return (T) ((String) hay).substring(a, b);
        if (hay instanceof java.util.List && x instanceof java.util.List) {
            java.util.List<Object> l = (java.util.List<Object>) x;
            try { l.clear(); l.addAll(((java.util.List<?>) hay).subList(a, b)); } catch (RuntimeException _e) { }
            return x;
        }
        if (hay.getClass().isArray() && hay.getClass() == x.getClass()) {
            Object o = java.lang.reflect.Array.newInstance(hay.getClass().getComponentType(), b - a);
            System.arraycopy(hay, a, o, 0, b - a);
            return (T) o;
        }
        return x;
    }
    static java.io.File _bcDir(java.util.Random r) {
        java.io.File d = new java.io.File("_bc_dir_" + (_bcFiles++));
        d.mkdirs();
        int n = 1 + r.nextInt(4);
        for (int i = 0; i < n; i++) _bcFile(r).renameTo(new java.io.File(d, "f" + i + (r.nextBoolean() ? ".txt" : ".dat")));
        if (r.nextBoolean()) {
            java.io.File sub = new java.io.File(d, "sub");
            sub.mkdirs();
            _bcFile(r).renameTo(new java.io.File(sub, "g.txt"));
        }
        return d;
    }
    static int _bcMin(int... xs) { int m = Integer.MAX_VALUE; for (int x : xs) m = Math.min(m, x); return m; }
    @SuppressWarnings("unchecked")
    static <T> T _bcCut(T x, int n) {
        if (x == null || n == Integer.MAX_VALUE) return x;
        if (x instanceof String) return (T) ((String) x).substring(0, Math.min(n, ((String) x).length()));
        if (x instanceof StringBuilder) { if (((StringBuilder) x).length() > n) ((StringBuilder) x).setLength(n); return x; }
        if (x instanceof java.util.List) {
            java.util.List<?> l = (java.util.List<?>) x;
            try { if (l.size() > n) l.subList(n, l.size()).clear(); } catch (RuntimeException _e) { }
            return x;
        }
        if (x.getClass().isArray() && java.lang.reflect.Array.getLength(x) > n) {
            Object o = java.lang.reflect.Array.newInstance(x.getClass().getComponentType(), n);
            System.arraycopy(x, 0, o, 0, n);
            return (T) o;
        }
        return x;
    }
    @SuppressWarnings("unchecked")
    static <T> T _bcRect(T m, boolean square) {
        if (m == null || !m.getClass().isArray()) return m;
        int rows = java.lang.reflect.Array.getLength(m), cols = Integer.MAX_VALUE;
        if (rows == 0) return m;
        for (int i = 0; i < rows; i++) {
            Object row = java.lang.reflect.Array.get(m, i);
            if (row == null) return m;
            cols = Math.min(cols, java.lang.reflect.Array.getLength(row));
        }
        if (square) { cols = Math.min(rows, cols); rows = cols; }
        Object out = java.lang.reflect.Array.newInstance(m.getClass().getComponentType(), rows);
        for (int i = 0; i < rows; i++) {
            Object row = java.lang.reflect.Array.get(m, i);
            Object cut = java.lang.reflect.Array.newInstance(row.getClass().getComponentType(), cols);
            System.arraycopy(row, 0, cut, 0, cols);
            java.lang.reflect.Array.set(out, i, cut);
        }
        return (T) out;
    }
    static long _bcWithin(long v, int lo, int hi) {
        if (hi == Integer.MAX_VALUE || hi <= lo) return v;
        return lo + Math.floorMod(v, (long) (hi - lo));
    }
    static long _bcCount(long v, int lo, int hi) {
        if (hi == Integer.MAX_VALUE || hi <= lo) return v;
        return Math.floorMod(v, 2) == 0 ? hi - 1 : _bcWithin(v / 2, lo, hi);
    }
    @SuppressWarnings("unchecked")
    static <T> T _bcKeyOf(Object holder, T k, java.util.Random r) {
        java.util.List<Object> ks = new java.util.ArrayList<>();
        if (holder instanceof java.util.Map) ks.addAll(((java.util.Map<?, ?>) holder).keySet());
        else if (holder instanceof java.util.Collection) ks.addAll((java.util.Collection<?>) holder);
        else if (holder != null && holder.getClass().isArray())
            for (int i = 0; i < java.lang.reflect.Array.getLength(holder); i++) ks.add(java.lang.reflect.Array.get(holder, i));
        if (k == null || ks.isEmpty() || r.nextInt(4) == 0) return k;
        Object c = ks.get(r.nextInt(ks.size()));
        return c != null && k.getClass().isInstance(c) ? (T) c : k;
    }
"""
