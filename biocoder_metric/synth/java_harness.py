"""Write a Java harness (``context``) for a method: a ``Main`` class, sliced helpers, generators.

Shape of the program (one compile unit, so the engine's compile-once runner takes it)::

    import java.util.*; ...                       // the class file's imports the image can satisfy
    class Orig { <fields and helper methods the method needs, sliced from its class> }
    public class Main extends Orig {
        <<insert solution here>>
        <helpers: _bcShow, generators>
        public static void main(String[] a) { Random _r = new Random(<|int;range=0,999999999|>); ... }
    }

Why ``Main extends Orig``: the golden refers to its class's members unqualified *and*
qualified (``Utils.charAt(...)``); inheriting from a class that keeps the original name
makes both resolve without rewriting the candidate's code. Sliced members lose
``private`` (so the subclass sees them) and uninitialised ``final`` fields lose ``final``
(so the harness can set them). Members come from the class source in the repository
when it is given; otherwise only the field declarations upstream lists in
``intraClassFieldsUsed`` can be used (its helper methods have no bodies), and a method
calling such a helper cannot be harnessed (the reason says so).

One fuzz placeholder seeds ``java.util.Random``; every argument is drawn from it, for
``SUBCASES`` calls per program (a compile per fuzz case is what Java fuzzing costs). The
printout is canonical: doubles to 10 significant digits, sets and maps sorted, arrays
deep-printed, identity hash codes removed; mutable arguments and the instance's fields
are printed after the call. A thrown exception prints ``exception: Name``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from biocoder_metric.execution.harness import INSERT_MARKER
from biocoder_metric.synth.python_harness import EXCEPTION_PREFIX, SEED_PLACEHOLDER
from biocoder_metric.validity.mutation import java_mask

#: Packages the reference image's classpath provides besides the JDK.
IMAGE_PACKAGES = ("java.", "javax.", "htsjdk.", "jregex.", "org.apache.commons.math3.")
DEFAULT_IMPORTS = (
    "import java.util.*;",
    "import java.util.function.*;",
    "import java.text.*;",
    "import java.io.*;",
    "import java.math.*;",
)
_PRIMS = {"int", "long", "short", "byte", "double", "float", "boolean", "char"}
_BOXED = {"Integer": "int", "Long": "long", "Short": "short", "Byte": "byte", "Double": "double",
          "Float": "float", "Boolean": "boolean", "Character": "char"}  # fmt: skip

#: Inputs per program: every compile serves several calls (javac per case is the cost of Java fuzzing).
SUBCASES = 4

HELPERS = r"""
    static String _bcStr(Random r, String alphabet, int lo, int hi) {
        int n = lo + r.nextInt(hi - lo + 1);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) sb.append(alphabet.charAt(r.nextInt(alphabet.length())));
        return sb.toString();
    }
    static String _bcNum(double v) {
        if (Double.isNaN(v)) return "nan";
        if (Double.isInfinite(v)) return v > 0 ? "inf" : "-inf";
        if (v == 0.0) return "0";
        return new java.math.BigDecimal(v).round(new java.math.MathContext(10)).stripTrailingZeros().toString();
    }
    static String _bcShow(Object o) {
        if (o == null) return "null";
        if (o instanceof Double || o instanceof Float) return _bcNum(((Number) o).doubleValue());
        if (o instanceof Number || o instanceof Boolean) return o.toString();
        if (o instanceof Character) return "'" + o + "'";
        if (o instanceof CharSequence) return "\"" + o + "\"";
        if (o.getClass().isArray()) {
            int n = java.lang.reflect.Array.getLength(o);
            StringBuilder sb = new StringBuilder("[");
            for (int i = 0; i < n; i++) { if (i > 0) sb.append(", "); sb.append(_bcShow(java.lang.reflect.Array.get(o, i))); }
            return sb.append("]").toString();
        }
        if (o instanceof Map) {
            List<String> items = new ArrayList<>();
            for (Object e : ((Map<?, ?>) o).entrySet()) {
                Map.Entry<?, ?> en = (Map.Entry<?, ?>) e;
                items.add(_bcShow(en.getKey()) + ": " + _bcShow(en.getValue()));
            }
            Collections.sort(items);
            return "{" + String.join(", ", items) + "}";
        }
        if (o instanceof Set) {
            List<String> items = new ArrayList<>();
            for (Object e : (Set<?>) o) items.add(_bcShow(e));
            Collections.sort(items);
            return "set(" + String.join(", ", items) + ")";
        }
        if (o instanceof Iterable) {
            List<String> items = new ArrayList<>();
            for (Object e : (Iterable<?>) o) items.add(_bcShow(e));
            return "[" + String.join(", ", items) + "]";
        }
        return o.toString().replaceAll("@[0-9a-f]{4,}", "@");
    }
    static void _bcPrint(String label, Object o) {
        String s = _bcShow(o);
        if (s.length() > 20000) s = s.substring(0, 20000) + "...(" + s.length() + " chars)";
        System.out.println(label + s);
    }
    static <T> List<T> _bcList(Random r, int lo, int hi, Supplier<T> g) {
        int n = lo + r.nextInt(hi - lo + 1);
        List<T> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(g.get());
        return out;
    }
