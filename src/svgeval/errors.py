"""The root of svgeval's exceptions, and the one class the user can fix.

Every exception svgeval defines derives from :class:`SvgevalError`. Those the user can fix (a
task name, a flag's value, a data folder, a model that does not answer) derive from
:class:`UserError`: the command line prints one of them as its one line (``error: ...``) and
exits with code 1, and the Python API (:func:`svgeval.evaluate`) raises the same classes. Any
other exception, a builtin one included, is a bug: the command line lets its traceback through.

Each layer defines its own subclasses next to the code that raises them (the task registry's
:class:`~svgeval.registry.UnknownName`, the render layer's ``RendererUnavailable``, the models'
``ModelUnavailable``, the tasks' ``DataUnavailable`` and ``InvalidOption``, the runner's
``RunConflict``...). A subclass that replaces a builtin error callers already caught
(``except KeyError`` around a registry look-up, ``pytest.raises(ValueError)`` around an option's
value) derives from that builtin too, so that both ways of catching it keep working.
"""

from __future__ import annotations


class SvgevalError(Exception):
    """Any exception svgeval defines."""


class UserError(SvgevalError):
    """An error the user can fix; its message is one line that says what happened and what to
    do."""
