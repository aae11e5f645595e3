"""biocoder_metric: sandboxed execution, pass@k scoring and reporting for BioCoder.

The engine (harness, sandbox, execute, scoring) needs only the standard library and
numpy; the ``evaluate`` metric, lm-eval hooks and the CLI are thin adapters over it, through
the one call that owns a run: :func:`biocoder_metric.evaluation.evaluate_run`.
"""

from pathlib import Path as _Path

__version__ = "0.1.0"


def _passk_path() -> str:
    """The folder holding ``biocoder_passk.py``: the wheel's copy, else the checkout's own folder."""
    package = _Path(__file__).resolve().parent
    # A built install (wheel): setup.py copies biocoder_passk/biocoder_passk.py into the package.
    # An editable install or a checkout: the package is biocoder_metric/ of the repository, whose
    # root holds the one real biocoder_passk/ folder (the Space folder).
    for folder in (package / "biocoder_passk", package.parent / "biocoder_passk"):
        if (folder / "biocoder_passk.py").is_file():
            return str(folder)
    return str(package / "biocoder_passk")  # missing: evaluate.load names this path in its error


#: Folder of the ``evaluate`` metric script, for ``evaluate.load(PASSK_PATH)`` from any directory.
PASSK_PATH: str = _passk_path()
