"""Model processors, one file per family or backend; looked up by name, imported lazily.

A models-file entry names its processor either by a key of :data:`PROCESSORS` or as
``package.module:ClassName`` (a user's own subclass of :class:`Processor`). Importing
this package imports no ML library.
"""

from __future__ import annotations

import importlib
from typing import Any

from biocoder_metric.generation.processors.base import (
    STOP_SEQUENCES,
    Generation,
    ModelSpec,
    Processor,
    assemble_candidate,
    truncate_at_stops,
)

#: Built-in processors: name -> "module:Class" (imported on first use).
PROCESSORS: dict[str, str] = {
    "causal_lm": "biocoder_metric.generation.processors.causal_lm:CausalLMProcessor",
    "chat": "biocoder_metric.generation.processors.chat:ChatProcessor",
    "vllm": "biocoder_metric.generation.processors.vllm_backend:VLLMProcessor",
    "vllm_chat": "biocoder_metric.generation.processors.vllm_backend:VLLMChatProcessor",
}


def processor_class(name: str) -> type[Processor]:
    """Resolve a processor name or ``module:Class`` path to its class."""
    target = PROCESSORS.get(name, name)
    if ":" not in target:
        raise ValueError(
            f"unknown processor {name!r}: use one of {sorted(PROCESSORS)} or 'package.module:ClassName'"
        )
    module_name, _, class_name = target.partition(":")
    module = importlib.import_module(module_name)
    try:
        cls = getattr(module, class_name)
    except AttributeError as exc:
        raise ValueError(f"processor {name!r}: module {module_name} has no class {class_name}") from exc
    if not (isinstance(cls, type) and issubclass(cls, Processor)):
        raise ValueError(
            f"processor {name!r}: {target} is not a subclass of biocoder_metric.generation.processors.Processor"
        )
    return cls


def make_processor(spec: ModelSpec, *, device: Any = None) -> Processor:
    """The processor object for a resolved registry entry (nothing is loaded yet)."""
    return processor_class(spec.processor)(spec, device=device)


__all__ = [
    "PROCESSORS",
    "STOP_SEQUENCES",
    "Generation",
    "ModelSpec",
    "Processor",
    "assemble_candidate",
    "make_processor",
    "processor_class",
    "truncate_at_stops",
]
