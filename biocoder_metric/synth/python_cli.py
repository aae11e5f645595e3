"""Command lines for goldens that parse one: the arguments their ``argparse`` parser declares.

Why: an entry point (``main(args=None)``, ``parse_args(argv)``) or a parser builder is typed by
the command line it parses, not by its parameters. Given a list of random words as ``args`` the
parser exits (argparse calls ``sys.exit(2)`` on an unknown option), and a golden that parses
``sys.argv`` itself saw the harness's own command line on every case, so its output never varied.
A person testing such a function writes command lines the parser accepts: every positional
argument, some of the options, each value of its declared type or one of its choices. This
module reads the parser's ``add_argument`` calls and the harness draws such command lines:

* a parameter passed to ``parser.parse_args(p)`` (or ``parse_known_args``) gets the kind
  ``cli:SPEC``, a list of strings;
* a golden that parses ``sys.argv`` (``parser.parse_args()`` with no argument, or reads of
  ``sys.argv[k]``) gets ``sys.argv`` set to such a command line before each call
  (:attr:`biocoder_metric.synth.python_harness.Subject.argv`).

Options of a type the module cannot draw (``type=parse_region``) are left out, so the parser
only ever sees values it accepts.
"""

from __future__ import annotations

import ast

#: ``add_argument`` type names and the values drawn for them.
_TYPES = {"int": "int", "float": "float", "str": "str"}
#: Actions that take no value.
_FLAGS = frozenset({"store_true", "store_false", "store_const", "count", "append_const"})
#: Actions that end the program (argparse prints and exits): never put on a command line.
_EXITS = frozenset({"version", "help"})

#: One declared argument: (flags, action, value type, choices, nargs, required, exclusive group:
#: the name of the ``add_mutually_exclusive_group()`` it was added to, of which one at most is given).
Arg = tuple[tuple[str, ...], str | None, str | None, list | None, str | int | None, bool, str | None]


def _const(node: ast.AST | None):
    return node.value if isinstance(node, ast.Constant) else None


def _argument(call: ast.Call, group: str | None) -> Arg | None:
    flags = tuple(a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str))
    if not flags or len(flags) != len(call.args):
        return None
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    action = _const(kw.get("action"))
    typ_node = kw.get("type")
    typ = "str" if typ_node is None else _TYPES.get(typ_node.id) if isinstance(typ_node, ast.Name) else None
    choices = None
    if isinstance(kw.get("choices"), (ast.List, ast.Tuple, ast.Set)):
        vals = [_const(e) for e in kw["choices"].elts]  # type: ignore[union-attr]
        choices = vals if vals and all(isinstance(v, (str, int, float)) for v in vals) else None
    nargs = _const(kw.get("nargs"))
    required = bool(_const(kw.get("required"))) or not flags[0].startswith("-")
    if action in _EXITS:
        return None
    if action not in _FLAGS and typ is None and choices is None:
        # a value of a type nobody can draw: an option is left out, a positional makes no line
        return (flags, "skip", None, None, None, required, group) if required else None
    return flags, action, typ, choices, nargs if isinstance(nargs, (str, int)) else None, required, group


def cli_spec(body: ast.AST) -> list[Arg] | None:
    """The arguments the parser(s) in ``body`` declare, in order; ``None`` when a positional one
    cannot be drawn (no command line would be accepted)."""
    exclusive = {  # grp = parser.add_mutually_exclusive_group()
        n.targets[0].id
        for n in ast.walk(body)
        if isinstance(n, ast.Assign)
        and len(n.targets) == 1
        and isinstance(n.targets[0], ast.Name)
        and isinstance(n.value, ast.Call)
        and isinstance(n.value.func, ast.Attribute)
        and n.value.func.attr == "add_mutually_exclusive_group"
    }
    found: list[tuple[int, int, Arg]] = []
    for node in ast.walk(body):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "add_argument"
        ):
            owner = node.func.value
            arg = _argument(node, owner.id if isinstance(owner, ast.Name) and owner.id in exclusive else None)
            if arg is None:
                continue
            if arg[1] == "skip":
                return None
            found.append((node.lineno, node.col_offset, arg))
    # ast.walk is breadth-first: positionals must keep the order the source gives them
    return [arg for *_, arg in sorted(found, key=lambda f: f[:2])]


