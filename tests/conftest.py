"""Shared test fixtures: where the real upstream data lives, and skips that say why."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
#: The real upstream files (read-only), laid out as described in their README.
UPSTREAM = Path(os.environ.get("BIOCODER_UPSTREAM_DIR", REPO_ROOT.parent / "shared" / "biocoder-upstream"))


@pytest.fixture(scope="session")
def upstream_dir() -> Path:
    """The upstream source dir, or a skip naming the path that was looked for."""
    if not (UPSTREAM / "README.md").is_file():
        pytest.skip(
            f"real upstream data not found at {UPSTREAM} (set BIOCODER_UPSTREAM_DIR); this test needs it"
        )
    return UPSTREAM


# ------------------------------------------------------------------------------------- tiers
#: Every test file, in one tier on purpose (``tests/test_tiers.py`` checks that none is missing).
#: ``fast``: the README's default test command, ``bash scripts/test.sh``: unit tests, and the
#: end-to-end runs that matter most on the demo config (engine, denominators, clean state,
#: harness strength), under 5 minutes on 2 cores. ``full``: the rest (fault injection, hostile and
#: sabotage corpora, determinism, lm-eval with a tiny model, reports, Hub, Ray, images), which
#: ``bash scripts/test.sh --all`` (what ``.ci/run`` runs) adds. Tiers were set from measured
#: per-file times (``pytest --durations=0``), not guessed.
#: The synthesis rule files (``test_synth_java.py`` alone: 174 s, javac per round) and the tier
#: check itself moved to ``full`` when the fast tier measured 613 s on 2 cores (round 13); the
#: strength tests of the CLI, metric and lm-eval entry points (``test_strength_entry_points.py``)
#: followed when it still measured 307 s; the engine-level strength test stays fast.
FAST = {
    "test_architecture.py",
    "test_audit.py",
    "test_build_extract.py",
    "test_build_select.py",
    "test_build_tasks.py",
    "test_ci.py",
    "test_clean_state.py",
    "test_dataset_configs.py",
    "test_dataset_export.py",
    "test_dataset_normalize.py",
    "test_dataset_sources.py",
    "test_demo_tasks.py",
    "test_denominators.py",
    "test_execute.py",
    "test_figures.py",
    "test_hand_mutants.py",
    "test_harness.py",
    "test_java_compiler_reuse.py",
    "test_javac_server.py",
    "test_languages.py",
    "test_postprocess.py",
    "test_processors.py",
    "test_prompts.py",
    "test_python_access.py",
    "test_python_compile.py",
    "test_records.py",
    "test_rewrites.py",
    "test_rosalind_checkers.py",
    "test_runtime_stdlib.py",
    "test_sandbox_worker.py",
    "test_scoring.py",
    "test_settings.py",
    "test_strength.py",
    "test_synth_shipped.py",
    "test_text_metrics.py",
}
FULL = {
    "test_synth_tables_and_items.py",
    "test_synth_gaps_and_planted.py",
    "test_synth_java_values.py",
    "test_synth_named_values.py",
    "test_synth_java.py",
    "test_synth_formats.py",
    "test_python_repair.py",
    "test_python_origins.py",
    "test_synth_python.py",
    "test_python_search.py",
    "test_build_prompts.py",
    "test_synth_rules.py",
    "test_synth_tables.py",
    "test_synth_elements.py",
    "test_synth_factories.py",
    "test_synth_forwarded.py",
    "test_synth_commands.py",
    "test_synth_nested_fields.py",
    "test_synth_java_guesses.py",
    "test_synth_java_relations.py",
    "test_synth_java_compile_repairs.py",
    "test_synth_use_shapes.py",
    "test_synth_changed_rows.py",
    "test_tiers.py",
    "test_accounting_agreement.py",
    "test_bench.py",
    "test_case_batching.py",
    "test_build_generalise.py",
    "test_entry_points_agree.py",
    "test_cli_eval.py",
    "test_metric.py",
    "test_determinism.py",
    "test_generate.py",
    "test_generation_scale.py",
    "test_golden_isolation.py",
    "test_hub.py",
    "test_hub_sources.py",
    "test_image.py",
    "test_java_env.py",
    "test_lm_eval_tasks.py",
    "test_ray.py",
    "test_reliability_bad_input.py",
    "test_reliability_faults.py",
    "test_reliability_hostile.py",
    "test_report.py",
    "test_report_generation.py",
    "test_sabotage_accounting.py",
    "test_sandbox_backends.py",
    "test_serve.py",
    "test_shard_merge.py",
    "test_strength_entry_points.py",
    "test_synth_stubs.py",
    "test_synth_validate.py",
    "test_upstream_formats.py",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--all",
        action="store_true",
        default=False,
        help="run every tier (the default runs the fast tier only; see tests/conftest.py)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with its file's tier; without ``--all`` deselect the full tier.

    A fast-tier file's tests marked ``docker`` (the reference sandbox's end-to-end runs of the
    audit and of built tasks, each also run under bwrap in the fast tier) are full-tier: with an
    engine up they added about 40 s and put the fast tier over 5 minutes (round 14: 350 s).
    The clean-state test's docker case is a parameter, not a mark, and stays fast."""
    keep, dropped = [], []
    for item in items:
        name = Path(str(item.fspath)).name
        tier = "fast" if name in FAST else "full"  # an unlisted file is full (and test_tiers fails)
        if tier == "fast" and item.get_closest_marker("docker") is not None:
            tier = "full"
        item.add_marker(getattr(pytest.mark, tier))
        (keep if tier == "fast" or config.getoption("--all") else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep
