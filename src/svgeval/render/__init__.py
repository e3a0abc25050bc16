"""Render layer: SVG to pixels (and animated SVG to frames) without letting any SVG take the
run down. It uses :mod:`svgeval.svg` (what may be drawn) and nothing above it.

Import each piece from its module; this package imports none of them, so starting the render
workers' server (:mod:`svgeval.render.forkserver`) costs no imports of ours:

* :mod:`~svgeval.render.picture`: what a draw gives, a ``Picture`` (8-bit pixels, read-only,
  with a float view) or a ``RenderFailure``; an animation's ``Frames``.
* :mod:`~svgeval.render.cairo`: CairoSVG renders (``render_svg``, ``RenderSpec``); the fast
  renderers (skia, resvg) are in :mod:`~svgeval.render.backends`.
* :mod:`~svgeval.render.isolated`: renders in worker processes with time and memory limits
  (``Renderer``), several per worker call (:mod:`~svgeval.render.batch`), in the pool of
  :mod:`~svgeval.render.pool` started from :mod:`~svgeval.render.forkserver`.
* :mod:`~svgeval.render.memo` and :mod:`~svgeval.render.disk_cache`: renders kept in memory
  for a run and on disk across runs.
* :mod:`~svgeval.render.animation`: animated (and still) SVG in headless Chromium, isolated the
  same way (``BrowserRenderer``); its parts are :mod:`~svgeval.render.browser_policy`,
  :mod:`~svgeval.render.browser_session` and :mod:`~svgeval.render.browser_worker`.
* :mod:`~svgeval.render.repair`: the StarVector and VectorGym repair chain, run isolated.
* :mod:`~svgeval.render.video`: frame sampling and MP4 as the released video scorers do them.
"""
