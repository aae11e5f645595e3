"""Natural-language summaries of functions, from a model or from the docstring; batched, cached, resumable.

Upstream asked ChatGPT for two texts per function: the *spec* of the target function (the
"Write a function called ..." paragraph a prompt ends with) and a *summary* of every other
function shown in a full-context prompt (``summary: / param: / return:`` lines). Here they
come from one of three backends:

``docstring``
    No model: the docstring (Javadoc) is used as it is; records say ``prompt_source: docstring``.
``registry``
    Any model of the registry (``models.yaml`` or ``--models-file``) through the project's
    processors (transformers, vLLM), batched by the entry's ``batch_size``.
``openai``
    Any OpenAI-compatible endpoint (``/v1/chat/completions``): vLLM, TGI, llama.cpp,
    ``transformers serve``, a hosted API, or ``biocoder_metric.build.serve``. Requests of a
    batch are sent concurrently.

Every answer is cached under the cache root's ``build/summaries/<backend key>.jsonl`` keyed
by the sha256 of the request text, and appended as soon as a batch finishes, so an
interrupted run resumes where it stopped and a rerun costs nothing. The backend key hashes the
model identity (name, path, endpoint, generation settings): another model never reuses answers.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from biocoder_metric.build.common import cache_root, content_hash

SPEC = "spec"
SUMMARY = "summary"


@dataclass(frozen=True)
class Request:
    """One text to produce: ``kind`` (spec | summary) of one function's source."""

    kind: str
    name: str
    language: str
    content: str

    def prompt(self) -> str:
        """The instruction sent to the model (its hash is the cache key)."""
        code = f"```{self.language}\n{self.content.rstrip()}\n```"
        if self.kind == SPEC:
            return (
                f"Here is a {self.language} function:\n{code}\n\n"
                f"Write one paragraph of instructions that would let a programmer write this function "
                f'without seeing it. Start with: Write a function called "{self.name}". Describe its '
                f"parameters, what it computes and what it returns. Do not include code."
            )
        return (
            f"Here is a {self.language} function:\n{code}\n\n"
            f"Summarise it in exactly this format, one line each, no other text:\n"
            f"summary: <one sentence saying what it does>\n"
            f"param: <name> (<type>) - <meaning>   (one line per parameter)\n"
            f"return: <type> - <meaning>"
        )

    def key(self) -> str:
        return content_hash(self.kind, self.prompt())


class Backend(Protocol):
    """What produces answers for a list of instructions."""

    source: str  # value of the records' ``prompt_source`` field
    batch_size: int

    def identity(self) -> dict[str, Any]: ...

    def answer(self, prompts: list[str]) -> list[str]: ...


def docstring_text(kind: str, comment: str, name: str) -> str:
    """The no-model text: the docstring itself (first paragraph for summaries)."""
    comment = (comment or "").strip()
    if comment.startswith("/*"):
        from biocoder_dataset.normalize import strip_java_comment

        comment = (strip_java_comment(comment) or "").strip()
    if kind == SPEC:
        return comment or f'Write a function called "{name}".'
    first = comment.split("\n\n")[0].replace("\n", " ").strip()
    return f"summary: {first}" if first else "summary: (no docstring)"


class RegistryBackend:
    """A registry model run in-process through :mod:`biocoder_metric.generation.processors`."""

    source = "model"

    def __init__(self, name: str, models_file: str | None = None, max_new_tokens: int | None = None) -> None:
        from biocoder_metric.generation.processors import make_processor
        from biocoder_metric.generation.processors.registry import resolve_model

        self.spec = resolve_model(name, models_file, overrides={"max_new_tokens": max_new_tokens})
        self.processor = make_processor(self.spec)
        self.batch_size = max(1, self.spec.batch_size)

    def identity(self) -> dict[str, Any]:
        return {"backend": "registry", **self.spec.describe()}

    def answer(self, prompts: list[str]) -> list[str]:
        proc = self.processor
        if proc.model is None:
            proc.load_model_tokenizer()
        texts = []
        for p in prompts:
            if proc.chat:
                messages = [{"role": "user", "content": p}]
                if self.spec.system_prompt:
                    messages.insert(0, {"role": "system", "content": self.spec.system_prompt})
                texts.append(
                    proc.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
                )
            else:
                texts.append(f"{self.spec.prompt_prefix}{p}{self.spec.prompt_suffix}\n")
        return [gens[0].text.strip() for gens in proc.generate(texts, n=1)]


