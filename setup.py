"""Build hook: put the one metric script into the package, so wheels carry it as package data.

The real ``evaluate`` script lives at the repository root, ``biocoder_passk/biocoder_passk.py``
(the Hub Space folder, and what ``evaluate.load("biocoder_passk")`` finds from the root). A
regular build copies that same file to ``biocoder_metric/biocoder_passk/biocoder_passk.py``
in the wheel; an editable install copies nothing, and ``biocoder_metric.PASSK_PATH`` points
at the root folder instead. Everything else is configured in pyproject.toml.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

METRIC_SCRIPT = Path("biocoder_passk") / "biocoder_passk.py"


class BuildPyWithMetric(build_py):
    def _metric_copy(self) -> Path | None:
        """Where the build puts the script (``None`` for an editable install: nothing is copied)."""
        if getattr(self, "editable_mode", False):
            return None
        return Path(self.build_lib) / "biocoder_metric" / "biocoder_passk" / METRIC_SCRIPT.name

    def run(self) -> None:
        super().run()
        target = self._metric_copy()
        if target is not None:
            self.mkpath(str(target.parent))
            self.copy_file(str(METRIC_SCRIPT), str(target))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        target = self._metric_copy()
        return super().get_outputs(include_bytecode) + ([str(target)] if target is not None else [])


setup(cmdclass={"build_py": BuildPyWithMetric})
