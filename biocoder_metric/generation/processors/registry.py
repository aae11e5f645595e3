"""Read the model registry (``biocoder_metric/generation/models.yaml`` or a user's file) into a :class:`ModelSpec`.

Why a file and not flags: a reported score is only reproducible with the exact model
revision, prompt style and decoding settings, so those live in one reviewed place and the
run metadata records the resolved entry. Merge order, lowest first: ``defaults`` ->
the model's top-level keys -> the chosen version; within ``generation_config`` the
chosen decode mode is merged over ``generation_config.defaults``.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from biocoder_metric.generation.processors.base import ModelSpec

#: The registry shipped with the package.
DEFAULT_MODELS_FILE = Path(__file__).resolve().parent.parent / "models.yaml"

_SPEC_KEYS = {
    "path",
    "processor",
    "tokenizer",
    "model_kwargs",
    "backend_kwargs",
    "batch_size",
    "n_samples",
    "decode_mode",
    "prompt_style",
    "system_prompt",
    "prompt_prefix",
    "prompt_suffix",
    "generation_config",
}
_MODEL_KEYS = _SPEC_KEYS | {"versions", "default_version", "description"}


def deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """``over`` on top of ``base``; nested dicts merge key by key, other values are replaced."""
    out = copy.deepcopy(base)
    for key, value in (over or {}).items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def load_registry(models_file: str | Path | None = None) -> dict[str, Any]:
    """Parse and check a models file (the packaged one when ``None``; a user's file inherits its ``defaults``)."""
    path = Path(models_file) if models_file else DEFAULT_MODELS_FILE
    if not path.is_file():
        raise FileNotFoundError(f"models file not found: {path}")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("models"), dict):
        raise ValueError(f"{path}: expected a mapping with a 'models:' section")
    for key in data.get("defaults") or {}:
        if key not in _SPEC_KEYS:
            raise ValueError(f"{path}: defaults: unknown key {key!r} (known: {sorted(_SPEC_KEYS)})")
    for name, model in data["models"].items():
        if (
            not isinstance(model, dict)
            or not isinstance(model.get("versions"), dict)
            or not model["versions"]
        ):
            raise ValueError(f"{path}: model {name!r} needs a non-empty 'versions:' mapping")
        for key in model:
            if key not in _MODEL_KEYS:
                raise ValueError(
                    f"{path}: model {name!r}: unknown key {key!r} (known: {sorted(_MODEL_KEYS)})"
                )
        for version, entry in model["versions"].items():
            for key in entry or {}:
                if key not in _SPEC_KEYS:
                    raise ValueError(f"{path}: model {name!r} version {version!r}: unknown key {key!r}")
    if path.resolve() != DEFAULT_MODELS_FILE:
        # a user's file inherits the packaged defaults (decode modes etc.) unless it overrides them
        packaged = yaml.safe_load(DEFAULT_MODELS_FILE.read_text(encoding="utf-8")) or {}
        data["defaults"] = deep_merge(packaged.get("defaults") or {}, data.get("defaults") or {})
    data["_path"] = str(path)
    return data


def list_models(models_file: str | Path | None = None) -> list[str]:
    """``name@version`` for every entry, in file order."""
    reg = load_registry(models_file)
    return [f"{name}@{v}" for name, m in reg["models"].items() for v in m["versions"]]


def resolve_model(
    name: str,
    models_file: str | Path | None = None,
    *,
    version: str | None = None,
    decode_mode: str | None = None,
    overrides: dict[str, Any] | None = None,
) -> ModelSpec:
    """The merged settings of ``name`` (``name@version`` also accepted) as a :class:`ModelSpec`.

    ``overrides`` (e.g. from CLI flags: ``path``, ``n_samples``, ``batch_size``, ``prompt_style``,
    ``max_new_tokens``) are applied last; ``None`` values are ignored.
    """
    reg = load_registry(models_file)
    where = reg["_path"]
    if "@" in name and version is None:
        name, version = name.split("@", 1)
    if name not in reg["models"]:
        raise ValueError(f"{where}: no model named {name!r}; known: {', '.join(sorted(reg['models']))}")
    model = reg["models"][name]
    versions = model["versions"]
    version = version or model.get("default_version") or next(iter(versions))
    if version not in versions:
        raise ValueError(f"{where}: model {name!r} has no version {version!r}; known: {', '.join(versions)}")

    top = {k: v for k, v in model.items() if k not in ("versions", "default_version", "description")}
    merged = deep_merge(deep_merge(reg.get("defaults") or {}, top), versions[version] or {})
    overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
    max_new_tokens = overrides.pop("max_new_tokens", None)
    merged = deep_merge(merged, overrides)

    if not merged.get("path"):
        raise ValueError(f"{where}: model {name!r} version {version!r} has no 'path'")
    modes = merged.get("generation_config") or {}
    mode = decode_mode or merged.get("decode_mode") or "greedy"
    if mode == "defaults" or mode not in modes:
        known = [m for m in modes if m != "defaults"]
        raise ValueError(f"{where}: model {name!r}: unknown decode mode {mode!r}; known: {', '.join(known)}")
    generation = deep_merge(modes.get("defaults") or {}, modes[mode] or {})
    if max_new_tokens is not None:
        generation["max_new_tokens"] = int(max_new_tokens)

    return ModelSpec(
        name=name,
        version=str(version),
        path=str(merged["path"]),
        processor=str(merged.get("processor", "causal_lm")),
        tokenizer=dict(merged.get("tokenizer") or {}),
        model_kwargs=dict(merged.get("model_kwargs") or {}),
        decode_mode=mode,
        generation=generation,
        batch_size=int(merged.get("batch_size", 1)),
        n_samples=int(merged.get("n_samples", 1)),
        prompt_style=str(merged.get("prompt_style", "full_context")),
        system_prompt=merged.get("system_prompt"),
        prompt_prefix=str(merged.get("prompt_prefix") or ""),
        prompt_suffix=str(merged.get("prompt_suffix") or ""),
        backend_kwargs=dict(merged.get("backend_kwargs") or {}),
    )
