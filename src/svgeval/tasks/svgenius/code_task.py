"""What the SVGenius tasks answered with SVG code share: options, tiers, references, loading.

Bug fixing, code optimization, style editing, text-to-SVG and image-to-SVG each read one task
file per tier, turn each record into one sample with the id ``<tier>/<index>`` and render their
references once per run. A subclass names its task file (a key of
:data:`~svgeval.tasks.svgenius.data.TASK_FILES`), the schema of its records, and how a record
becomes a :class:`Sample`.
"""

from __future__ import annotations

import functools
from abc import abstractmethod
from typing import Any, ClassVar

from svgeval.tasks.base import Sample
from svgeval.tasks.common import ReferenceRenders
from svgeval.tasks.svgenius.data import (
    TIERS,
    SvgeniusEditingOptions,
    SvgeniusTask,
    TaskFile,
    load_task_files,
)
from svgeval.tasks.svgenius.protocol import RENDER_SPEC


class SvgeniusCodeTask(SvgeniusTask):
    """Base of the SVGenius tasks whose answer is SVG code."""

    task_file: ClassVar[str]
    """Which released task file the samples come from, e.g. ``bugfix``."""
    item_type: ClassVar[Any]
    """The schema each record of that file is checked against."""
    Options = SvgeniusEditingOptions
    tiers = TIERS

    @functools.cached_property
    def references(self) -> ReferenceRenders:
        """Renders of the references (originals, ground truths) at 224 px, cached by content."""
        return ReferenceRenders(RENDER_SPEC)

    def load(self) -> list[Sample]:
        files = load_task_files(self.common, self.options.file, self.task_file, self.item_type)
        return [
            self.make_sample(f"{task_file.group}/{index:03d}", task_file, item)
            for task_file in files
            for index, item in enumerate(task_file.items)
        ]

    @abstractmethod
    def make_sample(self, sample_id: str, task_file: TaskFile[Any], item: Any) -> Sample:
        """The sample of one record of ``task_file``."""
