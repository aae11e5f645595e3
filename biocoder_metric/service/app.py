"""The HTTP face of a :class:`~biocoder_metric.service.verifier.Verifier` (FastAPI on uvicorn).

Why FastAPI/Starlette on uvicorn: a maintained ASGI stack that RL tooling already deploys
(SandboxFusion is FastAPI too), request validation and an OpenAPI page for free, and an event
loop that keeps accepting (and refusing with 429) while the sandboxes work in threads.

Routes (docs/service.md):

* ``POST /v1/judge`` ``{"samples": [{task_id, completion, sample_id?}, ...]}`` ->
  ``{"results": [...]}`` in request order: ``sample_id, task_id, status, passed,
  cases_passed, cases_total, task_status, first_failure?``; the CLI's verdicts.
* ``POST /submit``: SandboxFusion's dataset-judging call (``{dataset, id, completion, config}``
  -> ``{id, accepted, extracted_code, tests, extra}``) for one sample.
* ``GET /v1/health``, ``GET /v1/tasks`` (ids, languages, whether scored, why not),
  ``GET /metrics`` (Prometheus text: judged, in flight, queue depth, rate, latency quantiles).

Back-pressure: at most ``queue_limit`` samples are admitted at once (judged or waiting); a
request that would exceed it gets ``429`` with ``Retry-After``. A body over ``max_body_bytes``
or with more than ``max_samples`` samples gets ``413``; bad JSON, an unknown task or an
oversized completion ``400`` naming the item. Nothing a client sends can stop the server.
"""

# No ``from __future__ import annotations`` here: FastAPI reads the route functions' annotations at
# run time, and ``Request`` is imported inside :func:`create_app` (the service extra is optional).
import json
import math
import secrets
import threading
import time
from typing import Any

from biocoder_metric.service.verifier import BadSampleError, Verifier

#: Request body limit (bytes) and samples per request.
MAX_BODY_BYTES = 16 * 1024 * 1024
MAX_SAMPLES = 1024


class Admission:
    """How many samples are admitted (judging or waiting); the bounded queue behind ``429``."""

    def __init__(self, limit: int):
        self.limit = limit
        self.pending = 0
        self._lock = threading.Lock()

    def take(self, n: int) -> bool:
        with self._lock:
            if self.pending + n > self.limit and self.pending > 0:
                return False
            self.pending += n
            return True

    def give(self, n: int) -> None:
        with self._lock:
            self.pending -= n


