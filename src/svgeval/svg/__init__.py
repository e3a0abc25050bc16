"""SVG layer: SVG code as data. Extract it from model responses, check what may be drawn, and
read it; drawing it (and the released repair chains, which draw) is :mod:`svgeval.render`'s.

* :mod:`~svgeval.svg.extract`: the SVG in a model's answer (``extract_svg``).
* :mod:`~svgeval.svg.sanitize`: what may be rendered (``check_svg``; ``expanded_size``: what
  ``<use>`` and ``url()`` targets draw), refusing with :mod:`~svgeval.svg.refusals`
  (``SvgRejected``, ``SvgLimits``, the node by node checks).
* :mod:`~svgeval.svg.colors`, :mod:`~svgeval.svg.viewbox`,
  :mod:`~svgeval.svg.css_properties`: colours, the canvas, CSS properties.
* :mod:`~svgeval.svg.demo_corpus`: the built-in demo icons.
"""
