"""Post-processing table tests: messy model answers in, the code to insert out."""

from __future__ import annotations

import ast

import pytest

from biocoder_metric.generation.postprocess import extract_code

GC = "def gc_content(seq):\n    s = seq.upper()\n    return (s.count('G') + s.count('C')) / len(s) if s else 0.0\n"

PY_CASES = [
    ("bare function", GC, GC),
    ("python fence", f"```python\n{GC}```", GC),
    ("py tag", f"```py\n{GC}```\n", GC),
    ("bare fence", f"```\n{GC}```", GC),
    (
        "prose around a fence",
        f"Sure! Here is the implementation:\n\n```python\n{GC}```\n\nThis counts G and C characters.",
        GC,
    ),
    ("crlf newlines", f"```python\r\n{GC.replace(chr(10), chr(13) + chr(10))}```", GC),
    ("unterminated fence (truncated generation)", f"Here:\n```python\n{GC}", GC),
    (
        "several blocks: the one defining the function wins",
        "First install:\n```bash\npip install nothing\n```\nUsage:\n```python\nprint(gc_content('GC'))\n```\n"
        f"Implementation:\n```python\n{GC}```\n",
        GC,
    ),
    (
        "other-language block ignored",
        f"```java\nint gc_content() {{ return 0; }}\n```\n```python\n{GC}```",
        GC,
    ),
    (
        "prose without fences, before and after",
        f"Here is the function you asked for:\n{GC}\nIt returns a float between 0 and 1.",
        GC,
    ),
    (
        "main guard and example usage dropped",
        f"import math\n\n{GC}\nprint(gc_content('GGCC'))\nassert gc_content('') == 0.0\n\n"
        "if __name__ == '__main__':\n    print(gc_content('ACGT'))\n",
        f"import math\n\n{GC}",
    ),
    (
        "prompt continuation ends at the first column-0 line",
        "    s = seq.upper()\n    return s.count('G') / len(s)\n\n\ndef main():\n    print(1)\n",
        "    s = seq.upper()\n    return s.count('G') / len(s)\n",
    ),
    ("empty answer", "", ""),
    ("only prose", "I cannot help with that.", "I cannot help with that.\n"),
]


@pytest.mark.parametrize(("name", "raw", "expected"), PY_CASES, ids=[c[0] for c in PY_CASES])
def test_python_extraction(name, raw, expected):
    assert extract_code(raw, "python", "gc_content") == expected


def test_helpers_and_imports_are_kept():
    raw = (
        "```python\nimport re\n\nPAT = re.compile('[GC]')\n\ndef _n(s):\n    return len(PAT.findall(s))\n\n"
        + "def gc_content(seq):\n    return _n(seq) / len(seq)\n```"
    )
    code = extract_code(raw, "python", "gc_content")
    tree = ast.parse(code)
    assert [type(n).__name__ for n in tree.body] == ["Import", "Assign", "FunctionDef", "FunctionDef"]


def test_stop_strings_cut_the_code():
    raw = f"{GC}\n# Test\nprint(1)\n"
    assert extract_code(raw, "python", "gc_content", stop=["\n# Test"]) == GC


def test_never_executes(tmp_path):
    marker = tmp_path / "ran"
    raw = f"```python\nopen({str(marker)!r}, 'w').write('x')\n{GC}```"
    extract_code(raw, "python", "gc_content")
    assert not marker.exists()


JAVA_METHOD = "public static int add(int a, int b) {\n    return a + b;\n}\n"

JAVA_CASES = [
    ("bare method", JAVA_METHOD, JAVA_METHOD),
    ("java fence with prose", f"Here it is:\n```java\n{JAVA_METHOD}```\nDone.", JAVA_METHOD),
    ("prose without fences", f"The method is:\n{JAVA_METHOD}\nHope this helps!", JAVA_METHOD),
    (
        "class wrapper unwrapped to its members, imports kept, package dropped",
        "```java\npackage demo;\nimport java.util.Map;\n\npublic class Solution {\n"
        '    // uses } in a comment and a "}" string\n'
        '    public static int add(int a, int b) {\n        String s = "}";\n        return a + b;\n    }\n}\n```',
        'import java.util.Map;\n    // uses } in a comment and a "}" string\n'
        '    public static int add(int a, int b) {\n        String s = "}";\n        return a + b;\n    }\n',
    ),
    (
        "block defining the method chosen over a usage block",
        f"```java\nSystem.out.println(add(1, 2));\n```\n```java\n{JAVA_METHOD}```",
        JAVA_METHOD,
    ),
]


@pytest.mark.parametrize(("name", "raw", "expected"), JAVA_CASES, ids=[c[0] for c in JAVA_CASES])
def test_java_extraction(name, raw, expected):
    assert extract_code(raw, "java", "add") == expected


def test_unknown_language_is_an_error():
    with pytest.raises(ValueError, match="rust"):
        extract_code("fn main() {}", "rust")
