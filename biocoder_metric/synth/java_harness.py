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
from dataclasses import dataclass, field, replace
from pathlib import Path

from biocoder_metric.execution.harness import INSERT_MARKER
from biocoder_metric.languages.java import tidy_java
from biocoder_metric.synth import java_relations
from biocoder_metric.synth.python_harness import ATTEMPTS, EXCEPTION_PREFIX, RETRY_PREFIX, SEED_PLACEHOLDER
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
#: primitive -> its boxed class (``int`` -> ``Integer``)
BOXES = {v: k for k, v in _BOXED.items()}

#: Inputs per program: every compile serves several calls (javac per case is the cost of Java fuzzing).
SUBCASES = 4

HELPERS = (
    r"""
    static String _bcStr(java.util.Random r, String alphabet, int lo, int hi) {
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
        if (o instanceof java.util.Map) {
            java.util.List<String> items = new java.util.ArrayList<>();
            for (Object e : ((java.util.Map<?, ?>) o).entrySet()) {
                java.util.Map.Entry<?, ?> en = (java.util.Map.Entry<?, ?>) e;
                items.add(_bcShow(en.getKey()) + ": " + _bcShow(en.getValue()));
            }
            java.util.Collections.sort(items);
            return "{" + String.join(", ", items) + "}";
        }
        if (o instanceof java.util.Set) {
            java.util.List<String> items = new java.util.ArrayList<>();
            for (Object e : (java.util.Set<?>) o) items.add(_bcShow(e));
            java.util.Collections.sort(items);
            return "set(" + String.join(", ", items) + ")";
        }
        if (o instanceof java.lang.Iterable) {
            java.util.List<String> items = new java.util.ArrayList<>();
            for (Object e : (java.lang.Iterable<?>) o) items.add(_bcShow(e));
            return "[" + String.join(", ", items) + "]";
        }
        // a lambda (a function value handed in, a callback passed to a stub): its class name
        // holds an address that differs between runs
        if (o.getClass().isSynthetic() || o.getClass().getName().contains("$$Lambda")) return "<function>";
        try {  // an object without its own toString: its fields (a project's own record types)
            if (o.getClass().getMethod("toString").getDeclaringClass() == Object.class
                    && !o.getClass().getName().startsWith("java")) {
                java.util.List<String> items = new java.util.ArrayList<>();
                // its class's fields and those it inherits (a record keeping its state in a
                // superclass showed as ``{}``)
                for (Class<?> c = o.getClass(); c != null && !c.getName().startsWith("java"); c = c.getSuperclass())
                for (java.lang.reflect.Field f : c.getDeclaredFields()) {
                    if (java.lang.reflect.Modifier.isStatic(f.getModifiers()) || f.isSynthetic()) continue;
                    f.setAccessible(true);
                    items.add(f.getName() + ": " + _bcShow(f.get(o)));
                }
                return o.getClass().getSimpleName() + "{" + String.join(", ", items) + "}";
            }
        } catch (Exception _e) { }
        return o.toString().replaceAll("@[0-9a-f]{4,}", "@");
    }
    static void _bcPrint(String label, Object o) {
        String s = _bcShow(o);
        if (s.length() > 20000) s = s.substring(0, 20000) + "...(" + s.length() + " chars)";
        System.out.println(label + s);
    }
    static Object _bcPrimArray(java.util.List<?> l, Class<?> c) {
        Object a = java.lang.reflect.Array.newInstance(c, l.size());
        for (int i = 0; i < l.size(); i++) java.lang.reflect.Array.set(a, i, l.get(i));
        return a;
    }
    static <T> java.util.List<T> _bcList(java.util.Random r, int lo, int hi, java.util.function.Supplier<T> g) {
        int n = lo + r.nextInt(hi - lo + 1);
        java.util.List<T> out = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) out.add(g.get());
        return out;
    }
"""
    + java_relations.HELPERS
)


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
    #: fields with an initialiser that the method changes: shown after the call, like settable ones
    changed_fields: list[JavaParam] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)
    repo_types: dict[str, RepoType] = field(default_factory=dict)  # the project's own types, inlined
    #: fields and helper methods with no source, declared in ``Main`` (java_stubs): (type, name)
    stub_fields: list[tuple[str, str]] = field(default_factory=list)
    stub_methods: list[str] = field(default_factory=list)
    #: top-level classes with no source declared for the harness (a project's exception class)
    stub_classes: list[str] = field(default_factory=list)
    #: the project's classes with no source, stood in for by stub classes nested in ``Main``
    stub_types: dict = field(default_factory=dict)
    #: the base class's own members name a stub class: the stubs are top-level classes and the
    #: helpers live in a base class (``BcBase``) that they, and the golden's class, extend
    stubs_shared: bool = False
    #: helper methods upstream's metadata declares (name -> return type), for their stubs
    declared_methods: dict[str, str] = field(default_factory=dict)
    #: interfaces declared for lambdas the golden passes to stubbed helpers (java_stubs.Callback)
    stub_callbacks: dict = field(default_factory=dict)
    #: the element type when the golden iterates its own object (``for (Rec r : this)``): the
    #: class is an ``Iterable`` of those, over a list the harness draws (java_stubs)
    iterates: str | None = None
    #: parameters and fields the golden compares with ``null``: sometimes drawn as null (:func:`nullable`)
    null_checked: frozenset[str] = frozenset()
    #: stub classes that sliced classes ``implements`` (a library interface with no source here):
    #: those classes extend the stub instead (:func:`extend_stubs`)
    implemented_stubs: set[str] = field(default_factory=set)
    #: the golden's source, whose relations between inputs the draws keep (java_relations)
    golden: str = ""


def extend_stubs(source: str, stubs: set[str]) -> str:
    """``class C implements A, Node {`` -> ``class C extends Node implements A {`` for each stub
    class in ``stubs`` (a library interface with no source, stood in for by a class), when ``C``
    extends nothing else.

    Why: a sliced class of the repository that implements an interface of a library the image
    lacks (figtree's ``ReRootedNode implements jebl.evolution.graphs.Node``) did not compile
    ("interface expected here"), as the stub is a class; extending it keeps the class a ``Node``
    wherever the golden passes it as one, and its own methods override the stub's.
    """
    if not stubs:
        return source

    def fix(m: re.Match[str]) -> str:
        head, listed = m.group(1), [t.strip() for t in split_params(m.group(2))]
        if re.search(r"\bextends\b", head):
            return m.group(0)
        hit = next((t for t in listed if re.sub(r"<.*", "", t) in stubs), None)
        if hit is None:
            return m.group(0)
        rest = [t for t in listed if t is not hit]
        return (
            f"{head}extends {re.sub(r'<.*', '', hit)}"
            + (f" implements {', '.join(rest)}" if rest else "")
            + " {"
        )

    return re.sub(
        r"(\bclass\s+\w+(?:\s*<[^{]*?>)?\s+(?:extends\s+[\w.<>, ?]+\s+)?)implements\s+([^{]*?)\s*\{",
        fix,
        source,
    )


@dataclass
class RepoType:
    """A class (or enum, or record) of the repository that the harness inlines to build arguments."""

    name: str
    source: str  # the top-level declaration, made package-private
    ctor: list[JavaParam] = field(default_factory=list)
    enum: bool = False
    imports: list[str] = field(default_factory=list)
    #: an inner (non-static) class of the golden's own class: built through an instance of it
    inner: bool = False


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
    m = re.search(
        r"((?:[\w@]+\s+)*?)(<[^()]*?>\s+)?([\w.$<>\[\], ?]+?)\s+" + re.escape(name) + r"\s*\(", mask
    )
    if not m:
        raise ValueError(f"cannot find the signature of {name!r}")
    mods = m.group(1) or ""
    tvars = (
        [t.strip().split()[0] for t in split_params((m.group(2) or "").strip()[1:-1])] if m.group(2) else []
    )
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
        p = p.replace("...", "[] ")
        typ, pname = p.rsplit(None, 1)
        # spaces go, except those a wildcard bound needs (``List<? extends Node>``)
        typ = re.sub(r"\?(extends|super)", r"? \1 ", typ.strip().replace(" ", ""))
        params.append(JavaParam(type=typ, name=pname))
    words = (mods + " " + m.group(3)).split()
    modifiers = {
        "public",
        "private",
        "protected",
        "static",
        "final",
        "synchronized",
        "abstract",
        "native",
        "strictfp",
    }
    rtype = m.group(3).strip()
    while rtype.split(" ", 1)[0] in modifiers:
        rtype = rtype.split(" ", 1)[1].strip()
    gm = re.match(r"<(.*?)>\s*(.+)$", rtype)
    if gm:  # <K, V> V: the type variables were matched into the return type
        tvars = [t.strip().split()[0] for t in split_params(gm.group(1))]
        rtype = gm.group(2).strip()
    return rtype, params, "static" in words, tvars


def qualified(typ: str) -> str:
    """``List<Node>`` as ``java.util.List<Node>`` in a declaration the harness writes: the golden's
    file may import another ``List`` by name (``import java.awt.List;``), which then shadows
    ``java.util.*``; a generic ``List``, ``Map`` or ``Set`` is always java.util's."""
    return re.sub(r"(?<![\w.])(List|Map|Set)(?=\s*<)", r"java.util.\1", typ)


#: An annotation with its arguments (``@SuppressWarnings("x")``, ``@Deprecated(since = "1")``): not
#: part of a member's head when telling a method from a field.
_ANNOTATION = re.compile(r"@\w+(?:\.\w+)*(?:\s*\([^()]*\))?")


