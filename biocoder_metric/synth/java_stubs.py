"""Fields and helper methods with no source, for a Java golden: declared from what javac says is missing.

Why: upstream's hidden Java set publishes the method alone. Its fields (``index2``,
``proteinSequenceAsCharArray``) and the helpers of its class (``getMinXAxisValue()``) have no
source anywhere, so the harness did not compile ("cannot find symbol") and the task stayed
golden-only. A person writing the harness would declare the fields and fake the helpers. Java
says exactly what is missing, so this module asks it: the harness with the golden inserted is
compiled on the host (``javac -proc:none``: nothing runs), each ``cannot find symbol`` names a
variable or a method (with its argument types), and

* a **field** is declared in ``Main`` (static when the method is), with a type read from how the
  golden uses it: a typed declaration it is assigned to or from (``double t = x``), ``x++``
  (an ``int``), ``x.length`` and ``x[i][j]`` (arrays of that rank), ``x.size()``/``x.get(i)`` (a
  ``List``), ``x.length()``/``x.equals(...)`` (a ``String``), a condition (a ``boolean``),
  arithmetic with a decimal (a ``double``), or ``return x`` (the method's return type). The
  harness sets it from a generator in every call, like a field sliced from the repository, and
  prints it after the call;
* a **method** is a static stub in ``Main`` with the argument types javac reports and a return
  type read from its use (``double t = m()``, ``return m()``, a condition, a statement: ``void``).
  Its value is drawn from a ``Random`` seeded with the call's seed and a canonical text of its
  arguments (``_bcShow``): the same call gives the same value, and a candidate that passes other
  arguments gets other values. A ``void`` stub's only effect is being called, so it prints
  ``stub call: name[arguments]``: the calls are the output.

A missing class is imported when exactly one jar of the image (or :data:`JDK_CLASSES`) has it,
and a missing ``...Exception``/``...Error`` class is declared as an unchecked exception. Then it
compiles again, up to :data:`ROUNDS` times. Any other missing class, a type read nowhere, or any
other compile error ends the attempt with that reason.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from biocoder_metric.execution.harness import INSERT_MARKER
from biocoder_metric.languages.java import tidy_java
from biocoder_metric.synth import javac_server
from biocoder_metric.synth.java_harness import BOXES, library_generator
from biocoder_metric.synth.java_text import matching_close, paren_end
from biocoder_metric.synth.python_harness import SEED_PLACEHOLDER
from biocoder_metric.validity.mutation import java_mask

#: Levels of stub objects a stub's fields are filled to (a tree of nodes: its top levels).
FILL_DEPTH = 4
#: Compile rounds (each one may declare several missing symbols).
ROUNDS = 4
#: javac's report of a missing symbol: ``symbol:   variable x`` / ``symbol:   method m(int,String)``.
_SYMBOL = re.compile(r"symbol:\s+(variable|method|class)\s+(\w+)(?:\(([^)]*)\))?")
_PRIMS = ("int", "long", "double", "float", "boolean", "char", "short", "byte")
#: Declared types a field or result may take from a declaration (simple ones the generators know).
_TYPE = (
    r"(?:int|long|double|float|boolean|char|short|byte|String|Integer|Double|Long|Boolean|Character)(?:\[\])*"
)


def _uses(mask: str, name: str) -> list[re.Match[str]]:
    return list(re.finditer(r"(?<![\w.])(?:this\.)?" + re.escape(name) + r"\b", mask))


def declared_types(mask: str) -> dict[str, str]:
    """Local variables and parameters with a simple declared type (``int total``, ``double base``)."""
    return {m.group(2): m.group(1) for m in re.finditer(r"\b(" + _TYPE + r")\s+(\w+)\s*[=;,):]", mask)}


def _element_type(mask: str, name: str) -> str:
    """The element type of array ``name``: what its elements are assigned to, added to or compared
    with (a declared variable's type), ``char`` for character comparisons, else ``int``."""
    el = r"(?<![\w.])(?:this\.)?" + re.escape(name) + r"(?:\s*\[[^\]]*\])+"
    types = declared_types(mask)
    for m in re.finditer(
        r"(\w+)\s*[-+*/]?=\s*" + el + r"|" + el + r"\s*(?:[<>]=?|==|!=|[-+*/])\s*(\w+)", mask
    ):
        other = m.group(1) or m.group(2)
        t = types.get(other or "")
        if t and not t.endswith("[]"):
            return t
    if "char" in name.lower() or re.search(el + r"\s*(==|!=)\s*'", mask):
        return "char"
    if re.search(el + r"\s*[-+*/]\s*\d+\.\d|\d+\.\d+\s*[-+*/]\s*" + el, mask):
        return "double"
    return "int"


def field_type(golden: str, name: str, return_type: str, member: bool = False) -> str | None:
    """The type of field ``name`` from how ``golden`` uses it, or ``None``.

    ``member``: a field of an object (``interval.chr``), not of the harness's class."""
    mask = java_mask(golden)
    n = re.escape(name)
    pre = r"(?<=\.)\s*" if member else r"(?<![\w.])(?:this\.)?"
    m = re.search(r"\b(" + _TYPE + r")\s+\w+\s*=\s*" + pre + n + r"\s*[;,)]", mask)
    if m:
        return m.group(1)
    types = declared_types(mask)
    for m in re.finditer(
        r"(?<![\w.])(\w+)\s*=\s*" + pre + n + r"\s*;|" + pre + n + r"\s*=\s*(\w+)\s*;", mask
    ):
        t = types.get(m.group(1) or m.group(2) or "")
        if t:
            return t  # buffer = scratchBuffer, with ``byte[] buffer`` declared
    m = re.search(pre + n + r"\s*\[", mask)
    if m or re.search(pre + n + r"\.length\b(?!\s*\()", mask):
        rank = 2 if re.search(pre + n + r"\s*\[[^\]]*\]\s*\[", mask) else 1
        return _element_type(mask, name) + "[]" * rank
    if re.search(
        pre + n + r"\.(entrySet|keySet|values|containsKey|getOrDefault)\s*\(", mask
    ) and not re.search(pre + n + r"\.(add|addAll|indexOf|stream)\s*\(", mask):
        # read through a map's views (``new LinkedList<>(columns.entrySet())``): a map, typed by
        # the entries, keys or values the golden declares for them, else the plainest guess
        return f"Map<{_entry_types(mask, pre + n) or 'String,Integer'}>"
    copied = _copy_element(mask, pre + n)  # ``old = new ArrayList<>(throwables)``, ``List<Entry> old``
    if copied or re.search(
        pre + n + r"\.(size|get|add|isEmpty|remove|contains|clear|addAll|stream)\s*\(", mask
    ):
        if re.search(pre + n + r"\.(containsKey|put|keySet|values|entrySet)\s*\(", mask):
            return "Map<String,Integer>"
        m2 = re.search(
            r"(?<![\w.])("
            + _TYPE
            + r"|[A-Z][\w.]*(?:<[^;=(){}]*>)?)\s+\w+\s*=\s*"
            + pre
            + n
            # the element itself, not what its member gives (``int n = xs.get(0).maxLen();``)
            + r"\.get\s*\([^()]*(?:\([^()]*\)[^()]*)*\)\s*;",
            mask,
        )  # ``Map<K, V> m = field.get(k)``: the elements are what they are assigned to
        loop = _loop_element(mask, pre + n)  # ``for (VariantEffect v : effects)``: a collection of those
        elem = (
            BOXES.get(m2.group(1), m2.group(1))
            if m2
            else (BOXES.get(loop.group(1), loop.group(1)) if loop else (copied or "Integer"))
        )
        got = re.search(pre + n + r"\.get\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)(\s*\.\s*[A-Za-z_])?", mask)
        if got and got.group(2) and not loop and not (m2 and re.fullmatch(_TYPE, m2.group(1))):
            # an element used through its members (``sources.get(i).getSequence()``): an object of
            # a class with no source, not a number (javac: "int cannot be dereferenced")
            elem = f"BcType_{name}Item"
        key = _key_type(mask, got.group(1).strip()) if got else None
        return f"Map<{key},{elem}>" if key else f"List<{elem}>"
    if re.search(
        pre + n + r"\.(length|charAt|equals|substring|startsWith|endsWith|toUpperCase|trim)\s*\(", mask
    ):
        return "String"
    if re.search(pre + n + r"\s*(\+\+|--)|(\+\+|--)\s*" + pre + n + r"\b", mask):
        return "int"
    if re.search(r"(if|while)\s*\(\s*!?\s*" + pre + n + r"\s*[)&|]|[!&|]\s*" + pre + n + r"\s*[)&|;]", mask):
        return "boolean"
    if re.search(r"return\s+" + pre + n + r"\s*;", mask) and return_type in (*_PRIMS, "String"):
        return return_type
    if re.search(pre + n + r"\s*[-+*/]\s*\d+\.\d|\d+\.\d+\s*[-+*/]\s*" + pre + n + r"\b", mask):
        return "double"
    if re.search(pre + n + r"\s*([<>]=?|[-+*/%]=?)\s*[\w(]|[<>]=?\s*" + pre + n + r"\b", mask):
        return "int"
    if re.search(pre + n + r"\s*(==|!=)\s*\"", mask):
        return "String"
    loop = _loop_element(mask, pre + n)
    if loop:  # for (String s : names), for (Locatable l : intervals): a list of that element type
        return f"List<{BOXES.get(loop.group(1), loop.group(1))}>"
    return None


def _entry_types(mask: str, field: str) -> str | None:
    """``K,V`` of a map field from the types the golden declares for what its views give: a
    ``Map.Entry<K, V>`` in the statement reading ``entrySet()`` (a loop's variable, the list it is
    copied into), a loop over ``keySet()`` or ``values()`` (the other type ``String``/``Integer``)."""
    for m in re.finditer(field + r"\.entrySet\s*\(", mask):
        start = max(
            mask.rfind(";", 0, m.start()), mask.rfind("{", 0, m.start()), mask.rfind("}", 0, m.start())
        )
        got = re.search(r"\bEntry\s*<\s*(.+?)\s*>\s*(?:>\s*)?\w+\s*[=:]", mask[start + 1 : m.start()])
        if got and len(_split_types(got.group(1))) == 2:
            return ",".join(BOXES.get(t, t) for t in _split_types(got.group(1)))
    keys = _loop_element(mask, field + r"\.keySet\s*\(\s*\)")
    values = _loop_element(mask, field + r"\.values\s*\(\s*\)")
    if keys or values:
        k = BOXES.get(keys.group(1), keys.group(1)) if keys else "String"
        v = BOXES.get(values.group(1), values.group(1)) if values else "Integer"
        return f"{k},{v}"
    return None


def _copy_element(mask: str, field: str) -> str | None:
    """The element type of a collection field copied into a declared collection
    (``List<T> copy = new ArrayList<>(field)``, or ``copy`` declared ``List<T> copy, other;``)."""
    for m in re.finditer(r"(\w+)\s*=\s*new\s+\w+\s*<\s*>\s*\(\s*" + field + r"\s*\)", mask):
        var = re.escape(m.group(1))
        decl = re.search(
            r"\b[A-Z]\w*\s*<\s*([\w.]+(?:<[^;=(){}]*>)?)\s*>\s+(?:\w+\s*,\s*)*" + var + r"\b", mask
        )
        if decl:
            return BOXES.get(decl.group(1), decl.group(1))
    return None


def _loop_element(mask: str, field: str) -> re.Match[str] | None:
    """``for (T x : field)`` over the field pattern ``field``; group 1 is the loop variable's type."""
    return re.search(
        r"for\s*\(\s*(?:final\s+)?("
        + _TYPE
        + r"|[A-Z][\w.]*(?:<[^;{}()]*?>)?(?:\[\])*)\s+\w+\s*:\s*"
        + field
        + r"\s*\)",
        mask,
    )


def _key_type(mask: str, arg: str) -> str | None:
    """The key type of ``x.get(arg)`` when ``arg`` is not an index: a string literal's ``String``,
    a variable's declared class (``for (Ref r : refs) x.get(r)``); None for a number or unknown."""
    if re.fullmatch(r'"[^"]*"', arg):
        return "String"
    if not re.fullmatch(r"\w+", arg):
        return None
    m = re.search(
        r"\b([A-Z]\w*|int|long|short|byte|char|double|float|boolean)\s+" + re.escape(arg) + r"\s*[=;,):]",
        mask,
    )
    if m is None or m.group(1) in ("int", "Integer", "long", "Long", "short", "byte", "char"):
        return None
    return BOXES.get(m.group(1), m.group(1))


#: What a name says of a field's type when its use says nothing (``NCK_LOG_MESSAGE``, ``isValidated``).
_NAME_TYPES = (
    (re.compile(r"^(is|has|should|can|use|do)[A-Z_]"), "boolean"),
    (
        re.compile(r"(?i)(message|name|label|text|string|prefix|suffix|title|header|separator|delim\w*)$"),
        "String",
    ),
    (re.compile(r"(?i)(count|size|num\w*|length|index|idx|len|width|height|depth|offset|pos\w*)$"), "int"),
    (re.compile(r"(?i)(value|score|ratio|mean|weight|prob\w*|rate|fraction|threshold)$"), "double"),
)
#: JDK classes outside the harness's wildcard imports that goldens name (``Path``, ``Point2D``).
JDK_CLASSES = {
    "Path": "java.nio.file.Path",
    "Paths": "java.nio.file.Paths",
    "Files": "java.nio.file.Files",
    "StandardOpenOption": "java.nio.file.StandardOpenOption",
    "StandardCharsets": "java.nio.charset.StandardCharsets",
    "Charset": "java.nio.charset.Charset",
    "Point2D": "java.awt.geom.Point2D",
    "Rectangle2D": "java.awt.geom.Rectangle2D",
    "Line2D": "java.awt.geom.Line2D",
    "Pattern": "java.util.regex.Pattern",
    "Matcher": "java.util.regex.Matcher",
    "Collectors": "java.util.stream.Collectors",
    "Stream": "java.util.stream.Stream",
    "IntStream": "java.util.stream.IntStream",
    "DoubleStream": "java.util.stream.DoubleStream",
    "ConcurrentHashMap": "java.util.concurrent.ConcurrentHashMap",
    "AtomicInteger": "java.util.concurrent.atomic.AtomicInteger",
    "GZIPInputStream": "java.util.zip.GZIPInputStream",
    "GZIPOutputStream": "java.util.zip.GZIPOutputStream",
    "ByteBuffer": "java.nio.ByteBuffer",
    "ByteOrder": "java.nio.ByteOrder",
}


#: Names the harness's wildcard imports bring in when the JDK cannot be listed (no ``jimage``).
_JDK_FALLBACK = frozenset(
    "List ArrayList LinkedList Map HashMap TreeMap LinkedHashMap Set HashSet TreeSet LinkedHashSet "
    "Collection Collections Arrays Iterator Optional Random Scanner Deque ArrayDeque Queue "
    "PriorityQueue Vector Stack BitSet Comparator Objects Function BiFunction Supplier Consumer "
    "Predicate File Reader Writer InputStream OutputStream BigDecimal BigInteger DecimalFormat "
    "NumberFormat String Integer Long Double Float Short Byte Boolean Character Math Object".split()
)


@functools.cache
def _jdk_listing() -> tuple[tuple[str, str], ...] | None:
    """(package with slashes, simple name) of every top-level class in the JDK's module image
    (``jimage list``), or None when the JDK cannot be listed."""
    javac = shutil.which("javac")
    jimage = shutil.which("jimage")
    if not javac or not jimage:
        return None
    modules = Path(javac).resolve().parent.parent / "lib" / "modules"
    try:
        listing = subprocess.run(
            [jimage, "list", str(modules)], capture_output=True, text=True, timeout=60, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return tuple(
        (m.group(1), m.group(2)) for m in re.finditer(r"^\s+([\w/]+)/([A-Z]\w*)\.class$", listing, re.M)
    )


@functools.cache
def jdk_imported_names() -> frozenset[str]:
    """Simple names of the classes ``java.lang`` and the harness's wildcard imports bring in.

    Why: a golden's ``List<INCHI_OPTION>`` is java.util's, never a project class to stand in for;
    a stub of that name shadows the JDK's and the golden stops compiling. Read from the JDK's own
    module image (``jimage list``), so every name of those packages is known, not a list kept by hand.
    """
    from biocoder_metric.synth.java_harness import DEFAULT_IMPORTS

    packages = {"java/lang"} | {
        imp.split()[1].rstrip(";").removesuffix(".*").replace(".", "/") for imp in DEFAULT_IMPORTS
    }
    listing = _jdk_listing()
    if listing is None:
        return _JDK_FALLBACK
    return frozenset(_JDK_FALLBACK | {name for pkg, name in listing if pkg in packages})


@functools.cache
def jdk_classes() -> dict[str, tuple[str, ...]]:
    """Simple name -> fully qualified names of the JDK's ``java.*``/``javax.*`` top-level classes."""
    out: dict[str, list[str]] = {}
    for pkg, name in _jdk_listing() or ():
        if pkg.startswith(("java/", "javax/")):
            out.setdefault(name, []).append(pkg.replace("/", ".") + "." + name)
    return {k: tuple(v) for k, v in out.items()}


@functools.cache
def _javap(fq: str) -> str | None:
    """``javap -public`` of JDK class ``fq`` (its public members), or None without javap."""
    javap = shutil.which("javap")
    if not javap:
        return None
    try:
        return subprocess.run([javap, "-public", fq], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None


@functools.cache
def jdk_members(fq: str) -> frozenset[str] | None:
    """Names of the public methods and fields of JDK class ``fq`` and of its supertypes
    (``javap -public``), or None when it is not a public class javap can read."""
    out = _javap(fq)
    if out is None:
        return None
    head = re.search(
        r"^public\s[^{]*\b(?:class|interface|enum)\s+" + re.escape(fq) + r"\b([^{]*)\{", out, re.M
    )
    if head is None:
        return None
    names = set(re.findall(r"(\w+)\s*\(", out[head.end() :]))
    names |= set(re.findall(r"^\s+public\s[^(=]*?\b(\w+)\s*;\s*$", out, re.M))
    for sup in re.findall(r"[\w.]+", re.sub(r"<[^<>]*(?:<[^<>]*>[^<>]*)*>", "", head.group(1))):
        if "." in sup and sup != fq:  # javap names supertypes fully qualified
            names |= jdk_members(sup) or set()
    return frozenset(
        names | (jdk_members("java.lang.Object") or set() if fq != "java.lang.Object" else set())
    )


def jdk_generic(fq: str) -> bool:
    """Whether JDK class ``fq`` takes type parameters (``javap`` writes ``class java.util.Foo<T>``)."""
    out = _javap(fq) or ""
    return re.search(r"\b(?:class|interface)\s+" + re.escape(fq) + r"<", out) is not None


def jdk_class(name: str, golden: str) -> str | None:
    """The JDK class the golden means by simple name ``name`` (``URLEncoder``, ``Color``), or None.

    Why: the harness imports only a few JDK packages; any other JDK class the golden uses was
    stubbed as a project class, so its real behaviour (``Color.getRed``, ``TimeUnit.SECONDS``)
    was replaced by made-up values, or the stub's methods lacked what the JDK's declare (checked
    exceptions: "exception IOException is never thrown"). A person would add the import. It is
    the JDK's class only when exactly one ``java.*``/``javax.*`` class has the name and it has
    every member the golden reads on it (a project's own ``Sequence`` calls methods
    ``javax.sound.midi.Sequence`` lacks, so it stays a stub), it is generic when the golden
    writes type arguments (``Box<String>`` is not ``javax.swing.Box``), and the golden takes no
    parameter of that type (the harness could not draw one).
    """
    found = jdk_classes().get(name, ())
    if len(found) != 1:
        return None
    mask = java_mask(golden)
    sig = mask[: mask.find("{")] if "{" in mask else mask
    if re.search(r"\b" + re.escape(name) + r"\b", sig):
        return None
    members = jdk_members(found[0])
    if members is None:
        return None
    if re.search(r"(?<![\w.])" + re.escape(name) + r"\s*<", mask) and not jdk_generic(found[0]):
        return None  # the golden's ``Box<String>`` is its own generic class, not javax.swing.Box
    written = r"(?<![\w.])" + re.escape(name) + r"\s*(?:<[^;{}()]*?>)?\s*(?:\[\s*\])*\s+(\w+)\s*[=;,):]"
    holders = {name} | set(re.findall(written, mask))
    for holder in holders:
        for m in re.finditer(r"(?<![\w.])" + re.escape(holder) + r"\s*\.\s*(\w+)", mask):
            if m.group(1) not in members and m.group(1) != "class":
                return None
    return found[0]


def name_type(name: str) -> str | None:
    """A field's or helper's type from its name alone (``getMaxValue`` -> double, ``isDone`` -> boolean)."""
    for rule, typ in _NAME_TYPES:
        if rule.search(name if typ == "boolean" else re.sub(r"^(get|compute|calc)", "", name)):
            return typ
    return None


_CLASS_INDEX: dict[tuple[str, ...], dict[str, list[str]]] = {}


def class_index(libs: list[str]) -> dict[str, list[str]]:
    """Simple name -> fully qualified names of the public top-level classes in the image's jars."""
    import zipfile

    key = tuple(libs)
    if key not in _CLASS_INDEX:
        index: dict[str, list[str]] = {}
        for lib in libs:
            try:
                with zipfile.ZipFile(lib) as z:
                    for entry in z.namelist():
                        if entry.endswith(".class") and "$" not in entry and "/" in entry:
                            fqn = entry[: -len(".class")].replace("/", ".")
                            index.setdefault(fqn.rsplit(".", 1)[1], []).append(fqn)
            except (OSError, zipfile.BadZipFile):
                continue
        _CLASS_INDEX[key] = index
    return _CLASS_INDEX[key]


def result_type(golden: str, name: str, return_type: str, member: bool = False) -> str | None:
    """The return type of helper ``name`` from how ``golden`` uses its calls, or ``None``.

    ``member``: a method called on an object (``pos.getChr()``), not on the harness's class."""
    mask = java_mask(golden)
    call = (
        r"(?<=\.)\s*" + re.escape(name) + r"\s*\("
        if member
        else r"(?<![\w.])(?:this\.)?" + re.escape(name) + r"\s*\("
    )
    if member:
        # the whole receiver chain: ``x.m(`` as it appears in a condition or a declaration
        call = r"[\w\])]+(?:\s*\.\s*\w+\s*(?:\([^;{}]*?\))?)*?\s*\.\s*" + re.escape(name) + r"\s*\("
    m = re.search(r"\b(" + _TYPE + r")\s+\w+\s*=\s*" + call, mask)
    if m:
        return m.group(1)
    for m in re.finditer(r"return\s+" + call, mask):
        if re.match(r"\s*;", mask[paren_end(mask, m.end() - 1) :]):  # ``return m(...);``, not ``m(...).x()``
            return return_type if return_type != "void" else None
    for m in re.finditer(r"(?:(?:if|while)\s*\(|[!&|])\s*!?\s*" + call, mask):
        # a condition of its own: the call's value is followed by ``)``, ``&&`` or ``||``
        if re.match(r"\s*(\)|&&|\|\||\?)", mask[paren_end(mask, m.end() - 1) :]):
            return "boolean"
    if re.search(r"(^|[;{}])\s*" + call + r"[^;]*\)\s*;", mask, re.M):
        return "void"
    if re.search(call + r"[^;]*?\)\s*[-+*/]\s*\d+\.\d|\d+\.\d+\s*[-+*/]\s*" + call, mask):
        return "double"
    if re.search(call + r"[^;]*?\)\s*([<>]=?|[-+*/%]|==|!=)", mask):
        return "int"
    return None


#: Where javac looked: ``location: variable pos of type GenomePosition`` / ``location: class Foo``.
_LOCATION = re.compile(
    r"location:\s+(?:variable \w+ of type ([\w.<>,\[\]]+)|class ([\w.]+)|interface ([\w.]+))"
)
#: ``constructor Foo in class Foo cannot be applied to given types; ... found: int,String``.
_CTOR = re.compile(
    r"constructor (\w+) in class \w+(?:<[\w,]*>)? cannot be applied to given types;.*?found:\s*([^\n]*)", re.S
)


#: A JDK class javac converts to the stub of its simple name (``java.util.Map.Entry<K,V> cannot be
#: converted to Main.Entry<K,V>``): group 1 the JDK class, group 2 its simple name.
_SHADOWED = re.compile(
    r"error: incompatible types: ((?:java|javax)\.(?:[a-z]\w*\.)+(?:[A-Z]\w*\.)*([A-Z]\w*))(?:<[^\n]*?>)?"
    r" cannot be converted to (?:Main\.|Orig\.)?(?:[A-Z]\w*\.)*\2\b"
)
#: ``cannot infer type arguments for ImmutablePair<>`` because no constructor takes that many.
_DIAMOND_ARITY = re.compile(
    r"error: (?:incompatible types: )?cannot infer type arguments for (\w+)<>\n([^\n]*)\n[ \t]*\^\n"
    r"(?:[^\n]*\n){0,2}?\s*\(actual and formal argument lists differ in length\)"
)


def _split_types(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += {"<": 1, ">": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    # javac names a captured wildcard ``CAP#1`` (``Class<CAP#1>``): not a type one can write, the
    # wildcard it captured is
    out = [re.sub(r"\bCAP#\d+", "?", t) for t in out if t and t != "no arguments"]
    return ["Object" if t == "?" else t for t in out]


def _through_class(block: str, owner: str) -> bool:
    """Whether the member javac reports missing on ``class owner`` is reached through the class
    (``Foo.bar()``: static) rather than through a value of it (``m().bar()``).

    Why: javac says ``location: class Foo`` for both; a stub made static for ``m().getName()``
    ignored which object it was called on, and every object returned the same name. The caret
    (on the dot) says which: the text before it ends with the class's name or not.
    """
    lines = block.split("\n")
    for i in range(1, len(lines) - 1):
        caret = lines[i + 1]
        if caret.strip() == "^":
            before = lines[i][: caret.index("^")]
            if not before.strip():  # unqualified: a member of the class the code is in
                return True
            simple = re.escape(owner.rsplit(".", 1)[-1])
            return bool(re.search(r"(?<![\w)\]])(?:[\w.]*\.)?" + simple + r"\s*$", before))
    return True


def missing_symbols(errors: str) -> list[tuple[str, str, list[str], str | None, bool]]:
    """``(variable | method | class, name, argument types, owner type, static)`` for each
    ``cannot find symbol``; the owner is ``None`` for the harness's own classes."""
    out: list[tuple[str, str, list[str], str | None, bool]] = []
    blocks = re.split(r"\n(?=\S[^\n]*error:)", errors)
    for block in blocks:
        nested = re.search(r"error: package ([A-Z]\w*)\.([A-Z]\w*) does not exist", block)
        if nested:
            # ``BaseUtils.Base.N`` with ``BaseUtils`` a stub: javac takes ``BaseUtils.Base`` for a
            # package; it is a class nested in it
            for item in (
                ("class", nested.group(1), [], None, False),
                ("class", nested.group(2), [], nested.group(1), True),
            ):
                if item not in out:
                    out.append(item)
            continue
        outer = re.search(r"error: package ([A-Z]\w*) does not exist", block)
        if outer:
            # ``new Rectangle2D.Double(...)`` with Rectangle2D not imported: javac takes the name
            # for a package; it is a missing class (its nested class is reached through it)
            item = ("class", outer.group(1), [], None, False)
            if item not in out:
                out.append(item)
            continue
        m = _SYMBOL.search(block)
        if not m or "cannot find symbol" not in block:
            continue
        args = _split_types(m.group(3) or "")
        loc = _LOCATION.search(block)
        owner, static = None, False
        if loc:
            if loc.group(1):
                owner = re.sub(r"<.*", "", loc.group(1))
            else:
                owner = loc.group(2) or loc.group(3)
                static = _through_class(block, owner)
            if owner in ("Main", "Orig", "BCHarnessDriver"):
                owner, static = None, False
        item = (m.group(1), m.group(2), args, owner, static)
        if item not in out:
            out.append(item)
    return out


_AMBIGUOUS = re.compile(
    r"reference to (\w+) is ambiguous\s*\n.*?both (?:class|interface|enum|record) ([\w.]+) in [\w.]+ "
    r"and (?:class|interface|enum|record) ([\w.]+) in",
    re.S,
)


def ambiguous_imports(errors: str) -> list[str]:
    """For each name two on-demand imports both declare (``reference to List is ambiguous``),
    the fully qualified class to import by name: java.util's (or java.lang's) when it is one of
    them, else the first javac names."""
    out: list[str] = []
    for block in re.split(r"\n(?=\S[^\n]*error:)", errors):
        m = _AMBIGUOUS.search(block)
        if not m:
            continue
        pick = next((c for c in m.groups()[1:] if c.startswith(("java.util.", "java.lang."))), m.group(2))
        if pick not in out:
            out.append(pick)
    return out


def compile_errors(source: str, libs: list[str]) -> str:
    """javac's errors for ``source`` (empty when it compiles), in a file named after its public
    class (``Main``, or the separate driver of a golden named ``main``); ``-proc:none``."""
    javac = shutil.which("javac")
    if javac is None:
        return "javac is not installed"
    with tempfile.TemporaryDirectory(prefix="bc-javastub-") as tmp:
        public = re.search(r"^public\s+(?:final\s+)?class\s+(\w+)", source, re.M)
        # javac wants the file named after the public class
        path = Path(tmp) / f"{public.group(1) if public else 'Main'}.java"
        path.write_text(source, encoding="utf-8")
        args = ["-proc:none", "-Xmaxerrs", "200", "-nowarn", "-d", tmp]
        if libs:
            args += ["-cp", ":".join(libs)]
        served = javac_server.compile_java([*args, str(path)])  # a warm javac, when one can run
        if served is not None:
            return "" if served[0] == 0 else (served[1] or "javac failed")
        try:
            done = subprocess.run([javac, *args, str(path)], capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            return "javac timed out"
        return "" if done.returncode == 0 else (done.stderr or done.stdout or "javac failed")


class StubType:
    """A class of the project with no source: an object whose methods are functions of its
    identity (``_bcId``: drawn when generated, from the arguments when the golden constructs it)
    and of their arguments. Declared as a static class nested in ``Main``, where the harness's
    generator helpers are in scope."""

    def __init__(self, name: str):
        self.name = name
        self.ctors: list[list[str]] = []
        self.fields: list[tuple[str, str]] = []
        self.static_fields: list[tuple[str, str]] = []
        self.methods: list[str] = []
        self.parent: str | None = None  # another stub it must be (``Node`` passed as ``Attributable``)
        self.arity = 0  # type parameters, when the golden writes it generic (``IntervalNode<S>``)
        self.nested: list[StubType] = []  # classes declared inside it (``Constants.SpecFileFormat``)
        self.annotation = False  # written as an annotation (``@VisibleForTesting``): it marks, nothing else

    @property
    def simple(self) -> str:
        """The name it is declared by (``SpecFileFormat`` for the nested ``Constants.SpecFileFormat``)."""
        return self.name.rsplit(".", 1)[-1]

    def source(self, gen: Callable[[str, str], str | None]) -> str:
        from biocoder_metric.synth.java_harness import qualified

        if self.annotation:
            return f"@interface {self.simple} {{ }}"
        # a root stub is comparable by identity: the golden sorts them (``Collections.sort``), keys
        # a TreeMap with them or calls ``compareTo``, as it would the project's comparable class
        extends = f" extends {self.parent}" if self.parent else " implements Comparable<Object>"
        # unused type parameters: the golden's ``IntervalNode<S>`` is a type, the stub's members
        # are typed from use (a raw ``new IntervalNode()`` is assignable to any of them)
        params = "<" + ", ".join(f"_BcT{i}" for i in range(self.arity)) + ">" if self.arity else ""
        lines = [f"static class {self.simple}{params}{extends} {{", "    long _bcId = _bcNextId();"]
        if not self.parent:
            lines.append(
                f"    public int compareTo(Object _o) {{ return Long.compare(_bcId, (({self.name}) _o)._bcId); }}"
            )
            # equal when of one class and identity: what two calls returning "the same" object give
            lines.append(
                "    public boolean equals(Object _o) { return _o != null && _o.getClass() == getClass()"
                f" && (({self.name}) _o)._bcId == _bcId; }}"
            )
            lines.append("    public int hashCode() { return Long.hashCode(_bcId); }")
            lines.append("    void _bcSetId(long _i) { _bcId = _i; _bcFill(); }")
        else:  # its own identity and fields as well as its parent's
            lines.append("    void _bcSetId(long _i) { super._bcSetId(_i); _bcId = _i; _bcFill(); }")
        lines.append(f"    {self.simple}() {{ _bcFill(); }}")
        for args in self.ctors:
            if not args:
                continue  # the no-argument constructor is always declared
            params = ", ".join(f"{t} _p{i}" for i, t in enumerate(args))
            key = "new Object[]{" + ", ".join(f"_p{i}" for i in range(len(args))) + "}"
            lines.append(f"    {self.simple}({params}) {{ _bcId = _bcShow({key}).hashCode(); _bcFill(); }}")
        lines += [f"    {qualified(t)} {n};" for t, n in self.fields]
        for t, n in self.static_fields:  # read through the class (``Exon.INVALID_ID``): one value
            lines.append(
                f"    static {qualified(t)} {n} = _bcStatic{n}(new java.util.Random({sum(map(ord, n))}L));"
            )
            lines.append(
                f"    static {qualified(t)} _bcStatic{n}(java.util.Random _r) {{ return {gen(t, n)}; }}"
            )
        # private: a stub extending another stub has a fill of its own, which would otherwise
        # override the parent's (its constructor's call then filled only the child's fields)
        lines.append("    private void _bcFill() {")
        if self.fields:
            # a record holding records of its kind (``node.left``, ``entry.next``) is filled a few
            # levels deep; below that its fields keep their defaults (null: the leaves), where an
            # unbounded fill never returned (a stack overflow in the constructor)
            lines.append(f"        if (_bcFillDepth >= {FILL_DEPTH}) return;")
            lines.append("        _bcFillDepth++;")
            lines.append("        try {")
            lines.append("            java.util.Random _r = new java.util.Random(_bcId);")
            lines += [f"            {n} = {gen(t, n)};" for t, n in self.fields]
            lines.append("        } finally { _bcFillDepth--; }")
        lines.append("    }")
        for m in self.methods:
            lines += ["    " + ln for ln in m.splitlines()]
        for inner in self.nested:
            lines += ["    " + ln for ln in inner.source(gen).splitlines()]
        lines.append("}")
        return "\n".join(lines)


#: Values a stub draws when the golden compares its results for equality (``a.getChr() !=
#: b.getChr()``): a few, so that two calls often agree (as chromosome names do in Python harnesses).
SMALL_DOMAIN = {
    "int": "_r.nextInt(2)",
    "long": "(long) _r.nextInt(2)",
    "String": 'new String[]{"a", "b"}[_r.nextInt(2)]',
    "char": '"ab".charAt(_r.nextInt(2))',
}


def compared_for_equality(golden: str, name: str) -> bool:
    """Whether the golden compares what ``name(...)`` returns with ``==``, ``!=`` or ``equals``, or
    orders it against another of its results."""
    mask = java_mask(golden)
    n = re.escape(name)
    return bool(
        re.search(r"\b" + n + r"\s*\([^;{}()]*\)\s*(==|!=|\.equals\s*\()", mask)
        or re.search(r"(==|!=|\.equals\s*\()\s*(?:[\w\])]+\s*\.\s*)*" + n + r"\s*\(", mask)
        # ordered against another call of it (``this.getLeft() < that.getLeft()``): ties are the
        # case an ordering's mutants (``<`` for ``<=``) differ on, and random draws never tie
        or re.search(r"\b" + n + r"\s*\([^;{}()]*\)\s*[<>]=?\s*(?:[\w\])]+\s*\.\s*)*" + n + r"\s*\(", mask)
    )


class Callback:
    """A lambda the golden passes to a helper with no source (``traverse((node, depth) -> ...)``):
    the stub's parameter is a functional interface declared for it, and the stub calls it.

    Why: javac names a lambda argument by its abbreviated text (``(vc,rc,ref[...]mbda``), which
    is no type, so the stub did not compile and the task stayed unresolved. A person faking the
    helper would call the callback with a few made-up values; so does the stub, twice per call,
    and what the lambda does (stub calls, a returned value) is output. Its parameters are typed
    from the lambda: written types as written, one it dereferences (``node.getChildren()``) a
    stub class of its own (its members are stubbed as javac names them), one in arithmetic an
    ``Integer``, else an ``Object``.
    """

    def __init__(self, iface: str, params: list[tuple[str, str]], returns: bool, call_body: bool = False):
        self.iface = iface
        self.params = params
        self.returns = returns
        #: the body is one call: a value when the method returns one, else a statement (javac says)
        self.call_body = call_body

    def source(self) -> str:
        from biocoder_metric.synth.java_harness import qualified

        args = ", ".join(f"{qualified(t)} {n}" for t, n in self.params)
        return f"interface {self.iface} {{ {'Object' if self.returns else 'void'} call({args}); }}"

    def invocation(self, var: str, label: str, gen: Callable[[str, str], str | None]) -> str | None:
        """Two calls of the callback held in ``var`` (inside a stub, where ``_r`` is in scope)."""
        values = [gen(t, n) for t, n in self.params]
        if any(v is None for v in values):
            return None
        call = f"{var}.call({', '.join(values)})"  # type: ignore[arg-type]
        if self.returns:
            call = f'_bcPrint("callback of {label}: ", {call})'
        return f"for (int _bcK = 0; _bcK < 2; _bcK++) {call};"


#: ``(a, b) ->``, ``(String a, int b) ->``, ``a ->``: a lambda's head (on the masked text).
_LAMBDA_HEAD = re.compile(r"^\(\s*([^()]*)\)\s*->|^(\w+)\s*->")


def _looks_like_lambda(arg: str) -> bool:
    """An argument type javac printed that is a lambda's text, not a type."""
    return bool(re.search(r"->|\[\.\.\.\]", arg)) or arg.startswith("(")


def call_arguments(golden: str, name: str) -> list[list[str]]:
    """The argument texts of each call ``name(...)`` in the golden (top-level commas only)."""
    mask = java_mask(golden)
    out: list[list[str]] = []
    for m in re.finditer(r"(?<![\w$])" + re.escape(name) + r"\s*\(", mask):
        i, depth, start, args = m.end(), 1, m.end(), []
        while i < len(mask) and depth:
            c = mask[i]
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
            elif c == "," and depth == 1:
                args.append(golden[start:i].strip())
                start = i + 1
            i += 1
        if depth == 0:
            last = golden[start : i - 1].strip()
            if last or args:
                args.append(last)
            out.append(args)
    return out


def lambda_callback(arg: str, iface: str) -> Callback | None:
    """The :class:`Callback` for a lambda argument's text, or None when it is not a lambda."""
    mask = java_mask(arg)
    m = _LAMBDA_HEAD.match(mask)
    if not m:
        return None
    body, body_mask = arg[m.end() :].strip(), mask[m.end() :].strip()
    params: list[tuple[str, str]] = []
    for piece in (m.group(1) or m.group(2) or "").split(","):
        words = piece.replace("final ", "").split()
        if not words:
            continue
        pname = words[-1]
        if len(words) > 1 and words[0] != "var":
            params.append(("".join(words[:-1]), pname))
            continue
        p = re.escape(pname)
        if re.search(r"(?<![\w.])" + p + r"\s*\.\s*\w", body_mask):
            params.append((f"BcType_{pname}", pname))  # dereferenced: an object of its own kind
        elif re.search(
            r"(?<![\w.])" + p + r"\s*(?:[-+*/%]|[<>]=?(?!-))|(?:[-+*/%]|(?<!-)[<>]=?)\s*" + p + r"\b",
            body_mask,
        ):
            params.append(("Integer", pname))  # in arithmetic or an ordering: a number
        else:
            params.append(("Object", pname))
    call_body = False
    if body.startswith("{"):
        returns = bool(re.search(r"\breturn\s+[^;\s]", body_mask))
    else:
        # an assignment or ``++``: a statement, which a void method takes; one call: its value
        # unless javac says the method is void (then the lambda is a statement); anything else
        # (``a - b``, ``x.name``) is a value
        call_body = bool(re.fullmatch(r"(?:new\s+)?[\w.$<>\[\]]+\s*\(.*\)", body_mask, re.S))
        returns = not re.fullmatch(r"[\w.\[\]]+\s*(?:[-+*/%&|^]?=|\+\+|--).*", body_mask, re.S)
    return Callback(iface, params, returns, call_body)


def with_callbacks(
    golden: str, name: str, args: list[str], callbacks: dict[str, Callback]
) -> list[str] | None:
    """``args`` (javac's argument types of a missing method) with each lambda's text replaced by
    the interface declared for it (registered in ``callbacks``), or None when javac's list and the
    golden's call cannot be aligned (the types before the first lambda and after the last one are
    javac's, in order)."""
    for call in call_arguments(golden, name):
        shapes = [lambda_callback(a, f"_BcFn_{name}_{i}") for i, a in enumerate(call)]
        lam = [i for i, c in enumerate(shapes) if c is not None]
        if not lam or any(shapes[i] is None for i in range(lam[0], lam[-1] + 1)):
            continue
        head, tail = lam[0], len(call) - lam[-1] - 1
        if head + tail > len(args) or any(_looks_like_lambda(a) for a in args[:head]):
            continue
        if tail and any(_looks_like_lambda(a) for a in args[len(args) - tail :]):
            continue
        out = list(args[:head])
        for i in lam:
            cb = shapes[i]
            assert cb is not None
            callbacks.setdefault(cb.iface, cb)
            out.append(cb.iface)
        out += args[len(args) - tail :] if tail else []
        return out
    return None


def stub_method(
    name: str,
    args: list[str],
    rtype: str,
    gen: Callable[[str, str], str | None],
    static: bool = True,
    owner: str | None = None,
    small: bool = False,
    callbacks: dict[str, Callback] | None = None,
    throws: list[str] | None = None,
    stubs: frozenset[str] = frozenset(),
    nullable: bool = False,
    fails: str | None = None,
) -> str | None:
    """A static stub whose value is a function of its arguments (``None`` without a generator).

    ``stubs``: the stub classes' names (an object of one returned takes the call's identity).
    ``nullable``: the golden tests the result for null, so one call in four returns null.
    ``fails``: an exception the golden catches around the call, thrown by one call in four.

    ``callbacks``: the interfaces declared for lambdas (:class:`Callback`); an argument of one is
    shown as ``<function>`` (a lambda's class name differs between programs) and called.
    ``throws``: checked exceptions it declares (the golden catches them around its calls).
    """
    from biocoder_metric.synth.java_harness import qualified

    cbs = callbacks or {}
    params = ", ".join(f"{qualified(t)} _p{i}" for i, t in enumerate(args))
    key = (
        "new Object[]{"
        + ", ".join('"<function>"' if t in cbs else f"_p{i}" for i, t in enumerate(args))
        + "}"
    )
    mod = "static " if static else ""
    tail = " throws " + ", ".join(throws) if throws else ""
    label = f"{owner}.{name}" if owner else name
    # an object's methods depend on which object (a stub class's; the harness's own class, whose
    # ``super`` methods are instance stubs, has one object per call)
    ident = "" if static or owner is None else " + _bcId * 1000003L"
    # and on which method: without its name, ``getMin()`` and ``getMax()`` of one object (or two
    # objects' ``getName()`` with a static flag) drew the same value
    which = sum(ord(c) * 131**i for i, c in enumerate(label)) % 1_000_000_007
    seed = (
        "java.util.Random _r = new java.util.Random("
        f"_bcStubSeed * 31L + _bcShow({key}).hashCode(){ident} + {which}L * 7919L);"
    )
    calls = []
    for i, t in enumerate(args):
        if t in cbs:
            inv = cbs[t].invocation(f"_p{i}", label, gen)
            if inv is None:
                return None
            calls.append(inv)
    if fails and fails.rsplit(".", 1)[-1] in _THROWN_BY_STUBS:
        # the golden catches it around the call: the call fails sometimes, as the real one would
        calls.insert(0, f'if (_r.nextInt(4) == 0) throw new {fails}("stub failure");')
    if rtype == "void":
        # its only effect is being called: the calls (and their arguments) are the output
        shown = f'System.out.println("stub call: {label}" + _bcShow({key}));'
        if not calls:
            return f"{mod}void {name}({params}){tail} {{ {shown} }}"
        return "\n".join(
            [
                f"{mod}void {name}({params}){tail} {{",
                f"    {shown}",
                f"    {seed}",
                *(f"    {c}" for c in calls),
                "}",
            ]
        )
    expr = SMALL_DOMAIN.get(rtype) if small else None
    expr = expr or gen(rtype, name)
    if expr is None:
        return None
    if nullable and rtype not in _PRIMS:  # the golden has a branch for a missing result
        expr = f"_r.nextInt(4) == 0 ? null : {expr}"
    ret = [f"    return {expr};"]
    if stubs and rtype in stubs and re.fullmatch(r"new [\w.]+\(\)", expr.rsplit(" : ", 1)[-1]):
        # an object of a stub class whose identity is the call's: the same call returns an equal
        # object, and calls the golden compares (``a.getBegin().equals(b.getEnd())``) agree
        # sometimes; a fresh identity per call never equalled anything
        ident_expr = "(long) _r.nextInt(2)" if small else "_r.nextLong()"
        ret = [
            f"    {qualified(rtype)} _bcT = {expr};",
            f"    if (_bcT != null) _bcT._bcSetId({ident_expr});",
            "    return _bcT;",
        ]
    return "\n".join(
        [
            f"{mod}{qualified(rtype)} {name}({params}){tail} {{",
            f"    {seed}",
            *(f"    {c}" for c in calls),
            *ret,
            "}",
        ]
    )


#: ``class C implements Node`` with ``Node`` a stub class: the line javac names.
_IFACE_EXPECTED = re.compile(r"error: interface expected here\n([^\n]*)\n")
#: A sliced class's method overriding a stub's with another return type (the stub's was guessed).
_OVERRIDE_CLASH = re.compile(
    r"error: (\w+)\([^)\n]*\) in [\w.]+ cannot override \w+\([^)\n]*\) in (\w+)\n[^\n]*\n[^\n]*\n"
    r"\s*return type ([\w.<>\[\], ?]+) is not compatible with"
)
#: ``Constants is not public in htsjdk.samtools.cram.compression.rans; cannot be accessed ...``.
_NOT_PUBLIC = re.compile(r"error: (\w+) is not public in [\w.]+; cannot be accessed from outside package")
#: A stub class written as an annotation (``@VisibleForTesting``).
_NOT_ANNOTATION = re.compile(r"error: incompatible types: (\w+) cannot be converted to Annotation\n")
#: ``this`` where another class is wanted: ``incompatible types: Main cannot be converted to Foo``.
_SELF_AS = re.compile(r"error: incompatible types: Main cannot be converted to ([A-Z]\w*)\n")
#: ``unreported exception X; must be caught or declared to be thrown``.
_UNREPORTED = re.compile(r"error: unreported exception (\w+); must be caught or declared to be thrown")
#: ``exception IOException is never thrown in body of corresponding try statement``.
_NEVER_THROWN = re.compile(
    r"error: exception ([\w.]+) is never thrown in body of corresponding try statement"
)


def caught_calls(golden: str, exception: str) -> set[str]:
    """Names of the methods the golden calls inside a ``try`` whose ``catch`` names ``exception``.

    Why: a stub stands in for a helper (or a library method) that throws a checked exception the
    golden catches; a stub that declares none makes the ``catch`` a compile error ("exception
    IOException is never thrown in body of corresponding try statement"), though the golden is
    right. The stubs called there declare it, as the real methods do.
    """
    mask = java_mask(golden)
    short = re.escape(exception.rsplit(".", 1)[-1])
    out: set[str] = set()
    for m in re.finditer(r"\btry\s*(?:\([^{]*\))?\s*\{", mask):
        end = matching_close(mask, m.end() - 1, "{}")
        pos, caught = end + 1, []
        while end >= 0 and (c := _CATCH.match(mask, pos)):
            caught.append(c.group(1))
            close = matching_close(mask, c.end() - 1, "{}")
            if close < 0:
                break
            pos = close + 1
        if any(re.search(r"(?<![\w])(?:[\w.]*\.)?" + short + r"\b", c) for c in caught):
            out |= set(re.findall(r"(\w+)\s*\(", mask[m.end() : end]))
    return out


_CATCH = re.compile(r"\s*catch\s*\(([^)]*)\)\s*\{")
#: Exceptions a stub may throw for a ``catch`` of the golden (unchecked ones, and IOException,
#: which a stub declares when the golden catches it: :func:`caught_calls`); all have ``(String)``.
_THROWN_BY_STUBS = {
    "RuntimeException", "IllegalArgumentException", "IllegalStateException", "NumberFormatException",
    "UnsupportedOperationException", "IndexOutOfBoundsException", "ArithmeticException", "IOException",
}  # fmt: skip


def caught_unchecked(golden: str) -> dict[str, str]:
    """Method name -> the exception a stub of it throws sometimes: it is called inside a ``try``
    whose ``catch`` takes an unchecked exception (``Exception`` and ``Throwable``: a
    ``RuntimeException``).

    Why: ``try { url.toURI(); return true; } catch (Exception e) { return false; }`` tests
    whether the call fails; a stub that never fails made the result constant.
    """
    mask = java_mask(golden)
    out: dict[str, str] = {}
    for m in re.finditer(r"\btry\s*(?:\([^{]*\))?\s*\{", mask):
        end = matching_close(mask, m.end() - 1, "{}")
        if end < 0:
            continue
        pos, caught = end + 1, []
        while c := _CATCH.match(mask, pos):
            caught += [t.strip().split()[0].rsplit(".", 1)[-1] for t in c.group(1).split("|") if t.strip()]
            close = matching_close(mask, c.end() - 1, "{}")
            if close < 0:
                break
            pos = close + 1
        kinds = [t for t in caught if t in _THROWN_BY_STUBS and t != "IOException"]
        if not kinds and any(t in ("Exception", "Throwable") for t in caught):
            kinds = ["RuntimeException"]
        if kinds:
            for name in re.findall(r"(\w+)\s*\(", mask[m.end() : end]):
                out.setdefault(name, kinds[0])
    return out


def null_tested_calls(golden: str) -> set[str]:
    """Methods whose result the golden compares with null, directly (``find(k) != null``) or
    through a local it stored it in (``Rec r = index.get(k); if (r == null) ...``)."""
    mask = java_mask(golden)
    out = set(re.findall(r"(\w+)\s*\([^;{}()]*\)\s*[!=]=\s*null\b", mask))
    out |= set(re.findall(r"\bnull\s*[!=]=\s*(?:[\w\])]+\s*\.\s*)*(\w+)\s*\(", mask))
    for m in re.finditer(r"\b(\w+)\s*=\s*(?:[\w\])]+\s*\.\s*)*(\w+)\s*\([^;]*\)\s*;", mask):
        var = re.escape(m.group(1))
        rest = mask[m.end() :]
        if re.search(r"(?<![\w.])" + var + r"\s*[!=]=\s*null\b|\bnull\s*[!=]=\s*" + var + r"\b", rest):
            out.add(m.group(2))
    return out


def _null_as_object(args: list[str]) -> list[str]:
    """Argument types of a stub, with ``null`` (javac's ``<null>``) as ``Object``: any reference
    type accepts it, and the stub draws its value from the arguments as shown (``null``)."""
    return ["Object" if a in ("<null>", "<nulltype>") else a for a in args]


def type_arity(golden: str, name: str) -> int:
    """How many type arguments the golden gives class ``name`` (``Pair<String, Integer>``: 2; the
    most it writes; 0 when it never writes them)."""
    mask = java_mask(golden)
    most = 0
    for m in re.finditer(r"(?<![\w.])" + re.escape(name) + r"\s*<", mask):
        depth, args, i = 1, 1, m.end()
        if mask[i : i + 1] == ">":  # the diamond ``new Pair<>()``: says nothing of the count
            continue
        while i < len(mask) and depth:
            c = mask[i]
            if c == "<":
                depth += 1
            elif c == ">":
                depth -= 1
            elif c == "," and depth == 1:
                args += 1
            elif c in ";{}()=":  # not a type argument list after all (``n < limit``)
                args = 0
                break
            i += 1
        if depth == 0:
            most = max(most, args)
    return most


#: ``type Foo does not take parameters``: a stub class the golden writes as a generic type.
_NOT_GENERIC = re.compile(r"error: type (\w+) does not take parameters")


def _stub_type(subject, name: str) -> StubType:
    """The stub class ``name`` (created and made constructible by the generators on first use)."""
    from biocoder_metric.synth.java_harness import RepoType

    if name not in subject.stub_types:
        subject.stub_types[name] = StubType(name)
        subject.repo_types[name] = RepoType(name=name, source="", ctor=[])  # ``new Name()``
        outer = name.rsplit(".", 1)[0] if "." in name else None
        if outer in subject.stub_types:  # declared inside the class it is reached through
            subject.stub_types[outer].nested.append(subject.stub_types[name])
    return subject.stub_types[name]


@functools.cache
def _jar_javap(fq: str, classpath: str) -> str:
    """``javap -public`` of a class in the image's jars ('' when javap cannot read it)."""
    javap = shutil.which("javap")
    if not javap:
        return ""
    try:
        done = subprocess.run(
            [javap, "-public", "-cp", classpath, fq], capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout if done.returncode == 0 else ""


def _plain_type(typ: str) -> str:
    """javap's ``java.util.List<java.lang.String>`` as the harness writes it (``List<String>``)."""
    return re.sub(r"\bjava\.(?:lang|util)\.(?=[A-Z])", "", typ.replace("...", "[]")).replace(" ", "")


#: Most parameters of a library constructor the harness draws arguments for.
JAR_CTOR_PARAMS = 4


def jar_type(name: str, libs: list[str], gen: Callable[[str, str], str | None]):
    """A library class of the image's jars (``VCFHeader``, ``CRAMVersion``) built through a public
    constructor whose arguments the harness can draw (the one with the most, up to
    :data:`JAR_CTOR_PARAMS`, so inputs vary), or an enum drawn from its values; None for an
    abstract class, an interface, a class with no such constructor, or a name several jars have.

    Why: a parameter or field of such a class had no generator, so the task stayed golden-only
    ("no generator for type"); a person would construct one with made-up arguments.
    """
    from biocoder_metric.synth.java_harness import JavaParam, RepoType, split_params

    simple = name.rsplit(".", 1)[-1]
    found = class_index(libs).get(simple, [])
    if "." in name:  # written fully qualified (``List<uk.ac.ebi...CvLookup>``): that class
        found = [f for f in found if f == name]
    if len(found) != 1:
        return None
    fq = found[0]
    out = _jar_javap(fq, ":".join(libs))
    head = re.search(
        r"^public\s+(?:final\s+)?(abstract\s+)?(class|interface|enum)\s+" + re.escape(fq) + r"\b", out, re.M
    )
    if head is None or head.group(1) or head.group(2) == "interface":
        return None
    if head.group(2) == "enum" or re.search(r"extends java\.lang\.Enum<", out):
        return RepoType(name=name, source="", enum=True, imports=[f"import {fq};"])
    best: list[JavaParam] | None = None
    for m in re.finditer(r"^\s*public\s+" + re.escape(fq) + r"\(([^)]*)\)", out, re.M):
        types = [_plain_type(t) for t in split_params(m.group(1)) if t.strip()]
        params = [JavaParam(type=t, name=f"{simple[:1].lower()}{simple[1:]}{i}") for i, t in enumerate(types)]
        if len(params) > JAR_CTOR_PARAMS or any(
            p.type == name or gen(p.type, p.name) is None for p in params
        ):
            continue
        if best is None or len(params) > len(best):
            best = params
    if best is None:
        return None
    return RepoType(name=name, source="", ctor=best, imports=[f"import {fq};"])


def _jar_types(subject, types: list[str], libs: list[str], gen) -> bool:
    """Register :func:`jar_type` for each raw class name among ``types`` with no generator yet
    (imported by name); whether any was."""
    hit = False
    for t in types:
        raw = re.sub(r"<.*|\[\]", "", t)
        if (
            raw in subject.repo_types
            or gen(raw, "x") is not None
            or not re.fullmatch(r"(?:[a-z]\w*\.)*[A-Z]\w*", raw)
        ):
            continue
        spec = jar_type(raw, libs, gen)
        if spec is None:
            continue
        subject.repo_types[raw] = spec
        for imp in spec.imports:
            if imp not in subject.imports:
                subject.imports.append(imp)
        hit = True
    return hit


def _thrown(mask: str, name: str) -> bool:
    """Whether the golden throws, declares or catches class ``name`` (``throws
    IllegalDimension``): an exception, whatever its name ends with."""
    n = re.escape(name)
    return bool(
        re.search(r"\bthrows\s+(?:[\w.]+\s*,\s*)*" + n + r"\b", mask)
        or re.search(r"\bthrow\s+new\s+" + n + r"\s*\(", mask)
        or re.search(r"\bcatch\s*\(\s*(?:final\s+)?(?:[\w.]+\s*\|\s*)*" + n + r"\b", mask)
    )


def _unguess(subject, guessed: dict[str, str], name: str) -> None:
    """Drop the import of the jar class guessed for simple name ``name`` (a wrong guess)."""
    dropped = f"import {guessed.pop(name)};"
    subject.imports = [i for i in subject.imports if i != dropped]


def _exception_stub(subject, name: str) -> int | None:
    """Index in ``subject.stub_classes`` of the exception stand-in ``name``, or None."""
    return next((i for i, c in enumerate(subject.stub_classes) if re.match(rf"class {name}\b", c)), None)


def _nest_exception(subject, owner: str, name: str) -> None:
    """Declare exception ``name`` inside the stand-in ``owner``, extending it."""
    i = _exception_stub(subject, owner)
    if i is None or re.search(rf"static class {name}\b", subject.stub_classes[i]):
        return
    inner = (
        f"    static class {name} extends {owner} {{\n"
        f"        {name}() {{ super(); }}\n"
        f"        {name}(String m) {{ super(m); }}\n"
        f"        {name}(String m, Throwable t) {{ super(m, t); }}\n"
        f"        {name}(Throwable t) {{ super(t); }}\n"
        f"    }}\n"
    )
    text = subject.stub_classes[i]
    subject.stub_classes[i] = text[: text.rstrip().rfind("}")] + inner + "}"


def _subclass(subject, source: str, wanted: str | None) -> bool:
    """Make stub ``source`` extend stub ``wanted`` when javac wants one where the other is given
    (``Node cannot be converted to Attributable``: in the project, one is a kind of the other).
    Only for a stub with no parent yet, and never into a cycle."""
    types = subject.stub_types
    if wanted is None or source == wanted or source not in types or wanted not in types:
        return False
    if types[source].parent is not None:
        return False
    up: str | None = wanted
    while up is not None:
        if up == source:
            return False
        up = types[up].parent
    types[source].parent = wanted
    return True


def _ungenerated(subject, gen) -> list[str]:
    """Every type (elements included) of the parameters and fields no generator builds."""
    from biocoder_metric.synth.java_harness import _element_types

    return [
        e
        for p in [*subject.params, *subject.settable_fields]
        if gen(p.type, p.name) is None
        for e in _element_types(p.type)
    ]


def _unknown_types(subject, gen, libs: list[str]) -> list[str]:
    """Simple class names among the parameter and field types that no generator builds (after
    the jars' constructors were tried): the project's own classes, to stand in for."""
    out: list[str] = []
    # a generic class of the project (``DoubleMatrixDataset<String, String>``) is its raw name
    types = [r for t in _ungenerated(subject, gen) for r in (t, re.sub(r"<.*", "", t))]
    for t in dict.fromkeys(types):
        if (
            re.fullmatch(r"[A-Z]\w*", t)
            and t not in subject.type_vars
            # a letter: a type parameter of the golden's class (``class Table<R, C>``), which the
            # row does not declare, stands in as a class of that name; a jar's class that no
            # constructor builds (an interface, an abstract class) is stubbed as one with no source
            and gen(t, "x") is None
            and t not in JDK_CLASSES
            and t not in jdk_imported_names()
            and t not in out
        ):
            out.append(t)
    return out


#: ``incompatible types: int cannot be converted to Foo`` / ``int cannot be dereferenced``, with the
#: source line and the caret line javac prints under them.
_RETYPE = re.compile(
    r"error: (?:incompatible types: (?:possible lossy conversion from )?(\w+(?:<[\w.<>,\[\] ?]*>)?(?:\[\])*)"
    r" (?:cannot be converted )?to ([\w.<>,\[\] ?]+)"
    r"|(\w+) cannot be dereferenced)"
    r"\n([^\n]*)\n([ \t]*)\^"
)


def _raw(typ: str | None) -> str | None:
    """``Node<V>`` -> ``Node`` (a stub class is named without its type arguments)."""
    return re.sub(r"<.*", "", typ) if typ else typ


def _retypes(errors: str) -> list[tuple[str, str | None, str, int]]:
    """``(guessed type, wanted type or None for "an object", source line, caret column)``."""
    out = []
    # an anonymous subclass (``new BaseEdge() {...}``) converts as its class does
    errors = re.sub(r"<anonymous ([\w.]+)(?:<[^<>]*>)?>", r"\1", errors)
    for m in _RETYPE.finditer(errors):
        guessed = m.group(1) or m.group(3)
        out.append((guessed, m.group(2), m.group(4), len(m.group(5))))
    return out


def _indexed_rank(line: str, name: str) -> int:
    """How many indexes follow ``name`` on the line (``x[i][j]``: 2), 0 when it is not indexed."""
    m = re.search(r"(?<![\w.])" + re.escape(name) + r"\s*((?:\[[^\[\]]*\]\s*)+)", line)
    return m.group(1).count("[") if m else 0


def _before_group(text: str, opening: str, closing: str) -> str | None:
    """``text`` without the balanced ``opening``...``closing`` group it ends with, or None when
    the group never opens."""
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        depth += {closing: 1, opening: -1}.get(text[i], 0)
        if depth == 0:
            return text[:i].rstrip()
    return None


def _dereferenced(line: str, col: int, names: set[str]) -> str | None:
    """The stub whose value ``X cannot be dereferenced`` is about: javac's caret is on the ``.``,
    so it is the expression just before it, a field (``count.x``) or a call's result
    (``d.calc(mol).value()``: ``calc``, not the argument ``mol`` nearer the caret)."""
    text = line[:col].rstrip()
    head = _before_group(text, "(", ")") if text.endswith(")") else text
    while head is not None and head.endswith("]"):
        # an element (``table[v.getIndex()].stream()``): the array's own name, not a name
        # inside the index, which is an int wherever it is used
        head = _before_group(head, "[", "]")
    if head is None:
        return None
    m = re.search(r"(\w+)$", head)
    return m.group(1) if m and m.group(1) in names else None


def _chain_end(line: str, col: int, names: set[str]) -> str | None:
    """The stub name whose value a member chain starting at the caret ends in (``a.b.FLAG``,
    ``a.b.count()``: the last member, not ``a``, is what javac could not convert)."""
    if line[col : col + 1] == ".":  # javac's caret on a field access's dot: the field after it
        after = re.match(r"\.\s*(\w+)", line[col:])
        return after.group(1) if after and after.group(1) in names else None
    chain = re.match(r"\w+(?:\s*\.\s*\w+)+", line[col:])
    if chain is None:
        return None
    last = re.findall(r"\w+", chain.group(0))[-1]
    return last if last in names else None


def _symbol_at(line: str, col: int, names: set[str]) -> str | None:
    """The declared stub name the caret points at (or, for a dereference, just before it)."""
    hits = [(abs(m.start() - col), m.group(0)) for m in re.finditer(r"\w+", line) if m.group(0) in names]
    before = [h for h in hits if line.find(h[1]) <= col]
    pool = before or hits
    return min(pool)[1] if pool else None


#: Words before a ``(`` that open no call.
_KEYWORDS = frozenset({"if", "while", "for", "switch", "catch", "synchronized", "return"})


def call_argument_at(line: str, col: int) -> tuple[str, int] | None:
    """``(method name, argument index)`` of the innermost call whose argument list holds column
    ``col`` of ``line`` (javac's caret under an argument it cannot convert), else None."""
    depth, commas = 0, 0
    for i in range(min(col, len(line)) - 1, -1, -1):
        ch = line[i]
        if ch in ")]}":
            depth += 1
        elif ch in "([{":
            if depth == 0:
                if ch != "(":
                    return None
                m = re.search(r"(\w+)\s*$", line[:i])
                if m is None or m.group(1) in _KEYWORDS:
                    return None
                return m.group(1), commas
            depth -= 1
        elif ch == "," and depth == 0:
            commas += 1
    return None


#: A guessed field or result whose type javac says lacks a member: ``location: variable header of
#: type String`` under ``symbol: method getSequenceIndex(String)``.
_MISSING_ON = re.compile(
    r"error: cannot find symbol\n[^\n]*\n[^\n]*\n\s*symbol:\s+(?:variable|method) \w+[^\n]*\n"
    r"\s*location: variable (\w+) of type ([\w.<>,\[\] ?]+)"
)


#: A member missing from the class of a value (``location: class String``), with line and caret.
_MISSING_IN_CLASS = re.compile(
    r"error: cannot find symbol\n([^\n]*)\n([ \t]*)\^\n\s*symbol:\s+(?:variable|method) \w+[^\n]*\n"
    r"\s*location: (?:class|interface) ([\w.]+)\n"
)


#: ``method get in interface List<E> cannot be applied to given types;`` with its line and caret.
_NOT_APPLICABLE = re.compile(
    r"error: method \w+ in (?:class|interface) ([\w.]+)(?:<[^\n]*?>)? cannot be applied to given types;"
    r"\n([^\n]*)\n([ \t]*)\^"
)


def misguessed_owners(
    errors: str, names: set[str], stub_types: set[str], type_of: Callable[[str], str | None]
) -> list[str]:
    """Stub names (fields, results) whose guessed type javac says has no such member, or no such
    member taking these arguments (``flag.get()`` on a ``List``): the guess was a JDK type
    (``String``, ``Integer``, ``Collection<Foo>``, an array) the golden treats as an object of
    another class, so the name is retyped to a stub class of its own."""
    out: list[str] = []
    for m in _MISSING_ON.finditer(errors):
        name, typ = m.group(1), m.group(2)
        if name in names and _raw(typ) not in stub_types and name not in out:
            out.append(name)
    for m in _MISSING_IN_CLASS.finditer(errors):
        # ``alignment.getTaxaNames().get(i)``: javac names the class of the value, and the stub
        # whose value it is comes just before the caret's dot
        line, col, owner = m.group(1), len(m.group(2)), m.group(3)
        name = _dereferenced(line, col, names)
        if name and _raw(type_of(name)) == owner and owner not in stub_types and name not in out:
            out.append(name)
    for m in _NOT_APPLICABLE.finditer(errors):
        owner, line, col = m.group(1), m.group(2), len(m.group(3))
        name = _dereferenced(line, col, names)
        if name and _raw(type_of(name)) == owner and owner not in stub_types and name not in out:
            out.append(name)
    return out


#: javac names the shape a guessed type lacks: ``for (T x : m())`` needs an array or an
#: ``Iterable``, ``m[i]`` an array, ``m() != ';'`` a ``char``. Each with the line and its caret.
_FOREACH = re.compile(r"error: for-each not applicable to expression type\n([^\n]*)\n([ \t]*)\^")
_ARRAY = re.compile(r"error: array required, but ([\w.<>\[\], ?]+) found\n([^\n]*)\n([ \t]*)\^")
_OPERAND = re.compile(
    r"error: bad operand types for binary operator '([^']+)'\n([^\n]*)\n([ \t]*)\^\n"
    r"\s*first type:\s*([\w.<>\[\], ?]+?)\n\s*second type:\s*([\w.<>\[\], ?]+?)\n"
)
#: A wider number assigned to a stub guessed a narrower one, with the line.
_LOSSY = re.compile(r"error: incompatible types: possible lossy conversion from (\w+) to (\w+)\n([^\n]*)\n")
#: ``synchronized (lock)`` of a stub guessed a primitive (a monitor is an object).
_NEEDS_REFERENCE = re.compile(
    r"error: unexpected type\n([^\n]*)\n([ \t]*)\^\n\s*required: reference\n\s*found:\s*(\w+)\n"
)
#: ``x = null`` (or ``null`` passed) where a stub was guessed a primitive.
_NULL_TO = re.compile(
    r"error: incompatible types: <null(?:type)?> cannot be converted to (\w+)\n([^\n]*)\n([ \t]*)\^"
)
#: The loop variable's declared type in ``for (final Foo x : ...)``.
_LOOP_VAR = re.compile(r"\bfor\s*\(\s*(?:final\s+)?([\w.<>\[\]?, ]+?)\s+\w+\s*:")


def _nearest(line: str, col: int, names: set[str], before: bool) -> tuple[str, str | None] | None:
    """The stub name closest to the caret on one side of it, with the class it is reached
    through when written ``Owner.name`` (``TruthState.values()``), else ``None``."""
    hits = [m for m in re.finditer(r"\w+", line) if m.group(0) in names]
    side = [m for m in hits if (m.start() < col) == before]
    if not side:
        return None
    hit = side[-1] if before else side[0]
    owner = re.search(r"(\w+)\s*\.\s*$", line[: hit.start()])
    return hit.group(0), owner.group(1) if owner else None


def shape_retypes(
    errors: str, names: set[str], type_of: Callable[[str], str | None]
) -> list[tuple[str, str, str | None]]:
    """``(stub name, type it must have, class it is reached through or None)`` for each shape
    javac says a stub's guessed type lacks."""
    out: list[tuple[str, str, str | None]] = []
    for m in _FOREACH.finditer(errors):
        line, col = m.group(1), len(m.group(2))
        loop = _LOOP_VAR.search(line)
        hit = _nearest(line, col + 1, names, before=True)
        if loop and loop.group(1) != "var" and hit:
            out.append((hit[0], loop.group(1).replace(" ", "") + "[]", hit[1]))  # an array of the loop's type
    for m in _ARRAY.finditer(errors):
        found, line, col = m.group(1), m.group(2), len(m.group(3))
        hit = _nearest(line, col, names, before=True)
        if hit and type_of(hit[0]) == found:
            out.append((hit[0], found + "[]", hit[1]))  # indexed: an array of what it was guessed to be

    def element(name: str, line: str) -> tuple[str, str]:
        # ``flags[i][j]``: the operand is an element, so the guess compared is the element type's
        rank = _indexed_rank(line, name)
        typ = type_of(name) or ""
        return re.sub(r"(\[\])+$", "", typ) if rank else typ, "[]" * rank

    for m in _OPERAND.finditer(errors):
        op, line, col, first, second = m.group(1), m.group(2), len(m.group(3)), m.group(4), m.group(5)
        left, right = _nearest(line, col, names, True), _nearest(line, col + 1, names, False)
        lt, lr = element(left[0], line) if left else ("", "")
        rt, rr = element(right[0], line) if right else ("", "")
        if op in ("&&", "||"):
            # a condition: both operands are booleans, whatever the other one is
            if left and lt == first and first != "boolean":
                out.append((left[0], "boolean" + lr, left[1]))
            elif right and rt == second and second != "boolean":
                out.append((right[0], "boolean" + rr, right[1]))
            continue
        if left and lt == first and second not in ("<null>", "<nulltype>"):
            out.append((left[0], second + lr, left[1]))  # compared with the other operand's type
        elif right and rt == second and first not in ("<null>", "<nulltype>"):
            out.append((right[0], first + rr, right[1]))
        elif left and lt == first and first in BOXES:
            # a guessed primitive compared with null (``if (results != null)``): an object, the
            # boxed kind of the guess, so its other uses (arithmetic, passing on) still compile
            out.append((left[0], BOXES[first] + lr, left[1]))
        elif right and rt == second and second in BOXES:
            out.append((right[0], BOXES[second] + rr, right[1]))
    for m in _LOSSY.finditer(errors):
        # ``prior[i][j] = cond ? p : q / 3.0`` into a field guessed ``int[][]``: its elements hold
        # what is assigned (javac's caret is inside the value, so the target is read off the line)
        wider, narrower, line = m.group(1), m.group(2), m.group(3)
        target = re.match(r"\s*(?:this\s*\.\s*)?(\w+)\s*((?:\[[^\]]*\]\s*)*)[-+*/]?=(?!=)", line)
        if target and target.group(1) in names:
            typ, rank = element(target.group(1), line)
            if typ == narrower and wider in _PRIMS:
                out.append((target.group(1), wider + rank, None))
    for m in _NEEDS_REFERENCE.finditer(errors):
        line, col, prim = m.group(1), len(m.group(2)), m.group(3)
        hit = _nearest(line, col, names, before=False)
        if hit and prim in BOXES and type_of(hit[0]) == prim:
            out.append((hit[0], BOXES[prim], hit[1]))
    for m in _NULL_TO.finditer(errors):
        # ``mRestOfBinaryData = null`` of a field guessed ``int``: an object, the boxed guess
        prim, line, col = m.group(1), m.group(2), len(m.group(3))
        hit = _nearest(line, col, names, before=True)
        typ, rank = element(hit[0], line) if hit else ("", "")
        if hit and prim in BOXES and typ == prim:
            out.append((hit[0], BOXES[prim] + rank, hit[1]))
    return out


#: ``method m in class Main cannot be applied to given types; ... found: int,String``.
_APPLY = re.compile(
    r"method (\w+) in class (\w+) cannot be applied to given types;.*?found:\s*([^\n]*)", re.S
)


def overload_calls(errors: str) -> list[tuple[str, str, list[str]]]:
    """``(method, class, argument types)`` of each call no declared overload accepts."""
    out: list[tuple[str, str, list[str]]] = []
    for block in re.split(r"\n(?=\S[^\n]*error:)", errors):
        m = _APPLY.search(block)
        if m:
            item = (m.group(1), m.group(2), _split_types(m.group(3)))
            if item not in out:
                out.append(item)
    return out


class _Registry:
    """The stubbed fields and methods (owner ``None``: the harness's class), rendered onto the subject."""

    def __init__(self) -> None:
        self.fields: dict[tuple[str | None, str], list] = {}  # -> [type, static]
        self.methods: dict[tuple[str | None, str], list] = {}  # -> [args, return type, static]
        self.small: set[str] = set()  # methods whose results the golden compares for equality
        self.overloads: list[tuple[str, list[str], str]] = []  # (name, args, return type) in Main
        self.throws: dict[str, list[str]] = {}  # method name -> checked exceptions it declares
        self.nullable: set[str] = set()  # methods whose result the golden compares with null
        self.fails: dict[str, str] = {}  # method name -> exception it sometimes throws (caught)
        self.inherited: set[str] = set()  # methods the golden calls through ``super``: instance ones

    def type_of(self, name: str) -> str | None:
        for (_, n), spec in self.fields.items():
            if n == name:
                return spec[0]
        for (_, n), spec in self.methods.items():
            if n == name:
                return spec[1]
        return None

    def widen(self, name: str, index: int) -> bool:
        """Make parameter ``index`` of every stub method ``name`` an ``Object``; False when
        there is none or it already is one."""
        hit = False
        for (_, n), spec in self.methods.items():
            if n == name and index < len(spec[0]) and spec[0][index] != "Object":
                spec[0] = [*spec[0][:index], "Object", *spec[0][index + 1 :]]
                hit = True
        for i, (n, args, rtype) in enumerate(self.overloads):
            if n == name and index < len(args) and args[index] != "Object":
                self.overloads[i] = (n, [*args[:index], "Object", *args[index + 1 :]], rtype)
                hit = True
        return hit

    def names(self) -> set[str]:
        return {n for _, n in self.fields} | {n for _, n in self.methods}

    def retype(self, name: str, new: str, owner: str | None = None) -> bool:
        """Give ``name`` the type ``new``: only ``owner``'s member when it has one so named
        (``TruthState.values`` and ``CallState.values`` are two stubs), else every one."""
        hit = False
        entries = [*self.fields.items(), *self.methods.items()]
        if owner is not None and any(k == (owner, name) for k, _ in entries):
            entries = [(k, spec) for k, spec in entries if k == (owner, name)]
        for key, spec in entries:
            if key[1] == name:
                idx = 0 if key in self.fields else 1
                if spec[idx] != new:
                    spec[idx] = new
                    hit = True
        return hit

    def drop_class(self, subject, name: str) -> None:
        """Forget stub class ``name`` and the members stubbed on it (it is another class)."""
        subject.stub_types.pop(name, None)
        subject.repo_types.pop(name, None)
        for key in [k for k in self.methods if k[0] == name]:
            del self.methods[key]
        for key in [k for k in self.fields if k[0] == name]:
            del self.fields[key]

    def apply(self, subject, gen) -> str | None:
        subject.stub_fields = [(t, n) for (o, n), (t, _) in self.fields.items() if o is None]
        subject.stub_methods = []
        for st in subject.stub_types.values():
            st.fields = [(t, n) for (o, n), (t, s) in self.fields.items() if o == st.name and not s]
            st.static_fields = [(t, n) for (o, n), (t, s) in self.fields.items() if o == st.name and s]
            st.methods = []
        for (owner, name), (args, rtype, static) in self.methods.items():
            src = stub_method(
                name,
                args,
                rtype,
                gen,
                # the harness's class's stubs are static (a static golden calls them), but not
                # one reached through ``super``: the golden overrides it, and an instance method
                # cannot override a static one
                static=(owner is None and name not in self.inherited) or bool(static),
                owner=owner,
                small=name in self.small,
                callbacks=subject.stub_callbacks,
                throws=self.throws.get(name),
                stubs=frozenset(subject.stub_types),
                nullable=name in self.nullable,
                fails=self.fails.get(name) or next(iter(self.throws.get(name) or []), None),
            )
            if src is None:
                return f"helper method {name} returns {rtype}, which has no generator"
            (subject.stub_methods if owner is None else subject.stub_types[owner].methods).append(src)
        for name, args, rtype in self.overloads:
            src = stub_method(
                name,
                args,
                rtype,
                gen,
                static=True,
                small=name in self.small,
                callbacks=subject.stub_callbacks,
                throws=self.throws.get(name),
                stubs=frozenset(subject.stub_types),
            )
            if src is None:
                return f"helper method {name} returns {rtype}, which has no generator"
            subject.stub_methods.append(src)
        return None


def complete(
    subject, golden: str, render, gen, libs: list[str], declared: dict[str, str] | None = None
) -> str | None:
    """Declare the fields and stub the methods javac says are missing (on ``subject``, in place).

    ``render(subject)``: the harness text (None without a generator); ``gen(type, name)``: a
    generator expression; ``declared``: return types upstream's metadata gives for helpers.
    A guess javac rejects (``int cannot be converted to IAtomContainer``, ``int cannot be
    dereferenced``) is replaced by the type it wants (a stub class when it has no source).
    Returns ``None`` when the harness with the golden compiles, else why not.
    """
    done: set[tuple[str | None, str]] = set()
    golden_mask = java_mask(golden)
    reg = _Registry()
    guessed: dict[str, str] = {}  # simple name -> class imported because one jar declares it
    retyped: set[str] = set()
    history: dict[str, set[str]] = {}  # name -> every type it has had (no retype goes back)
    unstubbed: set[str] = set()  # stub classes replaced by the JDK class of their name
    jdk_exceptions: dict[str, str] = {}  # simple name -> the JDK exception class imported for it
    jdk_refused: set[str] = set()  # exception names whose JDK class the golden does not fit
    objectified: set[str] = set()  # names retyped to a stub class because their guess lacked a member
    _jar_types(subject, _ungenerated(subject, gen), libs, gen)  # library classes, by their constructors
    for t in _unknown_types(subject, gen, libs):
        _stub_type(subject, t).arity = type_arity(golden, t)
    imported = {m.group(1) for i in subject.imports if (m := re.fullmatch(r"import\s+[\w.]+\.(\w+)\s*;", i))}
    members = java_mask("\n".join(subject.members))
    if any(
        t in imported and re.search(r"(?<![\w.])" + re.escape(t) + r"\b", members) for t in subject.stub_types
    ):
        # a stub stands for a class the file imports (``java.awt.Graphics``, abstract) and the
        # sliced members name it too: they and the golden must mean the same class, so the stubs
        # are top-level and the import gives way to the stub (render_java)
        subject.stubs_shared = True
    for _ in range(ROUNDS + 2 * bool(subject.stub_types) + 2):
        for spec in [*reg.fields.values(), *reg.methods.values()]:
            for dotted in re.findall(
                r"(?<![\w.])([A-Z]\w*\.[A-Z]\w*)", spec[1] if len(spec) == 3 else spec[0]
            ):
                outer = dotted.split(".")[0]
                if outer in guessed and gen(dotted, "x") is None:
                    # the jar's class of that name has no such nested class: the project's own is meant
                    _unguess(subject, guessed, outer)
                    _stub_type(subject, outer)
                if outer in subject.stub_types:
                    _stub_type(subject, dotted)  # a helper's ``Constants.SpecFileFormat``: nested in its stub
        why = reg.apply(subject, gen)
        if why:
            return why
        ctx = render(subject)
        if ctx is None:
            return None  # the caller reports which type has no generator
        # inserted as the engine inserts it: ``@Override`` dropped (the harness's class has no supertype)
        prog = ctx.replace(INSERT_MARKER, tidy_java(golden)).replace(SEED_PLACEHOLDER, "0")
        errors = compile_errors(prog, libs)
        if not errors:
            return None
        added = False
        for m in _CTOR.finditer(errors):  # ``new Interval(pos, len)`` of a stub class
            name, found = m.group(1), _split_types(m.group(2))
            found = _null_as_object(found)  # ``new Dataset(path, null)``: any reference type takes null
            if name in subject.stub_types and found not in subject.stub_types[name].ctors:
                subject.stub_types[name].ctors.append(found)
                added = True
        for line, col in _FOREACH.findall(errors):
            # ``for (GenomeLoc e : this)``: the golden's class is an Iterable of the loop's type
            loop = _LOOP_VAR.search(line)
            if (
                loop
                and loop.group(1) != "var"
                and re.match(r"this\s*\)", line[len(col) :])
                and not subject.is_static
                and subject.iterates is None
            ):
                subject.iterates = BOXES.get(loop.group(1).replace(" ", ""), loop.group(1).replace(" ", ""))
                subject.stubs_shared = True  # the class names the element type: stubs it sees
                added = True
        for name, line in _DIAMOND_ARITY.findall(errors):
            # ``new ImmutablePair<>(a, b)`` of a stub class with no such constructor: javac
            # names no argument types for a diamond, so each takes any object
            plain = re.sub(r"\b" + re.escape(name) + r"\s*<[^()]*>\s*\(", name + "(", line)
            for found in call_arguments(plain, name):
                st = subject.stub_types.get(name)
                if st is not None and ["Object"] * len(found) not in st.ctors:
                    st.ctors.append(["Object"] * len(found))
                    added = True
        for line in _IFACE_EXPECTED.findall(errors):
            # a sliced class implements a library interface with no source: it extends the stub
            listed = re.search(r"\bimplements\s+([^{]*)", line)
            for t in re.findall(r"\w+", re.sub(r"<[^<>]*>", "", listed.group(1))) if listed else []:
                st = subject.stub_types.get(t)
                if st is not None and st.parent is None and t not in subject.implemented_stubs:
                    subject.implemented_stubs.add(t)
                    added = True
        for name, owner, rtype in _OVERRIDE_CLASH.findall(errors):
            # the class's own method says what the stub's returns (the stub's type was a guess);
            # javac names the harness's class (``Orig``) where the registry says None
            owner = None if owner == subject.class_name and (None, name) in reg.methods else owner
            if (owner, name) in reg.methods and reg.retype(name, rtype, owner):
                added = True
        for exc in dict.fromkeys(_NEVER_THROWN.findall(errors)):
            # the golden catches a checked exception around stub calls: they declare it
            stubbed = {n for _, n in reg.methods} | {n for n, _, _ in reg.overloads}
            for name in sorted(caught_calls(golden, exc) & stubbed):
                if exc not in reg.throws.setdefault(name, []):
                    reg.throws[name].append(exc)
                    added = True
        for name in dict.fromkeys(_NOT_GENERIC.findall(errors)):
            st = subject.stub_types.get(name) or next(
                (t for t in subject.stub_types.values() if t.simple == name), None
            )  # javac names a nested stub by its simple name
            arity = type_arity(golden, st.name) if st is not None else 0
            if st is not None and arity and st.arity != arity:
                st.arity = arity  # written ``IntervalNode<S>``: the stub takes that many type parameters
                added = True
        for fq, simple in dict.fromkeys(_SHADOWED.findall(errors)):
            # ``java.util.Map.Entry<K,V> cannot be converted to Main.Entry<K,V>``: the golden's
            # ``Entry`` is the JDK's (an import of the original file), not a class of its own
            if simple in subject.stub_types and f"import {fq};" not in subject.imports:
                unstubbed.add(simple)
                reg.drop_class(subject, simple)
                subject.imports.append(f"import {fq};")
                added = True
        renames: list[tuple[str, str, str | None]] = []
        for source, wanted, line, col in _retypes(errors):
            site = call_argument_at(line, col) if wanted is not None else None
            if site is not None and reg.widen(*site):
                # a stub called with another type at another site (``Utils.nonNull(ps)``, then
                # ``Utils.nonNull(e)``): its parameter types came from the first call javac
                # named, so the parameter takes any object (a stub shows it as a value)
                added = True
                continue
            outer = re.search(r"(?<![\w.])((?:[A-Z]\w*\.)+)" + re.escape(source) + r"\b", line)
            if outer:
                # javac names a nested class by its simple name (``Double``); the line says which
                # one (``new Rectangle2D.Double(...)``), not java.lang's
                source = outer.group(1) + source
            if (
                _raw(source) in subject.stub_types
                and _raw(wanted) in guessed
                and f"import {guessed[_raw(wanted)]};" in subject.imports
            ):
                # a stub passed where a class imported by its simple name is wanted (the one jar
                # of the image with an ``Edge`` is not the project's library): the guess was
                # wrong, so that class is a stub too, and the first a kind of it
                _unguess(subject, guessed, _raw(wanted))
                _stub_type(subject, _raw(wanted))
                _subclass(subject, _raw(source), _raw(wanted))
                added = True
                continue
            if _subclass(subject, _raw(source), _raw(wanted)):
                added = True  # one stub passed where another is wanted: it becomes a subclass
                continue
            if line[col : col + 1] == "?" and wanted is not None:
                # ``c ? Kind.PLAIN : Kind.SHORT``: javac points at the ``?``; the guesses that
                # could not convert are the branches' (those of the guessed type)
                for branch in dict.fromkeys(re.findall(r"\w+", line[col:])):
                    if branch in reg.names() - retyped and reg.type_of(branch) == source:
                        renames.append((branch, wanted, None))
                continue
            # the caret is on a call's ``(`` or a dereference's ``.``: the name just before it.
            # Names not yet retyped first (one already retyped is likelier right); then any, as
            # a first retype can be a step (``BcType_x`` to ``int``) javac corrects later
            # (``int cannot be converted to Properties``); the history stops a cycle
            name = next(
                (
                    hit
                    for pool in (reg.names() - retyped, reg.names())
                    if (
                        hit := (None if wanted is None else _chain_end(line, col, pool))
                        or _dereferenced(line, col, pool)
                        or _symbol_at(line, col, pool)
                    )
                ),
                None,
            )
            if name is None:
                continue
            # ``int cannot be converted to Foo``: the stub's guess (int) becomes Foo; ``Foo cannot be
            # converted to int`` where the stub is the target (``x = new Foo()``): it becomes Foo.
            # Written ``x[i]``, the types are its elements': ``x`` becomes ``Foo[]``.
            rank = _indexed_rank(line, name)
            current = reg.type_of(name) or ""
            if rank:
                current = re.sub(r"(\[\])+$", "", current)  # the elements' type
            new = (wanted or f"BcType_{name}") + "[]" * rank
            if wanted is not None and current == wanted:
                new = source + "[]" * rank
            renames.append((name, new, None))
        # iterated, indexed or compared as something else: the shape javac says it must have
        for name, new, owner in shape_retypes(errors, reg.names(), reg.type_of):
            grows = new == f"{reg.type_of(name)}[]"  # ``Variant`` iterated: ``Variant[]``
            if grows or (name not in retyped and f"{owner}.{name}" not in retyped):
                renames.append((name, new, owner if owner in subject.stub_types else None))
        for name in misguessed_owners(
            errors, reg.names() - objectified, set(subject.stub_types), reg.type_of
        ):
            if not any(r[0] == name for r in renames):  # a type javac names wins over a stub class
                objectified.add(name)  # once: a stub class of its own has any member javac names
                renames.append((name, f"BcType_{name}", None))
        firsts: dict[tuple[str, str | None], str] = {}
        for name, new, owner in renames:  # one change per name and round: later errors may stem from it
            firsts.setdefault((name, owner), new)
        for (name, owner), new in firsts.items():
            base = re.sub(r"<.*|\[\]", "", new)
            if gen(new, name) is None and re.fullmatch(r"[A-Z]\w*", base) and base not in JDK_CLASSES:
                if base in jdk_imported_names():
                    continue  # java.util's List: a stub of that name would shadow it
                if class_index(libs).get(base):
                    # a library class without a generator: built through a constructor, when one
                    # takes what the harness can draw; else nothing to stand in with
                    _jar_types(subject, [base], libs, gen)
                    if gen(new, name) is None:
                        if base not in guessed:
                            continue
                        # imported because one jar has a class of that name, and no value of it
                        # can be built (htsjdk's abstract ``Genotype``): a stub of what the golden
                        # uses stands in, as for a class with no source
                        _unguess(subject, guessed, base)
                _stub_type(subject, base)
            key = name if owner is None else f"{owner}.{name}"
            held = history.setdefault(key, {reg.type_of(name) or ""})
            if new in held:
                continue  # a type it had: retyping back would cycle
            if reg.retype(name, new, owner):
                held.add(new)
                retyped.add(key)
                added = True
        for mname, cls, args in overload_calls(errors):
            # ``solve(f, a, b)`` next to the golden ``solve(f, a, b, c)``, or a stub called with other
            # arguments the second time: an overload with no source, stubbed with these arguments
            if cls not in ("Main", "Orig", "BcBase", subject.class_name):
                continue
            stubbed = [spec for (o, n), spec in reg.methods.items() if o is None and n == mname]
            if mname != subject.name and not stubbed:
                continue  # a sliced helper's own signature: the call is the golden's to get right
            if any(spec[0] == args for spec in stubbed) or any(
                n == mname and a == args for n, a, _ in reg.overloads
            ):
                continue
            args = _null_as_object(args)
            reg.overloads.append((mname, args, stubbed[0][1] if stubbed else subject.return_type))
            added = True
        if re.search(
            r"error: incompatible types: bad return type in lambda expression\n(?:.*\n){2}\s*void cannot",
            errors,
        ):
            # a lambda whose one call was taken for a value calls a void method: it is a statement
            for cb in subject.stub_callbacks.values():
                if cb.call_body and cb.returns:
                    cb.returns = False
                    added = True
        for fq in ambiguous_imports(errors):
            # ``import java.util.*; import java.awt.*;`` and a bare ``List``: the single-type
            # import decides (java.util's, the one code means far more often)
            if f"import {fq};" not in subject.imports:
                subject.imports.append(f"import {fq};")
                added = True
        for name in dict.fromkeys(_NOT_PUBLIC.findall(errors)):
            if name in guessed:
                # the one jar class of that name is package-private (htsjdk's ``Constants``): not
                # the golden's, which is the project's own, a stub of what the golden uses
                _unguess(subject, guessed, name)
                _stub_type(subject, name)
                added = True
        for name in dict.fromkeys(_NOT_ANNOTATION.findall(errors)):
            if name in subject.stub_types and not subject.stub_types[name].annotation:
                subject.stub_types[name].annotation = True  # ``@VisibleForTesting``: an annotation type
                added = True
        for name in dict.fromkeys(_SELF_AS.findall(errors)):
            if subject.class_name == "Orig" and name not in JDK_CLASSES and name not in jdk_imported_names():
                # ``return this`` (or ``this`` passed on) where a ``SampleDBBuilder`` is wanted: the
                # golden's class, whose name the row does not give, is that class
                reg.drop_class(subject, name)  # its members are the class's own: javac names them again
                if name in guessed:  # a jar's class of that name was a guess: this class is the project's
                    _unguess(subject, guessed, name)
                done.difference_update({k for k in done if k[0] == name})
                subject.class_name = name
                added = True
        for name in dict.fromkeys(_UNREPORTED.findall(errors)):
            if name in jdk_exceptions:
                # the JDK's class is checked where the project's is not (thrown, never declared):
                # the project's own, an unchecked stand-in as for any exception with no source
                _unguess(subject, jdk_exceptions, name)
                jdk_refused.add(name)
                done.discard((None, name))
                added = True
        missing = [m for m in missing_symbols(errors) if (m[3], m[1]) not in done]
        if missing and subject.name == "main":
            # the separate driver class holds the harness helpers, not the golden's class
            return "a golden named main uses names with no source: " + ", ".join(m[1] for m in missing)
        if not missing and not added:
            first = next((ln for ln in errors.splitlines() if "error:" in ln), errors.strip()[:200])
            return "golden does not compile: " + first.split("error:", 1)[-1].strip()
        for kind, name, args, owner, static in missing:
            done.add((owner, name))
            if name.startswith("_bc"):
                continue  # the harness's own helpers, out of reach while a wrong import hides BcBase
            if kind == "method" and re.search(r"\bsuper\s*\.\s*" + re.escape(name) + r"\s*\(", golden):
                # ``super.getModel()``: a method of the golden's own class's parent, so the stub is
                # declared in the class the golden's class extends (the shared layout), not beside it
                subject.stubs_shared = True
                owner, static = None, False
                reg.inherited.add(name)
            if owner is not None and (
                owner == subject.class_name or owner.startswith(subject.class_name + ".")
            ):
                # a name the sliced class's own members (or its nested classes) use: a stub it
                # must see (render_java then declares the stubs where it sees them)
                owner, static = None, False
                subject.stubs_shared = True
            if owner is not None and owner not in subject.stub_types:
                # javac names a nested stub by its simple name (``location: class SpecIdFormat``)
                owner = next((t.name for t in subject.stub_types.values() if t.simple == owner), owner)
            if (
                kind == "variable"
                and owner is not None
                and (
                    f"{owner}.{name}" in subject.stub_types
                    or any(k == "class" and n == name and o == owner for k, n, _, o, _ in missing)
                )
            ):
                continue  # ``Registry.Kind.LONG``: read through the nested class ``Registry.Kind``
            if kind == "class" and owner is not None and owner in guessed:
                # the one jar class of that name has no such nested class: the golden's is the
                # project's own (a stub), with the nested class inside it
                _unguess(subject, guessed, owner)
                _stub_type(subject, owner)
                _stub_type(subject, f"{owner}.{name}").arity = type_arity(golden, f"{owner}.{name}")
                continue
            if kind == "class" and owner is not None and _exception_stub(subject, owner) is not None:
                # ``new UserException.CouldNotCreateOutputFile(msg, e)``: an exception nested in
                # a project's exception class, a kind of it
                _nest_exception(subject, owner, name)
                continue
            if owner is not None and owner in guessed and owner not in subject.stub_types:
                # imported because one jar has a class of that name, which has no such member:
                # the golden's is the project's own, a stub of what it uses (named again next)
                _unguess(subject, guessed, owner)
                _stub_type(subject, owner)
                done.discard((owner, name))
                continue
            if owner is not None and owner not in subject.stub_types:
                if firsts or owner in unstubbed:
                    # a member of a type retyped this round (``area`` was a List, is now a
                    # Rectangle2D.Double): the next compile says whether it is still missing
                    done.discard((owner, name))
                    continue
                return f"{owner}.{name} is not declared (a class with no source here)"
            if (
                kind == "class"
                and (re.search(r"(Exception|Error)$", name) or _thrown(golden_mask, name))
                and name not in JDK_CLASSES
            ):
                # a project's exception class: thrown and caught by name, nothing else (declared
                # once, though javac names it missing from several places)
                if any(re.match(rf"class {name}\b", c) for c in subject.stub_classes):
                    continue
                jdk = jdk_class(name, golden) if name not in jdk_refused else None
                if jdk is not None:
                    # the JDK's (``java.net.MalformedURLException`` around ``new URL(s)``): a JDK
                    # call throws that class, so an unchecked stand-in would leave it uncaught
                    subject.imports.append(f"import {jdk};")
                    jdk_exceptions[name] = jdk
                    continue
                subject.stub_classes.append(
                    f"class {name} extends RuntimeException {{\n"
                    f"    {name}() {{ super(); }}\n"
                    f"    {name}(String m) {{ super(m); }}\n"
                    f"    {name}(String m, Throwable t) {{ super(m, t); }}\n"
                    f"    {name}(Throwable t) {{ super(t); }}\n"
                    f"}}"
                )
                continue
            if kind == "class" and owner is not None and owner in subject.stub_types:
                # ``Constants.SpecFileFormat`` written as a type (``ImmutableList.Builder<String>``,
                # ``new UserException.CouldNotCreateOutputFile(...)``): a class nested in a stub
                # class, declared inside it, whose members javac names next
                nested = _stub_type(subject, f"{owner}.{name}")
                nested.arity = type_arity(golden, nested.name) or nested.arity
                continue

            if (
                kind == "variable"
                and owner is not None
                and owner in subject.stub_types
                and name[:1].isupper()
                and not name.isupper()
                and not any(k == "class" and n == name and o == owner for k, n, _, o, _ in missing)
                and f"{owner}.{name}" not in subject.stub_types
            ):
                # ``JSONStringer.Scope.NULL``: a class nested in a stub class. Java reads a static
                # member through any expression of its type, so a static field of a stub class of
                # that name stands in for it, and javac names its members next
                _stub_type(subject, name)
                reg.fields[(owner, name)] = [name, True]
                continue
            camel_class = (
                kind == "variable"
                and name[:1].isupper()
                and not name.isupper()
                and re.search(r"(?<![\w.])" + re.escape(name) + r"\s*\.", golden_mask) is not None
            )
            if kind == "class" or camel_class:
                # a class (``Allele.BREAKEND``): imported when exactly one jar of the image has it,
                # else (used as a type, not through static members) one of the project's own
                found = [JDK_CLASSES[name]] if name in JDK_CLASSES else class_index(libs).get(name, [])
                if not found:
                    jdk = jdk_class(name, golden)
                    found = [jdk] if jdk else []
                built = [fq for fq in found if library_generator(fq)]
                if len(found) > 1 and len(built) == 1:
                    # several jars declare it (``Interval``): the one the harness can build is
                    # the one to try; javac rejects a wrong guess like any other
                    found = built
                if len(found) == 1:
                    subject.imports.append(f"import {found[0]};")
                    guessed[name] = found[0]
                else:
                    # none, or several jars declare it and none is the one to build (``Utils``):
                    # a stub of what the golden uses, as for a helper with no source
                    _stub_type(subject, name)  # used as a type or through static members
                continue
            target = subject.stub_types[owner] if owner is not None else None
            if kind == "variable":
                typ = field_type(golden, name, subject.return_type, member=target is not None) or name_type(
                    name
                )
                mask = golden_mask
                if typ is None and re.search(
                    r"(?<![\w.])(?:this\.)?" + re.escape(name) + r"\s*\.\s*\w", mask
                ):
                    # used through its own members (``LOGGER.error(...)``, ``helper.parse(x)``): an
                    # object of a class with no source, whose members javac names next
                    typ = f"BcType_{name}"
                    _stub_type(subject, typ)
                if typ is None and not re.search(
                    r"for\s*\([^;:()]*:\s*(?:this\.)?" + re.escape(name) + r"\s*\)", mask
                ):
                    # only passed on (``setEnabled(editable)``, ``a != b.chr``): a number is the
                    # plainest guess; javac checks it, and a rejected guess is retyped to the type
                    # javac names (``int cannot be converted to boolean``) in the next round
                    typ = "int"
                for stub in re.findall(r"\bBcType_\w+", typ or ""):
                    _stub_type(subject, stub)  # an element of a class with no source (field_type)
                if typ is not None and gen(typ, name) is None:
                    # elements of a class the harness cannot build (``List<Alignment>`` from a loop
                    # over the field): a stub of it, unless the harness's imports have it (javac
                    # decides) or a jar has it and it can be built through a constructor (a jar's
                    # class the harness cannot build, as htsjdk's abstract ones, is stubbed too)
                    for t in re.findall(r"(?<![\w.])[A-Z]\w*", typ):
                        if class_index(libs).get(t) and t not in subject.stub_types:
                            _jar_types(subject, [t], libs, gen)
                            if t in subject.repo_types:
                                continue
                        if not (t in jdk_imported_names() or t in subject.type_vars or t in guessed):
                            # (a JDK class outside the imports, ``javax.swing.text.Segment``, is
                            # no likelier the golden's than a project class of that name)
                            _stub_type(subject, t)
                if typ is None or gen(typ, name) is None:
                    return f"field {name} has no source and its type is not evident"
                reg.fields[(owner, name)] = [typ, bool(static and target is not None)]
            else:
                if any(_looks_like_lambda(a) for a in args):
                    # a lambda passed to it: an interface declared for it (Callback); the stub
                    # class of a parameter the lambda dereferences is made now, javac names its members
                    aligned = with_callbacks(golden, name, args, subject.stub_callbacks)
                    if aligned is not None:
                        args = aligned
                        for t in args:
                            for pt, _ in (
                                subject.stub_callbacks[t].params if t in subject.stub_callbacks else []
                            ):
                                if pt.startswith("BcType_"):
                                    _stub_type(subject, pt)
                rtype = (
                    ((declared or {}).get(name) if target is None else None)
                    or result_type(golden, name, subject.return_type, member=target is not None)
                    or name_type(name)
                )
                if rtype is None:
                    rtype = "int"  # only passed on: a number is the plainest guess, javac checks it
                reg.methods[(owner, name)] = [_null_as_object(args), rtype, static]
                if compared_for_equality(golden, name):
                    reg.small.add(name)
                if name in null_tested_calls(golden):
                    reg.nullable.add(name)
                failing = caught_unchecked(golden)
                if name in failing:
                    reg.fails[name] = failing[name]
    return "fields or helpers still missing after declaring " + ", ".join(sorted(n for _, n in done))
