"""Scripts that recompute, with the released code of each benchmark, the expected values the
tests and docs record (see README.md). Not part of the test run; run as
``PYTHONPATH=tests python -m upstream.<script>`` from the repository root."""
