"""Java's runner: the Java text rules of post-processing and harness insertion.

Moved here from ``generation/postprocess.py``, ``generation/processors/base.py``,
``execution/harness.py`` and ``sandbox/base.py`` (the rules are unchanged); the tools above the
engine are hooks.
"""

from __future__ import annotations

import re
from typing import Any

from biocoder_dataset.java_source import java_braces
from biocoder_metric.languages.base import LanguageRunner

_CODE_START = re.compile(
    r"^\s*(?:import\s|package\s|public\s|private\s|protected\s|static\s|final\s|abstract\s|synchronized\s|@|/\*\*|class\s|"
    r"[\w<>\[\],.?]+\s+\w+\s*\()"
)
_IMPORT_RE = re.compile(r"^[ \t]*(import\s+(?:static\s+)?[\w.]+(?:\.\*)?\s*;)[ \t]*$", re.M)
_OVERRIDE_RE = re.compile(r"^([ \t]*)@Override\b[ \t]*\n?", re.M)
#: ``default`` among the modifiers that open a method declaration (an interface's default
#: method), after leading comments, annotations and the other modifiers; ``default:`` of a
#: switch never stands there.
_DEFAULT_RE = re.compile(
    r"\A((?:\s*(?://[^\n]*|/\*.*?\*/))*\s*(?:@[\w.]+(?:\s*\([^()]*\))?\s*)*"
    r"(?:(?:public|protected|private|static|final|synchronized|strictfp)\s+)*)default\s+(?=[\w<])",
    re.S,
)


def hoist_java_imports(solution: str) -> tuple[str, list[str]]:
    """Split ``import ...;`` lines off a Java solution: they cannot stand inside the class body.

    The harness puts the ones it lacks at the top of the program.
    """
    imports = [m.group(1) for m in _IMPORT_RE.finditer(solution)]
    return _IMPORT_RE.sub("", solution), imports


def drop_override(solution: str) -> str:
    """Remove ``@Override`` annotations at the start of a line of a Java solution.

    ``@Override`` only asks the compiler to check that the harness's class hierarchy declares
    the method; it changes nothing at run time. The hierarchy is the harness's choice, not
    the candidate's (a synthesised harness's class does not implement the original's
    interfaces), so the annotation would make a correct golden fail to compile.
    """
    return _OVERRIDE_RE.sub(r"\1", solution)


def drop_interface_default(solution: str) -> str:
    """Remove the ``default`` modifier of a method declared in an interface.

    Why: the harness declares the method in a class, where ``default`` is a compile error
    ("modifier default not allowed here"); in the interface it only says the method has a body.
    Like ``@Override``, it says nothing about what the method does.
    """
    return _DEFAULT_RE.sub(r"\1", solution, count=1)


def tidy_java(solution: str) -> str:
    """A Java method as the harness's class can hold it: no ``@Override``, no interface ``default``."""
    return drop_interface_default(drop_override(solution))


def java_class_name(program: str) -> str:
    """The public class a Java harness declares (the file must be named after it); ``Main`` by default."""
    m = re.search(r"^\s*public\s+(?:final\s+|abstract\s+)*class\s+(\w+)", program, re.M)
    return m.group(1) if m else "Main"


def _java_blocks(code: str):
    """Yield (open_index, close_index) of top-level brace pairs."""
    open_at = -1
    for i, depth in java_braces(code):
        if code[i] == "{" and depth == 1:
            open_at = i
        elif code[i] == "}" and depth == 0 and open_at >= 0:
            yield open_at, i
            open_at = -1


def _close_method(text: str) -> str:
    """Cut Java text after the brace that closes its first block, or append the braces a stop removed."""
    depth, opened = 0, False
    for i, depth in java_braces(text):
        if text[i] == "{":
            opened = True
        elif opened and depth == 0:
            return text[: i + 1] + "\n"
    return text.rstrip() + "\n" + "}\n" * depth if opened else text


_JAVA_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


