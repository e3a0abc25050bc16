"""A toy suite: draw N circles, scored by how many circles the answer draws.

Importing it registers the task ``toy-circles``, its extraction rule ``toy`` and its metric
preset ``toy`` (:mod:`toy_suite.task`). The worked example of svgeval's docs/adding_a_suite.md.
"""

from toy_suite import task

__all__ = ["task"]