class OpenAIBackend:
    """An OpenAI-compatible ``/v1/chat/completions`` endpoint, called with the standard library."""

    source = "model"

    def __init__(
        self,
        api_base: str,
        model: str,
        api_key: str | None = None,
        batch_size: int = 8,
        max_tokens: int = 256,
        timeout_s: float = 300.0,
    ) -> None:
        self.url = api_base.rstrip("/") + (
            "/chat/completions" if api_base.rstrip("/").endswith("/v1") else "/v1/chat/completions"
        )
        self.model = model
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.batch_size = max(1, batch_size)
        self.max_tokens = max_tokens
        self.timeout_s = timeout_s

    def identity(self) -> dict[str, Any]:
        return {
            "backend": "openai",
            "url": self.url,
            "model": self.model,
            "max_tokens": self.max_tokens,
            "temperature": 0,
        }

    def _one(self, prompt: str) -> str:
        body = json.dumps(
            {
                "model": self.model,
                "messages": [{"role": "user", "content": prompt}],
                "max_tokens": self.max_tokens,
                "temperature": 0,
            }
        ).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                data = json.loads(resp.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode("utf-8", errors="replace")[:300]
            raise RuntimeError(f"{self.url}: HTTP {exc.code}: {detail}") from exc
        except (urllib.error.URLError, TimeoutError) as exc:
            raise RuntimeError(f"{self.url}: cannot reach the endpoint: {exc}") from exc
        try:
            return str(data["choices"][0]["message"]["content"]).strip()
        except (KeyError, IndexError, TypeError) as exc:
            raise RuntimeError(
                f"{self.url}: not an OpenAI chat completion response: {str(data)[:300]}"
            ) from exc

    def answer(self, prompts: list[str]) -> list[str]:
        with ThreadPoolExecutor(max_workers=len(prompts)) as pool:
            return list(pool.map(self._one, prompts))


class SummaryCache:
    """Answers of one backend, keyed by request hash, in an append-only JSONL file."""

    def __init__(self, identity: dict[str, Any], root: Path | None = None) -> None:
        key = content_hash(json.dumps(identity, sort_keys=True, default=str))[:16]
        self.path = (root or cache_root() / "summaries") / f"{key}.jsonl"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.answers: dict[str, str] = {}
        if self.path.is_file():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    rec = json.loads(line)
                    self.answers[rec["key"]] = rec["text"]
                except (json.JSONDecodeError, KeyError, TypeError):
                    continue  # a line cut short by a crash: that request is simply asked again
        if not self.path.exists():
            self.path.write_text("", encoding="utf-8")
            (self.path.with_suffix(".identity.json")).write_text(
                json.dumps(identity, indent=2, default=str), encoding="utf-8"
            )

    def add(self, items: dict[str, str]) -> None:
        with self.path.open("a", encoding="utf-8") as fh:
            for k, text in items.items():
                fh.write(json.dumps({"key": k, "text": text}, ensure_ascii=False) + "\n")
        self.answers.update(items)


def summarize(
    requests: list[Request], backend: Backend | None, *, progress: bool = True, cache_dir: Path | None = None
) -> tuple[dict[str, str], dict[str, int]]:
    """``{request key: text}`` for every request, and counts (cached / generated / docstring)."""
    from tqdm import tqdm

    unique: dict[str, Request] = {}
    for r in requests:
        unique.setdefault(r.key(), r)
    if backend is None:
        raise ValueError("summarize() needs a backend; use docstring_text() for the no-model path")
    cache = SummaryCache(backend.identity(), cache_dir)
    todo = [(k, r) for k, r in unique.items() if k not in cache.answers]
    stats = {"requests": len(unique), "cached": len(unique) - len(todo), "generated": 0}
    bar = tqdm(total=len(todo), desc="summaries", unit="fn", disable=not progress)
    for i in range(0, len(todo), backend.batch_size):
        batch = todo[i : i + backend.batch_size]
        texts = backend.answer([r.prompt() for _, r in batch])
        cache.add({k: t for (k, _), t in zip(batch, texts, strict=True)})
        stats["generated"] += len(batch)
        bar.update(len(batch))
    bar.close()
    return {k: cache.answers[k] for k in unique}, stats
