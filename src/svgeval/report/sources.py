"""The SVGs a report shows beside the model's: each sample's input and reference, from the data.

A run directory holds the model's answers but not the data they answer. The task is rebuilt
from ``config.json`` the way ``svgeval score`` rebuilds it (task name, task options, the data
folder resolved when the run began, or ``--data``), its samples are loaded, and the dataset
hash is checked against the run's: references from other data are never shown. When the data
cannot be found or has changed, the report is built with the model's renders only and
:attr:`SampleSources.note` says why.

The reference SVG of a sample is taken from :attr:`Sample.reference`, the complete response the
``oracle`` model gives, with the ``auto`` extraction rule, so no task needs to expose anything
for reports; a task whose answers are not SVG (multiple choice) simply has no reference render.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from svgeval.report.runs import ReportError
from svgeval.runner.identity import dataset_hash, prompt_hash, task_from_config
from svgeval.runner.other_run import load_samples
from svgeval.runner.records import SampleRecord
from svgeval.runner.run_config import RunConfig
from svgeval.svg.extract import extract_svg
from svgeval.tasks.base import Sample


@dataclass(frozen=True)
class SampleSources:
    """The task's samples by id (empty when the data is unavailable) and a note for readers."""

    samples: dict[str, Sample] = field(default_factory=dict)
    note: str = ""
    references: dict[str, str | None] = field(default_factory=dict)
    """Each sample's reference SVG, extracted once (see :func:`reference_svg`)."""

    @property
    def available(self) -> bool:
        """True when inputs and references can be shown."""
        return bool(self.samples)

    def in_data_order(self, records: Sequence[SampleRecord]) -> list[SampleRecord]:
        """``records`` in the order of the data (records of unknown samples last, as given)."""
        position = {sample_id: index for index, sample_id in enumerate(self.samples)}
        return sorted(records, key=lambda record: position.get(record.id, len(position)))

    def input_svg(self, sample_id: str) -> str | None:
        """The SVG the model was asked to work on (None: the task has none, or no data)."""
        sample = self.samples.get(sample_id)
        return sample.input_svg if sample is not None else None

    def reference_svg(self, sample_id: str) -> str | None:
        """The reference answer's SVG (None: not an SVG task, or no data)."""
        return self.references.get(sample_id)

    def check_answers(self, root: Path, records: Sequence[SampleRecord]) -> None:
        """Refuse records that do not answer this data's prompts: the data has the hash
        ``config.json`` names, so ``config.json`` is another run's (nothing is checked when
        the data is not available)."""
        if not self.available:
            return
        other = sum(1 for record in records if (sample := self.samples.get(record.id)) is None
                    or prompt_hash(sample) != record.prompt_hash)
        if other:
            raise ReportError(
                f"{root}: {other} of {len(records)} records answer other prompts than the data "
                "its config.json names: config.json is another run's; put back the run's own"
            )


def reference_svg(sample: Sample) -> str | None:
    """The SVG inside a sample's reference response, if it holds one."""
    return extract_svg(sample.reference, rule="auto").svg


def output_svg(record: SampleRecord) -> str | None:
    """What the model's answer gave as SVG code (None: nothing extracted, or not SVG)."""
    extracted = record.extracted
    if extracted is None or "<svg" not in extracted.lower():
        return None
    return extracted


def load_sources(config: RunConfig, data: Path | None = None) -> SampleSources:
    """The samples of the run's data, checked against its dataset hash; never raises."""
    where = data or config.data or "the downloaded release"
    try:
        samples = load_samples(task_from_config(config, data))
    except Exception as error:  # noqa: BLE001 - any failure only costs the report its references
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        return SampleSources(
            note=f"inputs and references not shown: the data could not be loaded from "
            f"{where} ({reason}); pass --data with the run's data"
        )
    found = dataset_hash(samples)
    if found != config.dataset_hash:
        return SampleSources(
            note=f"inputs and references not shown: the data at {where} is not the data of "
            f"this run (dataset hash {found[:12]}, the run's {config.dataset_hash[:12]}); "
            "pass --data with the run's data"
        )
    return SampleSources(
        samples={sample.id: sample for sample in samples},
        references={sample.id: reference_svg(sample) for sample in samples},
        note=f"inputs and references from {where} (dataset hash {found[:12]}, as in the run)",
    )
