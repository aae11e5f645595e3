"""biocoder_metric: sandboxed execution, pass@k scoring and reporting for BioCoder.

The engine (harness, sandbox, execute, scoring) needs only the standard library and
numpy; the ``evaluate`` metric, lm-eval hooks and the CLI are thin adapters over it.
"""

__version__ = "0.1.0"
