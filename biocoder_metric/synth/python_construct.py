"""``self`` built through its class's constructor, for methods whose object must be consistent.

A method harness normally makes its instance with ``Cls.__new__(Cls)`` and sets each field it
reads from a generator. That cannot express invariants between fields (``self.shape`` is the
shape of ``self.values``, ``self.end >= self.start``, a cache keyed by what ``__init__`` put
there): the golden raises on nearly every generated object. A human tester builds the object
the way the project does, through ``__init__``. When the class's ``__init__`` is sliced and all
its parameters have generators, the *constructed* plan does that: the constructor's parameters
are generated (defaulted ones passed by keyword in about half the cases, so the object varies),
or, in most cases when the repository (its tests above all) calls the constructor with literal
arguments, taken from one of those calls, as a tester copies a fixture; only the fields that neither ``__init__`` nor the members it calls assign are still set
from generators.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from biocoder_metric import pyast
from biocoder_metric.synth.python_evidence import callsite_examples, doc_receiver_examples
from biocoder_metric.synth.python_formats import members_format
from biocoder_metric.synth.python_inputs import ParamSpec, infer_params


@dataclass
class Constructor:
    """How to build ``self``: ``__init__``'s parameters and the fields it (transitively) assigns."""

    params: list[ParamSpec] = field(default_factory=list)
    assigned: set[str] = field(default_factory=set)
    #: parameter -> the field ``__init__`` stores it in unchanged (``self.site = site``)
    stored: dict[str, str] = field(default_factory=dict)
    #: literal constructor calls in the repository and its tests ({parameter: source}): real objects
    examples: list[dict[str, str]] = field(default_factory=list)
    #: what is called: the class (``__init__``), or a factory function of its module
    callee: str | None = None


def _methods(members: list[str]) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """Member name -> its function node, for the sliced members that parse as one function."""
    out: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for member in members:
        try:
            node = pyast.parse(member).body[0]
        except (SyntaxError, IndexError):
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out[node.name] = node
    return out


