"""SVG layer: extract SVG code from model responses, check it, and render it safely.

Import each piece from its module; this package imports none of them, so starting the render
workers' server (:mod:`svgeval.svg.forkserver`) costs no imports of ours:

* :mod:`~svgeval.svg.extract`: the SVG in a model's answer (``extract_svg``).
* :mod:`~svgeval.svg.sanitize`: what may be rendered (``check_svg``, ``SvgRejected``).
* :mod:`~svgeval.svg.render`: CairoSVG renders (``render_svg``, ``RenderSpec``); the fast
  renderers are in :mod:`~svgeval.svg.renderers`.
* :mod:`~svgeval.svg.isolation`: renders in worker processes with time and memory limits.
* :mod:`~svgeval.svg.animation`: animated (and still) SVG in headless Chromium, isolated the same
  way (``BrowserRenderer``); its parts are :mod:`~svgeval.svg.browser_policy`,
  :mod:`~svgeval.svg.browser_session` and :mod:`~svgeval.svg.browser_worker`.
* :mod:`~svgeval.svg.video`: frame sampling and MP4 as the released video scorers do them.
"""
