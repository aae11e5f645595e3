"""Optional vLLM backend: same prompts and post-processing, faster batched decoding.

Used when a models-file entry says ``processor: vllm`` (or ``vllm_chat``), or with
``biocoder generate|run --backend vllm`` (:func:`apply_backend`), and ``vllm`` is importable;
the import happens in :meth:`VLLMProcessor.load_model_tokenizer`, so the rest of the package
never needs vLLM. ``generation_config`` keys are mapped onto ``SamplingParams``.

Parallelism (``--tensor-parallel-size T``, ``--data-parallel-size D``): one process drives it
all -- do not use ``accelerate launch`` with vLLM, every process would start its own engine.
T > 1 is vLLM's own tensor parallelism (``LLM(tensor_parallel_size=T)``). D > 1 starts D Ray
actors, each owning one engine on T GPUs, and splits every batch of prompts into D contiguous
chunks (the pattern of lm-eval's vLLM ``data_parallel_size``); outputs come back in prompt
order, so the samples file is the same as with D = 1.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from biocoder_metric.generation.processors.base import Generation, Processor
from biocoder_metric.generation.processors.chat import ChatProcessor

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


#: ``--backend`` -> processor names: the HF processors and their vLLM counterparts.
_TO_VLLM = {"causal_lm": "vllm", "chat": "vllm_chat", "vllm": "vllm", "vllm_chat": "vllm_chat"}
_TO_HF = {"vllm": "causal_lm", "vllm_chat": "chat", "causal_lm": "causal_lm", "chat": "chat"}


def apply_backend(
    spec: Any,
    backend: str | None = None,
    tensor_parallel_size: int | None = None,
    data_parallel_size: int | None = None,
) -> Any:
    """The registry entry run on ``backend`` (``hf`` | ``vllm``; None keeps the entry's), with parallel sizes.

    A chat entry stays a chat entry (``chat`` <-> ``vllm_chat``), so prompts and post-processing
    do not change with the backend. Parallel sizes only exist for vLLM: asking for them on
    another backend is an error rather than a silently single-GPU run.
    """
    processor = spec.processor
    if backend not in (None, "hf", "vllm"):
        raise ValueError(f"--backend must be hf or vllm, got {backend!r}")
    table = {"vllm": _TO_VLLM, "hf": _TO_HF}.get(backend or "")
    if table is not None:
        if processor not in table:
            raise ValueError(
                f"model {spec.name!r}: its processor {processor!r} is custom; --backend {backend} only switches "
                f"the built-in processors ({', '.join(sorted(_TO_VLLM))})"
            )
        processor = table[processor]
    kwargs = dict(spec.backend_kwargs)
    for flag, key, value in (
        ("--tensor-parallel-size", "tensor_parallel_size", tensor_parallel_size),
        ("--data-parallel-size", "data_parallel_size", data_parallel_size),
    ):
        if value is None:
            continue
        if value < 1:
            raise ValueError(f"{flag} must be >= 1, got {value}")
        if processor not in ("vllm", "vllm_chat"):
            raise ValueError(
                f"{flag} needs the vLLM backend (--backend vllm); model {spec.name!r} uses {processor!r}"
            )
        kwargs[key] = value
    return dataclasses.replace(spec, processor=processor, backend_kwargs=kwargs)


def engine_kwargs(spec: Any) -> dict[str, Any]:
    """Keyword arguments of ``vllm.LLM`` for one engine (data parallelism is ours, not an engine argument)."""
    kwargs: dict[str, Any] = {"trust_remote_code": bool(spec.tokenizer.get("trust_remote_code", False))}
    dtype = spec.model_kwargs.get("dtype") or spec.model_kwargs.get("torch_dtype")
    if dtype:
        kwargs["dtype"] = dtype
    kwargs.update({k: v for k, v in spec.backend_kwargs.items() if k != "data_parallel_size"})
    return kwargs


def sampling_kwargs(spec: Any, n: int, stops: tuple[str, ...]) -> dict[str, Any]:
    """Keyword arguments of ``vllm.SamplingParams`` for the entry's decode mode."""
    params: dict[str, Any] = {}
    for key, value in spec.generation.items():
        if key in _RENAME:
            params[_RENAME[key]] = value
    if not spec.generation.get("do_sample"):
        params["temperature"] = 0.0  # greedy
        params.pop("top_p", None)
        params.pop("top_k", None)
    params["n"] = n
    params["stop"] = list(stops)
    return params


def split_contiguous(items: list[Any], parts: int) -> list[list[Any]]:
    """``items`` in ``parts`` contiguous chunks of near-equal size (empty ones dropped); concatenation restores it."""
    size, extra = divmod(len(items), parts)
    out, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        if end > start:
            out.append(items[start:end])
        start = end
    return out


def _import_vllm():
    try:
        import vllm
    except ImportError as exc:  # depends on the host: vLLM needs a GPU build
        raise RuntimeError(
            "processor 'vllm' needs the vllm package (pip install vllm) on a GPU host"
        ) from exc
    return vllm


class VLLMReplica:
    """Ray actor body for data parallelism: one ``vllm.LLM`` on the GPUs Ray gave this actor."""

    def __init__(self, path: str, kwargs: dict[str, Any]):
        self.llm = _import_vllm().LLM(model=path, **kwargs)

    def generate(self, prompts: list[str], params: dict[str, Any]) -> list[list[tuple[str, int]]]:
        from vllm import SamplingParams

        outputs = self.llm.generate(prompts, SamplingParams(**params), use_tqdm=False)
        return [[(o.text, len(o.token_ids)) for o in out.outputs] for out in outputs]


class VLLMProcessor(Processor):
    """Plain completion through ``vllm.LLM`` (or D of them on Ray actors, see the module docstring)."""

    replicas: list[Any] | None = None

    @property
    def data_parallel_size(self) -> int:
        return int(self.spec.backend_kwargs.get("data_parallel_size") or 1)

    def load_model_tokenizer(self) -> None:
        if self.data_parallel_size > 1:
            self._start_replicas()
            return
        vllm = _import_vllm()
        self.model = vllm.LLM(model=self.spec.path, **engine_kwargs(self.spec))
        self.tokenizer = self.model.get_tokenizer()

    def _start_replicas(self) -> None:
        try:
            import ray
        except ImportError as exc:
            raise RuntimeError(
                "--data-parallel-size > 1 runs one vLLM engine per Ray actor: pip install ray"
            ) from exc
        if not ray.is_initialized():
            ray.init(ignore_reinit_error=True)  # RAY_ADDRESS (a multi-node cluster) or this machine's GPUs
        gpus = int(self.spec.backend_kwargs.get("tensor_parallel_size") or 1)
        kwargs = engine_kwargs(self.spec)
        actor = ray.remote(num_gpus=gpus)(VLLMReplica)
        self.replicas = [actor.remote(self.spec.path, kwargs) for _ in range(self.data_parallel_size)]
        self.model = self.replicas  # "loaded"
        if self.tokenizer is None:
            from transformers import AutoTokenizer

            self.tokenizer = AutoTokenizer.from_pretrained(
                self.spec.path, trust_remote_code=bool(self.spec.tokenizer.get("trust_remote_code", False))
            )

    def sampling_params(self, n: int, stops: tuple[str, ...]) -> Any:
        from vllm import SamplingParams

        return SamplingParams(**sampling_kwargs(self.spec, n, stops))

    def generate(self, prompts: list[str], n: int, stops: tuple[str, ...] = ()) -> list[list[Generation]]:
        if self.model is None:
            self.load_model_tokenizer()
        if self.replicas:
            import ray

            params = sampling_kwargs(self.spec, n, stops)
            chunks = split_contiguous(prompts, len(self.replicas))
            parts = ray.get(
                [rep.generate.remote(c, params) for rep, c in zip(self.replicas, chunks, strict=False)]
            )
            return [[Generation(text, tokens) for text, tokens in out] for part in parts for out in part]
        outputs = self.model.generate(prompts, self.sampling_params(n, stops), use_tqdm=False)
        return [[Generation(o.text, len(o.token_ids)) for o in out.outputs] for out in outputs]

    def close(self) -> None:
        if self.replicas:
            import ray

            for rep in self.replicas:
                ray.kill(rep)
            self.replicas = None
        super().close()


class VLLMChatProcessor(VLLMProcessor):
    """vLLM with the tokenizer's chat template (prompt building shared with :class:`ChatProcessor`)."""

    chat = True
    messages = ChatProcessor.messages

    def process_before(self, row: dict[str, Any]) -> str:
        if self.tokenizer is None:
            from transformers import AutoTokenizer

            self.tokenizer = AutoTokenizer.from_pretrained(self.spec.path)
        return self.tokenizer.apply_chat_template(
            self.messages(row), tokenize=False, add_generation_prompt=True
        )