def class_members(source: str, method: str | None = None) -> tuple[str, list[tuple[str, str, str]]]:
    """(class name, [(member name, kind 'field'|'method'|'type', source)]) of a top-level class of the file.

    The class that declares a method named ``method`` when one does (a file may start with an
    interface or a helper class before the class of the method), else the first.
    """
    mask = java_mask(source)
    classes: list[tuple[str, list[tuple[str, str, str]]]] = []
    pos = 0
    while True:
        m = re.compile(r"\b(?:class|enum|interface)\s+(\w+)[^{;]*\{").search(mask, pos)
        if not m:
            break
        cls, members, end = m.group(1), [], m.end()
        i = start = m.end()
        depth = 1
        initializer = False  # the member's first brace opens a field's value (``= new T[] {...}``)
        while i < len(mask) and depth > 0:
            ch = mask[i]
            if ch == "{":
                if depth == 1:
                    # ``int[] x = {``, ``S = new TreeSet<>(asList(new String[] {``, ``r = () -> {``:
                    # the member ends at its ``;``, not at this brace's close
                    initializer = "=" in _ANNOTATION.sub(" ", mask[start:i]).split("(", 1)[0]
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 1 and not initializer:
                    _add_member(source[start : i + 1], mask[start : i + 1], members)
                    start = i + 1
            elif ch == ";" and depth == 1:
                _add_member(source[start : i + 1], mask[start : i + 1], members)
                start = i + 1
                initializer = False
            i += 1
        end = i
        classes.append((cls, members))
        pos = end
    if not classes:
        return "", []
    if method:
        for cls, members in classes:
            if any(n == method and kind == "method" and "{" in text for n, kind, text in members):
                return cls, members
    return classes[0]


def _add_member(text: str, mask: str, out: list[tuple[str, str, str]]) -> None:
    # Drop leading comments / blank lines (they are blank in the mask).
    lead = len(mask) - len(mask.lstrip())
    text, mask = text[lead:], mask[lead:]
    if not mask.strip() or mask.strip() == ";":
        return
    head = _ANNOTATION.sub(" ", mask.split("{", 1)[0])
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
    cls, members = class_members(source, name or None)
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
            if (
                n == name
                and kind == "method"
                and "".join(text.split()) != squash
                and squash not in "".join(text.split())
            ):
                wanted.add(n)

    own = _param_types(golden, name)
    out: list[str] = []
    for n, kind, text in members:
        if n == name and kind == "method" and _param_types(text, name) == own:
            continue  # the method under test itself goes to Main (unless a helper calls it, below)
        if n in wanted and not (
            kind == "method" and re.search(r"\b" + re.escape(cls) + r"\s*\(", java_mask(text).split("{")[0])
        ):
            out.append(text)
    if any(re.search(r"\b" + re.escape(name) + r"\s*\(", java_mask(t)) for t in out):
        out.extend(text for n, kind, text in members if n == name and kind == "method")
    imports = [
        ln.strip() for ln in source.splitlines()
        if ln.strip().startswith("import ") and not ln.strip().startswith("import static")
        and ln.split()[1].startswith(IMAGE_PACKAGES)
    ]  # fmt: skip
    return cls, out, imports


def _param_types(code: str, name: str) -> tuple[str, ...] | None:
    """The parameter types of method ``name`` in ``code`` (its overload key), ``None`` if not found."""
    try:
        return tuple(p.type for p in parse_signature(code, name)[1])
    except ValueError:
        return None


def _golden_copy(member: str, golden: str, name: str) -> bool:
    """Whether ``member`` is the class's own copy of the golden (same name and parameter types)."""
    if not re.search(r"\b" + re.escape(name) + r"\s*\(", java_mask(member).split("{", 1)[0]):
        return False
    return _param_types(member, name) == _param_types(golden, name) is not None


def _erasure(typ: str, tvars: list[str]) -> str:
    """The class literal of a parameter type (``List<Node>`` -> ``List.class``, ``T`` -> ``Object.class``)."""
    t = re.sub(r"<.*>", "", typ).strip()
    base = t.replace("[]", "")
    if base in tvars or re.fullmatch(r"[A-Z]", base):
        t = "Object" + t[len(base) :]
    return t + ".class"


def delegating_copy(member: str, golden: str, name: str) -> str:
    """The class's copy of the golden, with a body that calls the method of the same signature
    in ``Main`` (the candidate) by reflection.

    Why: the class's helpers that call the method under test need a method of that name, but
    the golden's body there would hand the answer to every candidate (and its helpers would call
    the golden, not the candidate). Virtual dispatch reaches ``Main``'s method only for a
    non-private instance method; reflection reaches it also when the golden is private (kept
    private here: a private method in ``Main`` may not narrow an inherited one's access) or static.
    """
    rtype, params, is_static, tvars = parse_signature(member, name)
    mask = java_mask(member)
    head = member[: mask.index("{")] if "{" in mask else member.rstrip().rstrip(";")
    if not re.search(r"\bprivate\b", java_mask(golden).split("{", 1)[0]):
        head = _loosen(head)
    throws = re.search(r"\bthrows\s+([\w.,\s]+)$", java_mask(head).rstrip())
    declared = [t.strip() for t in throws.group(1).split(",") if t.strip()] if throws else []
    classes = ", ".join(_erasure(p.type, tvars) for p in params)
    args = ", ".join(p.name for p in params)
    call = f"_m.invoke({'null' if is_static else 'this'}{', ' + args if args else ''})"
    lines = [
        head.rstrip() + " {",
        "    try {",
        f'        java.lang.reflect.Method _m = Class.forName("Main").getDeclaredMethod("{name}"'
        + (f", {classes}" if classes else "")
        + ");",
        "        _m.setAccessible(true);",
        f"        {call};" if rtype == "void" else f"        return ({rtype}) {call};",
        "    } catch (java.lang.reflect.InvocationTargetException _e) {",
        "        Throwable _c = _e.getCause();",
        *[f"        if (_c instanceof {t}) throw ({t}) _c;" for t in declared],
        "        if (_c instanceof RuntimeException) throw (RuntimeException) _c;",
        "        if (_c instanceof Error) throw (Error) _c;",
        "        throw new RuntimeException(_c);",
        "    } catch (ReflectiveOperationException _e) {",
        "        throw new IllegalStateException(_e);",
        "    }",
        "}",
    ]
    return "\n".join(lines)


#: Field types whose value the harness can show the same way on every run.
_SHOWN_TYPE = re.compile(
    r"(int|long|short|byte|char|boolean|double|float|Integer|Long|Short|Byte|Character|Boolean|Double|"
    r"Float|String|StringBuilder|StringBuffer|BitSet|(?:java\.util\.)?(?:List|ArrayList|LinkedList|Set|HashSet|"
    r"TreeSet|LinkedHashSet|Map|HashMap|TreeMap|LinkedHashMap|Deque|ArrayDeque|Collection)(?:<.*>)?)"
    r"(\[\])*"
)
_MUTATORS = r"add|addAll|put|putAll|set|remove|removeAll|clear|append|insert|push|pop|offer|poll|setLength"


def changed_fields(golden: str, members: list[str]) -> list[JavaParam]:
    """Instance fields with an initialiser that ``golden`` assigns, increments or mutates
    (``counts[i]++``, ``seen.add(x)``, ``total += n``), of a type shown the same on every run.

    Why: a ``void`` method whose only effect is on such a field (a count it keeps, a table it
    grows) printed only ``result: void``, and no mutant could show; fields without an
    initialiser are set by the harness and already shown after the call."""
    mask = java_mask(golden)
    out: list[JavaParam] = []
    for member in members:
        head = java_mask(member).split("{")[0]
        if "=" not in head or "(" in head.split("=")[0] or re.search(r"\bstatic\b", head):
            continue
        fm = re.match(
            r"\s*(?:(?:public|protected|private|transient|volatile|final)\s+)*([\w.<>\[\], ?]+?)\s+(\w+)\s*=",
            member,
        )
        if not fm or not _SHOWN_TYPE.fullmatch(fm.group(1).replace(" ", "")):
            continue
        n = re.escape(fm.group(2))
        ref = r"(?<![\w.])(?:this\s*\.\s*)?" + n
        if re.search(
            ref + r"\s*(?:\[[^\]]*\]\s*)*(?:=(?!=)|\+\+|--|[-+*/%&|^]=)"
            r"|(?:\+\+|--)\s*" + ref + r"\b"
            r"|" + ref + r"\s*(?:\[[^\]]*\]\s*)*\.\s*(?:" + _MUTATORS + r")\s*\(",
            mask,
        ):
            out.append(JavaParam(type=fm.group(1).replace(" ", ""), name=fm.group(2)))
    return out


def _loosen(member: str) -> str:
    """Make a sliced member visible to ``Main`` and settable by the harness."""
    mask = java_mask(member)
    head_end = mask.find("{") if "{" in mask else len(mask)
    if re.search(r"\b(?:class|enum|record|interface)\s+\w+", _ANNOTATION.sub(" ", mask[:head_end])):
        # a nested class: the golden reads its private members (legal inside their top-level
        # class; the golden now lives in ``Main``, another one), so none of them stay private
        for m in reversed(list(re.finditer(r"\bprivate\s+", mask))):
            member = member[: m.start()] + member[m.end() :]
        mask = java_mask(member)
        head_end = mask.find("{")
    head = member[:head_end]
    head = re.sub(r"\bprivate\s+", "", head)
    if "(" not in head.split("=")[0] and "=" not in head and re.search(r"\bfinal\b", head):
        head = re.sub(r"\bfinal\s+", "", head)
    return head + member[head_end:]


