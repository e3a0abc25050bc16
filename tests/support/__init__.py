"""Helpers the tests share: tiny models built from seeded initialisers, local servers (an
imitation OpenAI server with scripted faults, and real-behaviour servers), rebuilt release
layouts, the paths of the shared official releases, and the render tests' hostile inputs
(crashers, bombs, the hostile corpus, the browser witnesses). Imported as ``support.<module>``
(``tests/`` is on ``sys.path``: pytest's rootdir-based import mode; render workers get the
parent's path, so a function of ``support.crashers`` unpickles there by that name)."""
