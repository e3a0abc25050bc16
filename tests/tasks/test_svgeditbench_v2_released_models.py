"""SVGEditBench V2 DINO and CLIP against the released script, per answer, with the same tiny
weights on both sides.

Released values: ``src/9_calculate_metrics.py`` of mti-lab/SVGEditBenchV2 ``7e7879a7`` run
unmodified as a script (CairoSVG at 224 on white; ``evaluation/dinov2.py``: the CLS token of
``torch.hub.load('facebookresearch/dinov2', 'dinov2_vitg14')`` on [0, 1] pixels, answered by the
dinov2 hub code's ``DinoVisionTransformer`` (facebookresearch/dinov2 ``b8931f7``) with
dinov2_vitg14's settings at the tiny size (the tiny DINOv2's plain MLP for vitg14's SwiGLU)
holding the weights below; ``evaluation/clipscore.py``:
torchmetrics ``CLIPScore`` of the answer's render and the target emoji's name) after
``inference/gpt_seq.py``'s ``parse_response``, on CPU under transformers 4.57.1:
``tests/upstream/svgeditbench_v2_models.py`` runs it (its docstring says how to make that
environment) and prints the constants below, bit for bit (docs/suites/svgeditbench_v2.md,
"Checked against the released scorer"). Inputs: the 16 Twemoji
targets of ``released_answers.twemoji_answered``, target ``i`` answered in kind ``KINDS[i]``; the 9
that parse and render have values (the MSE and Chamfer of the same run are in
``test_svgeditbench_v2.py``). Weights: ``released_models`` (digests checked).
"""

from __future__ import annotations

import pytest
from support.released_answers import TWEMOJI, stage_item, twemoji_answered
from support.released_models import build_b32_and_dino, use_weights
from support.shared_paths import shared_release

from svgeval.render.isolated import Renderer
from svgeval.tasks.base import CommonOptions, MetricContext, Sample
from svgeval.tasks.svgeditbench_v2.data import emoji_name
from svgeval.tasks.svgeditbench_v2.task import EditTarget, SvgEditBenchV2

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml

RELEASED: dict[str, tuple[float, float]] = {  # triplet: (dino, clip)
    "0000": (0.9999998211860657, 3.2452385425567627),
    "0001": (0.9941924810409546, 4.3142547607421875),
    "0002": (0.9999397993087769, 3.172455310821533),
    "0007": (0.9999997615814209, 2.6333956718444824),
    "0009": (0.9999963045120239, 4.175014019012451),
    "0010": (0.9936386346817017, 5.623039245605469),
    "0012": (1.0000001192092896, 1.4280931949615479),
    "0013": (0.9996402859687805, 7.2309112548828125),
    "0015": (0.9999363422393799, 1.1035432815551758),
}


@pytest.fixture(scope="module")
def released_weights(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    pytest.importorskip("transformers")
    if not shared_release("svgeditbench").is_dir():
        pytest.skip("needs ../shared/data/svgeditbench")
    root = tmp_path_factory.mktemp("svgeditbench_v2_models")
    clip, dino = build_b32_and_dino(root).values()
    return {"SVGEVAL_CLIP_MODEL": str(clip), "SVGEVAL_DINO_MODEL": str(dino)}


def test_dino_and_clip_equal_the_released_per_answer(
        released_weights: dict[str, str], renderer: Renderer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """DINO (cosine of CLS features, no normalisation) to 1e-5 (the hub code and transformers
    interpolate position embeddings differently at 224 px) and CLIP (``max(100 cos, 0)``) to
    1e-5 on the 9 answers the release scores; the 7 it leaves out have no value here either."""
    use_weights(released_weights, monkeypatch)
    task = SvgEditBenchV2(CommonOptions())
    items, ids = [], []
    for (triplet, (_, target, answer)), code in zip(twemoji_answered().items(), TWEMOJI):
        sample = Sample(triplet, "edit", [], "", target=EditTarget(
            after_svg=target, caption=emoji_name(f"twemoji_{code}.svg", {})))
        items.append(stage_item(sample, task.score(sample, answer, renderer)))
        ids.append(triplet)
    scores = dict(zip(ids, task.batch_score(items, MetricContext(renderer, 16, "cpu"))))
    for triplet, score in scores.items():
        if triplet not in RELEASED:
            assert score.metrics["dino"] is None and score.metrics["clip"] is None, triplet
            continue
        dino, clip = RELEASED[triplet]
        assert score.metrics["dino"] == pytest.approx(dino, abs=1e-5), triplet
        assert score.metrics["clip"] == pytest.approx(clip, abs=1e-5), triplet
