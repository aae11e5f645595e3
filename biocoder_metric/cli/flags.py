"""Flag groups built from the options dataclasses, so a default is written once.

Each field of an options dataclass (:class:`~biocoder_metric.execution.EvalOptions`,
:class:`~biocoder_metric.synth.pipeline.SynthOptions`) becomes one flag: its name is the
field's (``--fuzz-cases``) unless ``metadata["flag"]`` says otherwise, its default and type
come from the field, and its help from ``metadata["help"]`` plus the default. Commands then
build the dataclass back from the parsed arguments with :func:`options_from_args`.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Iterable
from typing import Any

from biocoder_metric.cli.errors import UsageError

#: The groups of EvalOptions fields, as ``--help`` shows them.
ENGINE_FIELDS = (
    "sandbox",
    "allow_unsafe",
    "image",
    "workers",
    "fuzz_cases",
    "timeout_s",
    "memory_mb",
    "seed",
    "golden_cache_dir",
    "use_golden_cache",
    "case_batching",
)
SCALE_FIELDS = ("executor", "ray_address", "workers_per_node")
VALIDITY_FIELDS = ("rosalind_check", "plus", "include_weak")


def _scalar_type(f: dataclasses.Field, default: Any) -> type:
    if "type" in f.metadata:
        return f.metadata["type"]
    if default is not None:
        return type(default)
    annotation = str(f.type)
    for name, kind in (("float", float), ("int", int)):
        if name in annotation:
            return kind
    return str


def flag_name(f: dataclasses.Field) -> str:
    """The field's command-line flag."""
    if "flag" in f.metadata:
        return f.metadata["flag"]
    default = f.default
    if default is True:  # a switch that is on unless turned off
        return "--no-" + f.name.replace("_", "-").removeprefix("use-")
    return "--" + f.name.replace("_", "-")


def add_option_flags(
    parser: argparse.ArgumentParser | argparse._ArgumentGroup,
    cls: type,
    names: Iterable[str] | None = None,
    exclude: Iterable[str] = (),
    overrides_only: bool = False,
) -> None:
    """One flag per field of ``cls`` (``names``: these fields only, in this order).

    ``overrides_only``: every flag defaults to None (a switch to unset), so that a flag given
    overrides a value loaded from elsewhere (a settings file) and one not given leaves it; the
    help still shows the dataclass default. :func:`apply_overrides` applies them.
    """
    by_name = {f.name: f for f in dataclasses.fields(cls)}
    chosen = list(names) if names is not None else list(by_name)
    skip = set(exclude)
    for name in chosen:
        if name in skip:
            continue
        f = by_name[name]
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
        text = f.metadata.get("help", "")
        if isinstance(default, bool):
            parser.add_argument(
                flag_name(f),
                dest=f.name,
                action="store_const",
                const=not default,
                default=None if overrides_only else default,
                help=text,
            )
            continue
        kwargs: dict[str, Any] = {
            "dest": f.name,
            "default": None if overrides_only else default,
            "type": _scalar_type(f, default),
        }
        if "choices" in f.metadata:
            kwargs["choices"] = f.metadata["choices"]
        kwargs["metavar"] = f.metadata.get("metavar") or flag_name(f).lstrip("-").replace("-", "_").upper()
        shown = "" if default is None or isinstance(default, (list, dict)) else f" (default: {default})"
        parser.add_argument(flag_name(f), help=f"{text}{shown}", **kwargs)


def options_from_args(
    cls: type, args: argparse.Namespace, names: Iterable[str] | None = None, **overrides: Any
) -> Any:
    """``cls`` from the parsed flags; a bad value is a usage error.

    ``names``: exactly these fields are read (each must be a flag of the command: a missing one is
    a programming error, not a silent default); without it, every field that has a flag is read.
    Fields not read keep their defaults.
    """
    if names is not None:
        parsed = vars(args)
        values = {name: parsed[name] for name in names}
    else:
        values = {f.name: getattr(args, f.name) for f in dataclasses.fields(cls) if hasattr(args, f.name)}
    values.update(overrides)
    try:
        return cls(**values)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def apply_overrides(options: Any, args: argparse.Namespace) -> Any:
    """Set on ``options`` every field whose flag was given (flags added with ``overrides_only``)."""
    for f in dataclasses.fields(options):
        value = getattr(args, f.name, None)
        if value is not None:
            setattr(options, f.name, value)
    return options
