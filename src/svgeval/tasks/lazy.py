"""Samples read when they are used, so a run's memory does not grow with its dataset.

:class:`LazySequence` is the one mechanism: item ``i`` is ``read(keys[i])``, computed each time
it is read, and a slice is the same kind of sequence over fewer keys. A task whose release is one
small file set per sample (SVGEditBench: a query and an answer file) returns
:class:`LazySamples` from :meth:`~svgeval.tasks.base.Task.load`: it holds each sample's id, group
and where to read it, and builds the :class:`~svgeval.tasks.base.Sample` each time an item is
read. :class:`SampleView` is some of a sequence's samples, by index, copying nothing (``--limit``,
the samples of a shard). :func:`headers` gives the id and group of every sample, from the held
headers where there are some, without reading a sample. The runner keeps its finished records
and hands them to the results the same way (:mod:`svgeval.runner.finished`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Generic, NamedTuple, TypeVar, overload

from typing_extensions import Self

from svgeval.tasks.base import Sample

Key = TypeVar("Key")
Item = TypeVar("Item")


class LazySequence(Sequence[Item], Generic[Key, Item]):
    """``read(keys[i])`` as item ``i``, computed each time it is read; a slice is a sequence of
    the same kind over those keys (nothing is read or copied)."""

    def __init__(self, keys: Sequence[Key], read: Callable[[Key], Item]) -> None:
        self._keys, self._read = keys, read

    def __len__(self) -> int:
        return len(self._keys)

    @overload
    def __getitem__(self, index: int) -> Item: ...

    @overload
    def __getitem__(self, index: slice) -> Self: ...

    def __getitem__(self, index: int | slice) -> Item | Self:
        if isinstance(index, slice):
            view = copy.copy(self)
            view._keys = self._keys[index]
            return view
        return self._read(self._keys[index])

    def __iter__(self) -> Iterator[Item]:
        return (self._read(key) for key in self._keys)


class Header(NamedTuple):
    """What identifies a sample without reading it: its id and group."""

    id: str
    group: str


class LazySamples(LazySequence[tuple[Header, Key], Sample[Any]]):
    """Samples built on access: ``build(keys[i])`` is item ``i``, whose id and group are
    ``headers[i]`` (checked when it is built)."""

    def __init__(self, headers: Sequence[Header], keys: Sequence[Key],
                 build: Callable[[Key], Sample[Any]]) -> None:
        if len(headers) != len(keys):
            raise ValueError(f"{len(headers)} headers for {len(keys)} keys")
        self._build = build
        super().__init__(list(zip(headers, keys)), self._checked)

    def _checked(self, entry: tuple[Header, Key]) -> Sample[Any]:
        header, key = entry
        sample = self._build(key)
        if (sample.id, sample.group) != header:
            raise ValueError(f"a sample listed as {tuple(header)} was read as "
                             f"{(sample.id, sample.group)}")
        return sample

    def headers(self) -> list[Header]:
        """Every sample's id and group, in order, read from nothing."""
        return [header for header, _ in self._keys]


class SampleView(LazySequence[int, Sample[Any]]):
    """The samples of ``base`` at ``indices``, in that order, read from ``base`` when used."""

    def __init__(self, base: Sequence[Sample[Any]], indices: Sequence[int]) -> None:
        self._base = base
        super().__init__(list(indices), base.__getitem__)

    def headers(self) -> list[Header]:
        """Every sample's id and group, in order (read from ``base``'s headers if it has them)."""
        every = headers(self._base)
        return [every[i] for i in self._keys]


def headers(samples: Sequence[Sample[Any]]) -> list[Header]:
    """The id and group of each of ``samples``, without reading lazy samples."""
    if isinstance(samples, (LazySamples, SampleView)):
        return samples.headers()
    return [Header(sample.id, sample.group) for sample in samples]
