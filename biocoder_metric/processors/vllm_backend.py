"""Optional vLLM backend: same prompts and post-processing, faster batched decoding.

Used when a models-file entry says ``processor: vllm`` (or ``vllm_chat``) and ``vllm`` is
importable; the import happens in :meth:`load_model_tokenizer`, so the rest of the
package never needs vLLM. ``generation_config`` keys are mapped onto ``SamplingParams``.
Under ``accelerate launch`` every process would start its own engine: use
``backend_kwargs: {tensor_parallel_size: N}`` with a single process instead.
"""

from __future__ import annotations

from typing import Any

from biocoder_metric.processors.base import Generation, Processor
from biocoder_metric.processors.chat import ChatProcessor

#: transformers ``generate`` names -> vLLM ``SamplingParams`` names (other keys, e.g. beam settings, do not apply).
_RENAME = {
    "max_new_tokens": "max_tokens",
    "min_new_tokens": "min_tokens",
    "temperature": "temperature",
    "top_p": "top_p",
    "top_k": "top_k",
    "min_p": "min_p",
    "repetition_penalty": "repetition_penalty",
    "presence_penalty": "presence_penalty",
    "frequency_penalty": "frequency_penalty",
    "seed": "seed",
}


class VLLMProcessor(Processor):
    """Plain completion through ``vllm.LLM``."""

    def load_model_tokenizer(self) -> None:
        try:
            from vllm import LLM
        except ImportError as exc:  # pragma: no cover - depends on the host
            raise RuntimeError("processor 'vllm' needs the vllm package (pip install vllm) on a GPU host") from exc
        kwargs = {"trust_remote_code": bool(self.spec.tokenizer.get("trust_remote_code", False))}
        dtype = self.spec.model_kwargs.get("dtype") or self.spec.model_kwargs.get("torch_dtype")
        if dtype:
            kwargs["dtype"] = dtype
        kwargs.update(self.spec.backend_kwargs)
        self.model = LLM(model=self.spec.path, **kwargs)
        self.tokenizer = self.model.get_tokenizer()

    def sampling_params(self, n: int, stops: tuple[str, ...]) -> Any:
        from vllm import SamplingParams

        params: dict[str, Any] = {}
        for key, value in self.spec.generation.items():
            if key in _RENAME:
                params[_RENAME[key]] = value
        if not self.spec.generation.get("do_sample"):
            params["temperature"] = 0.0  # greedy
            params.pop("top_p", None)
            params.pop("top_k", None)
        params["n"] = n
        params["stop"] = list(stops)
        return SamplingParams(**params)

    def generate(self, prompts: list[str], n: int, stops: tuple[str, ...] = ()) -> list[list[Generation]]:
        if self.model is None:
            self.load_model_tokenizer()
        outputs = self.model.generate(prompts, self.sampling_params(n, stops), use_tqdm=False)
        return [[Generation(o.text, len(o.token_ids)) for o in out.outputs] for out in outputs]


class VLLMChatProcessor(VLLMProcessor):
    """vLLM with the tokenizer's chat template (prompt building shared with :class:`ChatProcessor`)."""

    chat = True
    messages = ChatProcessor.messages

    def process_before(self, row: dict[str, Any]) -> str:
        if self.tokenizer is None:
            from transformers import AutoTokenizer

            self.tokenizer = AutoTokenizer.from_pretrained(self.spec.path)
        return self.tokenizer.apply_chat_template(self.messages(row), tokenize=False, add_generation_prompt=True)
