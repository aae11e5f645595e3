"""A minimal OpenAI-compatible server for a local ``transformers`` causal LM.

Why it exists: ``biocoder build prompts --api-base`` talks to any OpenAI-compatible endpoint,
and that path has to be testable offline against a *real* model. ``transformers serve`` and
vLLM are heavy or may be missing; this server is a few dozen lines on top of
``AutoModelForCausalLM`` and serves ``POST /v1/chat/completions``, ``POST /v1/completions``
and ``GET /v1/models``. Concurrent requests are gathered into one batched ``generate`` call
(micro-batching: whatever arrived while the previous batch ran), so the client's concurrent
batch really is a batch on the model. It binds to loopback by default and has no
authentication: it is a development tool, not a production server.

Run: ``python -m biocoder_metric.build.serve --model PATH [--port 8000]`` (``--port 0`` picks a
free port; the first line printed is ``serving <model> on http://HOST:PORT/v1``).
"""

from __future__ import annotations

import argparse
import json
import queue
import threading
import time
from concurrent.futures import Future
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Generator:
    """Owns the model; a worker thread runs queued requests in batches."""

    def __init__(self, model_path: str, max_batch: int = 8, device: str | None = None) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.name = model_path
        self.tokenizer = AutoTokenizer.from_pretrained(model_path)
        self.tokenizer.padding_side = "left"
        self.tokenizer.truncation_side = "left"  # an over-long prompt loses its start, never the question
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.model = AutoModelForCausalLM.from_pretrained(model_path)
        self.model.to(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.model.eval()
        cfg = self.model.config
        self.max_positions = (
            getattr(cfg, "max_position_embeddings", None) or getattr(cfg, "n_positions", None) or 2048
        )
        self.max_batch = max_batch
        self.queue: queue.Queue[tuple[str, int, Future[tuple[str, int, int]]]] = queue.Queue()
        self.batches: list[int] = []  # sizes of the batches run (observable by tests)
        threading.Thread(target=self._work, daemon=True).start()

    def chat_prompt(self, messages: list[dict[str, str]]) -> str:
        if getattr(self.tokenizer, "chat_template", None):
            return self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        return "\n\n".join(m.get("content", "") for m in messages) + "\n\n"

    def submit(self, prompt: str, max_tokens: int) -> tuple[str, int, int]:
        fut: Future[tuple[str, int, int]] = Future()
        self.queue.put((prompt, max_tokens, fut))
        return fut.result()

    def _work(self) -> None:
        while True:
            batch = [self.queue.get()]
            time.sleep(0.01)  # let the rest of a concurrent batch arrive
            while len(batch) < self.max_batch:
                try:
                    batch.append(self.queue.get_nowait())
                except queue.Empty:
                    break
            try:
                results = self._generate([p for p, _, _ in batch], max(m for _, m, _ in batch))
                for (_, _, fut), res in zip(batch, results, strict=True):
                    fut.set_result(res)
            except Exception as exc:  # noqa: BLE001 - every waiting request gets the error
                for _, _, fut in batch:
                    fut.set_exception(exc)

    def _generate(self, prompts: list[str], max_tokens: int) -> list[tuple[str, int, int]]:
        import torch

        self.batches.append(len(prompts))
        max_tokens = max(1, min(max_tokens, self.max_positions - 1))
        enc = self.tokenizer(
            prompts,
            return_tensors="pt",
            padding=True,
            truncation=True,
            max_length=self.max_positions - max_tokens,
        ).to(self.model.device)
        with torch.inference_mode():
            out = self.model.generate(
                **enc, max_new_tokens=max_tokens, do_sample=False, pad_token_id=self.tokenizer.pad_token_id
            )
        new = out[:, enc["input_ids"].shape[1] :]
        results = []
        for i in range(len(prompts)):
            ids = new[i].tolist()
            n_in = int(enc["attention_mask"][i].sum())
            results.append((self.tokenizer.decode(ids, skip_special_tokens=True), n_in, len(ids)))
        return results


def make_handler(gen: Generator) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet: tests read stdout
            pass

        def _send(self, code: int, payload: dict[str, Any]) -> None:
            body = json.dumps(payload).encode("utf-8")
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:  # noqa: N802 - http.server API
            if self.path.rstrip("/") == "/v1/models":
                self._send(
                    200,
                    {"object": "list", "data": [{"id": gen.name, "object": "model", "owned_by": "local"}]},
                )
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:  # noqa: N802 - http.server API
            try:
                length = int(self.headers.get("Content-Length", "0"))
                req = json.loads(self.rfile.read(length).decode("utf-8"))
            except (ValueError, UnicodeDecodeError) as exc:
                self._send(400, {"error": {"message": f"bad JSON body: {exc}"}})
                return
            max_tokens = int(req.get("max_tokens") or req.get("max_completion_tokens") or 64)
            route = self.path.rstrip("/")
            if route == "/v1/chat/completions":
                msgs = req.get("messages")
                if not isinstance(msgs, list) or not msgs:
                    self._send(400, {"error": {"message": "'messages' must be a non-empty list"}})
                    return
                prompt = gen.chat_prompt(msgs)
            elif route == "/v1/completions":
                prompt = req.get("prompt")
                if not isinstance(prompt, str):
                    self._send(400, {"error": {"message": "'prompt' must be a string"}})
                    return
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            try:
                text, n_in, n_out = gen.submit(prompt, max_tokens)
            except Exception as exc:  # noqa: BLE001 - reported to the client
                self._send(500, {"error": {"message": f"{type(exc).__name__}: {exc}"}})
                return
            finish = "length" if n_out >= max_tokens else "stop"
            choice: dict[str, Any] = {"index": 0, "finish_reason": finish}
            if route == "/v1/chat/completions":
                choice["message"] = {"role": "assistant", "content": text}
                kind = "chat.completion"
            else:
                choice["text"] = text
                kind = "text_completion"
            self._send(
                200,
                {
                    "id": f"biocoder-{time.time_ns()}",
                    "object": kind,
                    "created": int(time.time()),
                    "model": req.get("model") or gen.name,
                    "choices": [choice],
                    "usage": {
                        "prompt_tokens": n_in,
                        "completion_tokens": n_out,
                        "total_tokens": n_in + n_out,
                    },
                },
            )

    return Handler


def serve(
    model_path: str, host: str = "127.0.0.1", port: int = 8000, max_batch: int = 8
) -> ThreadingHTTPServer:
    """Load the model and return a started-in-a-thread server (``server.server_address`` has the port)."""
    gen = Generator(model_path, max_batch=max_batch)
    server = ThreadingHTTPServer((host, port), make_handler(gen))
    server.generator = gen  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="path (or Hub id, if cached) of a transformers causal LM")
    ap.add_argument("--host", default="127.0.0.1", help="bind address (default: loopback only)")
    ap.add_argument("--port", type=int, default=8000, help="port (0: any free port)")
    ap.add_argument("--max-batch", type=int, default=8, help="largest generate() batch")
    args = ap.parse_args(argv)
    server = serve(args.model, args.host, args.port, args.max_batch)
    host, port = server.server_address[:2]
    print(f"serving {args.model} on http://{host}:{port}/v1", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.shutdown()
        server.server_close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
