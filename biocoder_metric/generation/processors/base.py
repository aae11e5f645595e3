"""The processor contract: how one model family turns a BioCoder row into a candidate.

A processor owns the three model-specific steps of generation (CodeFuseEval's split):

* ``load_model_tokenizer`` - load weights and tokenizer with the options from the registry;
* ``process_before(row)`` - build the exact text the model sees (plain completion, chat
  template, language framing);
* ``process_after(raw, row, prompt)`` - turn the raw generation into the candidate the engine
  executes (stop-string truncation, then :func:`biocoder_metric.generation.postprocess.extract_code`).

``generate(prompts, n)`` sits between them and is the only backend-specific piece. Nothing
here imports ``torch``/``transformers``/``vllm``: backends import them inside their methods,
so ``biocoder --help`` and the lm-eval task listing stay light.

The module-level helpers (:data:`STOP_SEQUENCES`, :func:`truncate_at_stops`,
:func:`assemble_candidate`) are shared with ``lm_eval_tasks/biocoder/utils.py`` so the CLI
and the lm-eval route post-process generations identically.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from biocoder_metric.languages import runner

#: Stop strings for plain-completion prompts, per language. A completion prompt ends inside
#: the target function (signature + docstring, or the Java header's ``{``), so the answer
#: ends where the next top-level statement starts. Java methods can sit at any indentation,
#: so only the class's closing brace stops generation; :func:`assemble_candidate` then cuts
#: the method at its balancing brace (and closes braces a stop string removed). The lm-eval
#: YAML templates carry the same lists (tests/test_lm_eval_tasks.py checks that they agree).
STOP_SEQUENCES: dict[str, tuple[str, ...]] = {
    "python": ("\ndef ", "\nclass ", "\nif __name__", "\nprint(", "\n#", "\n@", "\n```"),
    "java": ("\n}", "\n```"),
}

#: Chat answers are fenced; nothing is cut during generation, extract_code reads the fence.
CHAT_STOP_SEQUENCES: tuple[str, ...] = ()


@dataclass
class Generation:
    """One raw generation and what it cost."""

    text: str
    n_tokens: int = 0


@dataclass
class ModelSpec:
    """One resolved (model, version) entry of the registry (see :mod:`biocoder_metric.generation.processors.registry`)."""

    name: str
    version: str
    path: str
    processor: str = "causal_lm"
    tokenizer: dict[str, Any] = field(default_factory=dict)
    model_kwargs: dict[str, Any] = field(default_factory=dict)
    decode_mode: str = "greedy"
    generation: dict[str, Any] = field(default_factory=dict)  # the chosen decode mode's kwargs, merged
    batch_size: int = 1
    n_samples: int = 1
    prompt_style: str = "full_context"
    system_prompt: str | None = None
    prompt_prefix: str = ""  # language framing or special tokens put before every prompt
    prompt_suffix: str = ""
    backend_kwargs: dict[str, Any] = field(default_factory=dict)  # e.g. vLLM engine arguments

    def describe(self) -> dict[str, Any]:
        """What a results file must record to reproduce the generations."""
        return {
            "model": self.name,
            "version": self.version,
            "path": self.path,
            "processor": self.processor,
            "decode_mode": self.decode_mode,
            "generation_config": dict(self.generation),
            "prompt_style": self.prompt_style,
            "n_samples": self.n_samples,
            "batch_size": self.batch_size,
            "system_prompt": self.system_prompt,
            "prompt_prefix": self.prompt_prefix,
            "prompt_suffix": self.prompt_suffix,
        }


def truncate_at_stops(text: str, stops: tuple[str, ...] | list[str]) -> str:
    """Cut ``text`` at the earliest stop string (the stop itself is dropped)."""
    cut = len(text)
    for stop in stops:
        if stop:
            i = text.find(stop)
            if i != -1:
                cut = min(cut, i)
    return text[:cut]


def target_head(prompt: str, function_name: str | None, language: str) -> str:
    """The tail of a completion prompt from the target function's definition on ('' if absent).

    Completion prompts end with the signature and docstring of the function to write, and
    the model continues with its body; the engine needs the whole function, so the head
    is put back in front of the body. Decorators directly above the ``def`` are kept.
    """
    if not function_name:
        return ""
    matches = list(runner(language).definition_header(function_name).finditer(prompt))
    if not matches:
        return ""
    return prompt[matches[-1].start() :]


def assemble_candidate(
    prompt: str, raw: str, row: dict[str, Any], *, chat: bool, stops: tuple[str, ...] | list[str] = ()
) -> str:
    """Raw generation -> the candidate source the engine inserts into the harness.

    * completion (``chat=False``): cut at ``stops``; when the answer does not define the target
      function itself it is a body, so the prompt's head of that function (signature +
      docstring) goes in front, and the body ends where the function ends (Python: first line
      back at the ``def``'s indentation; Java: the balancing brace, added if a stop cut it);
    * chat: the answer is prose and fences, taken as is.

    Then :func:`biocoder_metric.generation.postprocess.extract_code` removes fences, prose and test
    scaffolding. Never executes anything.
    """
    from biocoder_metric.generation.postprocess import defines_function, extract_code

    language = row.get("language") or "python"
    function_name = row.get("function_name")
    text = raw if chat else truncate_at_stops(raw, stops)
    if not chat and not (function_name and defines_function(text, function_name, language)):
        head = target_head(prompt, function_name, language)
        if head:
            text = runner(language).join_continuation(head, text)
    return extract_code(text, language, function_name)


class Processor(ABC):
    """Base class of every model family / backend. Subclasses override only what differs."""

    #: True for processors whose prompts go through a chat template (answers are fenced).
    chat: bool = False

    def __init__(self, spec: ModelSpec, *, device: Any = None) -> None:
        self.spec = spec
        self.device = device
        self.model: Any = None
        self.tokenizer: Any = None

    # -- the three model-specific steps -------------------------------------------------
    @abstractmethod
    def load_model_tokenizer(self) -> None:
        """Load weights and tokenizer (called once, before the first ``generate``)."""

    def prompt_text(self, row: dict[str, Any]) -> str | list[dict[str, str]]:
        """The dataset's prompt for this row in the spec's style (text, or chat messages)."""
        from biocoder_dataset.prompts import build_prompt

        return build_prompt(row, self.spec.prompt_style)

    def process_before(self, row: dict[str, Any]) -> str:
        """The exact text fed to the model: framing + the dataset prompt."""
        prompt = self.prompt_text(row)
        if not isinstance(prompt, str):
            prompt = "\n\n".join(m["content"] for m in prompt)
        return f"{self.spec.prompt_prefix}{prompt}{self.spec.prompt_suffix}"

    def stop_sequences(self, row: dict[str, Any]) -> tuple[str, ...]:
        """Stop strings for this row's language (none for chat processors)."""
        if self.chat:
            return CHAT_STOP_SEQUENCES
        return STOP_SEQUENCES.get(row.get("language") or "python", ())

    def process_after(self, raw: str, row: dict[str, Any], prompt: str) -> str:
        """The candidate source for the engine (see :func:`assemble_candidate`)."""
        return assemble_candidate(prompt, raw, row, chat=self.chat, stops=self.stop_sequences(row))

    # -- backend ----------------------------------------------------------------------
    @abstractmethod
    def generate(self, prompts: list[str], n: int, stops: tuple[str, ...] = ()) -> list[list[Generation]]:
        """``n`` raw generations (text after the prompt) for each prompt, in order."""

    def close(self) -> None:
        """Free the model (processors are used for one run)."""
        self.model = None
        self.tokenizer = None
