"""VectorGym's curriculum sampler (Sec. 3.4): short references first, tasks mixed by frequency.

Within each task, samples are ordered by reference length (shortest first, ties by index). The
tasks are interleaved so that every prefix of the order holds each task in proportion to its
share of the dataset: at each step the task ``t`` with the smallest ``(taken_t + 1/2) / n_t``
goes next (Sainte-Lague apportionment; ties by task name), so a minibatch drawn from the sequence
mixes tasks by their dataset frequencies while each task moves from short to long references.
Deterministic; usable wherever a ``torch.utils.data.Sampler`` is (TRL's trainers accept one by
overriding ``_get_train_sampler``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from torch.utils.data import Sampler


def curriculum_order(tasks: Sequence[str], lengths: Sequence[int]) -> list[int]:
    """Dataset indices in curriculum order (see module docstring)."""
    if len(tasks) != len(lengths):
        raise ValueError(f"{len(tasks)} tasks but {len(lengths)} lengths")
    queues = {
        task: sorted((i for i, t in enumerate(tasks) if t == task), key=lambda i: (lengths[i], i))
        for task in sorted(set(tasks))
    }
    taken = dict.fromkeys(queues, 0)
    order: list[int] = []
    for _ in range(len(tasks)):
        task = min((t for t in queues if taken[t] < len(queues[t])),
                   key=lambda t: ((taken[t] + 0.5) / len(queues[t]), t))
        order.append(queues[task][taken[task]])
        taken[task] += 1
    return order


class CurriculumSampler(Sampler[int]):
    """A ``Sampler`` yielding :func:`curriculum_order`; ``lengths`` are reference lengths
    (characters of the reference SVG or caption), the paper's difficulty proxy."""

    def __init__(self, tasks: Sequence[str], lengths: Sequence[int]) -> None:
        self.order = curriculum_order(tasks, lengths)

    def __iter__(self) -> Iterator[int]:
        return iter(self.order)

    def __len__(self) -> int:
        return len(self.order)
