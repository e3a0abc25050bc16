"""svgeval's benchmark harness: ``python -m bench CASE [--json]`` from the repository root.

Each case (:mod:`bench.cases`) measures something svgeval does beside its floor, the least that
work can cost on the same machine, in the same run, and returns both (:class:`~bench.measure.
Figures`); the harness prints them with their ratio. ``python -m bench --list`` lists the cases.
The floors live in :mod:`bench.floors`, the shared measuring helpers in :mod:`bench.measure`,
and the latest numbers of each case in ``bench/RESULTS.md``.
"""
