"""What a run starts from (:class:`Resumed`): its work units, the answers its run directory
caches, and the records it finished, each read back (:func:`read_back`) after the run's files
were rewritten without the lines a kill cut short or a later line replaced."""

from __future__ import annotations

from dataclasses import dataclass

from svgeval.runner.judging import judgment_cache
from svgeval.runner.records import RecordKey, ResponseRecord, SampleRecord
from svgeval.runner.run_dir import RunDir, latest_by_key, rewrite_records
from svgeval.runner.units import WorkUnit


@dataclass
class Resumed:
    """What a run starts from: its work units, cached responses, and records already finished
    (both keyed by sample id and epoch)."""

    units: list[WorkUnit]
    responses: dict[RecordKey, ResponseRecord]
    done: dict[RecordKey, SampleRecord]


def read_back(run_dir: RunDir, units: list[WorkUnit]) -> Resumed:
    """The answers, verdicts and finished records ``run_dir`` holds, each file rewritten with
    the latest line of each key (also dropping a line cut short by a kill); what ``units``
    start from is the part of them that answers these units."""
    responses = latest_by_key(run_dir.read_responses())
    rewrite_records(run_dir.responses, responses.values())
    if run_dir.judgments.exists():
        verdicts = judgment_cache(run_dir.read_judgments()).values()
        rewrite_records(run_dir.judgments, verdicts)
    wanted = {unit.key for unit in units}
    done = {
        key: record
        for key, record in latest_by_key(run_dir.read_samples()).items()
        if record.finished
    }
    rewrite_records(run_dir.samples, done.values())
    return Resumed(
        units,
        {key: value for key, value in responses.items() if key in wanted},
        {key: value for key, value in done.items() if key in wanted},
    )