#: ``x == null``, ``this.x != null``, ``null == x``: a name the code checks for null.
_NULL_CHECK = re.compile(
    r"(?<![\w.])(?:this\s*\.\s*)?(\w+)\s*[!=]=\s*null\b|\bnull\s*[!=]=\s*(?:this\s*\.\s*)?(\w+)\b(?!\s*[.(\[])"
)
#: One draw in this many is null for a value the golden checks for null.
NULL_ONE_IN = 4


def null_checked(golden: str) -> frozenset[str]:
    """Names (parameters, fields) the golden compares with ``null``.

    Why: code that checks ``if (x == null)`` has a branch for it, and a harness whose every
    value is non-null never reaches it (its mutants survive as "equivalent"). A person testing
    such a method passes null sometimes; so does the harness (:func:`nullable`).
    """
    mask = java_mask(golden)
    return frozenset(a or b for a, b in _NULL_CHECK.findall(mask) if (a or b) != "null")


def nullable(expr: str, typ: str, name: str, checked: frozenset[str]) -> str:
    """``expr``, or null in one draw of :data:`NULL_ONE_IN` when the golden checks ``name`` for
    null and ``typ`` is a reference type (a primitive cannot be null)."""
    if name not in checked or typ in _PRIMS:
        return expr
    return f"(_r.nextInt({NULL_ONE_IN}) == 0 ? null : {expr})"


def analyse_java(
    row: dict,
    repo_dir: str | Path | None = None,
    siblings: list[tuple[str, str]] | None = None,
    inline_named: bool = True,
) -> JavaSubject:
    """Everything needed to render a harness for a Java row (see module docstring).

    ``inline_named``: the repository's classes the golden and its sliced helpers name (a local's
    type, a helper's return type) are inlined from their source, like parameter types are
    (:func:`named_repo_types`); the caller retries without when that does not compile.
    """
    golden = row["golden_code"]
    name = row["function_name"]
    rtype, params, is_static, tvars = parse_signature(golden, name)
    meta = json.loads(row.get("metadata") or "{}")
    subject = JavaSubject(
        name=name, return_type=rtype, params=params, is_static=is_static, class_name="Orig", type_vars=tvars
    )
    subject.imports = list(DEFAULT_IMPORTS)
    subject.golden = golden
    subject.null_checked = null_checked(golden)
    src_path = Path(repo_dir) / row["file_path"] if repo_dir and row.get("file_path") else None
    field_decls: list[str] = []
    if src_path is not None and src_path.is_file():
        source = src_path.read_text(encoding="utf-8", errors="replace")
        cls, members, imports = slice_class(source, golden, name)
        subject.class_name = cls or "Orig"
        subject.members = [
            delegating_copy(m, golden, name)
            if name != "main" and _golden_copy(m, golden, name)
            else _loosen(m)
            for m in members
        ]
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
                if (
                    mname
                    and mname.group(1) in ids
                    and mname.group(1) != name
                    and mname.group(1) not in helper_names
                ):
                    # no source: java_stubs declares a stub with the declared return type
                    rt = re.match(
                        r"\s*(?:(?:public|protected|private|static|final|synchronized|abstract)\s+)*"
                        r"(?:<[^>]*>\s*)?([\w.<>\[\], ?]+?)\s+" + re.escape(mname.group(1)) + r"\s*\(",
                        head,
                    )
                    if rt:
                        subject.declared_methods[mname.group(1)] = rt.group(1).replace(" ", "")
                continue
            fname = re.findall(r"(\w+)\s*$", head.rstrip(";").strip())
            if fname and fname[0] in ids:
                field_decls.append(line)
        subject.members = [_loosen(d) for d in field_decls] + [_loosen(c) for c in helper_src]
        if any(re.search(r"\b" + re.escape(name) + r"\s*\(", java_mask(c)) for c in helper_src):
            # a helper calls the method under test
            subject.members.append(
                delegating_copy(golden, golden, name) if name != "main" else _loosen(golden)
            )
    subject.members = list(dict.fromkeys(subject.members))
    subject.repo_types = member_types(subject)
    # Instance fields without an initializer that the method reads are set by the harness.
    if not is_static:
        # what the golden reads, and what the helper methods it keeps read (``logdc`` read only
        # by the helper ``dnhyper`` it calls: unset, it stayed null)
        gids = _identifiers(golden)
        helper_ids = _identifiers("\n".join(m for m in subject.members if _is_method(m)))
        for member in subject.members:
            # ``T f = null;`` is a field with no value: the harness sets it like one with no initializer
            member = _NULL_INIT.sub(";", member, count=1)
            mask = java_mask(member)
            head = mask.split("{")[0]
            if "(" in head.split("=")[0] or "=" in head or re.search(r"\bstatic\b", head):
                continue
            fm = re.match(
                r"\s*(?:(?:public|protected|private|transient|volatile)\s+)*([\w.<>\[\], ?]+?)\s+(\w+)\s*;",
                member,
            )
            if not fm:
                continue
            ftype, fname = fm.group(1).replace(" ", ""), fm.group(2)
            # one only a helper reads: when a JDK type holds it (a project class may be an inner
            # class, which the harness's static ``main`` cannot build)
            if fname in gids or (fname in helper_ids and generator(ftype, fname, tvars) is not None):
                subject.settable_fields.append(JavaParam(type=ftype, name=fname))
        subject.changed_fields = changed_fields(golden, subject.members)
    if repo_dir:
        named = named_repo_types(subject, Path(repo_dir)) if inline_named else []
        found = repo_types_for(
            [p.type for p in subject.params + subject.settable_fields] + named,
            Path(repo_dir),
            subject.type_vars,
        )
        subject.repo_types = {**found, **subject.repo_types}  # the slice's own classes win
        for spec in subject.repo_types.values():
            subject.imports += spec.imports
    return subject


_REPO_TYPE_NAMES: dict[Path, set[str]] = {}


def named_repo_types(subject: JavaSubject, repo: Path) -> list[str]:
    """The repository's classes the golden and its sliced members name, other than their own.

    Why: only parameter and field types were taken from the repository; a class the code uses
    as a local's type or a helper's return type (``RGB r = getRGB(...); new Color(r.r, r.g,
    r.b)``, with ``RGB.java`` beside it in the same package, so never imported) became a stub
    whose members javac's errors had to guess, and a guess that does not fit (the field ``r``
    of a variable ``r``) left the golden uncompilable. The class's own source says what its
    members are. A class the slice already declares (a nested class of the golden's own) or the
    golden's own class is not inlined twice.
    """
    code = subject.golden + "\n" + "\n".join(subject.members)
    declared = set(re.findall(r"\b(?:class|enum|interface|record)\s+(\w+)", java_mask(code)))
    used = {m for m in re.findall(r"(?<![\w.])([A-Z]\w*)\b", java_mask(code))}
    return sorted((used & _type_names(repo)) - declared - {subject.class_name, subject.name})


def _type_names(repo: Path) -> set[str]:
    """Simple names of the repository's classes (file stems), cached per repository."""
    if repo not in _REPO_TYPE_NAMES:
        _REPO_TYPE_NAMES[repo] = {p.stem for p in repo.rglob("*.java")}
    return _REPO_TYPE_NAMES[repo]


def _element_types(typ: str) -> list[str]:
    """``List<Region>[]`` -> [``List<Region>[]``, ``List<Region>``, ``Region``]: every type a generator may need."""
    out, todo = [], [typ.strip()]
    while todo:
        t = todo.pop()
        out.append(t)
        if t.endswith("[]"):
            todo.append(t[:-2])
        m = re.match(r"[\w.]+<(.+)>$", t)
        if m:
            todo.extend(split_params(m.group(1)))
    return out


def repo_types_for(types: list[str], repo: Path, tvars: list[str], depth: int = 2) -> dict[str, RepoType]:
    """The repository's own types (among ``types`` and their element types) the harness can build.

    A type is usable when its file declares it as a concrete class, record or enum, and the
    declaration names no other repository type except ones usable in turn (``depth`` levels):
    the harness is one file in the default package, so whatever the inlined class needs must
    come along. A class is built through the constructor with the fewest parameters whose
    every parameter has a generator; an enum through its constants.
    """
    names = _type_names(repo)
    found: dict[str, RepoType] = {}
    wanted = [e for t in types for e in _element_types(t)]
    seen: set[str] = set()
    while wanted:
        t = wanted.pop(0)
        if t in seen or t not in names or t in tvars:
            continue
        seen.add(t)
        if generator(t, "x", tvars, 0, found) is not None:
            continue
        spec = _repo_type(repo, t)
        if spec is None:
            continue
        others = (_identifiers(spec.source) & names) - {t}
        if others and depth <= 0:
            continue
        if others:
            more = repo_types_for(sorted(others), repo, tvars, depth - 1)
            if set(more) != others:
                continue
            found.update(more)
        if spec.enum or all(generator(p.type, p.name, tvars, 0, found) is not None for p in spec.ctor):
            found[t] = spec
    return found


