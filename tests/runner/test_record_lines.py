"""samples.jsonl updated by appending (``runner/record_lines.py``) and the metric stage that
uses it: what the readers see after each batch, after an interruption and after compaction."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from svgeval.runner.metric_stage import MetricBackend, fill_batched_metrics, set_level_metrics
from svgeval.runner.record_lines import RecordLines
from svgeval.runner.records import SampleRecord
from svgeval.runner.run_dir import CorruptRecord, latest_by_key, read_records
from svgeval.tasks.base import BatchItem, CommonOptions, Sample
from svgeval.tasks.outcome import MetricValues
from svgeval.tasks.svgenius.generation_task import CaptionTarget
from svgeval.tasks.svgenius.img2svg import SvgeniusImg2Svg

SQUARE = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><path d="M1 1H7V7H1Z"/></svg>'


def record(sample_id: str, epoch: int = 1, **metrics: float) -> SampleRecord:
    return SampleRecord(id=sample_id, epoch=epoch, group="easy", prompt=[], prompt_hash="h",
                        response=f"the answer to {sample_id}", extracted=SQUARE, metrics=metrics,
                        created_at="2026-11-26T12:00:00+00:00")


def write(path: Path, records: list[SampleRecord], tail: str = "") -> None:
    path.write_text("".join(r.model_dump_json() + "\n" for r in records) + tail)


def read(path: Path) -> dict[Any, SampleRecord]:
    return latest_by_key(read_records(path, SampleRecord))


def test_latest_lines_appended_then_compacted_in_first_seen_order(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    first, second, again = record("a"), record("b", epoch=2), record("a", mse=0.5)
    write(path, [first, second, again], tail='{"id": "c", "cut sho')  # a write a kill cut short
    lines = RecordLines(path)
    assert lines.latest([("a", 1), ("b", 2), ("c", 1), ("b", 1)]) == [again, second, None, None]

    lines.append([record("b", epoch=2, dino=0.25), record("c", mse=1.0)])
    stored = read(path)  # what a reader sees before compaction: the latest of each key
    assert [key for key in stored] == [("a", 1), ("b", 2), ("c", 1)]
    assert stored["b", 2].metrics == {"dino": 0.25} and stored["a", 1].metrics == {"mse": 0.5}
    assert "cut sho" not in path.read_text()  # the line cut short was written over

    lines.append([record("a", dino=0.75)])
    lines.compact()
    text = path.read_text().splitlines()
    assert [SampleRecord.model_validate_json(line).key for line in text] == [
        ("a", 1), ("b", 2), ("c", 1)]
    assert text[0] == record("a", dino=0.75).model_dump_json()
    assert lines.latest([("a", 1)]) == [record("a", dino=0.75)]  # the index follows the file
    lines.append([record("d")])
    assert list(read(path)) == [("a", 1), ("b", 2), ("c", 1), ("d", 1)]


@pytest.mark.parametrize("block", [5, 1 << 22])
def test_compaction_copies_runs_of_lines_in_blocks(tmp_path: Path, block: int,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines that follow each other are copied as one run, ``block`` bytes at a time; the
    file is the latest line of each key in first-seen order either way."""
    from svgeval.runner import record_lines

    monkeypatch.setattr(record_lines, "_BLOCK", block)
    path = tmp_path / "samples.jsonl"
    originals = [record(f"s{i}") for i in range(6)]
    write(path, originals)
    lines = RecordLines(path)
    lines.append([record("s1", dino=1.0), record("s2", dino=2.0), record("s4", dino=4.0)])
    lines.append([record("s5", dino=5.0), record("s0", dino=0.5)])
    lines.compact()
    expected = [record("s0", dino=0.5), record("s1", dino=1.0), record("s2", dino=2.0),
                originals[3], record("s4", dino=4.0), record("s5", dino=5.0)]
    assert path.read_text() == "".join(r.model_dump_json() + "\n" for r in expected)
    assert lines.latest([("s3", 1), ("s5", 1)]) == [originals[3], expected[5]]


def test_a_missing_file_is_made_and_a_corrupt_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "new.jsonl"
    lines = RecordLines(path)
    lines.append([record("a")])
    lines.compact()
    assert read(path) == {("a", 1): record("a")}
    bad = tmp_path / "bad.jsonl"
    bad.write_text(record("a").model_dump_json() + "\nnot json\n" + record("b").model_dump_json()
                   + "\n")
    with pytest.raises(CorruptRecord, match="bad.jsonl line 2"):
        RecordLines(bad)