def _self_name(func: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    args = list(func.args.posonlyargs) + list(func.args.args)
    return args[0].arg if args else None


def assigned_fields(members: list[str], start: str = "__init__") -> set[str]:
    """Fields ``self.x = ...`` that ``start`` assigns, and the members it calls on ``self`` do."""
    methods = _methods(members)
    out: set[str] = set()
    todo, seen = [start], {start}
    while todo:
        func = methods.get(todo.pop())
        me = _self_name(func) if func is not None else None
        if func is None or me is None:
            continue
        for node in ast.walk(func):
            if not (
                isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == me
            ):
                continue
            if isinstance(node.ctx, ast.Store):
                out.add(node.attr)
            elif node.attr in methods and node.attr not in seen:
                seen.add(node.attr)
                todo.append(node.attr)
    return out


def constructor(
    members: list[str],
    repo_dir=None,
    bases: list[str] = (),
    definitions: list[str] = (),
    class_name: str | None = None,
    golden: str | None = None,
) -> Constructor | None:
    """The constructor of the sliced class, or None when there is none or a parameter has no generator.

    A class without its own ``__init__`` runs the first one among its sliced ``bases`` (and
    theirs). ``*args``/``**kwargs`` are left empty. A required parameter whose best kind is a stub
    or a class object (``a_type``) has no value a tester could make up, so no plan is offered.
    """
    init = _methods(members).get("__init__")
    if init is None:
        for cls in _base_classes(bases, definitions):
            own = [ast.unparse(n) for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
            if "__init__" in _methods(own):
                members = list(members) + own
                init = _methods(own)["__init__"]
                break
    if init is None or _self_name(init) is None:
        return None
    # what __init__ hands its parameters to (``self.set_disttype(disttype)``, a base's method) says
    # what they hold: a mode picked by name is one of the members it can name
    helpers = {
        n.name: n
        for cls in reversed(_base_classes(bases, definitions))
        for n in cls.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    helpers.update(_methods(members))
    tested = _golden_function(golden)
    if tested is not None:  # the method tested is a member a mode can name (``'pwdist_' + disttype``)
        helpers.setdefault(tested.name, tested)
    params = infer_params(init, repo_dir, skip_first=True, helpers=helpers)
    fmt = None
    for p in params:
        if p.kinds and p.kinds[0] == "fmt:handle:text":
            fmt = fmt or members_format(list(helpers.values())) or "text"
            if fmt != "text":  # an open file of what the class's methods parse
                p.kinds.insert(0, f"fmt:handle:{fmt}")
    for p in params:
        if not p.kinds or (not p.has_default and p.kinds[0].startswith(("stub:", "a_type"))):
            return None
    names = [p.name for p in params if not p.kw_only and not p.star]
    examples = callsite_examples(repo_dir, class_name, names) if class_name and repo_dir else []
    method = _golden_function(golden)
    if method is not None:
        # the objects the method's own docstring calls it on come first: its author's fixtures
        examples = [e for e in doc_receiver_examples(method, names) if e not in examples] + examples
    known = {p.name for p in params}
    examples = [e for e in examples if set(e) <= known]
    return Constructor(
        params=params, assigned=assigned_fields(members), stored=stored_fields(init), examples=examples
    )


def _golden_function(golden: str | None) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    try:
        node = pyast.parse(golden).body[0] if golden else None
    except (SyntaxError, IndexError):
        return None
    return node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def stored_fields(init: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, str]:
    """Parameter -> field for ``self.f = p`` (also ``self.f = p or default``) in ``__init__``."""
    me = _self_name(init)
    names = {a.arg for a in [*init.args.posonlyargs, *init.args.args, *init.args.kwonlyargs]}
    out: dict[str, str] = {}
    for node in ast.walk(init):
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
            continue
        value = node.value
        if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
            value = value.values[0]
        if not (isinstance(value, ast.Name) and value.id in names):
            continue
        for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == me:
                out.setdefault(value.id, t.attr)
    return out


def constructed_plan(subject, ctor: Constructor, definitions: list[str] = ()):
    """The plan that builds ``self`` through ``ctor`` (``subject`` from ``python_harness.analyse``).

    Fields the constructor assigns are left to it; the others the method reads are generated
    as in the best guess. Probes and varied defaults stay on: they are the method's own. A
    parameter the method checks with ``isinstance(p, C)`` for a class ``C`` of the slice (or the
    class itself) is one of the ``C`` objects the built ``self`` holds: a node *of this tree*.
    """
    from biocoder_metric.synth.python_harness import Plan

    # a parameter stored in a field the method reads is typed by how the method uses that field:
    # the golden says more about ``self.site`` (``.REF``, ``.ALT[i]``) than ``__init__`` says of ``site``
    used = dict(subject.attrs)

    def kind(p: ParamSpec) -> str:
        if p.kinds and p.kinds[0].startswith("ctor:"):  # one of the project's classes (pipeline)
            return p.kinds[0]
        if p.kinds and p.kinds[0].startswith("choice:"):
            # building ``self`` is the method's setup, not its behaviour: a mode the constructor
            # rejects (``unknown disttype``) only makes the call an exception, so no stray value
            return "pick:" + p.kinds[0][len("choice:") :]
        if p.kinds and p.kinds[0].startswith("fmt:") and not p.kinds[0].endswith(":text"):
            return p.kinds[0]  # a file of the format the class parses says more than "some text"
        f = ctor.stored.get(p.name)
        ks = used.get(f) if f else None
        return ks[0] if ks and not ks[0].startswith("stub:") else p.kinds[0]

    held = held_classes(subject.func, [p.name for p in subject.params], known_classes(definitions, subject))
    return Plan(
        args=[(p, f"member:{held[p.name]}" if p.name in held else p.kinds[0]) for p in subject.params],
        attrs=[(a, ks[0]) for a, ks in subject.attrs if a not in ctor.assigned],
        label=f"built by {ctor.callee}" if ctor.callee else "constructed",
        construct=[(p, kind(p)) for p in ctor.params],
        construct_examples=ctor.examples,
        construct_callee=ctor.callee,
        stubs=[(st, ks[0]) for st, ks in subject.stubs],
    )


def _base_classes(bases: list[str], definitions: list[str]) -> list[ast.ClassDef]:
    """The sliced classes among ``bases`` and their own bases, nearest first (method resolution order)."""
    classes: dict[str, ast.ClassDef] = {}
    for d in definitions:
        try:
            tree = pyast.parse(d)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                classes.setdefault(node.name, node)
    out: list[ast.ClassDef] = []
    todo = [b.split(".")[-1] for b in bases]
    while todo:
        cls = classes.get(todo.pop(0))
        if cls is None or cls in out:
            continue
        out.append(cls)
        todo += [ast.unparse(b).split(".")[-1] for b in cls.bases]
    return out


def inherited_members(bases: list[str], definitions: list[str]) -> set[str]:
    """Names the sliced base classes (and theirs, transitively) define: the class inherits them."""
    out: set[str] = set()
    for cls in _base_classes(bases, definitions):
        for item in cls.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.add(item.name)
            elif isinstance(item, ast.Assign):
                out.update(t.id for t in item.targets if isinstance(t, ast.Name))
    return out


def _returns(func: ast.FunctionDef | ast.AsyncFunctionDef, class_name: str) -> bool:
    """Whether ``func`` says it returns a ``class_name``: annotation, or a docstring's Returns / rtype."""
    if func.returns is not None and re.fullmatch(
        r"\W*" + re.escape(class_name) + r"\W*", ast.unparse(func.returns)
    ):
        return True
    doc = ast.get_docstring(func) or ""
    name = re.escape(class_name)
    return bool(
        re.search(r"Returns?:?[ \t]*\n[\s-]*(?:\w+\s*:\s*)?\W*" + name + r"\b", doc)  # Google, numpydoc
        or re.search(r":rtype:\s*\W*" + name + r"\b", doc)  # Sphinx
        or re.search(
            r"\b[Rr]eturns? (?:an? |the )?\W*" + name + r"\b", doc
        )  # prose: "return a Feature object"
    )


def factories(module_source: str, class_name: str, repo_dir=None) -> list[Constructor]:
    """Functions of the class's module that build one from values a generator can make, best first.

    A class whose objects only make sense with a structure (a tree of nodes, a parsed record) is
    built by the project's own reader (``read_tree_newick(newick) -> Tree``, ``from_line(line)``);
    their parameters are typed like any function's, so a format name gets well-formed records.
    Those with a file-format parameter come first, then those with fewer parameters.
    """
    try:
        tree = pyast.parse(module_source)
    except SyntaxError:
        return []
    out: list[tuple[tuple[int, int], Constructor]] = []
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not _returns(node, class_name):
            continue
        params = infer_params(node, repo_dir)
        required = [p for p in params if not p.has_default]
        if not required or any(p.kinds[0].startswith(("stub:", "a_type")) for p in required):
            continue
        formats = sum(p.kinds[0].startswith("fmt:") for p in required)
        out.append(((-formats, len(required)), Constructor(params=params, callee=node.name)))
    return [c for _, c in sorted(out, key=lambda t: t[0])]


def every_assigned_field(members: list[str]) -> set[str]:
    """Fields any sliced member assigns: an object built by a factory may have run any of them."""
    out: set[str] = set()
    for name in _methods(members):
        out |= assigned_fields(members, start=name)
    return out


def known_classes(definitions: list[str], subject) -> set[str]:
    """Class names the harness defines: the sliced classes and the method's own class."""
    out = {subject.class_name}
    for d in definitions:
        m = re.match(r"(?:@.*\n)*class\s+(\w+)", d)
        if m:
            out.add(m.group(1))
    return out


def held_classes(func: ast.AST, params: list[str], classes: set[str]) -> dict[str, str]:
    """Parameter -> class for ``isinstance(p, C)`` in ``func`` with ``C`` among ``classes``."""
    out: dict[str, str] = {}
    for node in ast.walk(func):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "isinstance"
            and len(node.args) == 2
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id in params
            and isinstance(node.args[1], ast.Name)
            and node.args[1].id in classes
        ):
            out.setdefault(node.args[0].id, node.args[1].id)
    return out
