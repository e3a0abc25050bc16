"""SArena Icon editing: ten kinds of instructed edits of an icon's SVG.

Each ``Icon/edit/<type>.jsonl`` line asks for one edit of the SVG in its prompt; the released
scripts (``metrics/inference/inference_edit.py``, VLMEvalKit ``SArena.build_prompt``) send the
prompt turn followed by ``\\nOnly output the svg code, no other text.``. The ground truth is
``Icon/edit/data/<type>/images/<id>.png`` (and ``svg/<id>.svg``). Scored as image-to-SVG
(:mod:`svgeval.tasks.sarena.image_tasks`): DINO, LPIPS, SSIM, PSNR and token counts per type;
for DINO, LPIPS, SSIM and PSNR the ``all`` group pools every sample, which is
``evaluate_edit.py``'s summary (its meters weight each type's mean by its sample count).
``--set edit=<type>`` keeps one type; ``all`` runs every type the folder has.

Token length (``tokens``) is what the released scripts print, by default (``tokens=released``):
``evaluate_edit.py:41`` builds one ``InternSVGMetrics`` for every type and its
``TokenLengthCalculator`` never resets its meter (``metrics/token_length.py:43,54``; ``reset``
at ``:67`` is never called), so the value printed for a type is the running mean over every
rendered answer of the types scored so far, and the summary (``evaluate_edit.py:118``, via
``:63``) weights those running means by each type's number of rendered answers::

    running_t = sum_{s <= t} tokens_s / sum_{s <= t} n_s
    all/tokens = sum_t running_t n_t / sum_t n_t

The released numbers therefore depend on the order the types are scored in, which the release
never fixes: InternSVG walks the answers' folder in ``os.listdir`` order (on ext4 the order of
the names' hashes under the file system's own seed, so it changes from one machine to the
next; its log prints it as the ``Evaluating <type>...`` lines); VLMEvalKit's copy
(``vlmeval/dataset/utils/sarena.py:819,1003-1007,1038-1040``) shares one calculator in its
fixed, alphabetical task order. ``--set token_order`` chooses: ``alphabetical`` (the default:
VLMEvalKit's order, the only one a release fixes, so the same answers give the same number
everywhere) or a comma-separated list of types, the order a released run printed (types it does
not name follow alphabetically). ``--set tokens=pooled`` gives the true mean of each type and of
all rendered answers, which no order changes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

from svgeval.messages import Message, user_message
from svgeval.tasks import register_task
from svgeval.tasks.aggregate import Aggregate
from svgeval.tasks.base import CommonOptions
from svgeval.tasks.options import InvalidOption
from svgeval.tasks.outcome import Outcome
from svgeval.tasks.sarena import data
from svgeval.tasks.sarena.common import OVERALL, with_overall
from svgeval.tasks.sarena.image_tasks import PIXEL_METRICS, ImageOptions, SArenaImageTask
from svgeval.tasks.sarena.vlmevalkit import EDIT_LEVEL2, LEVEL1

SUFFIX = "\nOnly output the svg code, no other text."
_SVG = re.compile(r"<svg\b.*?</svg>", re.DOTALL | re.IGNORECASE)


@dataclass(frozen=True)
class EditOptions(ImageOptions):
    """``--set`` options of the editing task."""

    edit: Literal[
        "all", "color_complex", "color_simple", "crop", "flip", "opacity", "outline", "rotate",
        "scale", "styletransform_openmoji", "translate",
    ] = field(default="all", metadata={"help": "editing type to run (all: the ten types)"})
    tokens: Literal["released", "pooled"] = field(default="released", metadata={
        "help": "token length: released (running means in token_order and their summary) or "
        "pooled (the true mean per type and over all)"})
    token_order: str = field(default="alphabetical", metadata={
        "help": "the types' order of the released running means: alphabetical (VLMEvalKit's) "
        "or a comma-separated list, e.g. the order an InternSVG log printed"})


def token_order(kinds: Sequence[str], order: str) -> list[str]:
    """``kinds`` in the order ``order`` gives (``alphabetical`` or a comma-separated list of
    edit types, the unnamed ones after it alphabetically); InvalidOption for a name that is
    no edit type or one named twice."""
    named = [] if order == "alphabetical" else [kind.strip() for kind in order.split(",")]
    unknown = sorted(set(named) - set(data.EDIT_TYPES))
    if unknown or len(set(named)) != len(named):
        raise InvalidOption(
            f"--set token_order={order}: give alphabetical or each of {', '.join(data.EDIT_TYPES)} "
            f"at most once, comma-separated ({'not ' + unknown[0] if unknown else 'a type twice'})")
    return [kind for kind in named if kind in kinds] + sorted(set(kinds) - set(named))


def running_token_means(types: Sequence[tuple[str, float, int]]) -> tuple[dict[str, float], float]:
    """The released token lengths of edit types given in scoring order as (type, true mean,
    rendered answers): each type's running mean and the summary (see the module docstring).
    Types without a rendered answer are skipped, as the released meters skip them."""
    running: dict[str, float] = {}
    total, count, weighted = 0.0, 0, 0.0
    for kind, mean, n in types:
        if n == 0:
            continue
        total, count = total + mean * n, count + n
        running[kind] = total / count
        weighted += running[kind] * n
    return running, (weighted / count if count else float("nan"))


@register_task
class SArenaIconEdit(SArenaImageTask):
    """Edit an icon's SVG as instructed."""

    name = "sarena-icon-edit"
    description = "SArena Icon editing (10 types): DINO, LPIPS, SSIM, PSNR, tokens per type"
    kind = "edit"
    Options: ClassVar[type[Any]] = EditOptions
    metrics: ClassVar[Mapping[str, str]] = PIXEL_METRICS
    batched_metrics = ("dino", "lpips", "lpips_standard")
    takes_input_svg = True
    # tokens measures the answer's length, not its edit: the unchanged input is about as long
    # as the edited reference (a recolouring) or shorter (a flip or rotation adds a transform)
    degenerate: ClassVar[Mapping[str, frozenset[str]]] = {"identity": frozenset({"tokens"})}

    def aggregate(self, outcomes: Sequence[Outcome]) -> Aggregate:
        """Per type and pooled means; ``tokens`` as the release prints it, the types taken in
        ``token_order``, unless ``tokens=pooled``."""
        result = with_overall(outcomes)
        if self.options.tokens == "pooled":
            return result
        kinds = token_order([group for group in result.counts if group != OVERALL],
                            self.options.token_order)
        rendered = {kind: sum(1 for outcome in outcomes if outcome.group == kind
                              and outcome.metrics.get("tokens") is not None)
                    for kind in kinds}
        running, summary = running_token_means(
            [(kind, result.metrics.get(f"{kind}/tokens") or 0.0, rendered[kind])
             for kind in kinds])
        for kind in kinds:
            result.metrics[f"{kind}/tokens"] = running.get(kind)
            result.stats.pop(f"{kind}/tokens", None)
        result.metrics[f"{OVERALL}/tokens"] = summary if running else None
        result.stats.pop(f"{OVERALL}/tokens", None)
        return result

    def __init__(self, common: CommonOptions, options: Any = None) -> None:
        super().__init__(common, options)
        token_order(data.EDIT_TYPES, self.options.token_order)  # a wrong name stops the run here

    def task_files(self, folder: Path) -> list[tuple[str, Path, Path]]:
        if self.options.edit != "all":
            chosen: tuple[str, ...] = (self.options.edit,)
        else:  # the types the folder has (SArena and SArena_MINI have all ten)
            chosen = tuple(kind for kind in data.EDIT_TYPES if data.has_edit_file(folder, kind))
            if not chosen:
                chosen = data.EDIT_TYPES[:1]  # names the missing file
        return [(kind, data.edit_file(folder, kind), folder / "Icon/edit/data" / kind)
                for kind in chosen]

    def vlmevalkit_files(self) -> Mapping[str, tuple[str, str]]:
        chosen = data.EDIT_TYPES if self.options.edit == "all" else (self.options.edit,)
        return {f"{kind}/": (LEVEL1["icon"], EDIT_LEVEL2[kind]) for kind in chosen}

    def messages(self, path: Path, row: data.SArenaRow) -> list[Message]:
        return user_message(row.prompt + SUFFIX)

    def input_svg(self, row: data.SArenaRow) -> str | None:
        """The SVG to edit, as written in the prompt (what the ``identity`` model answers)."""
        match = _SVG.search(row.prompt)
        return match.group(0) if match else None
