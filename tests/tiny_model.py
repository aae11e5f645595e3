"""Build a tiny, randomly initialised causal LM and its tokenizer on disk, offline.

Tests of the generation path (processors, ``biocoder generate``, the lm-eval tasks)
need a real ``transformers`` model that loads by path exactly like a Hub checkpoint,
but nothing may be downloaded at test time. So we train a small byte-level BPE
tokenizer on the project's own source text and attach a two-layer GPT-2 with random
weights. Its generations are noise, which is the point: the tests check that the
pipeline runs end to end and that execution happened, never the score.
"""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

#: A minimal chat template (Jinja) so the chat processor can be exercised on the tiny model.
CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)

EOS = "<|endoftext|>"


def _training_text() -> list[str]:
    """Project text (Python and Markdown) to train the tokenizer on: code-shaped, always present."""
    texts: list[str] = []
    for pattern in ("biocoder_metric/**/*.py", "biocoder_dataset/**/*.py", "tests/*.py", "docs/*.md"):
        for path in sorted(REPO_ROOT.glob(pattern)):
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
    if not texts:  # pragma: no cover - the repository always has Python files
        raise RuntimeError(f"no project text found under {REPO_ROOT} to train the tiny tokenizer on")
    return texts


def train_tokenizer(vocab_size: int):
    """A byte-level BPE ``PreTrainedTokenizerFast`` trained on the project's own text (offline;
    also used by ``benchmarks/gpu_generation.py`` for its larger random model)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[EOS],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator(_training_text(), trainer=trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=bpe, eos_token=EOS, bos_token=EOS, unk_token=EOS, pad_token=EOS
    )


def build_tiny_model(
    out_dir: Path, *, vocab_size: int = 600, n_positions: int = 1024, chat: bool = True
) -> Path:
    """Write a tiny GPT-2 + fast tokenizer to ``out_dir`` and return it (loadable with ``from_pretrained``)."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tokenizer = train_tokenizer(vocab_size)
    if chat:
        tokenizer.chat_template = CHAT_TEMPLATE
    tokenizer.save_pretrained(out_dir)

    torch.manual_seed(0)
    config = GPT2Config(
        vocab_size=len(tokenizer),
        n_positions=n_positions,
        n_embd=32,
        n_layer=2,
        n_head=2,
        bos_token_id=tokenizer.eos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.eos_token_id,
    )
    model = GPT2LMHeadModel(config)
    model.save_pretrained(out_dir)
    return out_dir


def write_models_file(path: Path, model_dir: Path, *, name: str = "tiny", max_new_tokens: int = 12) -> Path:
    """A models.yaml registering the tiny model under ``name`` (completion) and ``name-chat`` (chat)."""
    import yaml

    entry = {
        "path": str(model_dir),
        "batch_size": 2,
        "tokenizer": {"padding_side": "left"},
        "model_kwargs": {"dtype": "float32"},
        "decode_mode": "greedy",
        "generation_config": {
            "greedy": {"max_new_tokens": max_new_tokens},
            "sampling": {"max_new_tokens": max_new_tokens},
        },
    }
    data = {
        "models": {
            name: {"versions": {"v1": {**entry, "processor": "causal_lm", "prompt_style": "full_context"}}},
            f"{name}-chat": {"versions": {"v1": {**entry, "processor": "chat", "prompt_style": "instruct"}}},
        }
    }
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def sandbox_env(cache_dir: Path) -> dict[str, str]:
    """Environment for running candidates in tests: bwrap when it works here, else the host with opt-in.

    ``BIOCODER_CACHE_DIR`` points the golden-output cache at ``cache_dir`` so tests never
    read results cached by another run; three fuzz cases per task keep the runs short.
    """
    from biocoder_metric.sandbox import available_sandboxes

    env = {"BIOCODER_CACHE_DIR": str(cache_dir), "BIOCODER_FUZZ_CASES": "3"}
    if "bwrap" in available_sandboxes():
        env["BIOCODER_SANDBOX"] = "bwrap"
    else:
        env.update(BIOCODER_SANDBOX="none", BIOCODER_ALLOW_UNSAFE="1")
    return env


def golden_continuation(row: dict, prompt: str) -> str:
    """What a perfect completion model writes after ``prompt``: the golden minus its header.

    Python: everything after the ``def`` line(s) of the target, re-indented to the depth the
    prompt's header sits at (methods are indented inside their class). Java: everything after
    the header's ``{``.
    """
    import re

    golden = row["golden_code"]
    name = re.escape(row["function_name"])
    if row["language"] == "java":
        start = re.search(rf"\b{name}\s*\(", golden).start()
        return golden[golden.index("{", start) + 1 :]
    start = re.search(rf"^([ \t]*)(?:async[ \t]+)?def[ \t]+{name}[ \t]*\(", golden, re.M)
    header_end = re.compile(r":[ \t]*(?:#.*)?\n").search(golden, start.end()).end()
    body = golden[header_end:]
    golden_indent = start.group(1)
    head = re.search(rf"^([ \t]*)(?:async[ \t]+)?def[ \t]+{name}[ \t]*\(", prompt, re.M)
    prompt_indent = head.group(1) if head else ""
    lines = []
    for ln in body.splitlines(keepends=True):
        if ln.strip() and ln.startswith(golden_indent):
            ln = prompt_indent + ln[len(golden_indent) :]
        lines.append(ln)
    return "".join(lines)
