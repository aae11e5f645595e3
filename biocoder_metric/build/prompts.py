"""Upstream BioCoder's two prompt kinds for selected functions: summary-only and full-context.

The layout copies the ``prompt`` field of upstream's Python harness tasks: every line is a
comment of the target language (``#`` / ``//``) so the prompt is valid source, then

    This is in <language>
    <spec>                                   (a model's "Write a function called ..." paragraph, or the docstring)
    The function is located in the class X  (methods only)
    <signature>
    Here are the imports:                    (the file's imports)
    Here are the global variables:           (module-level assignments / the class's fields in Java)
    Here are the class declarations:         (each class: attributes, methods with summaries)
    Here are the additional function declarations:   (other top-level functions with summaries)
    Here are the comments and the specs:
    <spec>
    <signature>

The summary-only prompt keeps the first block and the last two lines. Unlike upstream, the
target function's own summary is not listed among the additional declarations (it would
repeat the spec).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from biocoder_metric.build.summarize import SPEC, SUMMARY, Backend, Request, docstring_text, summarize
from biocoder_metric.languages import runner


def _header(rec: dict[str, Any]) -> str:
    sig = rec["signature"].rstrip()
    return sig + runner(rec.get("language", "python")).block_open


def _commented(lines: list[str], mark: str) -> str:
    return "\n".join(f"{mark}{ln}" for text in lines for ln in (text.splitlines() or [""])) + "\n"


def _declaration(rec: dict[str, Any], summary: str, indent: str) -> list[str]:
    head = [indent + ln for ln in _header(rec).splitlines()]
    body = [indent + "\t" + ln.strip() for ln in summary.strip().splitlines() if ln.strip()]
    return head + body


def requests_for(
    rec: dict[str, Any], pool: dict[str, dict[str, Any]], file_rec: dict[str, Any] | None
) -> list[Request]:
    """The spec of ``rec`` and the summaries of the other functions its full-context prompt shows."""
    reqs = [Request(SPEC, rec["functionName"], rec.get("language", "python"), rec["content"])]
    for fid in _other_ids(rec, file_rec):
        other = pool.get(fid)
        if other is not None:
            reqs.append(
                Request(SUMMARY, other["functionName"], other.get("language", "python"), other["content"])
            )
    return reqs


def _other_ids(rec: dict[str, Any], file_rec: dict[str, Any] | None) -> list[str]:
    if not file_rec:
        return []
    ids = [m for c in file_rec.get("classes", []) for m in c.get("methods", []) if isinstance(m, str)]
    ids += list(file_rec.get("functions", []))
    return [i for i in ids if i != rec["function_id"]]


def build_prompts(
    rec: dict[str, Any],
    texts: dict[Request, str],
    pool: dict[str, dict[str, Any]],
    file_rec: dict[str, Any] | None,
) -> tuple[str, str, str]:
    """(spec, summary-only prompt, full-context prompt) of one function."""
    lang = rec.get("language", "python")
    mark = runner(lang).comment
    spec_req = Request(SPEC, rec["functionName"], lang, rec["content"])
    spec = texts[spec_req].strip()
    head = [f"This is in {lang}", *spec.splitlines(), ""]
    if rec.get("parentClass"):
        head += [f"The function is located in the class {rec['parentClass']}", ""]
    head += [*_header(rec).splitlines(), ""]
    summary_only = _commented(
        [f"This is in {lang}", *spec.splitlines(), "", *_header(rec).splitlines()], mark
    )

    def summary_of(fid: str) -> tuple[dict[str, Any], str] | None:
        other = pool.get(fid)
        if other is None:
            return None
        return other, texts[
            Request(SUMMARY, other["functionName"], other.get("language", lang), other["content"])
        ]

    body = ["Here are the imports:", *(file_rec or {}).get("imports", [])]
    glob = list((file_rec or {}).get("globals", []))
    if runner(lang).class_attributes_are_globals and file_rec:
        glob = [
            a
            for c in file_rec.get("classes", [])
            if c["name"] == rec.get("parentClass")
            for a in c.get("attributes", [])
        ]
    body += ["Here are the global variables:", *glob, "Here are the class declarations:"]
    for cls in (file_rec or {}).get("classes", []):
        bases = f"({', '.join(cls['bases'])})" if cls.get("bases") else ""
        body.append(f"class {cls['name']}{bases}:")
        if cls.get("attributes"):
            body.append("\tattributes: " + runner(lang).attribute_separator.join(cls["attributes"]))
        body.append("\tmethods:")
        for fid in cls.get("methods", []):
            if fid == rec["function_id"] or not isinstance(fid, str):
                continue
            found = summary_of(fid)
            if found:
                body += _declaration(found[0], found[1], "\t")
    body.append("Here are the additional function declarations:")
    for fid in (file_rec or {}).get("functions", []):
        if fid == rec["function_id"]:
            continue
        found = summary_of(fid)
        if found:
            body += _declaration(found[0], found[1], "")
    body += ["Here are the comments and the specs:", *spec.splitlines(), *_header(rec).splitlines()]
    full = _commented(head + body, mark)
    return spec, summary_only, full


def make_backend(
    model: str | None = None,
    models_file: str | None = None,
    api_base: str | None = None,
    api_model: str | None = None,
    api_key: str | None = None,
    batch_size: int = 8,
    max_new_tokens: int | None = None,
) -> Backend | None:
    """The summary backend the flags ask for (None: use docstrings)."""
    from biocoder_metric.build.summarize import OpenAIBackend, RegistryBackend

    if model and api_base:
        raise ValueError(
            "give either --model (a registry model) or --api-base/--api-model (an HTTP endpoint), not both"
        )
    if api_base:
        if not api_model:
            raise ValueError("--api-base needs --api-model (the model name the endpoint serves)")
        return OpenAIBackend(
            api_base, api_model, api_key, batch_size=batch_size, max_tokens=max_new_tokens or 256
        )
    if model:
        return RegistryBackend(model, models_file, max_new_tokens)
    return None


def prompt_functions(
    selected: list[dict[str, Any]],
    pool_records: list[dict[str, Any]],
    files: list[dict[str, Any]],
    backend: Backend | None,
    *,
    progress: bool = True,
    cache_dir: Path | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Selected records with ``spec``, ``prompt_summary_only``, ``prompt_full_context`` and ``prompt_source``."""
    pool = {r["function_id"]: r for r in pool_records}
    pool.update({r["function_id"]: r for r in selected})
    by_file = {f["filePath"]: f for f in files}
    requests: list[Request] = []
    for rec in selected:
        requests += requests_for(rec, pool, by_file.get(rec["filePath"]))
    if backend is None:
        comments = {(r["content"], r["functionName"]): r.get("comment", "") for r in pool.values()}
        by_key = {r: docstring_text(r.kind, comments.get((r.content, r.name), ""), r.name) for r in requests}
        stats = {"requests": len(set(requests)), "cached": 0, "generated": 0}
        source = "docstring"
    else:
        answers, stats = summarize(requests, backend, progress=progress, cache_dir=cache_dir)
        by_key = {r: answers[r.key()] for r in requests}
        source = backend.source
    out = []
    for rec in selected:
        spec, summary_only, full = build_prompts(rec, by_key, pool, by_file.get(rec["filePath"]))
        out.append(
            {
                **rec,
                "spec": spec,
                "prompt_summary_only": summary_only,
                "prompt_full_context": full,
                "prompt_source": source,
                "prompt_model": None if backend is None else backend.identity(),
            }
        )
    return out, {**stats, "functions": len(out), "prompt_source": source}
