"""VectorGym data: parquet files with the dataset card's columns, for every task and split."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.vectorgym_data import RED, all_splits_file, png, row, rows, write_parquet

from svgeval.messages import has_images, png_data_url
from svgeval.tasks.base import CommonOptions
from svgeval.tasks.download import DataUnavailable
from svgeval.tasks.vectorgym.caption import VectorGymCaption
from svgeval.tasks.vectorgym.data import COLUMNS
from svgeval.tasks.vectorgym.image_tasks import VectorGymEdit, VectorGymSketch, VectorGymText

TASKS = (VectorGymSketch, VectorGymEdit, VectorGymText, VectorGymCaption)


@pytest.mark.parametrize("split", ["test", "train", "validation"])
@pytest.mark.parametrize("task", TASKS)
def test_a_card_parquet_loads_for_every_task_and_split(
    tmp_path: Path, task: type, split: str
) -> None:
    data = all_splits_file(tmp_path / "vg.parquet")
    samples = task(CommonOptions(data=data, extra={"split": split})).load()
    assert [s.group for s in samples] == [split, split]
    expected = [f"{split}-a", f"{split}-b"]
    if task is VectorGymEdit:
        expected = [f"{i}/0" for i in expected]
    assert [s.id for s in samples] == expected


def test_the_columns_are_the_cards() -> None:
    import pyarrow.parquet as pq  # noqa: F401 (the helper's schema is the card's)
    from support.vectorgym_data import SCHEMA

    assert tuple(SCHEMA.names) == COLUMNS


def test_hub_layout_folder_and_what_each_task_sends(tmp_path: Path) -> None:
    write_parquet(tmp_path / "data" / "test-00000-of-00001.parquet", rows("test"))
    write_parquet(tmp_path / "data" / "train-00000-of-00001.parquet", rows("train"))
    sketch = VectorGymSketch(CommonOptions(data=tmp_path)).load()[0]
    parts = sketch.messages[0]["content"]
    assert parts[0]["text"].startswith("You are an expert in converting images")
    assert parts[1]["image_url"]["url"] == png_data_url(png(len("test-a") * 20))
    assert parts[2]["text"] == "Convert the input sketch image into an SVG"
    assert sketch.reference == RED and sketch.input_svg is None
    bare = VectorGymText(CommonOptions(data=tmp_path, extra={"prompt": "vllm"})).load()[0]
    assert bare.messages == [{"role": "user",
                              "content": "Convert the input text into an SVG: a red square"}]
    edit = VectorGymEdit(CommonOptions(data=tmp_path, extra={"prompt": "vllm"})).load()[0]
    assert edit.messages[0]["content"] == (
        f"Edit this SVG with the following instruction: make it green\n\nOriginal SVG:\n{RED}")
    caption = VectorGymCaption(CommonOptions(data=tmp_path)).load()[0]
    assert caption.reference == "a red square" and not has_images(caption.messages)


def test_rows_the_released_filters_drop_and_missing_splits(tmp_path: Path) -> None:
    data = write_parquet(tmp_path / "x.parquet", [
        row("ok", "test", RED, "", "a red square"),
        row("no-svg", "test", "not an svg", "", "text"),
        {**row("no-sketch", "test", RED, "", ""), "sketch_image": None},
    ])
    assert [s.id for s in VectorGymSketch(CommonOptions(data=data)).load()] == ["ok"]
    assert [s.id for s in VectorGymText(CommonOptions(data=data)).load()] == ["ok"]
    with pytest.raises(DataUnavailable, match="has what vectorgym-edit needs"):
        VectorGymEdit(CommonOptions(data=data)).load()
    with pytest.raises(DataUnavailable, match="no train-"):
        VectorGymText(CommonOptions(data=tmp_path, extra={"split": "train"})).load()
