"""Samples read when they are used, so a run's memory does not grow with its dataset.

A task whose release is one small file set per sample (SVGEditBench: a query and an answer file)
returns :class:`LazySamples` from :meth:`~svgeval.tasks.base.Task.load`: it holds each sample's
id, group and where to read it, and builds the :class:`~svgeval.tasks.base.Sample` each time an
item is read. :class:`SampleView` is some of a sequence's samples, by index, copying nothing
(``--limit``, the samples of a shard). :func:`headers` gives the id and group of every sample,
from the held headers where there are some, without reading a sample.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Generic, NamedTuple, TypeVar, overload

from svgeval.tasks.base import Sample

Key = TypeVar("Key")


class Header(NamedTuple):
    """What identifies a sample without reading it: its id and group."""

    id: str
    group: str


class LazySamples(Sequence[Sample], Generic[Key]):
    """Samples built on access: ``build(keys[i])`` is item ``i``, whose id and group are
    ``headers[i]`` (checked when it is built)."""

    def __init__(self, headers: Sequence[Header], keys: Sequence[Key],
                 build: Callable[[Key], Sample]) -> None:
        if len(headers) != len(keys):
            raise ValueError(f"{len(headers)} headers for {len(keys)} keys")
        self._headers, self._keys, self._build = list(headers), list(keys), build

    def __len__(self) -> int:
        return len(self._keys)

    @overload
    def __getitem__(self, index: int) -> Sample: ...

    @overload
    def __getitem__(self, index: slice) -> SampleView: ...

    def __getitem__(self, index: int | slice) -> Sample | SampleView:
        if isinstance(index, slice):
            return SampleView(self, range(len(self))[index])
        sample = self._build(self._keys[index])
        if (sample.id, sample.group) != self._headers[index]:
            raise ValueError(f"sample {index} was listed as {self._headers[index]} but read as "
                             f"{(sample.id, sample.group)}")
        return sample

    def headers(self) -> list[Header]:
        """Every sample's id and group, in order, read from nothing."""
        return list(self._headers)


class SampleView(Sequence[Sample]):
    """The samples of ``base`` at ``indices``, in that order, read from ``base`` when used."""

    def __init__(self, base: Sequence[Sample], indices: Sequence[int]) -> None:
        self._base, self._indices = base, list(indices)

    def __len__(self) -> int:
        return len(self._indices)

    @overload
    def __getitem__(self, index: int) -> Sample: ...

    @overload
    def __getitem__(self, index: slice) -> SampleView: ...

    def __getitem__(self, index: int | slice) -> Sample | SampleView:
        if isinstance(index, slice):
            return SampleView(self._base, self._indices[index])
        return self._base[self._indices[index]]

    def __iter__(self) -> Iterator[Sample]:
        return (self._base[i] for i in self._indices)

    def headers(self) -> list[Header]:
        """Every sample's id and group, in order (read from ``base``'s headers if it has them)."""
        every = headers(self._base)
        return [every[i] for i in self._indices]


def headers(samples: Sequence[Sample]) -> list[Header]:
    """The id and group of each of ``samples``, without reading lazy samples."""
    if isinstance(samples, (LazySamples, SampleView)):
        return samples.headers()
    return [Header(sample.id, sample.group) for sample in samples]
