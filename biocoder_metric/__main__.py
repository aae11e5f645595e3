"""``python -m biocoder_metric`` (and ``accelerate launch -m biocoder_metric``) runs the CLI."""

import sys

from biocoder_metric.cli import main

sys.exit(main())
