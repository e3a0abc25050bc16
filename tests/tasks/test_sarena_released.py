"""SArena image-to-SVG SSIM and PSNR against InternSVG's released values on issue 27's answers.

Released values: issue 27's research run (``sarena_numbers.json`` ``icon_img2svg``), under
transformers 4.52.4 in a separate virtual environment; ``tests/upstream/sarena.py`` runs the same
released code again and prints the constants below (equal when last run), with InternSVG ``77a891e``
(``metrics/inference/inference.py:63`` extraction, ``utils/raster_svg.py:22-30`` CairoSVG at 448
on white, ``evaluate_gen.evaluate`` unmodified; a failed answer drawn as ``pure_black.png``).
Inputs rebuilt here: SVGenius icon ``i`` (``released_answers``) answered in kind
``KINDS[(i + 5) % 16]``, its reference rendered at 448 on white (skipped without ``../shared``).
SSIM and PSNR need no weights: equal to 1e-12 per sample and in the mean.
"""

from __future__ import annotations

import pytest
from support.released_answers import KINDS, edited, make_answer, svgenius_icons
from support.shared_paths import shared_release

from svgeval.render.isolated import Renderer
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
        sample = Sample(str(i), "icon", [], svg,
                        target=PictureTarget(answer=svg, picture="", caption=""))
        metrics = task.score(sample, make_answer(KINDS[(i + 5) % 16], svg), renderer).metrics
        values[i] = (metrics["ssim"], metrics["psnr"])
    for i, (ssim, psnr) in RELEASED_IMG2SVG.items():
        assert values[i][0] == pytest.approx(ssim, abs=TOLERANCE), i
        assert values[i][1] == pytest.approx(psnr, abs=TOLERANCE), i
    for k, mean in enumerate(RELEASED_MEANS):
        assert sum(v[k] for v in values.values()) / 32 == pytest.approx(mean, abs=TOLERANCE)


# Icon editing, the same run: ``evaluate_edit.evaluate`` unmodified on three types (listdir order
# flip, translate, color_simple). Ground truths: SVGenius icons 48-59 flipped, 60-69 recoloured,
# 70-79 translated (``released_answers.edited``), rendered at 448 on white; the n-th edit in the
# order flip, color_simple, translate answered in kind ``KINDS[n % 16]``. (ssim, psnr) per sample.
RELEASED_EDIT = {
    "flip": [
        (1.0, 100.0),
        (0.8921137669489787, 13.684248275692108),
        (0.7403589244132531, 10.390177356986321),
        (0.031915746941491005, 0.2039874355920472),
        (0.0004290716658549031, 1.0731443295420986),
        (0.007591438290140621, 0.8886686022863857),
        (0.00026880018223985887, 1.1659321475713866),
        (1.0, 100.0),
        (0.7283575251030534, 11.694219355379795),
        (0.4588544641180808, 3.923689144938926),
        (0.6580444205977228, 8.553024677819623),
        (0.00010571247646150367, 0.26289311388231595),
    ],
    "color_simple": [
        (1.0, 100.0),
        (0.7179701609927077, 10.054068490203491),
        (0.00028859536246437513, 1.2353637294207331),
        (0.7414649732475502, 12.208926310362989),
        (1.0, 100.0),
        (0.8584867839145688, 15.351758740075406),
        (0.7780130737953431, 11.863147112090854),
        (0.000133748359375456, 0.6408862594310372),
        (8.385229422602406e-05, 0.24474458277940747),
        (0.0018812701580185494, 3.222944470287967),
    ],
    "translate": [
        (0.00053634965109014, 1.2393009327405033),
        (1.0, 100.0),
        (0.7720031705377787, 8.351310762502774),
        (0.7246945067095633, 7.597932458392123),
        (0.6716635377141502, 7.964487886482814),
        (0.00012255118674919457, 0.26757792705324357),
        (1.0, 100.0),
        (0.7136815170529133, 7.98658381710106),
        (0.1369562649847371, 1.2284170491568236),
        (0.6938031938490501, 10.783601364489625),
    ],
}
RELEASED_EDIT_MEANS = {  # the per-type means evaluate_edit.py printed
    "flip": (0.45983665589477307, 20.98666536997425),
    "color_simple": (0.5098322458124255, 25.482183969465186),
    "translate": (0.5713461091686032, 24.541921219791895),
}


def test_edit_ssim_and_psnr_equal_evaluate_edit(renderer: Renderer) -> None:
    if not (shared_release("svgenius") / "src").is_dir():
        pytest.skip("needs ../shared/data/svgenius")
    task = get_task("sarena-icon-edit")(CommonOptions())
    icons = iter(svgenius_icons(80)[48:])
    n = 0
    for edit, released in RELEASED_EDIT.items():
        values = []
        for j in range(len(released)):
            truth = edited(edit, next(icons))
            sample = Sample(f"{edit}/{j}", edit, [], truth,
                            target=PictureTarget(answer=truth, picture="", caption=""))
            metrics = task.score(sample, make_answer(KINDS[n % 16], truth), renderer).metrics
            values.append((metrics["ssim"], metrics["psnr"]))
            n += 1
        for j, (ssim, psnr) in enumerate(released):
            assert values[j][0] == pytest.approx(ssim, abs=TOLERANCE), (edit, j)
            assert values[j][1] == pytest.approx(psnr, abs=TOLERANCE), (edit, j)
        for k, mean in enumerate(RELEASED_EDIT_MEANS[edit]):
            assert sum(v[k] for v in values) / len(values) == pytest.approx(mean, abs=TOLERANCE)
