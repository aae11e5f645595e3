"""Both upstream layouts (pandas columns, list of records, JSON Lines) and both field families."""

from __future__ import annotations

import json

import pytest

from biocoder_dataset.configs import load_problems
from biocoder_dataset.errors import RecordError
from biocoder_dataset.normalize import (
    canonical,
    code_key,
    java_function_info,
    python_function_info,
    read_json,
    to_records,
)

from _dataset_helpers import SYNTHETIC_SRC, columns, write_json

RECORDS = [{"a": 1, "b": "x"}, {"a": 2, "b": None}, {"a": 3, "b": "z"}]


def test_records_and_columns_layouts_give_the_same_records():
    assert to_records(RECORDS, "t") == RECORDS
    cols = columns(RECORDS)
    assert to_records(cols, "t") == RECORDS


def test_columns_layout_is_ordered_by_integer_row_key():
    cols = {"a": {"10": "ten", "2": "two", "0": "zero"}}
    assert [r["a"] for r in to_records(cols, "t")] == ["zero", "two", "ten"]


def test_json_lines_file_is_accepted(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("\n".join(json.dumps(r) for r in RECORDS) + "\n")
    assert to_records(read_json(path, "x"), "x") == RECORDS


@pytest.mark.parametrize(
    "data, expected",
    [
        (42, "expected a list of records"),
        ([{"a": 1}, "oops"], "record 1 should be a JSON object"),
        ({"a": {"x": 1}}, "integer row keys"),
    ],
)
def test_bad_layouts_name_the_problem(data, expected):
    with pytest.raises(RecordError, match=expected):
        to_records(data, "somefile.json")


def test_invalid_json_names_file_line_and_column(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"golden": {"0": "def f():\n')
    with pytest.raises(RecordError, match=r"broken\.json.*'reg/name' is not valid JSON \(line 1, column"):
        read_json(path, "reg/name")


@pytest.mark.parametrize("family", ["camel", "snake"])
def test_field_families_map_to_the_same_canonical_fields(family):
    camel = {
        "test_case_id": "h" * 64,
        "language": "Python",
        "filePath": "a/b.py",
        "numLines": 3,
        "lineStart": 4,
        "lineEnd": 6,
        "signature": "def f(x)",
        "comment": "c",
        "content": "def f(x): ...",
        "repository": "o/r",
        "promptSummaryOnly": "s",
        "contextCode": "ctx",
        "goldenCode": "def f(x):\n    return x",
    }
    snake = {
        "task_id": None,
        "full_hash": "h" * 64,
        "language": "Python",
        "file_path": "a/b.py",
        "numLines": 3,
        "line_start": 4,
        "line_end": 6,
        "signature": "def f(x)",
        "comment": "c",
        "repo_name": "o/r",
        "prompt_summary_only": "s",
        "context": "ctx",
        "golden_code": "def f(x):\n    return x",
        "content": "def f(x): ...",
    }
    fields, extra = canonical(camel if family == "camel" else snake)
    assert fields["hash"] == "h" * 64
    assert fields["golden_code"] == "def f(x):\n    return x"  # goldenCode/golden_code win over content
    assert fields["context"] == "ctx" and fields["summary"] == "s"
    assert (fields["file_path"], fields["line_start"], fields["line_end"]) == ("a/b.py", 4, 6)
    assert fields["repository"] == "o/r"
    assert extra == {"numLines": 3}


def _hub_records(family: str) -> list[dict]:
    """Two Hub harness records (one Python, one Java) in one field family."""
    py_ctx = 'SCALE = 2\n<<insert solution here>>\ndef main():\n    print(halve(<|float|>))\nif __name__ == "__main__":\n    main()\n'
    java_ctx = (
        "public class Main {\n    <<insert solution here>>\n    public static void main(String[] a) {\n"
        "        System.out.println(triple(<|int|>));\n    }\n}\n"
    )
    py = dict(
        hash="b" * 64,
        language="Python",
        path="toy/halve.py",
        start=5,
        end=7,
        sig="def halve(x)",
        comment="Half of x.",
        repo="acme/toy",
        summary="halves x",
        ctx=py_ctx,
        golden='def halve(x):\n    """Half of x."""\n    return x / 2\n',
    )
    java = dict(
        hash="c" * 64,
        language="Java",
        path="src/main/java/org/acme/MathUtil.java",
        start=13,
        end=15,
        sig="public static int triple(int x)",
        comment="Three times x.",
        repo="acme/toolkit",
        summary="triples x",
        ctx=java_ctx,
        golden="public static int triple(int x) {\n    return 3 * x;\n}",
    )
    out = []
    for r in (py, java):
        if family == "camel":
            out.append(
                {
                    "test_case_id": r["hash"],
                    "language": r["language"],
                    "filePath": r["path"],
                    "numLines": 3,
                    "lineStart": r["start"],
                    "lineEnd": r["end"],
                    "signature": r["sig"],
                    "comment": r["comment"],
                    "content": r["golden"],
                    "repository": r["repo"],
                    "promptSummaryOnly": r["summary"],
                    "contextCode": r["ctx"],
                    "goldenCode": r["golden"],
                }
            )
        else:
            out.append(
                {
                    "full_hash": r["hash"],
                    "language": r["language"].lower(),
                    "file_path": r["path"],
                    "line_start": r["start"],
                    "line_end": r["end"],
                    "signature": r["sig"],
                    "comment": r["comment"],
                    "repo_name": r["repo"],
                    "context": r["ctx"],
                    "golden_code": r["golden"],
                    "numLines": 3,
                    "prompt_summary_only": r["summary"],
                }
            )
    return out


def _source_dir(tmp_path, layout: str, family: str):
    """The synthetic source dir with one Hub file written in ``layout`` x ``family``."""
    src = tmp_path / "src"
    for rel in (
        "github-d1c922e/python_public.json",
        "python-harness/tasks.json",
        "github-head/java_public.json",
    ):
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_bytes((SYNTHETIC_SRC / rel).read_bytes())
    records = _hub_records(family)
    path = src / "hf-biocoder_public" / "biocoder.json"
    if layout == "records":
        write_json(path, records)
    elif layout == "columns":
        write_json(path, columns(records))
    else:  # jsonl
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return src


def _essential(rows):
    keep = (
        "task_id",
        "kind",
        "executable",
        "function_name",
        "signature",
        "comment",
        "context",
        "golden_code",
        "repository",
        "file_path",
        "line_start",
        "line_end",
        "prompt_summary_only",
        "prompt_full_context",
    )
    return [{k: r[k] for k in keep} for r in rows]


@pytest.mark.parametrize("layout", ["records", "columns", "jsonl"])
@pytest.mark.parametrize("family", ["camel", "snake"])
def test_hub_file_in_any_layout_and_family_gives_the_same_rows(tmp_path, layout, family):
    src = _source_dir(tmp_path, layout, family)
    py = load_problems("python_public", src, verify=False)
    java = load_problems("java_public", src, verify=False)
    reference = _source_dir(tmp_path / "ref", "records", "camel")
    assert _essential(py) == _essential(load_problems("python_public", reference, verify=False))
    assert _essential(java) == _essential(load_problems("java_public", reference, verify=False))
    halve = {r["task_id"]: r for r in py}["py_bbbbbbbbbbbb"]
    assert halve["kind"] == "harness" and halve["executable"] is True
    assert (halve["file_path"], halve["line_start"], halve["line_end"]) == ("toy/halve.py", 5, 7)
    triple = {r["task_id"]: r for r in java}["java_cccccccccccc"]
    assert triple["kind"] == "harness" and "<<insert solution here>>" in triple["context"]
    assert json.loads(triple["metadata"])["summary"] == "triples x"


def test_code_key_ignores_layout_only():
    assert code_key("def f(x):\n    return x\n") == code_key("def f(x):\n\n        return x")
    assert code_key("def f(x): return x") != code_key("def f(y): return y")


def test_python_function_info_multiline_header_and_docstring():
    code = 'def f(a,\n      b=1) -> int:\n    """Doc\n    more."""\n    return a + b\n'
    info = python_function_info(code)
    assert info.name == "f"
    assert info.signature == "def f(a,\n      b=1) -> int"
    assert info.docstring == "Doc\nmore."


def test_python_function_info_falls_back_to_regex_for_python2_code():
    info = python_function_info('def g(x):\n    """Py2."""\n    print x\n')
    assert (info.name, info.signature, info.docstring) == ("g", "def g(x)", "Py2.")


def test_java_function_info_with_javadoc_and_annotation():
    info = java_function_info("/**\n * Doc.\n */\n@Override\npublic int size() {\n    return n;\n}")
    assert info.name == "size"
    assert info.signature == "@Override\npublic int size()"
    assert info.docstring == "/**\n * Doc.\n */"