def member_types(subject: JavaSubject) -> dict[str, RepoType]:
    """Classes the slice declares inside the golden's own class (``class Kmer`` of ``KmerContent``),
    as types the harness builds through their constructors (an enum through its constants).

    Why: a parameter or field of such a type had no generator, so a stub class of the same name
    was declared beside the real one; ``new Kmer()`` in the harness's static ``main`` then named
    the golden's inner class, which needs an instance of its outer class ("non-static variable
    this cannot be referenced from a static context"), or the stub, which the golden's code does
    not accept. The slice's own declaration is the class: an inner one is built through an
    instance of the harness class (``new Main().new Kmer()``), a static one directly.
    """
    out: dict[str, RepoType] = {}
    for member in subject.members:
        head = java_mask(member).split("{", 1)[0]
        tm = re.search(r"\b(class|enum|record)\s+(\w+)", _ANNOTATION.sub(" ", head))
        if tm is None or tm.group(2) == subject.class_name:
            continue
        spec = _declared_type(member, tm.group(2))
        if spec is not None:
            out[tm.group(2)] = replace(
                spec, source="", inner=tm.group(1) == "class" and not re.search(r"\bstatic\b", head)
            )
    return out


def _repo_type(repo: Path, name: str) -> RepoType | None:
    """The declaration of ``name`` from ``name.java`` in the repository, made inlinable, or None."""
    for path in sorted(repo.rglob(f"{name}.java")):
        spec = _declared_type(path.read_text(encoding="utf-8", errors="replace"), name)
        if spec is not None:
            return spec
    return None


def _declared_type(source: str, name: str) -> RepoType | None:
    """The concrete class, enum or record ``name`` declared in ``source``, made inlinable, or None."""
    mask = java_mask(source)
    m = re.search(
        r"^[ \t]*((?:(?:public|protected|private|final|static|abstract|sealed|strictfp)\s+)*)"
        r"(class|enum|record|interface)\s+" + re.escape(name) + r"\b([^{]*)\{",
        mask,
        re.M,
    )
    if not m or m.group(2) == "interface" or "abstract" in m.group(1):
        return None
    depth, i = 1, m.end()
    while i < len(mask) and depth:
        depth += {"{": 1, "}": -1}.get(mask[i], 0)
        i += 1
    decl = source[m.start() : i]
    decl = re.sub(r"^([ \t]*)public\s+", r"\1", decl, count=1)
    imports = [
        ln.strip()
        for ln in source.splitlines()
        if ln.strip().startswith("import ")
        and not ln.strip().startswith("import static")
        and ln.split()[1].startswith(IMAGE_PACKAGES)
    ]
    if m.group(2) == "enum":
        return RepoType(name=name, source=decl, enum=True, imports=imports)
    ctors: list[list[JavaParam]] = []
    if m.group(2) == "record":
        head = m.group(3)
        ctors.append(_params_of(head[head.find("(") + 1 : head.rfind(")")]))
    body_mask = mask[m.end() : i - 1]
    for cm in re.finditer(
        r"(?:^|[;{}])\s*((?:public|protected)\s+)?" + re.escape(name) + r"\s*\(([^)]*)\)\s*"
        r"(?:throws[\w\s,.]+)?\{",
        body_mask,
    ):
        if "private" in body_mask[max(0, cm.start() - 10) : cm.start(2)]:
            continue
        start = m.end() + cm.start(2)
        ctors.append(_params_of(source[start : start + len(cm.group(2))]))
    if not ctors and not re.search(r"\bprivate\s+" + re.escape(name) + r"\s*\(", body_mask):
        ctors.append([])  # the default constructor
    if not ctors:
        return None
    return RepoType(name=name, source=decl, ctor=min(ctors, key=len), imports=imports)


def _params_of(plist: str) -> list[JavaParam]:
    out = []
    for p in split_params(plist):
        p = re.sub(r"@\w+\s*", "", p).replace("final ", "").strip()
        if not p:
            continue
        p = p.replace("...", "[] ")
        typ, pname = p.rsplit(None, 1)
        out.append(JavaParam(type=typ.replace(" ", ""), name=pname))
    return out


# ---------------------------------------------------------------------------- generators