def _parse_calls(body: ast.AST) -> list[ast.Call]:
    return [
        n
        for n in ast.walk(body)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr in ("parse_args", "parse_known_args")
    ]


def parsed_param(body: ast.AST, target: str) -> bool:
    """Whether ``target`` is the command line a parser parses (``parser.parse_args(target)``)."""
    for call in _parse_calls(body):
        given = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "args"), None)
        if isinstance(given, ast.Name) and given.id == target:
            return True
    return False


def _argv_reads(body: ast.AST) -> int | None:
    """The positions of ``sys.argv`` the code reads (``sys.argv[2]``: 2), 0 for ``sys.argv`` read
    whole, ``None`` when it is not read."""
    most: int | None = None
    for node in ast.walk(body):
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "argv"
            and isinstance(node.value, ast.Name)
            and node.value.id == "sys"
        ):
            most = max(most or 0, 0)
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "argv"
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, int)
        ):
            most = max(most or 0, node.slice.value)
    return most


def argv_spec(body: ast.AST) -> list[Arg] | None:
    """What ``sys.argv`` must hold for ``body``: the parser's arguments when it parses
    ``sys.argv`` (``parse_args()`` with no argument), positional words for the ``sys.argv[k]``
    it reads, ``None`` when the code reads no command line."""
    params = (
        [a.arg for a in [*body.args.posonlyargs, *body.args.args, *body.args.kwonlyargs]]
        if isinstance(body, (ast.FunctionDef, ast.AsyncFunctionDef))
        else []
    )
    # ``parse_args()``, or ``parse_args(args)`` of a parameter left to ``None`` in some calls
    # (argparse then reads ``sys.argv`` too)
    parses = any(not c.args and not c.keywords for c in _parse_calls(body)) or any(
        parsed_param(body, p) for p in params
    )
    reads = _argv_reads(body)
    if not parses and reads is None:
        return None
    spec = cli_spec(body) if parses else []
    if spec is None:
        return None
    if not parses and not reads:  # ``' '.join(sys.argv)``: the command line itself is the input
        return [(("words",), None, "str", None, "*", True, None)]
    positionals = sum(1 for a in spec if not a[0][0].startswith("-"))
    spec += [((f"arg{i}",), None, "str", None, None, True, None) for i in range(positionals, reads or 0)]
    return spec


PRELUDE = r'''

def _bc_cli(_r, spec):
    """A command line the parser accepts: every positional argument, about half the options,
    each value of its declared type (or one of its choices)."""
    out = []
    taken = set()  # mutually exclusive groups one option of which is on the line

    def value(typ, choices):
        if choices:
            return str(_r.choice(choices))
        if typ == "int":
            return str(_r.randint(0, 20))
        if typ == "float":
            return "%.3f" % _r.uniform(0, 10)
        return _bc_word(_r)

    for flags, action, typ, choices, nargs, required, group in spec:
        positional = not flags[0].startswith("-")
        if (not required and _r.random() < 0.5) or (group is not None and group in taken):
            continue
        taken.add(group)
        if action in ("store_true", "store_false", "store_const", "count", "append_const"):
            out += [flags[-1]] * (_r.randint(1, 3) if action == "count" else 1)
            continue
        n = 1 if nargs in (None, "?") else _r.randint(1, 3) if nargs in ("+", "*") else int(nargs)
        vals = [value(typ, choices) for _ in range(n)]
        out += vals if positional else [flags[-1]] + vals
    return out
'''
