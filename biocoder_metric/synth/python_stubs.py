"""Names with no source anywhere become generated inputs: stubs that are functions of their arguments.

Why: most of BioCoder's tasks come without their repository (the hidden and similar sets have
none, and the shipped repositories are two), so a golden that calls a helper of its project
(``_get_counts(bam)``, ``convert_to_unicode(text)``, ``samutil.parse(x)``) or reads one of its
enums (``Direction.Forward``) cannot be sliced, and synthesis stopped there with "unresolved
names". A person writing the harness by hand would replace the helper with a fake that returns
plausible values and test what the function itself does with them. This module does that,
mechanically, for every such name:

* a name that is **called** (``helper(x)``, ``Cls(x)``, ``ns.f(x)``) becomes a function whose
  value is drawn from a generator kind typed by how the golden uses the call's result (the same
  evidence as for parameters: attribute reads make an object, ``for a, b in r`` a list of pairs,
  ``r + 1`` a number...). The value is a **function of the arguments**: it is drawn from a
  ``random.Random`` seeded with the case's seed, the stub's name and a canonical key of the
  arguments. Golden and candidate get the same value for the same call, and a candidate that
  calls the helper with other arguments gets other values, so passing the right arguments to
  the project's helpers is tested too. Calling it twice, or in another order, changes nothing;
* a name whose **attributes are read** (``Direction.Forward``, ``ns.LIMIT``) gets those
  attributes as generated values, drawn once per case; one used as a **value** (passed on,
  iterated) is a generated value, drawn once per case;
* a name that is only **raised** (``raise RejectedCandidate(...)``) or caught is an exception
  class, and a name used only in **annotations** needs nothing (harnesses start with
  ``from __future__ import annotations``).

A called stub handed a **function of the code** (``_validator(positive_int, raw, default)``, a
callback, a local ``def`` or ``lambda``) applies it to its other positional arguments, as the
helper it stands for would, so the function handed over is tested (what it raises is raised);
when it needs more arguments than the helper got, the value is drawn as for any call (round 17).

A name used only as a **decorator** (``@click.command()``, ``@cli.option(...)``) passes the
function through unchanged: the function is what is tested. A name only **tested with
``isinstance``** is an empty class of its own (no generated value is one of it). A name used in a
way no generated value can stand for (a base class, a context manager, a decorator or an
``isinstance`` class also used otherwise) keeps the task unresolved, with that reason.

Every stub slot is one more slot of the plan (:class:`biocoder_metric.synth.python_harness.Plan`
``stubs``), so the plan search (:mod:`biocoder_metric.synth.python_search`) may swap its kind like
a parameter's. The validation gates then decide, as for every harness, whether what is left
tests the function: a golden that only forwards a helper's value fails the mutant and null gates.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from biocoder_metric import pyast
from biocoder_metric.synth import python_slice
from biocoder_metric.synth.python_evidence import py3_idioms
from biocoder_metric.synth.python_inputs import (
    calls_to_name,
    is_target,
    rank_kinds,
    refine_kinds,
    unpacked_kind,
    usage_votes,
)

#: A stub slot's label: ``name()`` (called), ``name.attr()`` (a method called), ``name.attr``
#: (an attribute read), ``name`` (a value).
SLOT_RE = re.compile(r"^([A-Za-z_]\w*)(?:\.([A-Za-z_]\w*))?(\(\))?$")
#: A name bound by a repository slice's reason text (``x (from pkg, not in the image ...)``).
_REASON_NAME = re.compile(r"^([A-Za-z_]\w*)(?: \(.*\))?$")
#: Reasons that a stub cannot help with (the name is bound to something whose source is there).
_NOT_STUBBABLE = ("cannot be inlined", "not defined in")
#: Ranked kinds kept per slot (the plan search tries the others of the generic pool).
KEEP = 4
#: The kind of a helper whose value is never used: each call prints ``stub call: slot[args]``.
CALL_ONLY = "call_only"


@dataclass
class Stubs:
    """What stands in for the names with no source."""

    #: slot label -> ranked kinds, in first-use order
    slots: list[tuple[str, list[str]]] = field(default_factory=list)
    #: source lines defined as they are (exception classes)
    definitions: list[str] = field(default_factory=list)
    #: every name this covers (stubbed, an exception class, or annotation-only)
    names: list[str] = field(default_factory=list)
    #: ``ns.Error`` raised or caught: exception classes on a stubbed namespace
    exception_attrs: list[str] = field(default_factory=list)
    #: names only tested with ``isinstance`` (``class X: pass``): a value drawn for a parameter
    #: the code tests against one is made an instance of it now and then (``_bc_reclass``)
    classes: list[str] = field(default_factory=list)


def unfit_symbols(sl, golden: str, function_name: str) -> None:
    """Turn the symbolic constants of a golden-only slice (``PROTON = 'PROTON'``, python_slice)
    whose use is no string's into names a stub stands for, in place.

    Why: a constant the code cannot see is its own name as a string so that comparisons against
    it stay meaningful, but ``charge * (mz - PROTON)``, ``MENU_HELP.items()`` and ``('', np.nan) +
    ALIASES`` raised on every call with a string; such a name is drawn as a stub value typed by
    that use instead, as any name with no source is (round 30). A name only compared, passed on
    or joined into text keeps its symbolic value."""
    if getattr(sl, "origin", None) != "golden":
        return
    tree = pyast.parse(golden)
    func = next(
        (
            n
            for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == function_name
        ),
        tree,
    )
    # the golden and the sibling helpers sliced in with it, walked in the order the slicer meets
    # names (a helper's where the golden first uses it): a constant is judged by the code it was
    # met in, and the stub slots (so the harness's draws) come in that order
    helpers: dict[str, ast.AST] = {}
    for d in sl.definitions:
        if d.startswith(("def ", "async def ")):
            try:
                helpers.update((b.name, b) for b in pyast.parse(d).body if isinstance(b, ast.FunctionDef))
            except SyntaxError:
                continue
    order: list[str] = []
    met_in: dict[str, ast.AST] = {}

    def visit(node: ast.AST) -> None:
        for n in python_slice.free_names(node):
            if n in order:
                continue
            order.append(n)
            met_in[n] = node
            if n in helpers:
                visit(helpers.pop(n))

    visit(func)
    kept, moved = [], []
    for d in sl.definitions:
        m = re.match(r"^(\w+) = '(\w+)'$", d)
        name = m.group(1) if m and m.group(1) == m.group(2) else None
        if name and not _string_fits(met_in.get(name, func), name):
            moved.append(name)
        else:
            kept.append(d)
    if not moved:
        return
    sl.definitions[:] = kept
    rank = {n: i for i, n in enumerate(order)}
    sl.unresolved[:] = sorted([*sl.unresolved, *moved], key=lambda n: rank.get(n, len(rank)))


def _string_fits(body: ast.AST, name: str) -> bool:
    """Whether nothing ``body`` does with ``name`` says it is other than a string."""
    votes = usage_votes(body, name)
    if not votes:
        return True
    top = max(votes, key=lambda f: votes[f])
    return top.startswith(("str", "choice", "text"))


def stubbable_names(unresolved: list[str]) -> tuple[list[str], list[str]]:
    """(names a stub may stand for, reasons that stay unresolved) from a slice's ``unresolved``."""
    names, rest = [], []
    for item in unresolved:
        m = _REASON_NAME.match(item)
        if m and not any(s in item for s in _NOT_STUBBABLE):
            names.append(m.group(1))
        else:
            rest.append(item)
    return list(dict.fromkeys(names)), rest


