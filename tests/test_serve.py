"""``biocoder serve`` and the reward functions: a real uvicorn server on loopback, a real sandbox.

The server's verdicts are compared with the engine's on the same samples, the TRL and verl reward
functions are called with the trainers' own call signatures, the accounting issue's sabotage
corpus gets the CLI's scores through the server, and bad input, overload and missing tokens get
their documented answers.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip(
    "fastapi", reason="the service extra is not installed (pip install 'biocoder-eval[service]')"
)
httpx = pytest.importorskip("httpx")
uvicorn = pytest.importorskip("uvicorn")

from biocoder_dataset.configs import load_problems  # noqa: E402
from biocoder_metric.execution import EvalOptions, run_evaluation  # noqa: E402
from biocoder_metric.rewards import reward_of, trl_reward, verl_compute_score  # noqa: E402
from biocoder_metric.service.app import create_app  # noqa: E402
from biocoder_metric.service.verifier import Verifier  # noqa: E402

from reliability_support import sandbox_reason  # noqa: E402


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """uvicorn serving ``app`` in a thread on a loopback port; stopped on exit."""

    def __init__(self, app):
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> Server:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.05)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


def _options(tmp: Path) -> EvalOptions:
    return EvalOptions(
        sandbox="bwrap", workers=2, fuzz_cases=3, timeout_s=5.0, golden_cache_dir=str(tmp / "g")
    )


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    reason = sandbox_reason("bwrap")
    if reason:
        pytest.skip(f"bwrap sandbox not available here: {reason}")
    tmp = tmp_path_factory.mktemp("serve")
    rows = [
        r
        for r in load_problems("demo")
        if r["task_id"] in ("demo_py_gc_content", "demo_py_hamming", "demo_java_revcomp")
    ]
    assert len(rows) == 3
    verifier = Verifier(rows, _options(tmp))
    yield rows, verifier, tmp
    verifier.close()


def _samples(rows):
    out = []
    for r in rows:
        out.append(
            {"task_id": r["task_id"], "completion": r["golden_code"], "sample_id": f"{r['task_id']}/gold"}
        )
        wrong = {
            "demo_py_gc_content": "def gc_content(seq):\n    return 0.5\n",
            "demo_py_hamming": "def hamming_distance(a, b):\n    return 0\n",
            "demo_java_revcomp": "public static String reverseComplement(String dna) {\n    return dna;\n}\n",
        }[r["task_id"]]
        out.append({"task_id": r["task_id"], "completion": wrong, "sample_id": f"{r['task_id']}/wrong"})
    return out


def test_judge_gives_the_engines_verdicts_in_request_order(demo):
    rows, verifier, tmp = demo
    samples = _samples(rows)
    cli = run_evaluation(
        rows, [{k: s[k] for k in ("task_id", "completion")} for s in samples], _options(tmp), progress=False
    )
    expected = {(r.task_id, r.sample_index): r.status for r in cli.results}
    with Server(create_app(verifier)) as srv:
        resp = httpx.post(srv.url + "/v1/judge", json={"samples": samples}, timeout=300)
        assert resp.status_code == 200, resp.text
        results = resp.json()["results"]
        assert [r["sample_id"] for r in results] == [s["sample_id"] for s in samples]
        per_task: dict[str, int] = {}
        for r in results:
            i = per_task.get(r["task_id"], 0)
            per_task[r["task_id"]] = i + 1
            assert r["status"] == expected[(r["task_id"], i)], r
            assert r["passed"] == (r["status"] == "passed")
        assert sum(r["passed"] for r in results) == 3
        failures = [r["first_failure"] for r in results if not r["passed"]]
        assert failures and all("expected_tail" not in f for f in failures)  # no golden output leaves
        health = httpx.get(srv.url + "/v1/health").json()
        assert health["status"] == "ok" and health["tasks"] == 3
        tasks = httpx.get(srv.url + "/v1/tasks").json()["tasks"]
        assert {t["task_id"] for t in tasks} == {r["task_id"] for r in rows} and all(
            t["scored"] for t in tasks
        )
        metrics = httpx.get(srv.url + "/metrics").text
        assert (
            "biocoder_judged_total" in metrics
            and 'biocoder_sample_latency_seconds{quantile="0.99"}' in metrics
        )
        sf = httpx.post(
            srv.url + "/submit",
            json={
                "dataset": "biocoder",
                "id": rows[0]["task_id"],
                "completion": rows[0]["golden_code"],
                "config": {},
            },
        ).json()
        assert sf["accepted"] is True and sf["id"] == rows[0]["task_id"] and sf["tests"][0]["passed"]


def test_bad_input_gets_400_or_413_and_the_server_keeps_serving(demo):
    rows, verifier, _ = demo
    with Server(create_app(verifier, max_body_bytes=4096, max_samples=4)) as srv:
        bad = httpx.post(
            srv.url + "/v1/judge", content=b"{not json", headers={"content-type": "application/json"}
        )
        assert bad.status_code == 400 and "not JSON" in bad.json()["error"]
        unknown = httpx.post(
            srv.url + "/v1/judge", json={"samples": [{"task_id": "nope", "completion": "x"}]}
        )
        assert (
            unknown.status_code == 400
            and "samples[0]" in unknown.json()["error"]
            and "nope" in unknown.json()["error"]
        )
        missing = httpx.post(srv.url + "/v1/judge", json={"samples": [{"task_id": rows[0]["task_id"]}]})
        assert missing.status_code == 400 and "completion" in missing.json()["error"]
        big = httpx.post(
            srv.url + "/v1/judge",
            json={"samples": [{"task_id": rows[0]["task_id"], "completion": "x" * 5000}]},
        )
        assert big.status_code == 413
        many = httpx.post(
            srv.url + "/v1/judge", json={"samples": [{"task_id": rows[0]["task_id"], "completion": "x"}] * 5}
        )
        assert many.status_code == 413
        ok = httpx.post(
            srv.url + "/v1/judge",
            json={"samples": [{"task_id": rows[0]["task_id"], "completion": rows[0]["golden_code"]}]},
            timeout=300,
        )
        assert ok.status_code == 200 and ok.json()["results"][0]["passed"]


def test_a_full_queue_answers_429_with_retry_after(demo):
    rows, verifier, _ = demo
    slow = "import time\n\ndef gc_content(seq):\n    time.sleep(1.0)\n    return 0.5\n"
    row = next(r for r in rows if r["task_id"] == "demo_py_gc_content")
    with Server(create_app(verifier, queue_limit=2)) as srv:
        answers = []

        def post() -> None:
            answers.append(
                httpx.post(
                    srv.url + "/v1/judge",
                    json={"samples": [{"task_id": row["task_id"], "completion": slow}] * 2},
                    timeout=300,
                )
            )

        first = threading.Thread(target=post)
        first.start()
        time.sleep(0.5)  # the first request holds the whole queue
        second = httpx.post(
            srv.url + "/v1/judge", json={"samples": [{"task_id": row["task_id"], "completion": slow}]}
        )
        first.join()
        assert second.status_code == 429 and int(second.headers["Retry-After"]) >= 1
        results = answers[0].json()["results"]
        assert answers[0].status_code == 200 and len(results) == 2 and not any(r["passed"] for r in results)


def test_a_token_is_required_when_set(demo):
    rows, verifier, _ = demo
    with Server(create_app(verifier, token="s3cret")) as srv:
        body = {"samples": [{"task_id": rows[0]["task_id"], "completion": rows[0]["golden_code"]}]}
        assert httpx.post(srv.url + "/v1/judge", json=body).status_code == 401
        assert (
            httpx.post(
                srv.url + "/v1/judge", json=body, headers={"Authorization": "Bearer wrong"}
            ).status_code
            == 401
        )
        ok = httpx.post(
            srv.url + "/v1/judge", json=body, headers={"Authorization": "Bearer s3cret"}, timeout=300
        )
        assert ok.status_code == 200
        assert httpx.get(srv.url + "/v1/health").status_code == 200  # liveness stays open


def test_trl_and_verl_reward_functions_with_the_trainers_signatures(demo):
    rows, verifier, _ = demo
    row = next(r for r in rows if r["task_id"] == "demo_py_gc_content")
    wrong = "def gc_content(seq):\n    return 0.5\n"
    with Server(create_app(verifier)) as srv:
        # what GRPOTrainer._calculate_rewards passes: prompts, completions, completion_ids, every
        # dataset column but the prompt (here task_id), trainer_state, log_extra, log_metric
        rewards = trl_reward(
            prompts=["p", "p", "p"],
            completions=[row["golden_code"], wrong, [{"role": "assistant", "content": row["golden_code"]}]],
            completion_ids=[[1], [2], [3]],
            task_id=[row["task_id"]] * 3,
            trainer_state=None,
            log_extra=lambda *a, **k: None,
            log_metric=lambda *a, **k: None,
            server_url=srv.url,
        )
        assert rewards == [1.0, 0.0, 1.0]
        partial = trl_reward(
            prompts=["p"],
            completions=[wrong],
            task_id=[row["task_id"]],
            server_url=srv.url,
            partial_credit=True,
        )
        assert 0.0 <= partial[0] < 1.0
        assert (
            verl_compute_score(
                "biocoder",
                row["golden_code"],
                None,
                extra_info={"task_id": row["task_id"], "server_url": srv.url},
            )
            == 1.0
        )
        assert (
            verl_compute_score(
                data_source="biocoder",
                solution_str=wrong,
                ground_truth=row["task_id"],
                extra_info={"server_url": srv.url},
            )
            == 0.0
        )
    assert (
        reward_of({"passed": False, "status": "sandbox_killed", "cases_passed": 2, "cases_total": 3}, True)
        == 0.0
    )


def test_trl_accepts_the_reward_function():
    """TRL's own check of a reward function: a callable it can name (its reward_func_names)."""
    trl = pytest.importorskip(
        "trl", reason="TRL is not installed: only its documented call signature is tested"
    )
    from trl import GRPOConfig

    assert callable(trl_reward) and trl_reward.__name__ == "trl_reward"
    assert GRPOConfig is not None and hasattr(trl, "GRPOTrainer")