def generator(
    typ: str, name: str, tvars: list[str], variant: int = 0, repo_types: dict[str, RepoType] | None = None
) -> str | None:
    """A Java expression of type ``typ`` drawn from ``_r`` (``None`` when the type is not supported).

    ``repo_types``: the repository's own classes the harness inlines; one of them is built
    through its constructor from generated arguments (an enum: one of its constants).
    """
    # a wildcard's bound is what the values are: ``List<? extends Node>`` holds Nodes
    t = re.sub(r"\?\s*(?:extends|super)\s*(?=[A-Za-z])", "", typ.strip())
    t = re.sub(r"(?<![\w.])java\.util\.(?=[A-Z])", "", t)  # ``java.util.List<Node>``: a List
    rt = repo_types or {}
    n = name.lower()
    # a letter the golden's class declares (``class FrequencyList<T>``, not in the row) is stubbed
    # as a class of that name: a value is one of those, not a number
    if (
        t in tvars
        or (t in ("E", "T", "K", "V") and t not in rt)
        or t in ("?", "Object", "Comparable", "Serializable")
    ):
        return "Integer.valueOf(_r.nextInt(20))" if variant % 2 == 0 else '_bcStr(_r, "abcdef", 2, 6)'
    if t == "Number":  # abstract: a boxed number of either kind
        return (
            "(Number) Double.valueOf(0.1 + _r.nextDouble() * 20)"
            if variant % 2
            else "(Number) Integer.valueOf(_r.nextInt(21))"
        )
    if t in _BOXED:
        inner = generator(_BOXED[t], name, tvars, variant, rt)
        return f"{t}.valueOf({inner})" if inner else None
    if t == "int" or t == "short" or t == "byte":
        hi = 5 if re.search(r"color|colour", n) else 12 if re.search(r"(^|_)k($|_)|kmer", n) else 20
        expr = f"_r.nextInt({hi + 1})" if variant != 2 else f"(_r.nextInt({2 * hi + 1}) - {hi})"
        if re.search(r"^(end|stop)$|(?<=[a-z])end$|_end$", n) and variant != 2:
            expr = f"({hi} + _r.nextInt({hi + 1}))"  # an interval's end is drawn above its start's range
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
        return '"ACGTNacgtn".charAt(_r.nextInt(10))'
    if re.fullmatch(
        r"(?:List|ArrayList|Collection|Iterable|Set|HashSet|TreeSet|LinkedList|LinkedHashSet|Vector|Deque|ArrayDeque|Queue)",
        t,
    ):
        # a raw collection (``Vector``, ``List``): of whatever its elements are, numbers as for ``Object``
        return generator(f"{t}<Object>", name, tvars, variant, rt)
    om = re.fullmatch(r"Optional<(.+)>", t)
    if om:  # present or not; present mostly
        inner = generator(om.group(1), name, tvars, variant, rt)
        return f"(_r.nextInt(4) == 0 ? Optional.empty() : Optional.of({inner}))" if inner else None
    if t in ("String", "CharSequence"):
        if re.search(r"pattern|format", n):
            return 'new String[]{"0.00", "0.000", "#.##", "0.0###"}[_r.nextInt(4)]'
        if re.search(r"^(chr|chrom|chromosome|contig|seqname|refname|reference)(name|id)?$", n):
            return 'new String[]{"chr1", "chr2", "chrX"}[_r.nextInt(3)]'  # few names: they must match
        if re.search(r"delim|sep", n):
            return 'new String[]{",", "\\t", " ", ";"}[_r.nextInt(4)]'
        if re.search(r"int|num|count|size|len|denominator|numerator", n):
            return "String.valueOf(_r.nextInt(100000))"
        if variant == 1:
            return '_bcStr(_r, "abcdefghij", 3, 12)'
        return '_bcStr(_r, "ACGT", 5, 30)'
    if t in ("StringBuilder", "StringBuffer"):
        return f'new {t}(_bcStr(_r, "ACGT", 5, 30))'
    if t.endswith("[]"):
        base = t[:-2]
        if base == "byte":
            if re.search(r"qual|phred|score", n) or variant == 1:
                # base qualities (Phred scores 0-41), not letters: compared with a minimum quality
                return "((byte[]) _bcPrimArray(_bcList(_r, 3, 15, () -> Byte.valueOf((byte) _r.nextInt(42))), byte.class))"
            return '_bcStr(_r, "ACGTN", 5, 30).getBytes()'
        if base == "char":
            return '_bcStr(_r, "ACGT", 5, 30).toCharArray()'
        elem = generator(base, name, tvars, variant, rt)
        if elem is None:
            return None
        boxed = BOXES.get(base, base)
        if base in _PRIMS:
            unbox = {"int": "mapToInt(Integer::intValue)", "long": "mapToLong(Long::longValue)",
                     "double": "mapToDouble(Double::doubleValue)"}.get(base)  # fmt: skip
            if unbox is None:  # no stream of floats, shorts or booleans: filled through reflection
                return f"(({t}) _bcPrimArray(_bcList(_r, 3, 15, () -> {boxed}.valueOf(({base}) ({elem}))), {base}.class))"
            return f"_bcList(_r, 3, 15, () -> {boxed}.valueOf({elem})).stream().{unbox}.toArray()"
        # ``new int[0][]`` for an array of arrays (``new int[][0]`` does not parse)
        empty = f"new {base.split('[')[0]}[0]" + "[]" * base.count("[]")
        return f"_bcList(_r, 1, 8, () -> ({base}) {elem}).toArray({empty})"
    if t == "BitSet":  # a few of the low bits set
        return "BitSet.valueOf(new long[] {_r.nextInt(1 << 16)})"
    if t == "BigInteger":
        return "BigInteger.valueOf(_r.nextInt(2001) - 1000)"
    if t == "BigDecimal":
        return "BigDecimal.valueOf(_r.nextInt(20001) - 10000, 2)"
    gm = re.match(
        r"(List|ArrayList|Collection|Iterable|Set|HashSet|TreeSet|LinkedList|LinkedHashSet|SortedSet|"
        r"Vector|Deque|ArrayDeque|Queue)<(.+)>$",
        t,
    )
    if gm:
        elem = generator(gm.group(2), name, tvars, variant, rt)
        if elem is None:
            return None
        lst = f"_bcList(_r, 0 + 1, 8, () -> {elem})"
        if gm.group(1) in ("Set", "HashSet"):
            return f"new HashSet<>({lst})"
        if gm.group(1) in ("TreeSet", "SortedSet"):
            return f"new TreeSet<>({lst})"
        if gm.group(1) in ("LinkedList", "Queue"):
            return f"new LinkedList<>({lst})"
        if gm.group(1) in ("LinkedHashSet", "Vector", "ArrayDeque"):
            return f"new {gm.group(1)}<>({lst})"
        if gm.group(1) == "Deque":
            return f"new ArrayDeque<>({lst})"
        return f"new ArrayList<>({lst})"
    mm = re.match(r"(Map|HashMap|TreeMap|LinkedHashMap|SortedMap|NavigableMap)<(.+)>$", t)
    if mm:
        kv = split_params(mm.group(2))
        if len(kv) != 2:
            return None
        kg, vg = generator(kv[0], name + "_key", tvars, 1, rt), generator(kv[1], name, tvars, variant, rt)
        if kg is None or vg is None:
            return None
        kind = "TreeMap" if mm.group(1) in ("TreeMap", "SortedMap", "NavigableMap") else "HashMap"
        return f"_bcList(_r, 1, 6, () -> 0).stream().collect(java.util.stream.Collectors.toMap(_i -> {kg}, _i -> {vg}, (a, b) -> b, {kind}::new))"
    if re.match(r"(Function|java\.util\.function\.Function)<Double,\s*Double>", t):
        return "_bcFn(_r)"
    io = re.sub(r"^java\.io\.", "", t)
    if io in _IO_GENERATORS:  # a stream or reader of text, a sink whose content is shown after the call
        return _IO_GENERATORS[io].replace("VARIANT", str(variant))
    if io in _THROWABLES:  # an exception handed in (to report, wrap or inspect): one with a message
        return f'new {_THROWABLES[io]}(_bcStr(_r, "abcdefgh ", 3, 20))'
    fm = re.match(r"(Supplier|java\.util\.function\.Supplier)<(.+)>$", t)
    if fm:  # a fresh generated value on each get()
        inner = generator(fm.group(2), name, tvars, variant, rt)
        return f"((java.util.function.Supplier<{fm.group(2)}>) () -> {inner})" if inner else None
    im = re.match(r"(Iterator|ListIterator)<(.+)>$", t)
    if im:
        inner = generator(f"List<{im.group(2)}>", name, tvars, variant, rt)
        return (
            f"{inner}.{'listIterator' if im.group(1) == 'ListIterator' else 'iterator'}()" if inner else None
        )
    if t in ("File", "java.io.File"):  # a small text file the harness writes (DNA lines)
        return "_bcFile(_r)"
    if t in ("Path", "java.nio.file.Path"):
        return "_bcFile(_r).toPath()"
    if t in ("Point2D", "java.awt.geom.Point2D", "Point2D.Double"):
        return "new java.awt.geom.Point2D.Double(_r.nextInt(41) - 20, _r.nextInt(41) - 20)"
    if t in (
        "Rectangle2D",
        "java.awt.geom.Rectangle2D",
        "Rectangle2D.Double",
        "java.awt.geom.Rectangle2D.Double",
    ):
        return "new java.awt.geom.Rectangle2D.Double(_r.nextInt(41) - 20, _r.nextInt(41) - 20, _r.nextInt(30), _r.nextInt(30))"
    if t in ("jregex.Pattern",):
        return 'new jregex.Pattern(new String[]{"\\\\d+", "[ACGT]+", "(\\\\d+)M", "\\\\w"}[_r.nextInt(4)])'
    if t == "Pattern" or t == "java.util.regex.Pattern":
        return (
            'java.util.regex.Pattern.compile(new String[]{"\\\\d+", "[ACGT]+", "(\\\\d+)M"}[_r.nextInt(3)])'
        )
    cm = re.fullmatch(r"Class(?:<\s*(\?|[\w.]+)\s*>)?", t)
    if cm:  # a class handed in (to instantiate, to check instances of): a few common ones
        arg = cm.group(1)
        if arg in (None, "?", "Object"):
            return "new Class<?>[] {String.class, Integer.class, Double.class, List.class, Object.class}[_r.nextInt(5)]"
        return f"{arg}.class" if arg in rt or arg in _BOXED or arg == "String" else None
    gb = re.match(r"([A-Z][\w.]*)<(.+)>$", t)
    if gb and gb.group(1) in rt and not rt[gb.group(1)].enum:
        # a generic class of the project (``IntervalNode<S>``): built raw, cast to the type asked
        # for (unchecked, as the project's own raw code would be), so lists of them type-check too
        raw = generator(gb.group(1), name, tvars, variant, rt)
        return f"(({t}) {raw})" if raw is not None else None
    if t in rt:
        spec = rt[t]
        if spec.enum:
            return f"{t}.values()[_r.nextInt({t}.values().length)]"
        rest = {k: v for k, v in rt.items() if k != t}  # no recursion through the same type
        args = [generator(p.type, p.name, tvars, variant, rest) for p in spec.ctor]
        if any(a is None for a in args):
            return None
        if spec.inner:  # an inner class of the golden's class: through an instance of it
            return f"new Main().new {t}({', '.join(args)})"
        return f"new {t}({', '.join(args)})"
    return functional_generator(t, name, tvars, variant, rt) or jdk_value_generator(t) or library_generator(t)


#: Functional interfaces (``java.util.function`` and friends) a parameter may have.
_FUNCTIONAL = re.compile(
    r"(?:java\.util\.function\.|java\.util\.concurrent\.|java\.util\.|java\.lang\.)?"
    r"(Predicate|BiPredicate|IntPredicate|DoublePredicate|Function|BiFunction|UnaryOperator|BinaryOperator|"
    r"IntFunction|ToIntFunction|ToLongFunction|ToDoubleFunction|IntUnaryOperator|IntBinaryOperator|"
    r"DoubleUnaryOperator|Consumer|BiConsumer|Runnable|Callable|Comparator)(?:<(.+)>)?"
)


def functional_generator(
    typ: str, name: str, tvars: list[str], variant: int, rt: dict[str, RepoType]
) -> str | None:
    """A function value for a functional-interface parameter (``Predicate<Node>``, ``Runnable``,
    ``Comparator<String>``, ``BiFunction<A, B, C>``), or None.

    Why: such a parameter had no generator ("no generator for type(s): IntPredicate") and the
    task stayed golden-only. A person testing the method hands in a small function of their
    own. Each one here is a pure function of its argument (through its deterministic rendering,
    ``_bcShow``) and a salt drawn per case, so which elements a predicate keeps or a function
    maps to varies between cases, and a candidate that calls it in another order or a different
    number of times sees the same answers (a function that drew from the case's own random
    stream would shift every later input). What a ``Consumer`` or ``Runnable`` is handed is
    printed, since that is what the method does with it.
    """
    m = _FUNCTIONAL.fullmatch(typ.strip())
    if m is None:
        return None
    kind, args = m.group(1), split_params(m.group(2)) if m.group(2) else []
    label = json.dumps(name)

    def drawn(t: str) -> str | None:  # a value of ``t`` from the function's own random ``_q``
        g = generator(t, name, tvars, variant, rt)
        return None if g is None else re.sub(r"(?<![\w.])_r\b", "_q", g)

    simple = {
        "Predicate": "_bcPred(_r.nextInt())",
        "BiPredicate": "_bcBiPred(_r.nextInt())",
        "IntPredicate": "_bcIntPred(_r.nextInt())",
        "DoublePredicate": "_bcDoublePred(_r.nextInt())",
        "ToIntFunction": "_bcToInt(_r.nextInt())",
        "ToLongFunction": "_bcToLong(_r.nextInt())",
        "ToDoubleFunction": "_bcToDouble(_r.nextInt())",
        "IntUnaryOperator": "_bcIntUnary(_r.nextInt())",
        "IntBinaryOperator": "_bcIntBinary(_r.nextInt())",
        "DoubleUnaryOperator": "_bcDoubleUnary(_r.nextInt())",
        "Consumer": f"_bcConsumer({label})",
        "BiConsumer": f"_bcBiConsumer({label})",
        "Runnable": f"_bcRunnable({label})",
        "Comparator": "_bcCmp(_r.nextInt(3) == 0)",
    }
    if kind in simple:
        return simple[kind]
    # the function's result type: the last type argument (the only one of an operator)
    if not args:
        return None
    value = "null" if args[-1] == "Void" else drawn(args[-1])  # ``Void``: called for its effect
    if value is None:
        return None
    helper = {
        "Function": "_bcFunc",
        "BiFunction": "_bcBiFunc",
        "UnaryOperator": "_bcUnary",
        "BinaryOperator": "_bcBinary",
        "IntFunction": "_bcIntFunc",
    }.get(kind)
    if helper is not None:
        return f"{helper}(_r.nextInt(), (java.util.Random _q) -> {value})"
    if kind == "Callable":  # one value, drawn when the callable is made
        return f"_bcCallable({generator(args[-1], name, tvars, variant, rt)})"
    return None


