"""A ``datasets.GeneratorBasedBuilder`` over :func:`biocoder_dataset.configs.load_problems`.

``datasets`` 4+ no longer runs loading scripts (``load_dataset("path/to/script.py")`` and
``trust_remote_code`` are gone), so this builder is used from Python directly, which
``datasets`` 5.x still supports::

    from biocoder_dataset.builder import BiocoderBuilder
    b = BiocoderBuilder(config_name="rosalind", source_dir="../shared/biocoder-upstream", cache_dir=tmp)
    b.download_and_prepare()
    ds = b.as_dataset(split="test")

It gives an Arrow-cached ``Dataset`` with the declared features without writing Parquet.
For the Hub (and ``load_dataset(folder, config)``) use :mod:`biocoder_dataset.export`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import datasets

from biocoder_dataset import __version__
from biocoder_dataset.configs import load_problems
from biocoder_dataset.schema import CONFIGS, SPLIT, features

_DESCRIPTION = (
    "BioCoder (arXiv 2308.16458): bioinformatics code generation problems in Python and Java "
    "from real repositories, plus Rosalind problems, normalised into one schema."
)
_CITATION = """@article{tang2023biocoder,
  title={BioCoder: A Benchmark for Bioinformatics Code Generation with Large Language Models},
  author={Tang, Xiangru and Qian, Bill and Gao, Rick and Chen, Jiakang and Chen, Xinyun and Gerstein, Mark},
  journal={arXiv preprint arXiv:2308.16458},
  year={2023}
}"""


@dataclass
class BiocoderConfig(datasets.BuilderConfig):
    """One BioCoder config; ``source_dir``/``verify`` are passed on to ``load_problems``.

    They are part of the config (hence of the cache fingerprint), so building from two
    different source dirs never shares a cache entry.
    """

    source_dir: str | None = None
    verify: bool | None = None


class BiocoderBuilder(datasets.GeneratorBasedBuilder):
    """Builds any config of :data:`biocoder_dataset.schema.CONFIGS` (single split ``test``)."""

    BUILDER_CONFIG_CLASS = BiocoderConfig
    BUILDER_CONFIGS = [BiocoderConfig(name=c, version=datasets.Version(__version__)) for c in CONFIGS]
    DEFAULT_CONFIG_NAME = "demo"

    def __init__(self, *args, source_dir: str | os.PathLike | None = None, **kwargs) -> None:
        if source_dir is not None:
            kwargs["source_dir"] = os.fspath(source_dir)
        kwargs.setdefault("dataset_name", "biocoder")
        super().__init__(*args, **kwargs)

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            features=features(),
            homepage="https://github.com/gersteinlab/BioCoder",
        )

    def _split_generators(self, dl_manager):  # downloads happen in sources.py (pinned, verified)
        return [datasets.SplitGenerator(name=SPLIT, gen_kwargs={})]

    def _generate_examples(self):
        rows = load_problems(self.config.name, self.config.source_dir, verify=self.config.verify)
        yield from enumerate(rows)
