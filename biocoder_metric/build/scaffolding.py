"""Recognise functions that are scaffolding, not tasks: tests, stubs, boilerplate, plotting and I/O.

Why a module of its own: selection must keep functions a model can be asked to write and a
harness can judge by what they return. A pytest test, a fixture, a ``pass`` body, a
``__repr__`` or a function whose only effect is a plot or a printout passes every size and
relevance filter, yet cannot be a task: it has no behaviour to compare (a stub), or its
behaviour is the repository's own test of something else (a test), or it is defined by
convention rather than by a specification (boilerplate). Each check returns the reason text
shown in the selection report, or ``None``.

Python is read with :mod:`ast` (the record's ``content`` is the dedented function), Java with
the record's text (its ``content`` holds the annotations and body; the extractor's parse tree
is not kept in the record).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any, NamedTuple

from biocoder_metric import pyast
from biocoder_metric.languages import runner

#: Folder names that hold a repository's tests.
TEST_DIRS = frozenset({"test", "tests", "testing", "unittests", "unit_tests", "test_data", "testdata"})
#: Decorators that make a Python function part of a test suite.
_TEST_DECORATORS = re.compile(
    r"^(pytest\.)?(fixture|mark\.|parametrize)|^(unittest\.)?(skip|expectedFailure)"
)
#: Data-model methods defined by convention (construction, representation, comparison, container
#: and context protocols). Arithmetic dunders (``__add__``) and ``__call__`` carry behaviour and
#: stay; a custom double-underscore name (``__process_feature__``) is an ordinary method.
_CONVENTION_DUNDERS = frozenset(
    {
        "__init__",
        "__new__",
        "__del__",
        "__repr__",
        "__str__",
        "__bytes__",
        "__format__",
        "__hash__",
        "__bool__",
        "__lt__",
        "__le__",
        "__eq__",
        "__ne__",
        "__gt__",
        "__ge__",
        "__getattr__",
        "__getattribute__",
        "__setattr__",
        "__delattr__",
        "__dir__",
        "__get__",
        "__set__",
        "__delete__",
        "__set_name__",
        "__init_subclass__",
        "__class_getitem__",
        "__len__",
        "__length_hint__",
        "__getitem__",
        "__setitem__",
        "__delitem__",
        "__missing__",
        "__iter__",
        "__next__",
        "__reversed__",
        "__contains__",
        "__enter__",
        "__exit__",
        "__aenter__",
        "__aexit__",
        "__aiter__",
        "__anext__",
        "__await__",
        "__copy__",
        "__deepcopy__",
        "__getstate__",
        "__setstate__",
        "__reduce__",
        "__reduce_ex__",
        "__getnewargs__",
        "__getnewargs_ex__",
        "__sizeof__",
        "__index__",
        "__int__",
        "__float__",
        "__complex__",
        "__fspath__",
        "__post_init__",
    }
)
#: Calls whose presence makes a function a plotting helper.
_PLOT_ROOTS = frozenset(
    {"plt", "pyplot", "matplotlib", "sns", "seaborn", "plotly", "px", "go", "bokeh", "pylab"}
)
_PLOT_METHODS = frozenset(
    {
        "savefig",
        "plot",
        "scatter",
        "hist",
        "bar",
        "barh",
        "imshow",
        "subplots",
        "figure",
        "set_xlabel",
        "set_ylabel",
        "set_title",
        "legend",
        "axhline",
        "axvline",
        "fill_between",
        "errorbar",
        "pcolormesh",
        "colorbar",
        "tight_layout",
        "show",
    }
)
#: Calls that only tell a person something through a log. A function whose only effect is one of
#: these has nothing a harness can compare (logs go to stderr, which is not compared). Printing
#: to stdout and writing a file are not on the list: the harness compares stdout and output files.
_OUTPUT_CALLS = frozenset({"info", "debug", "warning", "warn", "critical", "exception", "log"})
_FILE_CALLS = frozenset(
    {
        "open",
        "write",
        "writelines",
        "dump",
        "to_csv",
        "to_excel",
        "to_json",
        "to_parquet",
        "savetxt",
        "save",
        "copy",
        "copyfile",
        "move",
        "rename",
        "remove",
        "unlink",
        "makedirs",
        "mkdir",
        "rmtree",
        "call",
        "run",
        "check_call",
        "check_output",
        "Popen",
        "system",
    }
)
_MUTATORS = frozenset(
    {
        "append",
        "extend",
        "insert",
        "remove",
        "pop",
        "sort",
        "reverse",
        "update",
        "add",
        "discard",
        "clear",
        "setdefault",
        "popitem",
        "fill",
        "resize",
        "put",
        "set",
    }
)

_JAVA_TEST_ANNOTATION = re.compile(
    r"@(Test|ParameterizedTest|RepeatedTest|Before|After|BeforeEach|AfterEach|"
    r"BeforeClass|AfterClass|BeforeAll|AfterAll|DataProvider|TestFactory)\b"
)
_JAVA_BOILERPLATE = frozenset({"toString", "equals", "hashCode", "clone", "finalize"})
_JAVA_OUTPUT = re.compile(r"\b(System\s*\.\s*err\s*\.\s*print\w*|(LOG|LOGGER|log|logger)\s*\.\s*\w+)\s*\(")
_JAVA_KEYWORDS = frozenset({"if", "for", "while", "switch", "catch", "synchronized", "return", "try"})


def test_reason(rec: dict[str, Any]) -> str | None:
    """Why the record is part of a test suite (its file, folder, name, decorator or annotation)."""
    path = PurePosixPath(str(rec.get("filePath") or ""))
    dirs = {p.lower() for p in path.parts[:-1]}
    hit = sorted(dirs & TEST_DIRS)
    if hit:
        return f"in test folder {hit[0]}/"
    return _rules(rec).test(rec)


def _java_test(rec: dict[str, Any]) -> str | None:
    path = PurePosixPath(str(rec.get("filePath") or ""))
    name, stem = path.name, path.stem
    if re.fullmatch(r"(Test\w*|\w+(Test|Tests|IT|TestCase))", stem):
        return f"test file {name}"
    m = _JAVA_TEST_ANNOTATION.search(_java_head(str(rec.get("content") or "")))
    if m:
        return f"test annotation {m.group(0)}"
    if any(re.search(r"\b(org\.junit|org\.testng|junit\.framework)\b", i) for i in _imports(rec)):
        return "file imports a test framework"
    return None


def _py_test(rec: dict[str, Any]) -> str | None:
    path = PurePosixPath(str(rec.get("filePath") or ""))
    name, stem = path.name, path.stem
    fname = str(rec.get("functionName") or "")
    cls = str(rec.get("parentClass") or "")
    if stem == "conftest" or stem.startswith("test_") or stem.endswith("_test") or stem == "tests":
        return f"test file {name}"
    if re.match(r"test(_|[A-Z]|$)", fname) or fname in ("setUp", "tearDown", "setUpClass", "tearDownClass"):
        return f"test function {fname}"
    if re.match(r"Test[A-Z_]", cls) or cls.endswith(("Test", "Tests", "TestCase")):
        return f"method of test class {cls}"
    for deco in _decorators(rec):
        if _TEST_DECORATORS.match(deco):
            return f"test decorator @{deco}"
    return None


def stub_reason(rec: dict[str, Any]) -> str | None:
    """Why the body has no behaviour: ``pass``, ``...``, ``raise NotImplementedError``, docstring only."""
    return _rules(rec).stub(rec)


def _java_stub(rec: dict[str, Any]) -> str | None:
    body = _java_body(str(rec.get("content") or ""))
    if body is None:
        return None
    code = re.sub(r"/\*.*?\*/|//[^\n]*", "", body, flags=re.S).strip()
    if not code:
        return "empty body"
    if re.fullmatch(
        r"throw\s+new\s+(UnsupportedOperationException|RuntimeException|IllegalStateException|"
        r"NotImplementedException)\s*\([^;]*\)\s*;",
        code,
    ):
        return "body only throws " + code.split("(")[0].split()[-1]
    return None


def _py_stub(rec: dict[str, Any]) -> str | None:
    func = _py_function(rec)
    if func is None:
        return None
    body = list(func.body)
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body = body[1:]
    if not body:
        return "docstring-only body"
    kinds = []
    for stmt in body:
        if isinstance(stmt, ast.Pass):
            kinds.append("pass")
        elif (
            isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Constant)
            and stmt.value.value is Ellipsis
        ):
            kinds.append("...")
        elif (
            isinstance(stmt, ast.Raise) and stmt.exc is not None and "NotImplemented" in ast.unparse(stmt.exc)
        ):
            kinds.append("raise NotImplementedError")
        elif isinstance(stmt, ast.Return) and (
            stmt.value is None or (isinstance(stmt.value, ast.Constant) and stmt.value.value is None)
        ):
            kinds.append("return None")
        elif (
            isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str)
        ):
            kinds.append("string")
        else:
            return None
    return "body is only " + ", ".join(dict.fromkeys(kinds))


def boilerplate_reason(rec: dict[str, Any]) -> str | None:
    """Why the function is defined by convention: dunder methods, Java's Object methods, accessors."""
    return _rules(rec).boilerplate(rec)