#: JDK value classes with no generator of their own: a constructor from a few drawn numbers.
_JDK_VALUES = {
    "AtomicInteger": "new java.util.concurrent.atomic.AtomicInteger(_r.nextInt(21))",
    "AtomicLong": "new java.util.concurrent.atomic.AtomicLong(_r.nextInt(1000))",
    "AtomicBoolean": "new java.util.concurrent.atomic.AtomicBoolean(_r.nextBoolean())",
    "Color": "new java.awt.Color(_r.nextInt(256), _r.nextInt(256), _r.nextInt(256))",
    "Point": "new java.awt.Point(_r.nextInt(41) - 20, _r.nextInt(41) - 20)",
    "Dimension": "new java.awt.Dimension(_r.nextInt(200), _r.nextInt(200))",
    "Rectangle": "new java.awt.Rectangle(_r.nextInt(41) - 20, _r.nextInt(41) - 20, _r.nextInt(30), _r.nextInt(30))",
}


def jdk_value_generator(typ: str) -> str | None:
    """A generator for a JDK value class (``AtomicInteger``, ``java.awt.Color``), else None.

    Why: "no generator for type(s): AtomicInteger" kept tasks golden-only although the class is
    one constructor call away; a person would write that call.
    """
    t = re.sub(r"^(?:java\.util\.concurrent\.atomic|java\.awt)\.", "", typ.strip())
    return _JDK_VALUES.get(t)


#: java.io types by simple name -> generator (``VARIANT``: the harness variant, which text to read).
_IO_GENERATORS = {
    "InputStream": "new java.io.ByteArrayInputStream(_bcText(_r, VARIANT).getBytes())",
    "ByteArrayInputStream": "new java.io.ByteArrayInputStream(_bcText(_r, VARIANT).getBytes())",
    "BufferedInputStream": "new java.io.BufferedInputStream(new java.io.ByteArrayInputStream(_bcText(_r, VARIANT).getBytes()))",
    "FileInputStream": "_bcFileIn(_r)",  # over a small text file the harness writes (_bcFile)
    "FileReader": "_bcFileReader(_r)",
    "Reader": "new java.io.StringReader(_bcText(_r, VARIANT))",
    "StringReader": "new java.io.StringReader(_bcText(_r, VARIANT))",
    "BufferedReader": "new java.io.BufferedReader(new java.io.StringReader(_bcText(_r, VARIANT)))",
    "OutputStream": "new java.io.ByteArrayOutputStream()",
    "ByteArrayOutputStream": "new java.io.ByteArrayOutputStream()",
    "Writer": "new java.io.StringWriter()",
    "StringWriter": "new java.io.StringWriter()",
    "PrintStream": "_bcPrintStream()",
    "PrintWriter": "_bcPrintWriter()",
    "BufferedWriter": "_bcBufferedWriter()",
}
#: Sinks among them: what a call wrote to one is printed after it.
_SINKS = frozenset(
    {
        "OutputStream",
        "ByteArrayOutputStream",
        "Writer",
        "StringWriter",
        "PrintStream",
        "PrintWriter",
        "BufferedWriter",
    }
)
#: Exception types a method may take as an argument, by simple name -> the class built.
_THROWABLES = {
    "Throwable": "Exception",
    "Exception": "Exception",
    "RuntimeException": "RuntimeException",
    "IllegalArgumentException": "IllegalArgumentException",
    "IllegalStateException": "IllegalStateException",
    "IOException": "java.io.IOException",
}


def _supplied(typ: str, block: str) -> str:
    """A Java expression that runs ``block`` (statements ending in ``return``) for a ``typ``:
    a library object is built by a constructor and then its setters, as a person would."""
    return f"((java.util.function.Supplier<{typ}>) () -> {{ {block} }}).get()"


_SAM = "htsjdk.samtools."
#: A header with two reference sequences: records may name either, and a dictionary lookup finds it.
_SAM_HEADER = _supplied(
    _SAM + "SAMFileHeader",
    f"{_SAM}SAMFileHeader _bcSamH = new {_SAM}SAMFileHeader(); "
    f'_bcSamH.addSequence(new {_SAM}SAMSequenceRecord("chr1", 100000)); '
    f'_bcSamH.addSequence(new {_SAM}SAMSequenceRecord("chr2", 100000)); return _bcSamH;',
)
#: An aligned read whose fields agree (bases, qualities and CIGAR of one length); flags, soft clips,
#: mate fields and tags vary, so the branches code takes on them are reached.
_SAM_RECORD = _supplied(
    _SAM + "SAMRecord",
    f"{_SAM}SAMRecord _bcSamR = new {_SAM}SAMRecord({_SAM_HEADER}); "
    "int _bcSamN = 10 + _r.nextInt(40); "
    '_bcSamR.setReadName(_bcStr(_r, "abcdefghij", 3, 8)); '
    '_bcSamR.setReadString(_bcStr(_r, _r.nextInt(4) == 0 ? "ACGTN" : "ACGT", _bcSamN, _bcSamN)); '
    '_bcSamR.setBaseQualityString(_bcStr(_r, "#+5?I", _bcSamN, _bcSamN)); '
    '_bcSamR.setReferenceName(_r.nextBoolean() ? "chr1" : "chr2"); '
    "_bcSamR.setAlignmentStart(1 + _r.nextInt(1000)); "
    "int _bcSamC = _r.nextInt(_bcSamN / 2 + 1); "
    '_bcSamR.setCigarString(_bcSamC > 0 && _r.nextBoolean() ? _bcSamC + "S" + (_bcSamN - _bcSamC) + "M" : _bcSamN + "M"); '
    "_bcSamR.setMappingQuality(_r.nextInt(61)); "
    "_bcSamR.setFlags(new int[] {0, 16, 99, 147, 83, 163, 4, 256, 1024, 2048}[_r.nextInt(10)]); "
    "if (_bcSamR.getReadPairedFlag()) { _bcSamR.setMateReferenceName(_bcSamR.getReferenceName()); "
    "_bcSamR.setMateAlignmentStart(1 + _r.nextInt(1000)); _bcSamR.setInferredInsertSize(_r.nextInt(601) - 300); } "
    '_bcSamR.setAttribute("NM", _r.nextInt(5)); '
    '_bcSamR.setAttribute("RG", "rg" + _r.nextInt(2)); '
    "return _bcSamR;",
)
_CIGAR_ELEMENT = (
    f"new {_SAM}CigarElement(1 + _r.nextInt(30), new {_SAM}CigarOperator[] "
    f"{{{_SAM}CigarOperator.M, {_SAM}CigarOperator.I, {_SAM}CigarOperator.D, {_SAM}CigarOperator.S}}[_r.nextInt(4)])"
)
#: htsjdk's records (the Java bioinformatics library the sandbox image ships), by simple name.
LIBRARY_GENERATORS = {
    "SAMFileHeader": _SAM_HEADER,
    "SAMRecord": _SAM_RECORD,
    "SAMSequenceDictionary": f"{_SAM_HEADER}.getSequenceDictionary()",
    "CigarElement": _CIGAR_ELEMENT,
    "Cigar": f"new {_SAM}Cigar(_bcList(_r, 1, 4, () -> {_CIGAR_ELEMENT}))",
    "Interval": _supplied(
        _SAM + "util.Interval",
        "int _bcIvA = 1 + _r.nextInt(1000); "
        f'return new {_SAM}util.Interval(_r.nextBoolean() ? "chr1" : "chr2", _bcIvA, _bcIvA + _r.nextInt(200));',
    ),
    # a reference contig: a name the records use, its index in the dictionary, bases (some N)
    "ReferenceSequence": f'new {_SAM}reference.ReferenceSequence(_r.nextBoolean() ? "chr1" : "chr2", '
    '_r.nextInt(2), _bcStr(_r, "ACGTACGTN", 20, 200).getBytes())',
    "Allele": 'htsjdk.variant.variantcontext.Allele.create(new String[] {"A", "C", "G", "T", "AC"}[_r.nextInt(5)], _r.nextBoolean())',
}
LIBRARY_GENERATORS["Locatable"] = LIBRARY_GENERATORS["Interval"]  # htsjdk's interval is one
_LIBRARY_PREFIXES = (
    "htsjdk.samtools.util.",
    "htsjdk.samtools.reference.",
    "htsjdk.samtools.",
    "htsjdk.variant.variantcontext.",
)


def library_generator(typ: str) -> str | None:
    """A generator for one of the image's library record types (``SAMRecord``), else None."""
    short = typ
    for prefix in _LIBRARY_PREFIXES:  # the longest first: ``htsjdk.samtools.util.`` before its parent
        if typ.startswith(prefix):
            short = typ[len(prefix) :]
            break
    return LIBRARY_GENERATORS.get(short)


