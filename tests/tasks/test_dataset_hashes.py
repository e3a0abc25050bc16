"""The dataset hash of a suite's samples is pinned: a change in how a target is built or dumped
(a dict turned into a typed :class:`~svgeval.tasks.base.Target`, a field renamed, a default
written out) would make every existing run directory look like another dataset's.

The values were computed at 6346653 (every target below still a dict) from the same test data;
SArena's targets hold picture paths, so its data is read from a relative path.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.sarena_data import build_sarena
from support.svgeditbench_v2_data import write_triplets
from support.vectorgym_data import all_splits_file

from svgeval.runner.identity import dataset_hash
from svgeval.tasks import get_task
from svgeval.tasks.base import CommonOptions, target_json
from svgeval.tasks.svgeditbench_v2.task import EditTarget

PINNED = {
    "svgeditbench-v2": "03221c8c3ce9ff818dcbf5a67c6be941b21de3161caeabc8b5a85068142a8019",
    "vectorgym-edit": "ef4f2a4dbfd8040403bc376c721a8f746807fdd56b3c598e50fd50f4077528b6",
    "vectorgym-caption": "2cd4c62ba938d318d80a72d201ec26bc11944e6fc3ee9788dcf59764215fd4c0",
    "sarena-icon-understanding": "7f709351db0a62f6d3120415433a2509d36d6c6ed15b3a18979605feb27faf45",
    "sarena-icon-text2svg": "4f5873312595108fb14d919d02edca658e642ddb5a3e479267b3c1075b132863",
}


def data_for(task: str, root: Path) -> Path:
    if task.startswith("vectorgym"):
        return all_splits_file(root / "vectorgym.parquet")
    if task.startswith("sarena"):
        build_sarena(root / "SArena")
        return Path("SArena")  # relative: the targets' picture paths do not name tmp_path
    return write_triplets(root / "triplets")


@pytest.mark.parametrize("task", sorted(PINNED))
def test_dataset_hash_is_pinned(task: str, tmp_path: Path,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    samples = get_task(task)(CommonOptions(data=data_for(task, tmp_path))).load()
    assert samples and dataset_hash(samples) == PINNED[task]


def test_an_optional_field_left_unset_stays_out_of_the_hash() -> None:
    """SVGEditBench V2's target holds the emoji's name or why there is none, as the dict it
    replaced held one key or the other."""
    named = EditTarget(after_svg="<svg/>", caption="red square")
    unnamed = EditTarget(after_svg="<svg/>", caption_error="no emoji name")
    assert target_json(named) == {"after_svg": "<svg/>", "caption": "red square"}
    assert target_json(unnamed) == {"after_svg": "<svg/>", "caption_error": "no emoji name"}
