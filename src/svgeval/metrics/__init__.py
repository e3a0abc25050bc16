"""Metrics: pure functions over arrays and strings, one family per module.

Import each metric from its module (``from svgeval.metrics.pss import pss``); this package
imports none of them, so a run loads the metrics its task uses and no more. Every metric is
described in :data:`svgeval.metrics.registry.METRICS` (range, direction, source), which imports
all the metric modules the first time it is listed, for ``svgeval list metrics`` and for
reports. No module imports torch or transformers at import time: model-based metrics load them
(and their weights) on first call and raise
:class:`~svgeval.metrics.registry.MetricUnavailable` when they cannot.

* :mod:`~svgeval.metrics.pixel`: MSE, PSNR, SSIM, IoU on renders.
* :mod:`~svgeval.metrics.editing`: SVGenius' editing scores (rMSE, RLD, compression ratio).
* :mod:`~svgeval.metrics.pss`: SVGenius' Path Structure Similarity.
* :mod:`~svgeval.metrics.chamfer`: Chamfer distance between sampled outlines.
* :mod:`~svgeval.metrics.clip`, :mod:`~svgeval.metrics.dino`, :mod:`~svgeval.metrics.lpips`,
  :mod:`~svgeval.metrics.dreamsim`,
  :mod:`~svgeval.metrics.hps`, :mod:`~svgeval.metrics.fid`: model-based image metrics.
* :mod:`~svgeval.metrics.text`: ROUGE-L, Levenshtein, SBERT, BGE-M3.
* :mod:`~svgeval.metrics.svgauge`: SVGauge.
* :mod:`~svgeval.metrics.tokens`, :mod:`~svgeval.metrics.generation_stats`,
  :mod:`~svgeval.metrics.rates`, :mod:`~svgeval.metrics.judged`: counts, rates, judge rubrics.
* :mod:`~svgeval.metrics.model_settings`: how the model-based metrics run (precision,
  preprocessing, local weights), handed to each call.
* :mod:`~svgeval.metrics.presets`: the preset record, the defaults and the registry in which
  each benchmark registers its render and model settings from its own package.
"""