FN_HELPER = """
    static int _bcFiles = 0;

    // streams and writers a call writes to: what they hold is shown after the call (_bcWritten)
    static java.util.Map<Object, Object> _bcSinks = new java.util.IdentityHashMap<>();

    static java.io.PrintStream _bcPrintStream() {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        java.io.PrintStream p = new java.io.PrintStream(b, true);
        _bcSinks.put(p, b);
        return p;
    }

    static java.io.PrintWriter _bcPrintWriter() {
        java.io.StringWriter w = new java.io.StringWriter();
        java.io.PrintWriter p = new java.io.PrintWriter(w, true);
        _bcSinks.put(p, w);
        return p;
    }

    static java.io.BufferedWriter _bcBufferedWriter() {
        java.io.StringWriter w = new java.io.StringWriter();
        java.io.BufferedWriter b = new java.io.BufferedWriter(w);
        _bcSinks.put(b, w);
        return b;
    }

    static String _bcWritten(Object o) {
        if (o instanceof java.io.Flushable) {
            try { ((java.io.Flushable) o).flush(); } catch (java.io.IOException e) { }
        }
        return String.valueOf(_bcSinks.getOrDefault(o, o));
    }

    // text a reader or stream is read from: lines of bases, or of tab-separated words and numbers
    static String _bcText(java.util.Random r, int variant) {
        StringBuilder sb = new StringBuilder();
        int n = 1 + r.nextInt(6);
        for (int i = 0; i < n; i++) {
            if (variant % 2 == 0) sb.append(_bcStr(r, "ACGT", 5, 30));
            else sb.append(_bcStr(r, "abcdef", 2, 6)).append('\\t').append(r.nextInt(1000)).append('\\t').append(r.nextInt(50));
            sb.append('\\n');
        }
        return sb.toString();
    }

    static java.io.File _bcFile(java.util.Random r) {
        java.io.File f = new java.io.File("_bc_in_" + (_bcFiles++) + ".txt");
        try (java.io.PrintWriter w = new java.io.PrintWriter(f)) {
            int n = 1 + r.nextInt(4);
            for (int i = 0; i < n; i++) w.println(_bcStr(r, "ACGT", 5, 30));
        } catch (java.io.IOException e) {
            throw new RuntimeException(e);
        }
        return f;
    }

    static Function<Double, Double> _bcFn(java.util.Random r) {
        final double c = 0.5 + r.nextDouble() * 5;
        switch (r.nextInt(3)) {
            case 0: return x -> x * x - c;
            case 1: return x -> x - c;
            default: return x -> Math.exp(x) - c;
        }
    }
"""


#: Helpers of :func:`functional_generator`'s function values and of the file streams, added to a
#: harness that uses one (the others' text stays as it was).
FUNCTIONAL_HELPER = """
    static int _bcSalted(Object x, int salt) { return _bcShow(x).hashCode() ^ salt; }
    static <T> java.util.function.Predicate<T> _bcPred(int salt) { return x -> Math.floorMod(_bcSalted(x, salt), 3) != 0; }
    static <A, B> java.util.function.BiPredicate<A, B> _bcBiPred(int salt) {
        return (x, y) -> Math.floorMod(_bcSalted(x, salt) * 31 + _bcSalted(y, salt), 3) != 0;
    }
    static java.util.function.IntPredicate _bcIntPred(int salt) { return x -> Math.floorMod(x * 7 + salt, 3) != 0; }
    static java.util.function.DoublePredicate _bcDoublePred(int salt) { return x -> Math.floorMod(_bcSalted(x, salt), 3) != 0; }
    static <T> java.util.function.ToIntFunction<T> _bcToInt(int salt) { return x -> Math.floorMod(_bcSalted(x, salt), 21); }
    static <T> java.util.function.ToLongFunction<T> _bcToLong(int salt) { return x -> Math.floorMod(_bcSalted(x, salt), 1000); }
    static <T> java.util.function.ToDoubleFunction<T> _bcToDouble(int salt) { return x -> Math.floorMod(_bcSalted(x, salt), 2001) / 100.0; }
    static java.util.function.IntUnaryOperator _bcIntUnary(int salt) { return x -> Math.floorMod(x * 7 + salt, 41) - 20; }
    static java.util.function.IntBinaryOperator _bcIntBinary(int salt) { return (x, y) -> Math.floorMod(x * 7 + y * 3 + salt, 41) - 20; }
    static java.util.function.DoubleUnaryOperator _bcDoubleUnary(int salt) {
        final double a = 1 + Math.floorMod(salt, 3), b = Math.floorMod(salt, 5);
        return x -> x * a - b;
    }
    static <A, B> java.util.function.Function<A, B> _bcFunc(int salt, java.util.function.Function<java.util.Random, B> g) {
        return x -> g.apply(new java.util.Random(_bcSalted(x, salt)));
    }
    static <A, B, C> java.util.function.BiFunction<A, B, C> _bcBiFunc(int salt, java.util.function.Function<java.util.Random, C> g) {
        return (x, y) -> g.apply(new java.util.Random(_bcSalted(x, salt) * 31L + _bcSalted(y, salt)));
    }
    static <T> java.util.function.UnaryOperator<T> _bcUnary(int salt, java.util.function.Function<java.util.Random, T> g) {
        return x -> g.apply(new java.util.Random(_bcSalted(x, salt)));
    }
    static <T> java.util.function.BinaryOperator<T> _bcBinary(int salt, java.util.function.Function<java.util.Random, T> g) {
        return (x, y) -> g.apply(new java.util.Random(_bcSalted(x, salt) * 31L + _bcSalted(y, salt)));
    }
    static <R> java.util.function.IntFunction<R> _bcIntFunc(int salt, java.util.function.Function<java.util.Random, R> g) {
        return x -> g.apply(new java.util.Random(x * 31L + salt));
    }
    static <T> java.util.concurrent.Callable<T> _bcCallable(T v) { return () -> v; }
    static <T> java.util.function.Consumer<T> _bcConsumer(String label) {
        return x -> System.out.println(label + " accepted: " + _bcShow(x));
    }
    static <A, B> java.util.function.BiConsumer<A, B> _bcBiConsumer(String label) {
        return (x, y) -> System.out.println(label + " accepted: " + _bcShow(x) + ", " + _bcShow(y));
    }
    static Runnable _bcRunnable(String label) { return () -> System.out.println(label + " ran"); }
    static java.io.FileInputStream _bcFileIn(java.util.Random r) {
        try { return new java.io.FileInputStream(_bcFile(r)); } catch (java.io.IOException e) { throw new RuntimeException(e); }
    }
    static java.io.FileReader _bcFileReader(java.util.Random r) {
        try { return new java.io.FileReader(_bcFile(r)); } catch (java.io.IOException e) { throw new RuntimeException(e); }
    }
    @SuppressWarnings("unchecked")
    static <T> java.util.Comparator<T> _bcCmp(boolean reversed) {
        java.util.Comparator<T> c = (x, y) -> x instanceof Comparable && y != null && x.getClass() == y.getClass()
            ? ((Comparable<Object>) x).compareTo(y) : _bcShow(x).compareTo(_bcShow(y));
        return reversed ? c.reversed() : c;
    }
"""
#: Names of those helpers: a harness that calls one gets the block.
_FUNCTIONAL_USE = re.compile(
    r"\b_bc(?:Pred|BiPred|IntPred|DoublePred|ToInt|ToLong|ToDouble|IntUnary|IntBinary|DoubleUnary|Func|BiFunc|"
    r"Unary|Binary|IntFunc|Callable|Consumer|BiConsumer|Runnable|Cmp|FileIn|FileReader)\("
)


#: What stubs draw their values from: the call's seed and the objects' identities.
_STUB_STATICS = (
    "static long _bcStubSeed;",
    "static java.util.Random _bcIds = new java.util.Random(0);",
    "static long _bcNextId() { return _bcIds.nextLong(); }",
    "static int _bcFillDepth;",
)


def top_level_stubs(subject: JavaSubject) -> list:
    """The stub classes declared on their own (a nested one is declared inside its outer class)."""
    return [st for st in subject.stub_types.values() if "." not in st.name]


_NULL_INIT = re.compile(r"\s*=\s*null\s*;\s*$")


def _is_method(member: str) -> bool:
    """Whether a sliced member is a method or constructor (not a field)."""
    return "(" in java_mask(member).split("{")[0].split("=")[0]


def relation_adjustments(subject: JavaSubject, owner: str, variant: int) -> list[str]:
    """Statements that make the drawn fields and arguments agree as the golden assumes
    (equal lengths, indexes inside, keys that are there, rectangular matrices:
    :mod:`biocoder_metric.synth.java_relations`)."""
    exprs: dict[str, str] = {}
    types: dict[str, str] = {}
    if not subject.is_static:
        for f in subject.settable_fields:
            exprs[f.name], types[f.name] = f"_o.{f.name}", f.type
    for t, n in subject.stub_fields:
        exprs[n], types[n] = f"{owner}.{n}", t
    for i, p in enumerate(subject.params):  # a parameter hides a field of its name
        exprs[p.name], types[p.name] = f"_a{i}", p.type
    methods = [m for m in subject.members if _is_method(m)]
    rel = java_relations.relations("\n".join([subject.golden, *methods]), types)
    lines = java_relations.adjustments(rel, exprs, types, variant)
    mask = java_mask(subject.golden)
    for i, p in enumerate(subject.params):
        # an ``equals`` or an ``instanceof`` test of the method's own class: sometimes the object
        # itself (a drawn number or string is never an instance, so the result never varied)
        if (
            not subject.is_static
            and p.type == "Object"
            and (
                subject.name == "equals"
                or re.search(r"\binstanceof\s+" + re.escape(subject.class_name) + r"\b", mask)
            )
        ):
            lines.append(f"if (_r.nextInt(3) == 0) _a{i} = _o;")
    return lines


