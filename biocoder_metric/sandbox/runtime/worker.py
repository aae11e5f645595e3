"""The in-sandbox worker's entry script: ``python3 -s worker.py [--contained] ...``.

Every backend starts this file inside its sandbox (and the worker starts it again, with
exec, as its clean zygote). It only prepares the interpreter and hands over to ``loop.main``;
the work is done by the sibling modules of this folder (see ``__init__.py``).

Why it loads its siblings as a private package: run as a script, Python puts this folder
first on ``sys.path``, where every module name in it (``protocol``, ``loop``...) would be
importable by, and shadow or be shadowed by, whatever the zygote preloads for a candidate. So
the folder is taken off ``sys.path`` and the siblings are imported as ``_biocoder_runtime.*``
(relative imports among themselves), a name no candidate module has; the case child forgets
that package too (``python_cases``). The host imports the same files as
``biocoder_metric.sandbox.runtime``.
"""

import os

# Before anything can import numpy/BLAS: one thread, so forking is safe and results do not
# depend on thread scheduling. Cold-path children inherit the same settings.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import sys  # noqa: E402

#: The package name the runtime's modules get inside the sandbox.
PRIVATE_PACKAGE = "_biocoder_runtime"


def _load_private_package():
    """Import this folder as :data:`PRIVATE_PACKAGE` (not from ``sys.path``); its ``loop`` module."""
    import importlib
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    real = os.path.realpath(here)
    sys.path[:] = [p for p in sys.path if os.path.realpath(p or os.curdir) != real]
    spec = importlib.util.spec_from_file_location(
        PRIVATE_PACKAGE, os.path.join(here, "__init__.py"), submodule_search_locations=[here]
    )
    package = importlib.util.module_from_spec(spec)
    sys.modules[PRIVATE_PACKAGE] = package
    spec.loader.exec_module(package)
    return importlib.import_module(PRIVATE_PACKAGE + ".loop")


if __package__:  # imported as part of a package (the host's biocoder_metric.sandbox.runtime)
    from .loop import main  # noqa: E402
else:
    main = _load_private_package().main


if __name__ == "__main__":
    sys.exit(main())
