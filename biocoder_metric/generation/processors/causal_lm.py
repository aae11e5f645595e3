"""Plain causal LMs through ``transformers``: the default processor.

Prompts are fed as plain text (no chat template); the model continues the target
function and stops at the language's stop strings (``transformers``' own
``stop_strings`` criterion, so generation ends early instead of running to
``max_new_tokens``). ``torch`` and ``transformers`` are imported when a model is
loaded, never at import time.
"""

from __future__ import annotations

from typing import Any

from biocoder_metric.generation.processors.base import Generation, ModelSpec, Processor

#: Registry keys that are ours, not ``GenerationConfig`` fields.
_NOT_GENERATE_KWARGS = ("n", "stop", "max_input_tokens")


def _resolve_dtype(value: Any) -> Any:
    """'bfloat16' -> torch.bfloat16; 'auto' and non-strings pass through."""
    import torch

    if isinstance(value, str) and value != "auto":
        try:
            return getattr(torch, value)
        except AttributeError as exc:
            raise ValueError(f"unknown torch dtype {value!r} in model_kwargs") from exc
    return value


class CausalLMProcessor(Processor):
    """``AutoModelForCausalLM`` + ``AutoTokenizer``, batched left-padded generation."""

    def __init__(self, spec: ModelSpec, *, device: Any = None) -> None:
        super().__init__(spec, device=device)
        self.max_input_tokens: int | None = None

    def load_model_tokenizer(self) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        tok_opts = dict(self.spec.tokenizer)
        padding_side = tok_opts.pop("padding_side", "left")
        self.tokenizer = AutoTokenizer.from_pretrained(self.spec.path, **tok_opts)
        self.tokenizer.padding_side = padding_side
        self.tokenizer.truncation_side = "left"  # keep the end of the prompt: it holds the signature
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token

        kwargs = dict(self.spec.model_kwargs)
        for key in ("dtype", "torch_dtype"):
            if key in kwargs:
                kwargs[key] = _resolve_dtype(kwargs[key])
        self.model = AutoModelForCausalLM.from_pretrained(self.spec.path, **kwargs)
        if "device_map" not in kwargs:
            device = self.device or ("cuda" if torch.cuda.is_available() else "cpu")
            self.model.to(device)
            self.device = device
        self.model.eval()

        max_pos = getattr(self.model.config, "max_position_embeddings", None) or getattr(
            self.model.config, "n_positions", None
        )
        max_new = int(self.spec.generation.get("max_new_tokens", 512))
        if max_pos:
            self.max_input_tokens = max(1, int(max_pos) - max_new)
        budget = self.spec.generation.get(
            "max_input_tokens"
        )  # upstream's --max_length, see biocoder_metric.cli.generate
        if budget:
            self.max_input_tokens = min(self.max_input_tokens or int(budget), int(budget))

    def generate_kwargs(self, n: int) -> dict[str, Any]:
        """The decode mode's kwargs for ``model.generate`` (greedy is run once, then repeated)."""
        kwargs = {k: v for k, v in self.spec.generation.items() if k not in _NOT_GENERATE_KWARGS}
        if kwargs.get("do_sample") or kwargs.get("num_beams", 1) > 1:
            kwargs["num_return_sequences"] = n
        return kwargs

    def generate(self, prompts: list[str], n: int, stops: tuple[str, ...] = ()) -> list[list[Generation]]:
        import torch

        if self.model is None:
            self.load_model_tokenizer()
        kwargs = self.generate_kwargs(n)
        per_prompt = kwargs.get("num_return_sequences", 1)
        if stops:
            kwargs["stop_strings"] = list(stops)
            kwargs["tokenizer"] = self.tokenizer
        enc = self.tokenizer(
            prompts,
            return_tensors="pt",
            padding=True,
            truncation=self.max_input_tokens is not None,
            max_length=self.max_input_tokens,
        ).to(self.model.device)
        with torch.inference_mode():
            out = self.model.generate(**enc, pad_token_id=self.tokenizer.pad_token_id, **kwargs)
        new = out[:, enc["input_ids"].shape[1] :]
        results: list[list[Generation]] = []
        for i in range(len(prompts)):
            gens = []
            for j in range(per_prompt):
                ids = new[i * per_prompt + j].tolist()
                gens.append(
                    Generation(self.tokenizer.decode(ids, skip_special_tokens=True), self._count(ids))
                )
            while len(gens) < n:  # deterministic decoding: the same answer n times
                gens.append(Generation(gens[len(gens) % per_prompt].text, 0))
            results.append(gens[:n])
        return results

    def _count(self, ids: list[int]) -> int:
        """Generated tokens up to and including the first EOS (padding after it is not work)."""
        eos = self.tokenizer.eos_token_id
        pad = self.tokenizer.pad_token_id
        count = 0
        for t in ids:
            count += 1
            if t == eos:
                break
        if pad is not None and pad != eos:
            count -= sum(1 for t in ids[:count] if t == pad)
        return count
