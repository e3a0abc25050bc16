"""PSS, SVGenius' Path Structure Similarity between a reference and a generated SVG.

Formula (released code, ``src/metrics/pss/merge.py`` ``calculate_final_reward``)::

    both SVGs valid (only <svg>/<path>, SVG namespace, every path has d), else PSS = 0
    centre both in the reference viewBox; scale the generated one uniformly (ratio clamped
    to [0.05, 10]) so its path box fits the reference's
    G   = IoU of the alpha masks of the two 512x512 renders;  G = 0 if G < 0.5
    per path pair (256x256 single-path renders): shape = mask IoU, colour = HSV similarity,
    position = 0.6 (1 - min(1, 2 * centre distance)) + 0.4 (1 - min(1, 3 * |area difference|))
    Hungarian matching on 0.4 shape + 0.2 colour + 0.4 position; a match needs >= 0.3
    D   = 0.8 mean(shape >= 0.5) + 0.1 mean(colour >= 0.9) + 0.1 mean(position >= 0.9)
          (a term is 0 when no match passes its threshold)
    S   = 0.5 D + 0.5 G                                   (paper text: 0.4 D + 0.6 G)
    S  -= 0.2 * count penalty  if the path counts differ
          count penalty = min(1, |n_gen - n_ref| / n_ref * (1.5 if fewer else 0.7))
    S  -= 1 - order   where order = (Kendall tau of matched path ids + 1) / 2, 1 for <= 1 match
    PSS = clip(S, 0, 1)

Range [0, 1] (x100 with ``percent=True``), higher is better; an SVG scores 1 against itself
when every path has a visible fill. Source: SVGenius (Chen et al., 2025) App. D and its code.

Options:
- ``weighting="paper"`` uses the paper's 0.6 visual / 0.4 structural weights instead of the
  code's 0.5 / 0.5.
- ``fix_defects=True`` fixes three defects of the released code: drawing order is compared by
  document position, not by the strings ``"path_<i>"`` (which order ``path_10`` before
  ``path_2``); path boxes are normalised by the viewBox, not by the ``width``/``height``
  attributes (SVGenius icons say ``width="200"`` over a 1024 viewBox, so positions were
  compared 5x too harshly); single-path renders keep ``fill-rule``.

An invalid reference raises :class:`InvalidReference` (a data problem; released code: PSS 0).
"""

from __future__ import annotations

import colorsys
import copy
import functools
import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from svgeval.errors import SvgevalError
from svgeval.metrics import _pss_svg as ps
from svgeval.metrics.presets import DEFAULT, MetricPreset, get_preset
from svgeval.metrics.registry import MetricInfo, describe_metric
from svgeval.render.batch import CHUNKS_PER_WORKER
from svgeval.render.cairo import render_svg_uint8

if TYPE_CHECKING:
    from lxml import etree

    from svgeval.metrics._svgpath import BBox
    from svgeval.render.isolated import Renderer, RenderFunction
    from svgeval.render.picture import RenderFailure

describe_metric(
    MetricInfo(
        name="pss",
        summary="Path Structure Similarity: global alpha IoU plus Hungarian-matched per-path "
        "shape/colour/position, path-count and drawing-order penalties",
        value_range="[0, 1] (x100 with percent=True)",
        higher_is_better=True,
        source="SVGenius (Chen et al., 2025) App. D; released code src/metrics/pss",
    )
)

GLOBAL_SIZE = (512, 512)
PATH_SIZE = (256, 256)
MATCH_WEIGHTS = {"shape": 0.4, "color": 0.2, "position": 0.4}
MATCH_THRESHOLD = 0.3
GLOBAL_THRESHOLD = 0.5
SHAPE_THRESHOLD = 0.5
COLOR_THRESHOLD = 0.9
POSITION_THRESHOLD = 0.9  # the released code compares position against COLOR_THRESHOLD (= 0.9)
DETAIL_WEIGHTS = {"shape": 0.8, "color": 0.1, "position": 0.1}
WEIGHTINGS = {"code": (0.5, 0.5), "paper": (0.6, 0.4)}  # (global IoU, path detail)


class InvalidReference(SvgevalError, ValueError):
    """The reference SVG fails PSS' validity rules."""


