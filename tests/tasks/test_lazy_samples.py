"""Samples read when used: built on each access, listed without reading, checked as built."""

from __future__ import annotations

import pytest

from svgeval.tasks.base import Sample
from svgeval.tasks.lazy import Header, LazySamples, LazySequence, SampleView, headers


class Counting:
    """A build function that counts its calls."""

    def __init__(self) -> None:
        self.built: list[int] = []

    def __call__(self, key: int) -> Sample:
        self.built.append(key)
        return Sample(id=f"s{key}", group="even" if key % 2 == 0 else "odd", messages=[],
                      reference=f"answer {key}", target={})


def lazy(count: int) -> tuple[LazySamples[int], Counting]:
    build = Counting()
    listed = [Header(f"s{k}", "even" if k % 2 == 0 else "odd") for k in range(count)]
    return LazySamples(listed, list(range(count)), build), build


def test_listing_reads_nothing_and_each_access_builds_one_sample() -> None:
    samples, build = lazy(5)
    assert len(samples) == 5
    assert headers(samples) == [("s0", "even"), ("s1", "odd"), ("s2", "even"), ("s3", "odd"),
                                ("s4", "even")]
    assert build.built == []
    assert samples[3].reference == "answer 3" and samples[-1].id == "s4"
    assert build.built == [3, 4]
    assert [sample.id for sample in samples] == ["s0", "s1", "s2", "s3", "s4"]


def test_views_copy_nothing_and_keep_their_order() -> None:
    samples, build = lazy(6)
    view = SampleView(samples, [4, 1, 2])
    assert headers(view) == [("s4", "even"), ("s1", "odd"), ("s2", "even")]
    assert [sample.id for sample in view[1:]] == ["s1", "s2"]
    assert [sample.id for sample in samples[::2]] == ["s0", "s2", "s4"]
    assert build.built == [1, 2, 0, 2, 4]


def test_a_sample_read_as_another_than_listed_is_refused() -> None:
    build = Counting()
    samples = LazySamples([Header("s0", "odd")], [0], build)
    with pytest.raises(ValueError, match="listed as"):
        samples[0]
    with pytest.raises(ValueError, match="2 headers for 1 keys"):
        LazySamples([Header("a", "g"), Header("b", "g")], [0], build)


def test_headers_of_a_plain_list() -> None:
    plain = [Sample(id="a", group="g", messages=[], reference="", target={})]
    assert headers(plain) == [Header("a", "g")]


def test_a_lazy_sequence_reads_each_item_every_time_and_slices_without_reading() -> None:
    reads: list[str] = []

    def read(key: str) -> str:
        reads.append(key)
        return key.upper()

    letters = LazySequence(["a", "b", "c", "d"], read)
    tail = letters[1:]
    assert reads == [] and len(tail) == 3 and isinstance(tail, LazySequence)
    assert list(tail) == ["B", "C", "D"] and letters[0] == letters[0] == "A"
    assert reads == ["b", "c", "d", "a", "a"]