def _java_boilerplate(rec: dict[str, Any]) -> str | None:
    fname = str(rec.get("functionName") or "")
    head = _java_head(str(rec.get("content") or ""))
    m = re.search(r"\b" + re.escape(fname) + r"\s*\(([^)]*)\)", head)
    n_params = len([p for p in m.group(1).split(",") if p.strip()]) if m else -1
    # Object's own methods (an override by signature), not a static toString(Collection) utility
    if fname in _JAVA_BOILERPLATE and n_params == (1 if fname == "equals" else 0) and "static" not in head:
        return f"Object method {fname}"
    body = _java_body(str(rec.get("content") or ""))
    if body is not None:
        code = re.sub(r"/\*.*?\*/|//[^\n]*", "", body, flags=re.S).strip()
        if re.fullmatch(r"(get|is|has)[A-Z]\w*", fname) and re.fullmatch(
            r"return\s+(this\s*\.\s*)?\w+\s*;", code
        ):
            return f"getter {fname}"
        if re.fullmatch(r"set[A-Z]\w*", fname) and re.fullmatch(r"(this\s*\.\s*)?\w+\s*=\s*\w+\s*;", code):
            return f"setter {fname}"
    return None


def _py_boilerplate(rec: dict[str, Any]) -> str | None:
    fname = str(rec.get("functionName") or "")
    if fname in _CONVENTION_DUNDERS:
        return f"dunder method {fname}"
    return None