@dataclass(frozen=True)
class PssResult:
    """PSS and its parts. All parts are in [0, 1]."""

    score: float
    """PSS in [0, 1]."""
    valid: bool
    """False when the generated SVG failed the validity rules (score 0)."""
    reason: str | None
    """Why the generated SVG is invalid, e.g. ``disallowed_element``."""
    global_iou: float = 0.0
    """IoU of the two alpha masks before the 0.5 threshold."""
    detail: float = 0.0
    """D, the thresholded per-path term."""
    shape: float = 0.0
    """Mean shape IoU over matched pairs."""
    color: float = 0.0
    """Mean colour similarity over matched pairs."""
    position: float = 0.0
    """Mean position similarity over matched pairs."""
    order: float = 0.0
    """Normalised Kendall tau of the drawing order of matched paths."""
    count_penalty: float = 0.0
    """Path-count penalty before its 0.2 weight."""
    reference_paths: int = 0
    generated_paths: int = 0
    matches: tuple[tuple[int, int], ...] = ()
    """(reference index, generated index) of accepted matches, in document positions."""


@functools.lru_cache(maxsize=4096)
def color_similarity(c1: ps.Color, c2: ps.Color) -> float:
    """HSV colour similarity of the released code (1 = same colour, transparent only matches
    transparent; grey pairs are judged mostly by value). Icons reuse a few colours, so the
    values of the last 4,096 pairs of colours are kept."""
    t1, t2 = len(c1) > 3 and c1[3] == 0, len(c2) > 3 and c2[3] == 0
    if t1 or t2:
        return 1.0 if t1 and t2 else 0.0
    h1, s1, v1 = colorsys.rgb_to_hsv(*c1[:3])
    h2, s2, v2 = colorsys.rgb_to_hsv(*c2[:3])
    h_diff = min(abs(h1 - h2), 1 - abs(h1 - h2))
    s_diff, v_diff = abs(s1 - s2), abs(v1 - v2)
    if s1 < 0.2 and s2 < 0.2:
        return 1 - (0.1 * h_diff + 0.1 * s_diff + 0.8 * v_diff)
    return 1 - (0.6 * min(s1, s2) * h_diff + 0.2 * s_diff + 0.2 * v_diff)


def position_similarity(b1: tuple[float, ...], b2: tuple[float, ...], size: tuple[int, int]) -> float:
    """0.6 x centre closeness (0 beyond half the canvas) + 0.4 x area closeness (0 beyond 1/3)."""
    w, h = size
    x1, y1, w1, h1 = b1[0] / w, b1[1] / h, b1[2] / w, b1[3] / h
    x2, y2, w2, h2 = b2[0] / w, b2[1] / h, b2[2] / w, b2[3] / h
    dist = math.hypot((x1 + w1 / 2) - (x2 + w2 / 2), (y1 + h1 / 2) - (y2 + h2 / 2))
    size_diff = abs(w1 * h1 - w2 * h2)
    return 0.6 * (1 - min(1, dist * 2)) + 0.4 * (1 - min(1, size_diff * 3))


def mask_iou_matrix(a: list[NDArray[np.bool_]], b: list[NDArray[np.bool_]]) -> NDArray[np.float64]:
    """IoU of every mask in ``a`` with every mask in ``b`` (0 where both are empty).

    Intersections are one product of 0/1 rows over the pixels some mask of each side covers;
    float32 counts are exact below 2**24 pixels. ``einsum`` rather than ``@``: for matrices
    this small BLAS' threads cost more CPU than they save, slowing parallel scoring workers.
    """
    fa = np.stack([m.ravel() for m in a])
    fb = np.stack([m.ravel() for m in b])
    both = fa.any(axis=0) & fb.any(axis=0)
    ca = np.compress(both, fa, axis=1).astype(np.float32)
    cb = np.compress(both, fb, axis=1).astype(np.float32)
    inter = np.einsum("ik,jk->ij", ca, cb).astype(np.float64)
    area_a = np.array([np.count_nonzero(m) for m in a])  # per mask: a fast whole-array count
    area_b = np.array([np.count_nonzero(m) for m in b])
    union = area_a[:, None] + area_b[None, :] - inter
    iou: NDArray[np.float64] = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
    return iou


