"""CodeFuseEval's similarity metrics: CodeBLEU and BLEU of each candidate against the golden.

Why these are here although pass@k is the score: CodeFuseEval reports them next to
pass@k, and they separate "close but wrong" from "unrelated" answers among the failures.
They never change a verdict.

Both come from maintained libraries (extra ``metrics``): CodeBLEU from ``codebleu``
(tree-sitter grammars for Python and Java; weights 0.25 each for n-gram, weighted n-gram,
syntax and data-flow match), BLEU from ``sacrebleu`` (corpus BLEU, its default ``13a``
tokenizer, score 0..100). The candidate is the post-processed code (what was inserted into
the harness, via :func:`~biocoder_metric.generation.postprocess.extract_code`), the reference the
task's ``golden_code``; samples of tasks excluded from scoring and tasks without a golden
are left out. Scores are corpus-level per language (as CodeXGLUE / CodeFuseEval compute
them) plus a sample-weighted overall value.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

SUPPORTED = ("codebleu", "bleu")
#: our language name -> codebleu's
_CODEBLEU_LANG = {"python": "python", "java": "java"}


class MetricsUnavailableError(RuntimeError):
    """A requested metric's library is not installed; the message says which extra to install."""


def parse_metrics(text: str | None) -> list[str]:
    """``"codebleu,bleu"`` -> ``["codebleu", "bleu"]``; unknown names are a ``ValueError``."""
    names = [t.strip().lower() for t in (text or "").split(",") if t.strip()]
    bad = [n for n in names if n not in SUPPORTED]
    if bad:
        raise ValueError(f"--metrics: unknown metric(s) {', '.join(bad)}; choose from {', '.join(SUPPORTED)}")
    return list(dict.fromkeys(names))


def _require(module: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MetricsUnavailableError(
            f"{module} is not installed: pip install 'biocoder-eval[metrics]' (or bash scripts/install.sh)"
        ) from exc


#: ``codebleu``'s data-flow match iterates over sets and dicts of strings, so its value depends on
#: the interpreter's string hash seed (0.96455 vs 0.96602 on the same pairs). It therefore runs
#: in a child interpreter with this fixed ``PYTHONHASHSEED``: byte-identical under any parent seed.
CODEBLEU_HASH_SEED = "0"
_CODEBLEU_CHILD = """
import json, sys
import codebleu
args = json.load(sys.stdin)
res = codebleu.calc_codebleu(args["references"], args["predictions"], lang=args["lang"], weights=(0.25,) * 4)
json.dump({k: float(v) for k, v in res.items()}, sys.stdout)
"""


def codebleu_score(references: Sequence[str], predictions: Sequence[str], language: str) -> dict[str, float]:
    """Corpus CodeBLEU and its four components (0..1) for one language, independent of the hash seed."""
    import json
    import os
    import subprocess
    import sys

    if language not in _CODEBLEU_LANG:
        raise ValueError(f"CodeBLEU supports {', '.join(_CODEBLEU_LANG)}, not {language!r}")
    _require("codebleu")
    payload = json.dumps(
        {"references": list(references), "predictions": list(predictions), "lang": _CODEBLEU_LANG[language]}
    )
    done = subprocess.run(
        [sys.executable, "-c", _CODEBLEU_CHILD],
        input=payload,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONHASHSEED": CODEBLEU_HASH_SEED},
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"CodeBLEU ({language}) failed: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout)


def bleu_score(references: Sequence[str], predictions: Sequence[str]) -> float:
    """Corpus BLEU (sacrebleu, 0..100) of ``predictions`` against one reference each."""
    sacrebleu = _require("sacrebleu")
    return float(sacrebleu.corpus_bleu(list(predictions), [list(references)]).score)


def _pairs(
    results: Iterable[Any], problems: Mapping[str, Mapping[str, Any]]
) -> dict[str, list[tuple[str, str]]]:
    """language -> [(golden, candidate code)] over samples of scored tasks that have a golden."""
    from biocoder_metric.generation.postprocess import extract_code

    out: dict[str, list[tuple[str, str]]] = {}
    for r in results:
        if (r.extra or {}).get("task_status", "ok") != "ok":
            continue
        row = problems.get(r.task_id)
        if not row or not row.get("golden_code"):
            continue
        language = row.get("language") or "python"
        code = extract_code(r.completion, language, row.get("function_name"))
        out.setdefault(language, []).append((row["golden_code"], code))
    return out


def text_metrics(
    results: Iterable[Any], problems: Mapping[str, Mapping[str, Any]], metrics: Sequence[str]
) -> dict[str, Any]:
    """The ``text_metrics`` block of ``summary.json`` for the requested metric names."""
    pairs = _pairs(results, problems)
    total = sum(len(v) for v in pairs.values())
    block: dict[str, Any] = {"samples": {lang: len(v) for lang, v in sorted(pairs.items())}}
    if "codebleu" in metrics:
        per_lang = {}
        for lang, items in sorted(pairs.items()):
            if lang in _CODEBLEU_LANG and items:
                per_lang[lang] = codebleu_score([g for g, _ in items], [c for _, c in items], lang)
        weighted = sum(per_lang[lang]["codebleu"] * len(pairs[lang]) for lang in per_lang)
        counted = sum(len(pairs[lang]) for lang in per_lang)
        block["codebleu"] = {
            "overall": weighted / counted if counted else None,
            "per_language": per_lang,
            "weights": [0.25, 0.25, 0.25, 0.25],
            "library": "codebleu",
        }
    if "bleu" in metrics:
        per_lang_bleu = {
            lang: bleu_score([g for g, _ in items], [c for _, c in items])
            for lang, items in sorted(pairs.items())
            if items
        }
        every = [p for items in pairs.values() for p in items]
        block["bleu"] = {
            "overall": bleu_score([g for g, _ in every], [c for _, c in every]) if every else None,
            "per_language": per_lang_bleu,
            "scale": "0-100",
            "library": "sacrebleu corpus_bleu (tokenize 13a)",
        }
    block["samples_total"] = total
    return block
