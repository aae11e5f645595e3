"""Instruction-tuned models: the prompt goes through the tokenizer's chat template.

The model answers in prose with a fenced code block; nothing is cut during generation
and :func:`biocoder_metric.generation.postprocess.extract_code` reads the function out of the fence.
Only prompt building differs from :class:`CausalLMProcessor`, so only that is overridden.
"""

from __future__ import annotations

from typing import Any

from biocoder_metric.generation.processors.causal_lm import CausalLMProcessor


class ChatProcessor(CausalLMProcessor):
    """Chat template over the ``instruct`` prompt (plus an optional system prompt)."""

    chat = True

    def messages(self, row: dict[str, Any]) -> list[dict[str, str]]:
        """System prompt (if configured) + the dataset's instruction as one user turn."""
        prompt = self.prompt_text(row)
        if isinstance(prompt, str):
            messages = [
                {"role": "user", "content": f"{self.spec.prompt_prefix}{prompt}{self.spec.prompt_suffix}"}
            ]
        else:
            messages = [dict(m) for m in prompt]
        if self.spec.system_prompt and not any(m["role"] == "system" for m in messages):
            messages.insert(0, {"role": "system", "content": self.spec.system_prompt})
        return messages

    def process_before(self, row: dict[str, Any]) -> str:
        if self.tokenizer is None:
            self.load_tokenizer_only()
        if not getattr(self.tokenizer, "chat_template", None):
            raise ValueError(
                f"model {self.spec.name!r} ({self.spec.path}) has no chat template; "
                "use processor 'causal_lm' for it in the models file"
            )
        return self.tokenizer.apply_chat_template(
            self.messages(row), tokenize=False, add_generation_prompt=True
        )

    def load_tokenizer_only(self) -> None:
        """Prompt building needs only the tokenizer (lets tests and dry runs skip the weights)."""
        from transformers import AutoTokenizer

        tok_opts = {k: v for k, v in self.spec.tokenizer.items() if k != "padding_side"}
        self.tokenizer = AutoTokenizer.from_pretrained(self.spec.path, **tok_opts)
