"""The in-sandbox runtime: the worker that runs candidate programs, and what the host shares with it.

This folder is copied as a whole into every sandbox (``sandbox.base.prepared_runtime_dir``,
baked into the image by docker/Dockerfile) and run there by ``python3 -s worker.py``. Inside,
it must run on the image's Python (3.9) with the standard library only, so every module here
imports nothing but the standard library and its siblings (``tests/test_runtime_stdlib.py``).
The siblings import each other relatively, so the same files work as the host's package
``biocoder_metric.sandbox.runtime`` and, inside the sandbox, as the private package that
``worker.py`` loads (never from ``sys.path``, so a candidate cannot import or shadow them).

* ``protocol.py``: statuses, limits, Java classpath and flags, message helpers; the only
  module the host imports.
* ``worker.py``: the entry script.
* ``loop.py``: the request loop and the :class:`~loop.Worker` (state and shared per-case steps).
* ``processes.py``: rlimits, deadlines, killing and reaping leftovers, scratch removal.
* ``cases.py``: one case's files and limits, and its outcome.
* ``python_cases.py``: Python cases (preloading zygote, one forked child per case).
* ``java_cases.py``: Java cases (compile-only JVM, a fresh ``Runner`` JVM per job).
* ``Runner.java``: the warm Java path's JVM side (compiled to ``Runner.class`` by the host).

Nothing is imported here, so ``import biocoder_metric.sandbox.runtime.protocol`` loads only
that module.
"""
