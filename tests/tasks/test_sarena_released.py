"""SArena image-to-SVG SSIM and PSNR against InternSVG's released values on issue 27's answers.

Released values: issue 27's research run (``sarena_numbers.json`` ``icon_img2svg``), produced by
``cd /work/scratch/i27 && PYTHONPATH=tf4_52 venv/bin/python harness/sarena.py`` with InternSVG
``77a891e`` (``metrics/inference/inference.py:63`` extraction, ``utils/raster_svg.py:22-30``
CairoSVG at 448 on white, ``evaluate_gen.evaluate`` unmodified; a failed answer drawn as
``pure_black.png``). Inputs rebuilt here: SVGenius icon ``i`` (``released_answers``) answered in
kind ``KINDS[(i + 5) % 16]``, its reference rendered at 448 on white (skipped without
``../shared``). SSIM and PSNR need no weights: equal to 1e-12 per sample and in the mean.
"""

from __future__ import annotations

import pytest
from released_answers import KINDS, make_answer, svgenius_icons
from shared_paths import shared_release

from svgeval.svg.isolation import Renderer
from svgeval.tasks import get_task
from svgeval.tasks.base import CommonOptions, Sample
from svgeval.tasks.sarena.image_tasks import PictureTarget

RELEASED_IMG2SVG = {  # sample id: (ssim, psnr)
    0: (0.0007406498120092546, 1.4535576424208372),
    1: (0.0005044371675827992, 1.5135051007652125),
    2: (1.0, 100.0),
    3: (0.9776457245958462, 37.320811989287414),
    4: (0.33433422068667046, 2.986961721626918),
    5: (0.7831226093307041, 14.96758889402309),
    6: (0.00013887668990258047, 0.5199378592341048),
    7: (1.0, 100.0),
    8: (0.6115036947870959, 6.572599102245831),
    9: (8.782529482153434e-05, 0.8309611804087862),
    10: (0.5748188453066995, 8.82375723797993),
    11: (1.0, 100.0),
    12: (0.6566369219435085, 10.599188693788248),
    13: (0.5832789358217815, 8.241693823004145),
    14: (0.00021964649216007123, 1.0878165620635403),
    15: (0.4652807278916143, 2.9807495956970116),
    16: (0.00023149386062605394, 1.2612120660963915),
    17: (0.000109703625151792, 0.6266847630911467),
    18: (1.0, 100.0),
    19: (0.7943061902352776, 20.664578060598963),
    20: (0.845482488463726, 13.774580647188678),
    21: (0.6638150685493492, 6.677123089601997),
    22: (0.00021310792116148274, 1.0395341189019591),
    23: (1.0, 100.0),
    24: (0.8453027442969537, 9.592036892912535),
    25: (0.11003223800447719, 0.9108952845796789),
    26: (0.794959026281909, 11.069452592490203),
    27: (1.0, 100.0),
    28: (0.9312802640425405, 16.810140379641876),
    29: (0.6899471129374156, 8.78934145203016),
    30: (0.08083509211640325, 0.7438388010379513),
    31: (0.0011638405907635257, 2.456798200993318),
}
RELEASED_MEANS = (0.5233122339608172, 24.759854554740933)  # icon_img2svg aggregate
TOLERANCE = 1e-12


def test_img2svg_ssim_and_psnr_equal_internsvg(renderer: Renderer) -> None:
    if not (shared_release("svgenius") / "src").is_dir():
        pytest.skip("needs ../shared/data/svgenius")
    task = get_task("sarena-icon-img2svg")(CommonOptions())
    values = {}
    for i, svg in enumerate(svgenius_icons(32)):
        sample = Sample(str(i), "icon", [], svg, target=PictureTarget(answer=svg, picture="", caption=""))
        metrics = task.score(sample, make_answer(KINDS[(i + 5) % 16], svg), renderer).metrics
        values[i] = (metrics["ssim"], metrics["psnr"])
    for i, (ssim, psnr) in RELEASED_IMG2SVG.items():
        assert values[i][0] == pytest.approx(ssim, abs=TOLERANCE), i
        assert values[i][1] == pytest.approx(psnr, abs=TOLERANCE), i
    for k, mean in enumerate(RELEASED_MEANS):
        assert sum(v[k] for v in values.values()) / 32 == pytest.approx(mean, abs=TOLERANCE)