@pytest.mark.slow
def test_the_sabotage_corpus_scores_through_the_server_as_through_the_cli(tmp_path):
    """The accounting issue's attack corpus: 25% through the CLI, 25% through the server."""
    from test_sabotage_accounting import _tasks_and_samples

    reason = sandbox_reason("bwrap")
    if reason:
        pytest.skip(f"bwrap sandbox not available here: {reason}")
    rows, samples = _tasks_and_samples()
    opts = EvalOptions(
        sandbox="bwrap", workers=2, fuzz_cases=2, timeout_s=5.0, golden_cache_dir=str(tmp_path / "g")
    )
    verifier = Verifier(rows, opts)
    try:
        with Server(create_app(verifier, queue_limit=len(samples))) as srv:
            resp = httpx.post(srv.url + "/v1/judge", json={"samples": samples}, timeout=1800)
            assert resp.status_code == 200, resp.text
            results = resp.json()["results"]
            rewards = trl_reward(
                prompts=[""] * len(samples),
                completions=[s["completion"] for s in samples],
                task_id=[s["task_id"] for s in samples],
                server_url=srv.url,
            )
    finally:
        verifier.close()
    by_task: dict[str, list[bool]] = {}
    for r in results:
        by_task.setdefault(r["task_id"], []).append(r["passed"])
        assert r["status"] != "sandbox_error", r  # no attack turns into an excluded sample
    assert {t: sum(v) for t, v in by_task.items()} == {r["task_id"]: 1 for r in rows}
    assert sum(r["passed"] for r in results) / len(results) == pytest.approx(0.25)
    assert sum(rewards) / len(rewards) == pytest.approx(0.25)  # the reward function: the same 25%
    json.dumps(results)  # the response is plain JSON
