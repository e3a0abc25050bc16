"""SVG layer: SVG code as data. Extract it from model responses, check what may be drawn, and
read it; drawing it (and the released repair chains, which draw) is :mod:`svgeval.render`'s.

* :mod:`~svgeval.svg.extract`: the SVG in a model's answer (``extract_svg``).
* :mod:`~svgeval.svg.sanitize`: what may be rendered (``check_svg``, ``SvgRejected``), with
  :mod:`~svgeval.svg.references` (``<use>`` and ``url()`` targets).
* :mod:`~svgeval.svg.colors`, :mod:`~svgeval.svg.viewbox`,
  :mod:`~svgeval.svg.css_properties`: colours, the canvas, CSS properties.
* :mod:`~svgeval.svg.demo_corpus`: the built-in demo icons.
"""