class StopAfter(Exception):
    """The metric backend failing part-way (a killed stage)."""


def stage(tmp_path: Path, n: int, batch: int, fail_at: int | None = None,
          on_batch: Callable[[list[BatchItem[Any]]], None] = lambda items: None) -> tuple[
        dict[Any, SampleRecord], Path, list[int]]:
    """``n`` records through the batched stage in batches of ``batch``, each batch's
    ``lpips`` its index; the backend calls ``on_batch`` first and raises on batch
    ``fail_at``."""
    task = SvgeniusImg2Svg(CommonOptions())
    samples = {f"easy/{i:03d}": Sample(f"easy/{i:03d}", "easy", [], "", target=CaptionTarget(
        caption="c", answer=SQUARE)) for i in range(n)}
    done = {(key, 1): record(key) for key in samples}
    path = tmp_path / "samples.jsonl"
    if not path.exists():
        write(path, list(done.values()))
    calls: list[int] = []

    def batch_score(items: list[BatchItem[Any]]) -> list[MetricValues]:
        on_batch(items)
        if len(calls) == fail_at:
            raise StopAfter
        calls.append(len(items))
        return [MetricValues(metrics={"lpips": float(len(calls)), "dino": 0.5}) for _ in items]

    backend = MetricBackend(batch, batch_score, lambda groups: MetricValues())
    slim = {key: r.model_copy(update={"response": None}) for key, r in done.items()}
    try:
        fill_batched_metrics(task, samples, slim, backend, path)
    except StopAfter:
        pass
    return read(path), path, calls