class JavaRunner(LanguageRunner):
    name = "java"
    fence_tags = frozenset({"java"})
    task_prefix = "java"
    comment = "//"
    block_open = " {"
    empty_body = "}"
    oom_marker = "java.lang.OutOfMemoryError"
    compiled = True
    #: javac runs before the first case replies.
    compile_slack_per_case_s = 15.0
    canary_source = 'public class {cls} { public static void main(String[] a) { System.out.println("biocoder canary ok"); } }\n'
    literal_escapes = "\"'"
    control_escape = "\\u{:04x}"
    hooks = {
        "mutants": "biocoder_metric.validity.mutation:java_mutants",
        "heldout_mutants": "biocoder_metric.validity.heldout_mutants:java_heldout_mutants",
        "null_candidates": "biocoder_metric.execution.strength:java_null_candidates",
        "synthesize": "biocoder_metric.synth.pipeline:java_candidates",
        "extract": "biocoder_metric.build.extract_java:extract",
        "scaffolding": "biocoder_metric.build.scaffolding:JAVA_RULES",
    }
    attribute_separator = " "
    class_attributes_are_globals = True

    def raised_exceptions(self, code: str) -> frozenset[str]:
        return frozenset(re.findall(r"\bthrow\s+new\s+(?:[A-Za-z_][\w.]*\.)?([A-Za-z_]\w*)\s*[(<]", code))

    def strip_comments(self, code: str) -> str:
        return _JAVA_COMMENT.sub(" ", code)

    def takes_no_inputs(self, rec: dict[str, Any]) -> bool:
        """No parameter and static: an instance method without parameters still has ``this``."""
        head = str(rec.get("signature") or "").split("(", 1)[0]
        return super().takes_no_inputs(rec) and bool(re.search(r"\bstatic\b", head))

    def own_packages(self, rec: dict[str, Any]) -> set[str]:
        pkg = str(rec.get("packageName") or "")
        return {".".join(pkg.split(".")[:2])} if pkg else set()

    def defines_function(self, code: str, function_name: str) -> bool:
        # At least one modifier/type token before the name, a parameter list, then '{'.
        name = re.escape(function_name)
        pattern = rf"^[ \t]*(?:[\w@<>\[\],.?]+[ \t]+)+{name}[ \t]*\([^)]*\)\s*(?:throws\s+[\w.,\s]+?)?\s*\{{"
        return re.search(pattern, code, re.M) is not None

    def definition_header(self, function_name: str) -> re.Pattern[str]:
        name = re.escape(function_name)
        return re.compile(rf"^[ \t]*(?:@\w+(?:\([^)]*\))?\s*)*(?:[\w<>\[\],.?]+[ \t]+)+{name}[ \t]*\(", re.M)

    def strip_prose(self, text: str) -> str:
        lines = text.split("\n")
        start = next((i for i, ln in enumerate(lines) if _CODE_START.match(ln)), None)
        if start is None:
            return text
        body = "\n".join(lines[start:])
        last = body.rfind("}")
        return body[: last + 1] if last >= 0 else body

    def clean(self, code: str, function_name: str | None) -> str:
        code = re.sub(r"^[ \t]*package\s+[\w.]+\s*;[ \t]*\n?", "", code, flags=re.M)
        header = re.search(r"^[ \t]*(?:public\s+|final\s+|abstract\s+)*class\s+\w+[^{;]*\{", code, re.M)
        if header and function_name:
            for open_at, close_at in _java_blocks(code):
                if open_at == header.end() - 1:
                    members = code[open_at + 1 : close_at]
                    if self.defines_function(members, function_name):
                        imports = "".join(
                            m.group(0)
                            for m in re.finditer(
                                r"^[ \t]*import\s+[\w.*\s]+;[ \t]*\n", code[: header.start()], re.M
                            )
                        )
                        return imports + members.strip("\n")
                    break
        return code

    def join_continuation(self, head: str, text: str) -> str:
        return _close_method(head + text)

    def split_imports(self, solution: str) -> tuple[str, list[str]]:
        return hoist_java_imports(solution)

    def tidy_solution(self, solution: str) -> str:
        return tidy_java(solution)

    def class_name(self, program: str) -> str:
        return java_class_name(program)