def output_only_reason(rec: dict[str, Any]) -> str | None:
    """Why the function's only effect is a plot or a log message: nothing returned, nothing changed."""
    return _rules(rec).output_only(rec)


def _java_output_only(rec: dict[str, Any]) -> str | None:
    content = str(rec.get("content") or "")
    body = _java_body(content)
    rtype = str(rec.get("returnType") or "")
    if body is None or rtype != "void":
        return None
    if re.search(r"(\bthis\s*\.\s*\w+|\w+\s*\[[^\]]*\])\s*[-+*/]?=[^=]", body):
        return None
    rest = _JAVA_OUTPUT.sub("", re.sub(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\])*\"", "", body, flags=re.S))
    effects = [m for m in re.findall(r"\b(\w+)\s*\(", rest) if m not in _JAVA_KEYWORDS]
    if _JAVA_OUTPUT.search(body) and not effects and not re.search(r"\bthrow\b|[^=!<>]=[^=]", rest):
        return "void method that only logs"
    return None


def _py_output_only(rec: dict[str, Any]) -> str | None:
    func = _py_function(rec)
    if func is None:
        return None
    plots = _plot_calls(func)
    if plots:
        return f"plotting helper ({plots[0]})"
    if _returns_value(func) or _changes_arguments(func):
        return None
    calls = {_call_name(c) for c in ast.walk(func) if isinstance(c, ast.Call)}
    outputs = sorted(calls & _OUTPUT_CALLS)
    # a bare call to anything else (``compress(path)``) or a raise is an effect a harness can see
    effects = [
        n
        for n in ast.walk(func)
        if isinstance(n, ast.Raise)
        or (
            isinstance(n, ast.Expr)
            and isinstance(n.value, ast.Call)
            and _call_name(n.value) not in _OUTPUT_CALLS
        )
    ]
    if outputs and not effects and not calls & (_FILE_CALLS | {"exit"}):
        return f"returns nothing, changes nothing and only logs ({', '.join(outputs[:3])})"
    return None


