"""SArena (InternSVG, ICLR 2026): Icon understanding, editing, text- and image-to-SVG;
Illustration and Chemistry text- and image-to-SVG; text- and video-to-animation. See
``docs/suites/sarena.md``."""

from svgeval.tasks.sarena import (  # noqa: F401  (register the tasks)
    animation,
    animation_text,
    edit,
    tracks,
    understanding,
)
