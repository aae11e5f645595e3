"""Lets ``evaluate.load("biocoder_passk")`` work from the repository root.

``evaluate`` 0.4.6 resolves a bare name to a local folder of that name holding a script of
the same name (``biocoder_passk/biocoder_passk.py``) before trying the Hub. The real module
is ``biocoder_metric/biocoder_passk/biocoder_passk.py``; this file only re-exports it, so
there is one implementation.
"""

from biocoder_metric.biocoder_passk.biocoder_passk import (  # noqa: F401
    _CITATION,
    _DESCRIPTION,
    _KWARGS_DESCRIPTION,
    BiocoderPassk,
)