class Rules(NamedTuple):
    """One language's scaffolding checks (its runner names them as the ``scaffolding`` hook)."""

    test: Callable[[dict[str, Any]], str | None]
    stub: Callable[[dict[str, Any]], str | None]
    boilerplate: Callable[[dict[str, Any]], str | None]
    output_only: Callable[[dict[str, Any]], str | None]


PYTHON_RULES = Rules(_py_test, _py_stub, _py_boilerplate, _py_output_only)
JAVA_RULES = Rules(_java_test, _java_stub, _java_boilerplate, _java_output_only)


def _rules(rec: dict[str, Any]) -> Rules:
    return runner(rec.get("language") or "python").hook("scaffolding")


def scaffolding(rec: dict[str, Any]) -> tuple[str, str] | None:
    """(rule, reason) of the first scaffolding check the record fails, in report order; ``None`` for a task."""
    for rule, check in (
        ("test_code", test_reason),
        ("stub", stub_reason),
        ("boilerplate", boilerplate_reason),
        ("plotting_or_output", output_only_reason),
    ):
        why = check(rec)
        if why:
            return rule, why
    return None


# ------------------------------------------------------------------------------------ helpers
def _imports(rec: dict[str, Any]) -> list[str]:
    return [i for i in (rec.get("fileImports") or rec.get("imports") or []) if isinstance(i, str)]


def _decorators(rec: dict[str, Any]) -> list[str]:
    return [
        ln.strip()[1:] for ln in str(rec.get("signature") or "").splitlines() if ln.strip().startswith("@")
    ]


def _py_function(rec: dict[str, Any]) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    try:
        tree = pyast.parse(str(rec.get("content") or ""))
    except (SyntaxError, ValueError):
        return None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return node
    return None


def _java_head(content: str) -> str:
    """The text before the method's body brace (comment, annotations, signature)."""
    no_comments = re.sub(r"/\*.*?\*/|//[^\n]*", " ", content, flags=re.S)
    i = no_comments.find("{")
    return no_comments if i < 0 else no_comments[:i]


def _java_body(content: str) -> str | None:
    """The text between the method's outer braces, comments kept; ``None`` when there is no body."""
    no_comments = re.sub(r"/\*.*?\*/|//[^\n]*", lambda m: " " * len(m.group(0)), content, flags=re.S)
    start, end = no_comments.find("{"), no_comments.rfind("}")
    if start < 0 or end <= start:
        return None
    return content[start + 1 : end]


def _call_name(call: ast.Call) -> str:
    return pyast.callee_name(call.func)


def _plot_calls(func: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            root = node.func.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in _PLOT_ROOTS:
                found.append(ast.unparse(node.func))
            elif node.func.attr in ("savefig", "imshow", "set_xlabel", "set_ylabel", "colorbar"):
                found.append(ast.unparse(node.func))
    return found


def _returns_value(func: ast.AST) -> bool:
    for node in ast.walk(func):
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if (
            isinstance(node, ast.Return)
            and node.value is not None
            and not (isinstance(node.value, ast.Constant) and node.value.value is None)
        ):
            return True
    return False


def _changes_arguments(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """True when the function assigns into, or calls a mutating method of, a parameter (``self`` too)."""
    args = func.args
    names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    for node in ast.walk(func):
        targets: list[ast.AST] = []
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _MUTATORS
        ):
            targets = [node.func]
        for t in targets:
            if isinstance(t, (ast.Attribute, ast.Subscript)):
                root = t.value
                while isinstance(root, (ast.Attribute, ast.Subscript)):
                    root = root.value
                if isinstance(root, ast.Name) and root.id in names:
                    return True
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            return True
    return False
