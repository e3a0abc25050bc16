"""SGP-GenBench and SGP-CompBench (Chen et al. 2025, *Symbolic Graphics Programming with Large
Language Models*): text-to-SVG on objects and COCO scenes, and compositional prompts judged by
a VLM, as ``Sphere-AI-Lab/SGP-RL`` evaluates them.

Importing this package registers ``sgp-genbench-object``, ``sgp-genbench-scene``,
``sgp-genbench-compbench``, their extraction rules, metrics and the ``sgp-genbench`` / ``sgp-compbench``
presets. See docs/suites/sgp_genbench.md.
"""

from svgeval.tasks.sgp_genbench import answers, compbench, genbench, metrics

__all__ = ["answers", "compbench", "genbench", "metrics"]