def test_a_batch_is_stored_while_the_next_computes(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The first batch's write waits until the second batch is being computed: it can only
    finish if the two overlap (stored in turn, it would wait out its timeout and fail)."""
    second_computing = threading.Event()
    waited: list[bool] = []
    append = RecordLines.append

    def append_when_the_next_computes(self: RecordLines, records: Any) -> None:
        if not waited:
            waited.append(second_computing.wait(timeout=60))
        append(self, records)

    def mark(items: list[BatchItem[Any]]) -> None:
        if items[0].sample.id == "easy/004":
            second_computing.set()

    monkeypatch.setattr(RecordLines, "append", append_when_the_next_computes)
    stored, _, calls = stage(tmp_path, 8, 4, on_batch=mark)
    assert waited == [True] and calls == [4, 4]
    assert [stored[f"easy/{i:03d}", 1].metrics["lpips"] for i in range(8)] == [1.0] * 4 + [2.0] * 4


def test_a_write_error_stops_the_stage_and_keeps_the_batches_stored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    append = RecordLines.append
    writes: list[int] = []

    def full_disk_on_the_second(self: RecordLines, records: Any) -> None:
        writes.append(1)
        if len(writes) == 2:
            raise OSError(28, "No space left on device")
        append(self, records)

    monkeypatch.setattr(RecordLines, "append", full_disk_on_the_second)
    with pytest.raises(OSError, match="No space left"):
        stage(tmp_path, 12, 4)
    stored = read(tmp_path / "samples.jsonl")
    assert [stored[f"easy/{i:03d}", 1].metrics.get("lpips") for i in range(12)] == [
        1.0] * 4 + [None] * 8
    assert len(writes) == 2  # no batch was written after the error


def test_an_interrupted_stage_keeps_its_batches_and_a_resume_computes_the_rest(
        tmp_path: Path) -> None:
    stored, path, calls = stage(tmp_path, 10, 4, fail_at=2)
    assert calls == [4, 4]
    assert [stored[f"easy/{i:03d}", 1].metrics.get("lpips") for i in range(10)] == [
        1.0] * 4 + [2.0] * 4 + [None] * 2
    assert all(r.response == f"the answer to {r.id}" for r in stored.values())  # kept
    assert len(path.read_text().splitlines()) == 18  # appended, not yet compacted

    # the resumed stage reads the records as the readers do: only the last two lack metrics
    records = {key: r.model_copy(update={"response": None}) for key, r in stored.items()}
    task = SvgeniusImg2Svg(CommonOptions())
    samples = {r.id: Sample(r.id, "easy", [], "", target=CaptionTarget(caption="c",
                                                                          answer=SQUARE))
               for r in stored.values()}
    again: list[int] = []

    def batch_score(items: list[BatchItem[Any]]) -> list[MetricValues]:
        again.append(len(items))
        return [MetricValues(metrics={"lpips": 9.0, "dino": 0.5}) for _ in items]

    fill_batched_metrics(task, samples, records, MetricBackend(4, batch_score,
                                                               lambda groups: MetricValues()),
                         path)
    assert again == [2]
    lines = path.read_text().splitlines()
    assert [SampleRecord.model_validate_json(line).id for line in lines] == sorted(samples)
    final = read(path)
    assert [final[f"easy/{i:03d}", 1].metrics["lpips"] for i in (0, 4, 8, 9)] == [
        1.0, 2.0, 9.0, 9.0]
    assert all(r.response == f"the answer to {r.id}" for r in final.values())


def test_the_stage_reads_each_stored_record_once(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Replacing the file after each batch parsed every record once a batch: N x N / batch
    records in all (here 60 x 15), where the appending stage parses each once."""
    parsed: list[int] = []
    validate = SampleRecord.model_validate_json

    def counting(data: Any, **options: Any) -> SampleRecord:
        parsed.append(1)
        return validate(data, **options)

    monkeypatch.setattr(SampleRecord, "model_validate_json", counting)
    stored, _, calls = stage(tmp_path, 60, 4)
    assert calls == [4] * 15
    assert len(parsed) == 60 + 60  # each record once in the stage, once as stage() reads them
    assert [r.metrics["lpips"] for r in stored.values()] == [float(1 + i // 4) for i in range(60)]


def test_the_stage_batches_in_the_run_order_not_in_finishing_order(tmp_path: Path) -> None:
    """Records finish in any order (scoring threads); a model metric's last bits depend on
    where a picture sits in its batch, so the batches and the set-level groups follow the
    run's order (sample, then epoch), whatever order the records were finished in."""
    task = SvgeniusImg2Svg(CommonOptions())
    ids = [f"easy/{i:03d}" for i in range(6)]
    samples = {i: Sample(i, "easy", [], "", target=CaptionTarget(caption="c", answer=SQUARE))
               for i in ids}

    def marked(sample_id: str, epoch: int) -> SampleRecord:  # its answer names it
        return record(sample_id, epoch).model_copy(
            update={"extracted": SQUARE.replace("<path", f"<!--{sample_id}:{epoch}--><path")})

    finished = [(ids[k], epoch) for k, epoch in
                ((5, 1), (0, 2), (3, 1), (0, 1), (4, 1), (1, 1), (2, 1), (5, 2))]
    records = {key: marked(*key) for key in finished}
    batches: list[list[str]] = []
    groups: list[list[str]] = []

    def names(items: list[BatchItem[Any]]) -> list[str]:
        return [item.output_svg.split("<!--")[1].split("-->")[0] for item in items]

    def batch_score(items: list[BatchItem[Any]]) -> list[MetricValues]:
        batches.append(names(items))
        return [MetricValues(metrics={"lpips": 0.5, "dino": 0.5}) for _ in items]

    def set_score(by_group: dict[str, list[BatchItem[Any]]]) -> MetricValues:
        groups.append(names(by_group["easy"]))
        return MetricValues()

    backend = MetricBackend(3, batch_score, set_score)
    write(tmp_path / "samples.jsonl", list(records.values()))  # as the scoring wrote them
    fill_batched_metrics(task, samples, records, backend, tmp_path / "samples.jsonl")
    in_order = [f"{ids[k]}:{epoch}" for k, epoch in
                ((0, 1), (0, 2), (1, 1), (2, 1), (3, 1), (4, 1), (5, 1), (5, 2))]
    assert batches == [in_order[:3], in_order[3:6], in_order[6:]]
    set_level_metrics(task, samples, records, backend)  # FID: a group per epoch
    assert groups == [[name for name in in_order if name.endswith(f":{epoch}")]
                      for epoch in (1, 2)]


def test_a_file_cut_short_under_the_stage_is_named_not_spun_on(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    write(path, [record("a"), record("b")])
    lines = RecordLines(path)
    lines.append([record("a", dino=0.5)])
    with path.open("r+b") as handle:  # another process truncates the file
        handle.truncate(10)
    with pytest.raises(CorruptRecord, match="samples.jsonl has 10 bytes, fewer than"):
        lines.compact()
