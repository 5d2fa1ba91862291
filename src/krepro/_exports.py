"""Lazy public names of a package (PEP 562), as scikit-learn and SciPy export theirs.

A package's ``__init__`` maps each public name to the module defining it; the module is
imported on first access. ``import krepro`` therefore stays cheap, and a workflow rule's code
digest (:mod:`krepro.workflow.codedeps`, which follows static imports) counts only the modules
its script really uses, not every module a package re-exports.
"""

from __future__ import annotations

import importlib


def lazy_exports(package, exports):
    """``__getattr__`` and ``__dir__`` for ``package`` that import ``exports[name]`` on use.

    Parameters
    ----------
    package : str
        The package's dotted name (its ``__name__``).
    exports : dict of str to str
        Public name to the dotted name of the module defining it.

    Returns
    -------
    tuple of callable
        ``(__getattr__, __dir__)``, to be bound at the package's top level.
    """

    def __getattr__(name):
        try:
            module = exports[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        return getattr(importlib.import_module(module), name)

    def __dir__():
        return sorted(exports)

    return __getattr__, __dir__