"""


@dataclass
class JavaParam:
    type: str
    name: str


@dataclass
class JavaSubject:
    """The method under test, its class, and what the harness needs around it."""

    name: str
    return_type: str
    params: list[JavaParam]
    is_static: bool
    class_name: str
    type_vars: list[str] = field(default_factory=list)
    members: list[str] = field(default_factory=list)  # sliced member sources (for the base class)
    imports: list[str] = field(default_factory=list)
    settable_fields: list[JavaParam] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------- parsing


def split_params(text: str) -> list[str]:
    """Split a parameter list at top-level commas (generic arguments contain commas too)."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def parse_signature(golden: str, name: str) -> tuple[str, list[JavaParam], bool, list[str]]:
    """(return type, params, static, type variables) of method ``name`` in ``golden``."""
    mask = java_mask(golden)
    m = re.search(r"((?:[\w@]+\s+)*?)(<[^()]*?>\s+)?([\w.$<>\[\], ?]+?)\s+" + re.escape(name) + r"\s*\(", mask)
    if not m:
        raise ValueError(f"cannot find the signature of {name!r}")
    mods = m.group(1) or ""
    tvars = [t.strip().split()[0] for t in split_params((m.group(2) or "").strip()[1:-1])] if m.group(2) else []
    depth, i = 0, m.end() - 1
    for j in range(i, len(mask)):
        if mask[j] == "(":
            depth += 1
        elif mask[j] == ")":
            depth -= 1
            if depth == 0:
                break
    plist = golden[i + 1 : j]
    params = []
    for p in split_params(plist):
        p = re.sub(r"@\w+\s*", "", p).replace("final ", "").strip()
        varargs = "..." in p
        p = p.replace("...", "[] ")
        typ, pname = p.rsplit(None, 1)
        params.append(JavaParam(type=typ.replace(" ", "") if not varargs else typ.strip().replace(" ", ""), name=pname))
    words = (mods + " " + m.group(3)).split()
    modifiers = {"public", "private", "protected", "static", "final", "synchronized", "abstract", "native", "strictfp"}
    rtype = m.group(3).strip()
    while rtype.split(" ", 1)[0] in modifiers:
        rtype = rtype.split(" ", 1)[1].strip()
    gm = re.match(r"<(.*?)>\s*(.+)$", rtype)
    if gm:  # <K, V> V: the type variables were matched into the return type
        tvars = [t.strip().split()[0] for t in split_params(gm.group(1))]
        rtype = gm.group(2).strip()
    return rtype, params, "static" in words, tvars


