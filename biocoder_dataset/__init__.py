"""biocoder_dataset: the BioCoder configs, from the pinned upstream files, in one schema."""

__version__ = "0.1.0"