def _quantile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def create_app(
    verifier: Verifier,
    *,
    token: str | None = None,
    queue_limit: int | None = None,
    max_body_bytes: int = MAX_BODY_BYTES,
    max_samples: int = MAX_SAMPLES,
) -> Any:
    """The ASGI app over a started verifier. ``token``: required as ``Authorization: Bearer`` when set."""
    from fastapi import FastAPI, Request
    from fastapi.responses import JSONResponse, PlainTextResponse

    app = FastAPI(
        title="biocoder-eval verifier",
        version="1",
        description="BioCoder's differential fuzz judging behind HTTP (docs/service.md)",
    )
    admission = Admission(queue_limit or max(8, 4 * verifier.concurrency))
    app.state.verifier, app.state.admission = verifier, admission
    started = time.monotonic()

    def error(code: int, message: str, **headers: str) -> Any:
        return JSONResponse({"error": message}, status_code=code, headers=headers or None)

    def authorised(request: Request) -> bool:
        if token is None:
            return True
        got = request.headers.get("authorization", "")
        return secrets.compare_digest(got.encode(), f"Bearer {token}".encode())

    async def read_body(request: Request) -> tuple[Any, Any]:
        """(parsed JSON, None) or (None, error response)."""
        declared = request.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > max_body_bytes:
            return None, error(413, f"request body of {declared} bytes is over the limit of {max_body_bytes}")
        body = await request.body()
        if len(body) > max_body_bytes:
            return None, error(
                413, f"request body of {len(body)} bytes is over the limit of {max_body_bytes}"
            )
        try:
            return json.loads(body), None
        except (ValueError, UnicodeDecodeError) as exc:
            return None, error(400, f"the body is not JSON: {exc}")

    async def judge(samples: list[Any]) -> tuple[list[dict[str, Any]] | None, Any]:
        from anyio import to_thread

        try:
            checked = verifier.check(samples)
        except BadSampleError as exc:
            return None, error(400, str(exc))
        if not admission.take(len(samples)):
            wait = max(1, round(admission.pending / max(1.0, _rate()) if _rate() else 1))
            return None, error(
                429,
                f"the queue is full ({admission.pending} samples admitted, limit "
                f"{admission.limit}); retry later",
                **{"Retry-After": str(wait)},
            )
        try:
            verdicts = await to_thread.run_sync(verifier.judge_checked, checked, abandon_on_cancel=True)
        finally:
            admission.give(len(samples))
        return [v.to_json() for v in verdicts], None

    def _rate() -> float:
        elapsed = time.monotonic() - verifier.stats.started
        return verifier.stats.judged / elapsed if elapsed > 0 else 0.0

    @app.middleware("http")
    async def guard(request: Request, call_next: Any) -> Any:
        if request.url.path not in ("/v1/health", "/docs", "/openapi.json") and not authorised(request):
            return error(401, "missing or wrong bearer token")
        try:
            return await call_next(request)
        except Exception as exc:  # noqa: BLE001 - no request may take the server down
            return error(500, f"internal error: {type(exc).__name__}: {exc}")

    @app.get("/v1/health")
    async def health() -> dict[str, Any]:
        return {
            "status": "ok",
            "tasks": len(verifier.by_id),
            "sandbox": verifier.sandbox,
            "environment_id": verifier.environment_id,
            "uptime_s": round(time.monotonic() - started, 1),
        }

    @app.get("/v1/tasks")
    async def tasks() -> dict[str, Any]:
        return {"tasks": verifier.tasks()}

    @app.post("/v1/judge")
    async def judge_route(request: Request) -> Any:
        payload, bad = await read_body(request)
        if bad is not None:
            return bad
        samples = payload.get("samples") if isinstance(payload, dict) else None
        if not isinstance(samples, list) or not samples:
            return error(400, 'expected {"samples": [{"task_id": ..., "completion": ...}, ...]}')
        if len(samples) > max_samples:
            return error(413, f"{len(samples)} samples in one request is over the limit of {max_samples}")
        results, bad = await judge(samples)
        return bad if bad is not None else {"results": results}

    @app.post("/submit")
    async def submit_route(request: Request) -> Any:
        """SandboxFusion's ``/submit`` shape for one sample (docs/service.md: the mapping)."""
        payload, bad = await read_body(request)
        if bad is not None:
            return bad
        if not isinstance(payload, dict) or not isinstance(payload.get("completion"), str):
            return error(400, 'expected {"dataset": ..., "id": TASK_ID, "completion": ..., "config": {}}')
        task_id = str(payload.get("id"))
        results, bad = await judge(
            [{"task_id": task_id, "completion": payload["completion"], "sample_id": task_id}]
        )
        if bad is not None:
            return bad
        r = results[0]
        from biocoder_metric.generation.postprocess import extract_code

        row = verifier.by_id[task_id]
        return {
            "id": payload.get("id"),
            "accepted": r["passed"],
            "extracted_code": extract_code(payload["completion"], row["language"], row.get("function_name")),
            "tests": [
                {
                    "passed": r["passed"],
                    "exec_info": {"status": r["status"]},
                    "test_info": {"cases_passed": r["cases_passed"], "cases_total": r["cases_total"]},
                }
            ],
            "extra": {"biocoder": r, "dataset": payload.get("dataset")},
        }

    @app.get("/metrics")
    async def metrics() -> Any:
        s = verifier.stats
        lat = list(s.latencies_s)
        lines = [
            "# HELP biocoder_judged_total Samples judged since start.",
            "# TYPE biocoder_judged_total counter",
            f"biocoder_judged_total {s.judged}",
            "# HELP biocoder_judged_by_status_total Samples judged, by verdict.",
            "# TYPE biocoder_judged_by_status_total counter",
            *[f'biocoder_judged_by_status_total{{status="{k}"}} {v}' for k, v in sorted(s.by_status.items())],
            "# HELP biocoder_in_flight Samples being judged now.",
            "# TYPE biocoder_in_flight gauge",
            f"biocoder_in_flight {s.in_flight}",
            "# HELP biocoder_queue_depth Samples admitted and not yet answered.",
            "# TYPE biocoder_queue_depth gauge",
            f"biocoder_queue_depth {admission.pending}",
            "# HELP biocoder_queue_limit Samples admitted at most (then 429).",
            "# TYPE biocoder_queue_limit gauge",
            f"biocoder_queue_limit {admission.limit}",
            "# HELP biocoder_judged_per_second Mean judging rate since start.",
            "# TYPE biocoder_judged_per_second gauge",
            f"biocoder_judged_per_second {_rate():.4f}",
            "# HELP biocoder_sample_latency_seconds Per-sample judging latency (last 10,000).",
            "# TYPE biocoder_sample_latency_seconds summary",
            *[
                f'biocoder_sample_latency_seconds{{quantile="{q}"}} {_quantile(lat, q):.6f}'
                for q in (0.5, 0.95, 0.99)
            ],
            f"biocoder_sample_latency_seconds_count {len(lat)}",
            f"biocoder_sample_latency_seconds_sum {sum(lat):.6f}",
        ]
        return PlainTextResponse("\n".join(lines) + "\n", media_type="text/plain; version=0.0.4")

    return app


def is_loopback(host: str) -> bool:
    """Whether ``host`` binds to this machine only."""
    import ipaddress

    if host in ("localhost",):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