def render_java(subject: JavaSubject, variant: int = 0) -> str | None:
    """The harness program, or ``None`` when a parameter type has no generator."""
    lines = list(dict.fromkeys(subject.imports))
    if subject.stubs_shared:
        # a top-level stub class stands for a class the image has but the harness cannot build
        # (``java.awt.Graphics``, abstract): the file's import of that name would clash with it
        # ("Graphics is already defined in this compilation unit"), so the stub is the class
        stubbed = {st.name for st in top_level_stubs(subject)}
        lines = [ln for ln in lines if not re.fullmatch(r"import\s+[\w.]+\.(\w+)\s*;", ln) or
                 re.fullmatch(r"import\s+[\w.]+\.(\w+)\s*;", ln).group(1) not in stubbed]  # fmt: skip
    lines.append("")
    for spec in subject.repo_types.values():  # the project's own types the arguments are built from
        if spec.name != subject.class_name and spec.source:  # (stub classes are nested in Main)
            lines += [tidy_java(spec.source), ""]
    for cls in subject.stub_classes:  # exception classes with no source (java_stubs)
        lines += [cls, ""]
    shared = subject.stubs_shared
    gen = lambda t, n: generator(t, n, subject.type_vars, variant, subject.repo_types)  # noqa: E731
    if shared:
        # the sliced class's members use a stub class: stubs are top-level (visible to it), and
        # the helpers they draw values with come from a common base class
        lines.append("class BcBase {")
        lines.append(HELPERS.rstrip())
        lines.append(FN_HELPER.rstrip())
        lines += [f"    {ln}" for ln in _STUB_STATICS]
        lines.append("}")
        lines.append("")
        for st in top_level_stubs(subject):
            # top level: a stub with a parent stub reaches BcBase through it
            src = re.sub(
                r"^static class (\w+(?:<[^>]*>)?) implements ",
                r"class \1 extends BcBase implements ",
                st.source(gen),
                count=1,
            )
            src = re.sub(r"^static class ", "class ", src, count=1)
            lines += [src, ""]
        lines += [cb.source() for cb in subject.stub_callbacks.values()]
    iterable = f" implements Iterable<{subject.iterates}>" if subject.iterates else ""
    lines.append(f"class {subject.class_name}{' extends BcBase' if shared else ''}{iterable} {{")
    if subject.iterates:  # what the object holds: drawn for each call, as a field is
        lines.append(f"    java.util.List<{subject.iterates}> _bcItems = new java.util.ArrayList<>();")
        lines.append(
            f"    public java.util.Iterator<{subject.iterates}> iterator() {{ return _bcItems.iterator(); }}"
        )
    for m in subject.members:  # Orig implements none of the original's interfaces: no @Override
        m = extend_stubs(tidy_java(m), subject.implemented_stubs)
        lines += ["    " + ln if ln.strip() else "" for ln in m.strip("\n").splitlines()]
    static = "static " if subject.is_static else ""
    if shared:  # fields and helpers with no source that its own members (and Main, by inheritance) use
        lines += [f"    {static}{qualified(t)} {n};" for t, n in subject.stub_fields]
        for m in subject.stub_methods:
            lines += ["    " + ln for ln in m.splitlines()]
    lines.append("}")
    lines.append("")
    # A method named ``main`` would clash with the harness's entry point: the entry point then
    # lives in a public class of its own (the file is named after it), and ``Main`` holds only
    # the method under test. Otherwise both share ``Main``, which can call a private golden.
    separate = subject.name == "main"
    if separate:
        lines.append(f"class Main extends {subject.class_name} {{")
        lines.append(f"    {INSERT_MARKER}")
        lines.append("}")
        lines.append("")
        lines.append(f"public class BCHarnessDriver{' extends BcBase' if shared else ''} {{")
    else:
        lines.append(f"public class Main extends {subject.class_name} {{")
        lines.append(f"    {INSERT_MARKER}")
    if not shared:
        lines.append(HELPERS.rstrip())
        lines.append(FN_HELPER.rstrip())
    if subject.stub_fields or subject.stub_methods or subject.stub_types:
        # fields and helpers with no source (java_stubs): set per call, values drawn from arguments
        if not shared:  # (shared: declared in BcBase and the golden's class above)
            lines += [f"    {ln}" for ln in _STUB_STATICS]
            for st in top_level_stubs(subject):
                lines += ["    " + ln for ln in st.source(gen).splitlines()]
            lines += ["    " + cb.source() for cb in subject.stub_callbacks.values()]
            lines += [f"    {static}{qualified(t)} {n};" for t, n in subject.stub_fields]
            for m in subject.stub_methods:
                lines += ["    " + ln for ln in m.splitlines()]
    lines.append("")
    lines.append("    public static void main(String[] _args) {")
    body = [
        f"java.util.Random _r = new java.util.Random({SEED_PLACEHOLDER}L);",
        f"for (int _k = 0; _k < {SUBCASES}; _k++) {{",
    ]
    loop_start = len(body)
    if subject.stub_methods or subject.stub_types:
        body.append("_bcStubSeed = _r.nextLong();")
    if subject.stub_types:
        body.append("_bcIds = new java.util.Random(_r.nextLong());")
    owner = "Main" if subject.is_static else "_o"
    if not subject.is_static:
        body.append("Main _o = new Main();")
        for f in subject.settable_fields:
            g = generator(f.type, f.name, subject.type_vars, variant, subject.repo_types)
            if g is None:
                return None
            body.append(f"_o.{f.name} = {nullable(g, f.type, f.name, subject.null_checked)};")
        if subject.iterates:
            g = generator(
                f"List<{subject.iterates}>", "items", subject.type_vars, variant, subject.repo_types
            )
            if g is None:
                return None
            body.append(f"_o._bcItems = {g};")
    for t, n in subject.stub_fields:
        g = generator(t, n, subject.type_vars, variant, subject.repo_types)
        if g is None:
            return None
        body.append(f"{owner}.{n} = {nullable(g, t, n, subject.null_checked)};")
    names = []
    for i, p in enumerate(subject.params):
        g = generator(p.type, p.name, subject.type_vars, variant, subject.repo_types)
        if g is None:
            return None
        t = p.type if p.type not in subject.type_vars else "Object"
        t = (
            re.sub(r"\b(" + "|".join(map(re.escape, subject.type_vars)) + r")\b", "Object", t)
            if subject.type_vars
            else t
        )
        body.append(f"{t} _a{i} = {nullable(g, p.type, p.name, subject.null_checked)};")
        names.append(f"_a{i}")
    body += relation_adjustments(subject, owner, variant)
    target = "_o" if not subject.is_static else "Main"
    call = f"{target}.{subject.name}({', '.join(names)})"
    body.append("try {")
    if subject.return_type == "void":
        body.append(f"    {call};")
        body.append('    System.out.println("result: void");')
    else:
        body.append(f'    _bcPrint("result: ", {call});')
    body.append("} catch (Exception | StackOverflowError _e) {")
    # inputs the golden rejects are drawn again (as in Python harnesses): each rejection is a
    # retry line the judge compares, and only the last attempt's exception is the call's
    body.append(f"    if (_bcTry < {ATTEMPTS - 1}) {{")
    body.append(f'        System.out.println("{RETRY_PREFIX}" + _e.getClass().getSimpleName());')
    body.append("        continue;")
    body.append("    }")
    body.append(f'    System.out.println("{EXCEPTION_PREFIX}" + _e.getClass().getSimpleName());')
    body.append("}")
    for i, p in enumerate(subject.params):
        if re.sub(r"^java\.io\.", "", p.type) in _SINKS:
            body.append(f'_bcPrint("after {p.name}: ", _bcWritten(_a{i}));')
        elif p.type.endswith("[]") or re.match(
            r"(List|ArrayList|LinkedList|Collection|Set|HashSet|TreeSet|LinkedHashSet|SortedSet|Vector|Deque|"
            r"ArrayDeque|Queue|Map|HashMap|TreeMap|LinkedHashMap|StringBuilder|StringBuffer|BitSet)\b",
            p.type,
        ):
            body.append(f'_bcPrint("after {p.name}: ", _a{i});')
    if not subject.is_static:
        for f in [*subject.settable_fields, *subject.changed_fields]:
            body.append(f'_bcPrint("after this.{f.name}: ", _o.{f.name});')
    for _, n in subject.stub_fields:
        body.append(f'_bcPrint("after this.{n}: ", {owner}.{n});')
    body.append("break;")
    body[loop_start:] = ["    " + b for b in body[loop_start:]]
    body.insert(loop_start, "    for (int _bcTry = 0; ; _bcTry++) {")
    body[loop_start + 1 :] = ["    " + b for b in body[loop_start + 1 :]]
    body.append("    }")
    body.append("}")
    lines += ["        " + b for b in body]
    lines.append("    }")
    lines.append("}")
    text = "\n".join(lines) + "\n"
    if _FUNCTIONAL_USE.search(text):  # function values (functional_generator): their helpers too
        fn = FN_HELPER.rstrip()
        text = text.replace(fn, fn + FUNCTIONAL_HELPER.rstrip(), 1)
    return text
