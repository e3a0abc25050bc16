"""Helpers the tests share: tiny models built from seeded initialisers, local servers (an
imitation OpenAI server with scripted faults, and real-behaviour servers), rebuilt release
layouts and the paths of the shared official releases. Imported as ``support.<module>``
(``tests/`` is on ``sys.path``: pytest's rootdir-based import mode)."""
