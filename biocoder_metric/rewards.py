"""Reward functions for RL trainers: TRL's ``reward_funcs`` and verl's ``compute_score``.

Both return the CLI's verdict as a number: 1.0 when the sample passed, else 0.0, or with
``partial_credit`` the fraction of fuzz cases it passed (still 0.0 for any sample whose task is
not scored, and for compile errors, timeouts and sandbox failures). They talk to a running
``biocoder serve`` (``server_url``, or the server-URL setting of :mod:`biocoder_dataset.settings`), or, without one,
to an in-process :class:`~biocoder_metric.service.verifier.Verifier` started once per config and
kept warm (the config, source-dir and sandbox settings; docs/ARCHITECTURE.md "Settings").

What they inherit (docs/security.md, docs/service.md): the candidate runs only in the sandbox;
a sample that kills its sandbox is retried once and then proven by a canary, so it scores 0
(``sandbox_killed``) instead of being dropped; nothing survives between cases or samples (clean
state), so one completion cannot leave a file or process that makes another pass; golden outputs
are computed in their own pool and never enter a candidate's sandbox; a task whose harness a
null candidate passes is not scored, so ``return None`` earns nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

_LOCAL: dict[tuple[Any, ...], Any] = {}
_LOCAL_LOCK = threading.Lock()


def _text(completion: Any) -> str:
    """A completion as text: TRL passes strings, or chat messages (the last message's content)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion and isinstance(completion[-1], dict):
        return str(completion[-1].get("content") or "")
    if isinstance(completion, dict):
        return str(completion.get("content") or "")
    return str(completion)


def local_verifier(
    config: str | None = None, source_dir: str | None = None, sandbox: str | None = None
) -> Any:
    """The in-process verifier for ``config`` (started on first use, then reused)."""
    from biocoder_dataset import settings

    config = config or settings.env_str(settings.ENV_CONFIG) or "demo"
    source_dir = source_dir or settings.env_str(settings.ENV_SOURCE_DIR)
    sandbox = sandbox or settings.env_str(settings.ENV_SANDBOX) or settings.SANDBOX
    key = (config, source_dir, sandbox)
    with _LOCAL_LOCK:
        if key not in _LOCAL:
            from biocoder_dataset.configs import load_problems
            from biocoder_metric.execution import EvalOptions
            from biocoder_metric.service.verifier import Verifier

            _LOCAL[key] = Verifier(load_problems(config, source_dir=source_dir), EvalOptions(sandbox=sandbox))
        return _LOCAL[key]


def judge(
    samples: list[dict[str, Any]],
    server_url: str | None = None,
    token: str | None = None,
    timeout_s: float = 3600.0,
) -> list[dict[str, Any]]:
    """Verdict dicts (the ``/v1/judge`` result shape) for ``samples``, from the server or in process."""
    from biocoder_dataset import settings

    url = server_url or settings.env_str(settings.ENV_SERVER_URL)
    if not url:
        return [v.to_json() for v in local_verifier().judge(samples)]
    import httpx

    token = token or settings.env_str(settings.ENV_SERVER_TOKEN)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    while True:
        resp = httpx.post(
            url.rstrip("/") + "/v1/judge", json={"samples": samples}, headers=headers, timeout=timeout_s
        )
        if resp.status_code == 429:  # the server's queue is full: wait as it says, then retry
            import time

            time.sleep(float(resp.headers.get("Retry-After", "1")))
            continue
        resp.raise_for_status()
        return resp.json()["results"]


def reward_of(verdict: dict[str, Any], partial_credit: bool = False) -> float:
    """1.0 for passed, else 0.0; with ``partial_credit`` the passed fraction of cases (scored tasks only)."""
    if verdict.get("passed"):
        return 1.0
    if partial_credit and verdict.get("task_status", "ok") == "ok" and verdict.get("status") == "failed":
        total = verdict.get("cases_total") or 0
        return float(verdict.get("cases_passed") or 0) / total if total else 0.0
    return 0.0


def trl_reward(
    prompts: Sequence[Any],
    completions: Sequence[Any],
    task_id: Sequence[str],
    server_url: str | None = None,
    partial_credit: bool = False,
    **kwargs: Any,
) -> list[float]:
    """TRL ``GRPOTrainer`` reward function: one reward per completion.

    TRL calls ``f(prompts=..., completions=..., completion_ids=..., **dataset_columns, trainer_state=...)``;
    ``task_id`` is the dataset column (one per completion, repeated for each generation).
    """
    if len(task_id) != len(completions):
        raise ValueError(f"trl_reward: {len(completions)} completions but {len(task_id)} task ids")
    samples = [
        {"task_id": t, "completion": _text(c), "sample_id": i}
        for i, (t, c) in enumerate(zip(task_id, completions, strict=True))
    ]
    return [reward_of(v, partial_credit) for v in judge(samples, server_url)]


def verl_compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: Any,
    extra_info: dict[str, Any] | None = None,
    **kwargs: Any,
) -> float:
    """verl's custom ``compute_score``: ``extra_info`` carries ``task_id`` (else ``ground_truth`` is the id)
    and optionally ``server_url`` and ``partial_credit``."""
    info = extra_info or {}
    task = info.get("task_id") or (ground_truth if isinstance(ground_truth, str) else None)
    if not task:
        raise ValueError(
            "verl_compute_score: put the BioCoder task id in extra_info['task_id'] (or ground_truth)"
        )
    verdict = judge([{"task_id": task, "completion": solution_str}], info.get("server_url"))[0]
    return reward_of(verdict, bool(info.get("partial_credit")))