def _parents(tree: ast.AST) -> dict[int, ast.AST]:
    out: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            out[id(child)] = node
    return out


def _annotation_nodes(tree: ast.AST) -> set[int]:
    """Ids of every node inside an annotation (never evaluated under ``from __future__ import annotations``)."""
    out: set[int] = set()
    roots: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            roots.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            roots.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            roots.append(node.annotation)
    for r in roots:
        out.update(id(n) for n in ast.walk(r))
    return out


#: Calls whose first argument is a function they call (``partial(f)``, ``pool.map(f, xs)``).
_TAKES_FUNCTION = frozenset(
    {
        "partial",
        "map",
        "filter",
        "imap",
        "imap_unordered",
        "starmap",
        "apply",
        "apply_async",
        "map_async",
        "submit",
        "reduce",
    }
)
#: Keywords whose value is a function (``sorted(xs, key=f)``, ``Thread(target=f)``).
_FUNCTION_KEYWORDS = frozenset({"key", "target", "callback", "func", "function"})


def _handed_as_function(node: ast.AST, parent: ast.AST | None) -> bool:
    """Whether ``node`` is handed to a call that calls it: the first argument of
    :data:`_TAKES_FUNCTION`, or a keyword of :data:`_FUNCTION_KEYWORDS`."""
    if isinstance(parent, ast.keyword):
        return parent.arg in _FUNCTION_KEYWORDS
    if not (isinstance(parent, ast.Call) and parent.args and parent.args[0] is node):
        return False
    f = parent.func
    return (f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")) in _TAKES_FUNCTION


def _alias_called(tree: ast.AST, parent: ast.AST | None, parents: dict[int, ast.AST]) -> bool:
    """Whether ``parent`` binds a local name (``execute = helper``) that the code then calls or
    hands to a call that calls it: the value bound is a function."""
    if not (
        isinstance(parent, ast.Assign)
        and len(parent.targets) == 1
        and isinstance(parent.targets[0], ast.Name)
    ):
        return False
    alias = parent.targets[0].id
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == alias and isinstance(node.ctx, ast.Load):
            up = parents.get(id(node))
            if (isinstance(up, ast.Call) and up.func is node) or _handed_as_function(node, up):
                return True
    return False


def _uses(tree: ast.AST, name: str) -> tuple[list[str], str | None]:
    """The slot labels ``name`` needs in ``tree`` (first use first), or a reason it cannot be stubbed.

    The special labels ``!exception`` (raised or caught only) is returned alone.
    """
    parents = _parents(tree)
    skip = _annotation_nodes(tree)
    labels: list[str] = []
    raised = other = tested = False
    decorating: set[int] = set()  # the name's nodes inside decorator expressions
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(
            isinstance(n, ast.Name) and n.id == name for b in node.bases for n in ast.walk(b)
        ):
            return [], f"{name} is a base class"
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            decorating |= {
                id(n)
                for d in node.decorator_list
                for n in ast.walk(d)
                if isinstance(n, ast.Name) and n.id == name
            }
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
            continue
        if id(node) in skip or id(node) in decorating:
            continue
        parent = parents.get(id(node))
        if _raised_or_caught(node, parents):
            raised = True
            continue
        if (
            isinstance(parent, ast.Call)
            and parent.func is not node
            and isinstance(parent.func, ast.Name)
            and parent.func.id in ("isinstance", "issubclass")
        ) or (
            isinstance(parent, ast.Tuple)
            and isinstance(parents.get(id(parent)), ast.Call)
            and getattr(parents[id(parent)].func, "id", None) in ("isinstance", "issubclass")
        ):
            tested = True  # fine for an exception class (``isinstance(e, RejectedCandidate)``)
            continue
        if isinstance(parent, ast.Call) and parent.func is node:
            call: ast.AST = parent
            labels.append(f"{name}()")
        elif _handed_as_function(node, parent):
            call = None  # partial(f), pool.map(f, xs), sorted(xs, key=f): a function, called later
            labels.append(f"{name}()")
        elif isinstance(parent, ast.Attribute) and parent.value is node:
            grand = parents.get(id(parent))
            if _raised_or_caught(parent, parents):
                call = None
                labels.append(f"{name}.{parent.attr}!")  # ``except lp.SolverError``: an exception class
            elif isinstance(grand, ast.Call) and grand.func is parent:
                call = grand
                labels.append(f"{name}.{parent.attr}()")
            elif isinstance(parent.ctx, ast.Load):
                call = None
                labels.append(f"{name}.{parent.attr}")
            else:
                continue  # ``ns.x = ...``: a plain object takes it
        elif _alias_called(tree, parent, parents):
            call = None  # execute = _execute_command; pool.map(execute, jobs): a function (round 26)
            labels.append(f"{name}()")
        else:
            other = True
            call = None
            labels.append(name)
        if call is not None and isinstance(parents.get(id(call)), ast.withitem):
            return [], f"{name} makes a context manager"
    labels = list(dict.fromkeys(labels))
    if decorating:
        if labels or raised or tested:
            return [], f"{name} is a decorator and used otherwise"
        return ["!decorator"], None
    if raised and not labels:
        return ["!exception"], None
    if tested:
        if labels:
            return [], f"{name} is a class tested with isinstance and used otherwise"
        return ["!class"], None
    if raised:
        return [], f"{name} is raised or caught and used otherwise"
    if other and len(labels) > 1:
        # also called or read through (``serializer.dumps(x)`` and ``fmt = serializer``): the
        # function or namespace the stub defines is the value handed on
        labels = [lb for lb in labels if lb != name]
    return labels, None


def _raised_or_caught(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """``raise node``, ``raise node(...)``, ``except node``, ``except (a, node)``."""
    parent = parents.get(id(node))
    if isinstance(parent, ast.Call) and parent.func is node:
        return isinstance(parents.get(id(parent)), ast.Raise)
    if isinstance(parent, ast.Tuple):
        parent = parents.get(id(parent))
    return isinstance(parent, ast.ExceptHandler) or (isinstance(parent, ast.Raise) and parent.exc is node)


def _hint(label: str) -> str:
    """The name that votes for a slot's kind (``get_counts()`` -> ``counts``)."""
    m = SLOT_RE.match(label)
    word = (m.group(2) or m.group(1)) if m else label
    word = word.lstrip("_")
    for prefix in ("get_", "compute_", "calc_", "calculate_"):
        if word.startswith(prefix) and len(word) > len(prefix):
            return word[len(prefix) :]
    return word


def slot_target(label: str) -> str:
    """The variable the analysis gives a slot's value (a call replaced by a name, or the read itself)."""
    m = SLOT_RE.match(label)
    if m is None:
        raise ValueError(f"not a stub slot: {label!r}")
    name, attr, called = m.groups()
    if not called:
        return f"{name}.{attr}" if attr else name
    return f"_bc_res_{name}" + (f"_{attr}" if attr else "")


def _statement_only(scope: ast.Module, name: str, attr: str | None) -> bool:
    """Whether every call of the slot is a statement of its own (its value is never used)."""
    target = f"{name}.{attr}" if attr else name
    parents = _parents(scope)
    calls = [n for n in ast.walk(scope) if isinstance(n, ast.Call) and is_target(n.func, target)]
    return bool(calls) and all(isinstance(parents.get(id(c)), ast.Expr) for c in calls)


def _kinds(scope: ast.Module, label: str) -> list[str]:
    m = SLOT_RE.match(label)
    assert m is not None
    name, attr, called = m.groups()
    target = slot_target(label)
    tree: ast.AST = scope
    if called and _statement_only(scope, name, attr):
        return [CALL_ONLY]  # called for its effect alone: the calls are the output
    if called:
        tree = calls_to_name(scope, f"{name}.{attr}" if attr else name, target)
        fixed = unpacked_kind(tree, target)  # ``ok, opener = helper(path)``
        if fixed:
            return [fixed]
    votes = usage_votes(tree, target)
    kinds = refine_kinds(tree, target, rank_kinds(_hint(label), votes), votes)
    # a stub returns what its caller uses; a nested stub or a class would be a value of no use
    kinds = [k for k in kinds if not k.startswith(("stub:", "a_type", "member:", "path_out", "path_dir"))]
    return kinds[:KEEP] or ["int_small"]


#: A decorator with no source (``@click.command()``, ``@app.option(...)``): it returns the function
#: it decorates unchanged, however it is reached (called with options, through attributes).
_PASSTHROUGH = """class _bc_passthrough:
    def __call__(self, *a, **k):
        if len(a) == 1 and not k and callable(a[0]):
            return a[0]
        return self

    def __getattr__(self, _name):
        return self"""


def plan_stubs(sources: list[str], names: list[str]) -> tuple[Stubs | None, str | None]:
    """The stubs for ``names`` as the code in ``sources`` (the golden first, then sliced
    definitions and class members) uses them, or ``(None, reason)`` when one cannot be stubbed."""
    trees: list[ast.stmt] = []
    for src in sources:
        try:
            trees += pyast.parse(src).body
        except SyntaxError:
            continue
    scope = ast.Module(body=trees, type_ignores=[])
    # what a stub's value is, read as the harness reads the golden (``iteritems(d)`` as ``d.items()``)
    typing_scope = py3_idioms(scope)
    out = Stubs()
    for name in names:
        labels, reason = _uses(scope, name)
        if reason:
            return None, reason
        out.names.append(name)
        if labels == ["!exception"]:
            base = "Warning" if name.endswith("Warning") else "Exception"
            out.definitions.append(f"class {name}({base}):\n    pass")
            continue
        if labels == ["!class"]:  # only tested with isinstance: no generated value is one
            out.definitions.append(f"class {name}:\n    pass")
            out.classes.append(name)
            continue
        if labels == ["!decorator"]:  # the decorated function itself is what is tested
            out.definitions.append(_PASSTHROUGH + f"\n{name} = _bc_passthrough()")
            continue
        for label in labels:  # none: only in annotations, never evaluated
            if label.endswith("!"):  # an exception class of a namespace: defined, not drawn
                ns, attr = label[:-1].split(".")
                out.exception_attrs.append(label[:-1])
                out.definitions.append(
                    f"{ns} = globals().get({ns!r}) or _bc_ns()\n{ns}.{attr} = type({attr!r}, (Exception,), {{}})"
                )
            else:
                out.slots.append((label, _kinds(typing_scope, label)))
    return out, None


# ---------------------------------------------------------------------------- rendering

#: Harness helpers every harness carries: a canonical key of call arguments, and functions whose
#: value is drawn from a seed and that key (a parameter that is called, a method stub).
KEY_PRELUDE = r'''

def _bc_stub_key(v, d=0):
    """A canonical key of a stub's arguments; never drains an iterator or reads a handle."""
    if d > 8:
        return "..."
    if v is None or isinstance(v, (bool, int, float, str, bytes)):
        return _bc_show(v)
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(_bc_stub_key(x, d + 1) for x in v[:500]) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(sorted(_bc_stub_key(k, d + 1) + ":" + _bc_stub_key(x, d + 1) for k, x in list(v.items())[:500])) + "}"
    if isinstance(v, (set, frozenset)):
        return "set(" + ",".join(sorted(_bc_stub_key(x, d + 1) for x in v)) + ")"
    mod = type(v).__module__ or ""
    if mod.startswith(("numpy", "pandas")) and not hasattr(v, "__next__"):
        return _bc_show(v)
    if hasattr(v, "__next__") or hasattr(v, "read") or callable(v):
        return "<%s>" % type(v).__name__
    if hasattr(v, "__dict__"):
        return type(v).__name__ + _bc_stub_key({k: x for k, x in vars(v).items() if not k.startswith("__")}, d + 1)
    return "<%s>" % type(v).__name__


_bc_noted_calls = [0]


def _bc_noted(label):
    """A method with no source whose value the code never uses (``log.subcommand(cmd)``): its
    only effect is being called, so the call, with its arguments, is the output (the first 50)."""
    def _bc_fn(*a, **k):
        _bc_noted_calls[0] += 1
        if _bc_noted_calls[0] <= 50:
            print("stub call: %s%s%s" % (label, _bc_stub_key(list(a)), _bc_stub_key(k)))
    return _bc_fn


def _bc_callable(seed, make):
    """A function whose value for given arguments is ``make(Random(seed, key of the arguments))``."""
    def _bc_fn(*a, **k):
        v = make(_bc_random.Random("%s|%s|%s" % (seed, _bc_stub_key(list(a)), _bc_stub_key(k))))
        if len(_bc_fn._bc_made) < 50:  # for _bc_diag: a value the code failed on came from this call
            _bc_fn._bc_made.append(v)
        return v
    _bc_fn._bc_made = []
    return _bc_fn
'''

#: Harness helpers for stubbed names (only in harnesses that have them: the others keep their text).
PRELUDE = r'''
_bc_stub_case = {"seed": None, "make": {}, "made": {}}


def _bc_stub(slot, args=(), kwargs=None):
    """The value of stub ``slot`` for these arguments in this case: the same call, the same value."""
    make = _bc_stub_case["make"].get(slot)
    if make is None:
        raise RuntimeError("stub %s used outside a case" % slot)
    if make == "call_only":  # its only effect is being called: the call is the output
        print("stub call: %s%s%s" % (slot, _bc_stub_key(list(args)), _bc_stub_key(kwargs or {})))
        return None
    for f in args:  # a function of the code handed to the helper: the helper applies it
        if type(f).__name__ in ("function", "method") and not f.__name__.startswith("_bc_"):
            rest = [a for a in args if a is not f]
            code = f.__code__
            most = code.co_argcount - (type(f).__name__ == "method")
            if most - len(f.__defaults__ or ()) <= len(rest):
                return f(*rest[:most])  # what it raises is the helper's outcome too
            break
    key = "%s|%s|%s|%s" % (_bc_stub_case["seed"], slot, _bc_stub_key(list(args)), _bc_stub_key(kwargs or {}))
    v = make(_bc_random.Random(key))
    if len(_bc_stub_case["made"]) < 500:  # for _bc_diag: which stub made a value the code failed on
        _bc_stub_case["made"][id(v)] = (slot, v)
    return v
'''


def module_lines(labels: list[str]) -> list[str]:
    """Module-level definitions of the stubbed names (functions and namespaces)."""
    lines: list[str] = []
    done: set[str] = set()
    parsed = [SLOT_RE.match(lb).groups() for lb in labels]  # type: ignore[union-attr]
    for name, *_ in parsed:
        if name in done:
            continue
        done.add(name)
        own_call = any(n == name and a is None and c for n, a, c in parsed)
        if own_call:
            lines.append(f"def {name}(*_a, **_k):")
            lines.append(f"    return _bc_stub({name + '()'!r}, _a, _k)")
        elif any(n == name and a is not None for n, a, _ in parsed):
            lines.append(f"{name} = _bc_ns()")
        else:
            lines.append(f"{name} = None  # a value drawn in each case")
        for n, a, c in parsed:
            if n == name and a is not None and c:
                lines.append(f"{name}.{a} = lambda *_a, **_k: _bc_stub({f'{name}.{a}()'!r}, _a, _k)")
    return lines


def init_lines(chosen: list[tuple[str, str]], expr_of) -> list[str]:
    """Module-level lines that give value stubs a first value (seed 0), for code that reads them
    at import time (``def f(t=300 * unit.kelvin)``, a module constant); each attempt draws anew."""
    if all(SLOT_RE.match(label).group(3) for label, _ in chosen):  # type: ignore[union-attr]
        return []
    head = ["_r = _bc_random.Random(0)", "_bc_n, _bc_h, _bc_w = 8, 5, 5"]
    return head + maker_lines(chosen, expr_of) + attempt_lines(chosen) + ["del _r"]


def maker_lines(chosen: list[tuple[str, str]], expr_of) -> list[str]:
    """Lines of ``_bc_main`` (once per case) that define how each stub draws its value."""
    lines = []
    for i, (label, kind) in enumerate(chosen):
        if kind == CALL_ONLY:
            lines.append(f"_bc_stub_case['make'][{label!r}] = {CALL_ONLY!r}")
            continue
        lines.append(f"def _bc_stub_make{i}(_r):")
        lines.append(f"    return {expr_of(kind)}")
        lines.append(f"_bc_stub_case['make'][{label!r}] = _bc_stub_make{i}")
    return lines


def attempt_lines(chosen: list[tuple[str, str]]) -> list[str]:
    """Lines at the start of each attempt: a new seed for the stubs (inputs the golden rejects are
    drawn again, and a stub's value may be why), and the stubbed values drawn from it."""
    lines = ["_bc_stub_case['seed'] = _r.randint(0, 2 ** 31 - 1)"]
    for label, _ in chosen:
        name, attr, called = SLOT_RE.match(label).groups()  # type: ignore[union-attr]
        if called:
            continue
        if attr:
            lines.append(f"{name}.{attr} = _bc_stub({label!r})")
        else:
            lines.append(f"globals()[{name!r}] = _bc_stub({label!r})")
    return lines
