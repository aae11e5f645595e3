"""Generation: model registry (``models.yaml``), processors per model family, resumable sampling,
and post-processing of raw answers into candidate code (``postprocess``)."""
