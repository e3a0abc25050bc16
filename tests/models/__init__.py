"""Tests of the model backends.

This directory is a package so that pytest puts ``tests/`` on ``sys.path`` (rootdir-based
"prepend" import mode), which lets these tests import ``fake_openai_server``.
"""