def kendall_order(ref_ids: list[object], gen_ids: list[object]) -> float:
    """(tau + 1) / 2 with the released code's pair counting (ties count as concordant)."""
    n = len(ref_ids)
    if n <= 1:
        return 1.0
    concordant = discordant = 0
    for i in range(n):
        for j in range(i + 1, n):
            same = (ref_ids[i] < ref_ids[j]) == (gen_ids[i] < gen_ids[j])  # type: ignore[operator]
            concordant += same
            discordant += not same
    return ((concordant - discordant) / (n * (n - 1) // 2) + 1) / 2


def count_penalty(n_ref: int, n_gen: int) -> float:
    """number.py ``evaluate_path_count`` (asymmetric: missing paths cost 1.5x, extra 0.7x)."""
    if n_ref == n_gen:
        return 0.0
    if n_ref == 0:
        return 0.5
    base = min(1.0, abs(n_ref - n_gen) / n_ref)
    return min(1.0, base * (1.5 if n_gen < n_ref else 0.7))


def _thresholded_mean(values: list[float], threshold: float) -> tuple[float, int]:
    kept = [v for v in values if v >= threshold]
    return (sum(kept) / len(kept) if kept else 0.0), len(kept)


def pss_details(
    reference: str,
    generated: str,
    *,
    preset: str | MetricPreset = DEFAULT,
    weighting: str | None = None,
    fix_defects: bool | None = None,
    render: RenderFunction = render_svg_uint8,
) -> PssResult:
    """PSS of ``generated`` against ``reference`` with every part (see the module docstring).

    ``weighting`` (``code``/``paper``) and ``fix_defects`` default to the preset's values.
    ``render`` draws the masks: CairoSVG, as the released code, or a fast renderer of
    :mod:`svgeval.render.backends` (``render_function("skia")``). Renders both SVGs: call it
    inside :mod:`svgeval.render.isolated` for untrusted input.
    """
    settings = get_preset(preset)
    weighting = weighting or settings.pss_weighting
    fix = settings.pss_fix_defects if fix_defects is None else fix_defects
    if weighting not in WEIGHTINGS:
        raise ValueError(f"weighting must be one of {sorted(WEIGHTINGS)}, not {weighting!r}")
    _valid_reference(reference)
    try:
        gen_root = ps.parse_valid(generated)
    except (ps.InvalidSvg, ValueError) as err:
        return PssResult(0.0, False, getattr(err, "reason", "invalid"))

    ref = _prepared_reference(reference, fix, render)
    ps.fit_generated(gen_root, ref.target, ref.box)
    try:
        gen_mask = ps.alpha_mask(ps.to_string(gen_root), GLOBAL_SIZE, render)
    except Exception as err:  # noqa: BLE001 - an unrenderable output is an invalid output
        return PssResult(0.0, False, f"render_error: {type(err).__name__}")
    union = int(np.logical_or(ref.mask, gen_mask).sum())
    g_iou = int(np.logical_and(ref.mask, gen_mask).sum()) / union if union else 0.0

    ref_paths = ref.paths
    gen_paths = ps.extract_paths(gen_root, PATH_SIZE, fix, render)
    matches: list[tuple[int, int]] = []
    shapes: list[float] = []
    colors: list[float] = []
    positions: list[float] = []
    if ref_paths and gen_paths:
        from scipy.optimize import linear_sum_assignment

        shape_m = mask_iou_matrix([p.mask for p in ref_paths], [p.mask for p in gen_paths])
        color_m = np.array([[color_similarity(r.color, g.color) for g in gen_paths] for r in ref_paths])
        pos_m = np.array([[position_similarity(r.bbox, g.bbox, PATH_SIZE) for g in gen_paths]
                          for r in ref_paths])
        combined = (MATCH_WEIGHTS["shape"] * shape_m + MATCH_WEIGHTS["color"] * color_m
                    + MATCH_WEIGHTS["position"] * pos_m)
        rows, cols = linear_sum_assignment(-combined)
        for i, j in zip(rows.tolist(), cols.tolist()):
            if combined[i, j] >= MATCH_THRESHOLD:
                matches.append((i, j))
                shapes.append(float(shape_m[i, j]))
                colors.append(float(color_m[i, j]))
                positions.append(float(pos_m[i, j]))

    if matches:
        shape_mean, n_shape = _thresholded_mean(shapes, SHAPE_THRESHOLD)
        color_mean, n_color = _thresholded_mean(colors, COLOR_THRESHOLD)
        pos_mean, n_pos = _thresholded_mean(positions, POSITION_THRESHOLD)
        detail = (DETAIL_WEIGHTS["shape"] * shape_mean * (n_shape > 0)
                  + DETAIL_WEIGHTS["color"] * color_mean * (n_color > 0)
                  + DETAIL_WEIGHTS["position"] * pos_mean * (n_pos > 0))
        if fix:
            keys: tuple[list[object], list[object]] = (
                [ref_paths[i].index for i, _ in matches], [gen_paths[j].index for _, j in matches])
        else:
            keys = ([ref_paths[i].ident for i, _ in matches], [gen_paths[j].ident for _, j in matches])
        order = kendall_order(*keys)
    else:
        detail, order = 0.0, 0.0

    w_global, w_detail = WEIGHTINGS[weighting]
    g_used = g_iou if g_iou >= GLOBAL_THRESHOLD else 0.0
    score = w_detail * detail + w_global * g_used if detail + g_used > 0 else 0.0
    penalty = count_penalty(len(ref_paths), len(gen_paths))
    if len(ref_paths) != len(gen_paths):
        score -= 0.2 * penalty
    if order < 1:
        score -= 1 - order
    return PssResult(
        score=min(1.0, max(0.0, score)),
        valid=True,
        reason=None,
        global_iou=g_iou,
        detail=detail,
        shape=float(np.mean(shapes)) if shapes else 0.0,
        color=float(np.mean(colors)) if colors else 0.0,
        position=float(np.mean(positions)) if positions else 0.0,
        order=order,
        count_penalty=penalty,
        reference_paths=len(ref_paths),
        generated_paths=len(gen_paths),
        matches=tuple((ref_paths[i].index, gen_paths[j].index) for i, j in matches),
    )


@functools.lru_cache(maxsize=4)
def _valid_reference(reference: str) -> etree._Element:
    """``reference`` parsed by :func:`ps.parse_valid` (the last four valid ones are kept: the
    tree is shared, so copy it before changing it); raises :class:`InvalidReference`."""
    try:
        return ps.parse_valid(reference)
    except (ps.InvalidSvg, ValueError) as err:
        raise InvalidReference(f"reference SVG is not valid for PSS: {err}") from err


@dataclass(frozen=True)
class _Reference:
    """The reference's side of PSS, which does not depend on the generated SVG."""

    target: str
    """The reference's viewBox, which both SVGs are centred in."""
    box: BBox | None
    """Box of the centred reference's paths (what the generated SVG is scaled to fit)."""
    mask: NDArray[np.bool_]
    """Global alpha mask (read-only)."""
    paths: tuple[ps.PathInfo, ...]
    """Per-path data, masks read-only."""


@functools.lru_cache(maxsize=4)
def _prepared_reference(reference: str, fix: bool, render: RenderFunction) -> _Reference:
    """Centre ``reference`` and draw its global and per-path masks.

    A reference is often scored against several generated SVGs in a row (samples of one
    prompt), so the last four are kept, keyed by text, ``fix_defects`` and render function; a
    reference of n paths holds about (0.25 + 0.06 n) MB of masks.
    """
    root = copy.deepcopy(_valid_reference(reference))  # centring moves its paths
    target, box = ps.center_reference(root)
    mask = ps.alpha_mask(ps.to_string(root), GLOBAL_SIZE, render)
    paths = tuple(ps.extract_paths(root, PATH_SIZE, fix, render))
    for array in (mask, *(path.mask for path in paths)):
        array.flags.writeable = False
    return _Reference(target, box, mask, paths)


def pss(
    reference: str,
    generated: str,
    *,
    preset: str | MetricPreset = DEFAULT,
    weighting: str | None = None,
    fix_defects: bool | None = None,
    percent: bool = False,
    render: RenderFunction = render_svg_uint8,
) -> float:
    """PSS in [0, 1] (or [0, 100] with ``percent``); higher is better. See :func:`pss_details`."""
    result = pss_details(reference, generated, preset=preset, weighting=weighting,
                         fix_defects=fix_defects, render=render)
    return result.score * 100.0 if percent else result.score


def pss_isolated(
    renderer: Renderer,
    references: list[str],
    generated: list[str],
    *,
    preset: str | MetricPreset = DEFAULT,
    weighting: str | None = None,
    fix_defects: bool | None = None,
) -> list[PssResult | RenderFailure]:
    """:func:`pss_details` of each pair inside ``renderer``'s worker pool, drawn with that
    renderer's render function, in input order.

    PSS renders every path of untrusted SVG, so each pair runs under the renderer's limits;
    each worker scores one pair with the next queued. A pair that hangs, crashes its worker or
    raises becomes a :class:`RenderFailure` (an invalid reference: ``render_error``,
    ``InvalidReference: ...``) and the others still score.
    """
    if len(references) != len(generated):
        raise ValueError(f"{len(references)} references but {len(generated)} generated SVGs")
    settings = get_preset(preset)
    with ThreadPoolExecutor(max_workers=CHUNKS_PER_WORKER * max(1, renderer.workers)) as pool:
        return list(pool.map(lambda pair: renderer.call(_pss_in_worker, pair[0], pair[1],
                                                        settings, weighting, fix_defects,
                                                        renderer.render_function),
                             zip(references, generated)))


def _pss_in_worker(reference: str, generated: str, preset: MetricPreset, weighting: str | None,
                   fix_defects: bool | None, render: RenderFunction) -> PssResult:
    """:func:`pss_details` with positional arguments (what ``Renderer.call`` passes)."""
    return pss_details(reference, generated, preset=preset, weighting=weighting,
                       fix_defects=fix_defects, render=render)