def class_members(source: str) -> tuple[str, list[tuple[str, str, str]]]:
    """(class name, [(member name, kind 'field'|'method'|'type', source)]) of the file's first top-level class."""
    mask = java_mask(source)
    m = re.search(r"\b(?:class|enum|interface)\s+(\w+)[^{]*\{", mask)
    if not m:
        return "", []
    cls = m.group(1)
    i = m.end()
    depth = 1
    start = i
    members: list[tuple[str, str, str]] = []
    while i < len(mask) and depth > 0:
        ch = mask[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 1:
                _add_member(source[start : i + 1], mask[start : i + 1], members)
                start = i + 1
            elif depth == 0:
                break
        elif ch == ";" and depth == 1:
            _add_member(source[start : i + 1], mask[start : i + 1], members)
            start = i + 1
        i += 1
    return cls, members


def _add_member(text: str, mask: str, out: list[tuple[str, str, str]]) -> None:
    # Drop leading comments / blank lines (they are blank in the mask).
    lead = len(mask) - len(mask.lstrip())
    text, mask = text[lead:], mask[lead:]
    if not mask.strip() or mask.strip() == ";":
        return
    head = mask.split("{", 1)[0]
    tm = re.search(r"\b(class|interface|enum)\s+(\w+)", head)
    if tm:
        out.append((tm.group(2), "type", text))
        return
    if "(" in head.split("=", 1)[0]:
        nm = re.search(r"(\w+)\s*\(", head)
        if nm and nm.group(1) not in ("static",):
            out.append((nm.group(1), "method", text))
        return
    names = re.findall(r"(\w+)\s*(?:=|;|,)", head.split("=", 1)[0] + ";")
    for n in names[-1:]:
        out.append((n, "field", text))


def _identifiers(code: str) -> set[str]:
    return set(re.findall(r"\b[A-Za-z_]\w*\b", java_mask(code)))


def slice_class(source: str, golden: str, name: str) -> tuple[str, list[str], list[str]]:
    """(class name, member sources needed by the golden (transitively), the file's usable imports)."""
    cls, members = class_members(source)
    by_name: dict[str, list[tuple[str, str]]] = {}
    for n, kind, text in members:
        by_name.setdefault(n, []).append((kind, text))
    wanted: set[str] = set()
    todo = [golden]
    while todo:
        ids = _identifiers(todo.pop())
        for ident in sorted(ids):
            if ident in by_name and ident not in wanted and ident != name:
                wanted.add(ident)
                todo.extend(t for _, t in by_name[ident])
    # Helpers that call the method under test need it too (the golden copy, in the base class).
    # Overloads of the method itself that its body calls (``complement(String)`` -> ``complement(byte[])``).
    body = golden[golden.find("{") + 1 :] if "{" in golden else ""
    if re.search(r"\b" + re.escape(name) + r"\s*\(", java_mask(body)) if body else False:
        squash = "".join(golden.split())
        for n, kind, text in members:
            if n == name and kind == "method" and "".join(text.split()) != squash and squash not in "".join(text.split()):
                wanted.add(n)
    def key(code: str) -> tuple[str, ...] | None:
        try:
            return tuple(p.type for p in parse_signature(code, name)[1])
        except ValueError:
            return None

    own = key(golden)
    out: list[str] = []
    for n, kind, text in members:
        if n == name and kind == "method" and key(text) == own:
            continue  # the method under test itself goes to Main (unless a helper calls it, below)
        if n in wanted and not (kind == "method" and re.search(r"\b" + re.escape(cls) + r"\s*\(", java_mask(text).split("{")[0])):
            out.append(text)
    if any(re.search(r"\b" + re.escape(name) + r"\s*\(", java_mask(t)) for t in out):
        out.extend(text for n, kind, text in members if n == name and kind == "method")
    imports = [
        ln.strip() for ln in source.splitlines()
        if ln.strip().startswith("import ") and not ln.strip().startswith("import static")
        and ln.split()[1].startswith(IMAGE_PACKAGES)
    ]  # fmt: skip
    return cls, out, imports


def _loosen(member: str) -> str:
    """Make a sliced member visible to ``Main`` and settable by the harness."""
    mask = java_mask(member)
    head_end = mask.find("{") if "{" in mask else len(mask)
    head = member[:head_end]
    head = re.sub(r"\bprivate\s+", "", head)
    if "(" not in head.split("=")[0] and "=" not in head and re.search(r"\bfinal\b", head):
        head = re.sub(r"\bfinal\s+", "", head)
    return head + member[head_end:]


def analyse_java(row: dict, repo_dir: str | Path | None = None, siblings: list[tuple[str, str]] | None = None) -> JavaSubject:
    """Everything needed to render a harness for a Java row (see module docstring)."""
    golden = row["golden_code"]
    name = row["function_name"]
    rtype, params, is_static, tvars = parse_signature(golden, name)
    meta = json.loads(row.get("metadata") or "{}")
    subject = JavaSubject(name=name, return_type=rtype, params=params, is_static=is_static, class_name="Orig", type_vars=tvars)
    subject.imports = list(DEFAULT_IMPORTS)
    src_path = Path(repo_dir) / row["file_path"] if repo_dir and row.get("file_path") else None
    field_decls: list[str] = []
    if src_path is not None and src_path.is_file():
        source = src_path.read_text(encoding="utf-8", errors="replace")
        cls, members, imports = slice_class(source, golden, name)
        subject.class_name = cls or "Orig"
        subject.members = [_loosen(m) for m in members]
        subject.imports += imports
        # ``import static pkg.Utils.helper;`` of a repository class: slice the helper in as well.
        used = _identifiers(golden + "\n".join(members))
        for m in re.finditer(r"^\s*import\s+static\s+([\w.]+)\.(\w+)\s*;", source, re.M):
            owner, member = m.group(1), m.group(2)
            if member not in used or owner.startswith(IMAGE_PACKAGES) or owner.split(".")[-1] == cls:
                continue
            found = sorted(Path(repo_dir).rglob(owner.split(".")[-1] + ".java"))
            if not found:
                subject.unresolved.append(f"static import {owner}.{member} (class not in the repository)")
                continue
            other = found[0].read_text(encoding="utf-8", errors="replace")
            _, extra, extra_imports = slice_class(other, f"{member}();", "")
            subject.members += [_loosen(e) for e in extra if e not in members]
            subject.imports += extra_imports
    else:
        declared = meta.get("intraClassFieldsUsed") or ""
        # Helper methods whose golden is another task of the same class supply their bodies.
        others = [(k, v) for k, v in (siblings or []) if v.strip() != golden.strip()]
        helper_src: dict[str, str] = {}  # golden text -> name (overloads are separate entries)
        body = golden[golden.find("{") + 1 :] if "{" in golden else golden
        todo = [body]
        while todo:
            ids_now = _identifiers(todo.pop())
            for helper, code in others:
                if helper in ids_now and code not in helper_src:
                    helper_src[code] = helper
                    todo.append(code)
        helper_names = set(helper_src.values())
        ids = _identifiers(golden + "\n" + "\n".join(helper_src))
        fpath = row.get("file_path") or ""
        subject.class_name = Path(fpath).stem if fpath else "Orig"
        for line in declared.splitlines():
            line = line.strip()
            if not line:
                continue
            head = line.split("=")[0]
            if "(" in head:
                mname = re.search(r"(\w+)\s*\(", head)
                if mname and mname.group(1) in ids and mname.group(1) != name and mname.group(1) not in helper_names:
                    subject.unresolved.append(f"helper method {mname.group(1)} (no source: give the repository)")
                continue
            fname = re.findall(r"(\w+)\s*$", head.rstrip(";").strip())
            if fname and fname[0] in ids:
                field_decls.append(line)
        subject.members = [_loosen(d) for d in field_decls] + [_loosen(c) for c in helper_src]
        if any(re.search(r"\b" + re.escape(name) + r"\s*\(", java_mask(c)) for c in helper_src):
            subject.members.append(_loosen(golden))  # a helper calls the method under test
    subject.members = list(dict.fromkeys(subject.members))
    # Instance fields without an initializer that the method reads are set by the harness.
    if not is_static:
        gids = _identifiers(golden)
        for member in subject.members:
            mask = java_mask(member)
            head = mask.split("{")[0]
            if "(" in head.split("=")[0] or "=" in head or re.search(r"\bstatic\b", head):
                continue
            fm = re.match(r"\s*(?:(?:public|protected|private|transient|volatile)\s+)*([\w.<>\[\], ?]+?)\s+(\w+)\s*;", member)
            if fm and fm.group(2) in gids:
                subject.settable_fields.append(JavaParam(type=fm.group(1).replace(" ", ""), name=fm.group(2)))
    return subject


# ---------------------------------------------------------------------------- generators


def generator(typ: str, name: str, tvars: list[str], variant: int = 0) -> str | None:
    """A Java expression of type ``typ`` drawn from ``_r`` (``None`` when the type is not supported)."""
    t = typ.strip()
    n = name.lower()
    if t in tvars or t in ("E", "T", "K", "V", "?", "Object"):
        return "Integer.valueOf(_r.nextInt(20))" if variant % 2 == 0 else "_bcStr(_r, \"abcdef\", 2, 6)"
    if t in _BOXED:
        inner = generator(_BOXED[t], name, tvars, variant)
        return f"{t}.valueOf({inner})" if inner else None
    if t == "int" or t == "short" or t == "byte":
        hi = 5 if re.search(r"color|colour", n) else 12 if re.search(r"(^|_)k($|_)|kmer", n) else 20
        expr = f"_r.nextInt({hi + 1})" if variant != 2 else f"(_r.nextInt({2 * hi + 1}) - {hi})"
        return expr if t == "int" else f"({t}) {expr}"
    if t == "long":
        if re.search(r"kmer|value|bps|bytes|size", n):
            return "(long) _r.nextInt(1 << 24)"
        return "(long) _r.nextInt(1000)"
    if t in ("double", "float"):
        if re.search(r"prop|perc|prob|frac|ratio|(^|_)p($|_)|alpha|tol", n):
            expr = "_r.nextDouble()"
        elif variant == 1:
            expr = "(_r.nextDouble() * 200 - 100)"
        else:
            expr = "(0.1 + _r.nextDouble() * 20)"
        return expr if t == "double" else f"(float) {expr}"
    if t == "boolean":
        return "_r.nextBoolean()"
    if t == "char":
        return "\"ACGTNacgtn\".charAt(_r.nextInt(10))"
    if t in ("String", "CharSequence"):
        if re.search(r"pattern|format", n):
            return "new String[]{\"0.00\", \"0.000\", \"#.##\", \"0.0###\"}[_r.nextInt(4)]"
        if re.search(r"delim|sep", n):
            return "new String[]{\",\", \"\\t\", \" \", \";\"}[_r.nextInt(4)]"
        if re.search(r"int|num|count|size|len|denominator|numerator", n):
            return "String.valueOf(_r.nextInt(100000))"
        if variant == 1:
            return "_bcStr(_r, \"abcdefghij\", 3, 12)"
        return "_bcStr(_r, \"ACGT\", 5, 30)"
    if t == "StringBuilder":
        return "new StringBuilder(_bcStr(_r, \"ACGT\", 5, 30))"
    if t.endswith("[]"):
        base = t[:-2]
        if base == "byte":
            return "_bcStr(_r, \"ACGTN\", 5, 30).getBytes()"
        if base == "char":
            return "_bcStr(_r, \"ACGT\", 5, 30).toCharArray()"
        elem = generator(base, name, tvars, variant)
        if elem is None:
            return None
        boxed = {v: k for k, v in _BOXED.items()}.get(base, base)
        if base in _PRIMS:
            unbox = {"int": "mapToInt(Integer::intValue)", "long": "mapToLong(Long::longValue)",
                     "double": "mapToDouble(Double::doubleValue)"}.get(base)  # fmt: skip
            if unbox is None:
                return None
            return f"_bcList(_r, 3, 15, () -> {boxed}.valueOf({elem})).stream().{unbox}.toArray()"
        return f"_bcList(_r, 1, 8, () -> ({base}) {elem}).toArray(new {base}[0])"
    gm = re.match(r"(List|ArrayList|Collection|Iterable|Set|HashSet|TreeSet|LinkedList)<(.+)>$", t)
    if gm:
        elem = generator(gm.group(2), name, tvars, variant)
        if elem is None:
            return None
        lst = f"_bcList(_r, 0 + 1, 8, () -> {elem})"
        if gm.group(1) in ("Set", "HashSet"):
            return f"new HashSet<>({lst})"
        if gm.group(1) == "TreeSet":
            return f"new TreeSet<>({lst})"
        if gm.group(1) == "LinkedList":
            return f"new LinkedList<>({lst})"
        return f"new ArrayList<>({lst})"
    mm = re.match(r"(Map|HashMap|TreeMap|LinkedHashMap)<(.+)>$", t)
    if mm:
        kv = split_params(mm.group(2))
        if len(kv) != 2:
            return None
        kg, vg = generator(kv[0], name + "_key", tvars, 1), generator(kv[1], name, tvars, variant)
        if kg is None or vg is None:
            return None
        kind = "TreeMap" if mm.group(1) == "TreeMap" else "HashMap"
        return f"_bcList(_r, 1, 6, () -> 0).stream().collect(java.util.stream.Collectors.toMap(_i -> {kg}, _i -> {vg}, (a, b) -> b, {kind}::new))"
    if re.match(r"(Function|java\.util\.function\.Function)<Double,\s*Double>", t):
        return "_bcFn(_r)"
    if t in ("jregex.Pattern",):
        return "new jregex.Pattern(new String[]{\"\\\\d+\", \"[ACGT]+\", \"(\\\\d+)M\", \"\\\\w\"}[_r.nextInt(4)])"
    if t == "Pattern" or t == "java.util.regex.Pattern":
        return "java.util.regex.Pattern.compile(new String[]{\"\\\\d+\", \"[ACGT]+\", \"(\\\\d+)M\"}[_r.nextInt(3)])"
    return None


FN_HELPER = """
    static Function<Double, Double> _bcFn(Random r) {
        final double c = 0.5 + r.nextDouble() * 5;
        switch (r.nextInt(3)) {
            case 0: return x -> x * x - c;
            case 1: return x -> x - c;
            default: return x -> Math.exp(x) - c;
        }
    }
"""


def render_java(subject: JavaSubject, variant: int = 0) -> str | None:
    """The harness program, or ``None`` when a parameter type has no generator."""
    lines = list(dict.fromkeys(subject.imports))
    lines.append("")
    lines.append(f"class {subject.class_name} {{")
    for m in subject.members:
        lines += ["    " + ln if ln.strip() else "" for ln in m.strip("\n").splitlines()]
    lines.append("}")
    lines.append("")
    lines.append(f"public class Main extends {subject.class_name} {{")
    lines.append(f"    {INSERT_MARKER}")
    lines.append(HELPERS.rstrip())
    lines.append(FN_HELPER.rstrip())
    lines.append("")
    lines.append("    public static void main(String[] _args) {")
    body = [f"Random _r = new Random({SEED_PLACEHOLDER}L);", f"for (int _k = 0; _k < {SUBCASES}; _k++) {{"]
    loop_start = len(body)
    if not subject.is_static:
        body.append("Main _o = new Main();")
        for f in subject.settable_fields:
            g = generator(f.type, f.name, subject.type_vars, variant)
            if g is None:
                return None
            body.append(f"_o.{f.name} = {g};")
    names = []
    for i, p in enumerate(subject.params):
        g = generator(p.type, p.name, subject.type_vars, variant)
        if g is None:
            return None
        t = p.type if p.type not in subject.type_vars else "Object"
        t = re.sub(r"\b(" + "|".join(map(re.escape, subject.type_vars)) + r")\b", "Object", t) if subject.type_vars else t
        body.append(f"{t} _a{i} = {g};")
        names.append(f"_a{i}")
    target = "_o" if not subject.is_static else "Main"
    call = f"{target}.{subject.name}({', '.join(names)})"
    body.append("try {")
    if subject.return_type == "void":
        body.append(f"    {call};")
        body.append("    System.out.println(\"result: void\");")
    else:
        body.append(f"    _bcPrint(\"result: \", {call});")
    body.append("} catch (Exception | StackOverflowError _e) {")
    body.append(f"    System.out.println(\"{EXCEPTION_PREFIX}\" + _e.getClass().getSimpleName());")
    body.append("}")
    for i, p in enumerate(subject.params):
        if p.type.endswith("[]") or re.match(r"(List|ArrayList|Collection|Set|HashSet|Map|HashMap|TreeMap|StringBuilder)\b", p.type):
            body.append(f"_bcPrint(\"after {p.name}: \", _a{i});")
    if not subject.is_static:
        for f in subject.settable_fields:
            body.append(f"_bcPrint(\"after this.{f.name}: \", _o.{f.name});")
    body[loop_start:] = ["    " + b for b in body[loop_start:]]
    body.append("}")
    lines += ["        " + b for b in body]
    lines.append("    }")
    lines.append("}")
    return "\n".join(lines) + "\n"
