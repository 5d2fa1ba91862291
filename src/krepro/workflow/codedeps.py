"""Code inputs of a workflow script: the package modules it imports, found with :mod:`ast`.

Snakemake reruns a ``script:`` rule when the script changes, but it does not see the
package modules the script imports. :func:`script_dependencies` reads the script's import
statements (at any depth: in functions too), follows those that name a module of the
package, and repeats on each module found until nothing new turns up. Importing
``pkg.a.b`` executes ``pkg/__init__.py`` and ``pkg/a/__init__.py`` first, so these count
as dependencies as well. :func:`code_digest` hashes the script and all these files; the
workflow passes it as a rule parameter, so that an edit of any of them (and of nothing
else) reruns the rule.

Only static imports are seen: ``import pkg.x``, ``from pkg import x``, ``from pkg.x import
name`` and relative imports inside the package. A name imported with ``from pkg.x import
name`` counts as a module when ``pkg/x/name.py`` (or ``pkg/x/name/__init__.py``) exists.
"""

from __future__ import annotations

import ast
import functools
import hashlib
from pathlib import Path

__all__ = ["code_digest", "imported_modules", "module_path", "script_dependencies"]


def module_path(module, src_root):
    """File of a dotted module name under ``src_root``, or ``None`` if it has none there.

    Parameters
    ----------
    module : str
        Dotted name, e.g. ``"krepro.studies.render"``.
    src_root : path-like
        Directory holding the top-level package (``src``).

    Returns
    -------
    pathlib.Path or None
        ``<src_root>/a/b.py`` or ``<src_root>/a/b/__init__.py``.
    """
    base = Path(src_root).joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _module_name(path, src_root):
    """Dotted name of a module file under ``src_root`` (``None`` for files outside it)."""
    try:
        parts = Path(path).resolve().relative_to(Path(src_root).resolve()).with_suffix("").parts
    except ValueError:
        return None
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve_relative(level, module, importer, is_package):
    """Absolute name of ``from <level dots><module> import ...`` inside ``importer``."""
    if importer is None:
        raise ValueError(f"A relative import (level {level}) outside a package module.")
    parts = importer.split(".")
    # A package's own name is its first anchor; a plain module is anchored at its parent.
    keep = len(parts) - level + (1 if is_package else 0)
    if keep <= 0:
        raise ValueError(f"A relative import beyond the top-level package in {importer}.")
    return ".".join(parts[:keep] + ([module] if module else []))


def imported_modules(path, package, src_root=None):
    """Names of the ``package`` modules one Python file imports (directly).

    Parameters
    ----------
    path : path-like
        A script or a module of the package.
    package : str
        Top-level package whose modules count (e.g. ``"krepro"``).
    src_root : path-like, optional
        Directory holding ``package``; needed to resolve relative imports and to tell a
        submodule (``from pkg import mod``) from a name defined in a module.

    Returns
    -------
    set of str
        Dotted module names, each importable from ``src_root`` when it is given.
    """
    path = Path(path)
    stat = path.stat()
    # Keyed by the file's size and mtime, so that an edited file is parsed again.
    return set(
        _imports(
            str(path.resolve()),
            (stat.st_mtime_ns, stat.st_size),
            package,
            None if src_root is None else str(Path(src_root).resolve()),
        )
    )


@functools.lru_cache(maxsize=4096)
def _imports(path, stamp, package, src_root):
    """:func:`imported_modules` of one version of one file (parsing dominates the cost)."""
    path = Path(path)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    importer = _module_name(path, src_root) if src_root is not None else None
    is_package = path.name == "__init__.py"
    found = set()

    def inside(name):
        return name == package or name.startswith(package + ".")

    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if inside(alias.name))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = _resolve_relative(node.level, node.module, importer, is_package)
            else:
                base = node.module
            if not inside(base):
                continue
            found.add(base)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                if src_root is not None and module_path(submodule, src_root) is not None:
                    found.add(submodule)
    return frozenset(found)


# The fields of a statement (or of an ``except`` / ``case`` clause) that hold statements.
_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")


def _statements(body):
    """Every statement under ``body``, nested ones included (in functions, classes, ``if``,
    ``try``, ``with``, loops, ``match``). An import is a statement, which no expression can
    hold, so expressions are not walked: a fraction of :func:`ast.walk`'s nodes."""
    stack = list(body)
    while stack:
        node = stack.pop()
        yield node
        for field in _BODIES:
            stack.extend(getattr(node, field, None) or ())


def _with_parents(module):
    """``"a.b.c"`` → ``["a", "a.b", "a.b.c"]``: importing a module runs its packages first."""
    parts = module.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


def script_dependencies(script, src_root, package="krepro", modules=()):
    """Every ``package`` module a script imports, transitively, as files under ``src_root``.

    Parameters
    ----------
    script : path-like
        The workflow script (or any Python file).
    src_root : path-like
        Directory holding ``package`` (the repository's ``src``).
    package : str, default="krepro"
    modules : iterable of str, default=()
        Dotted names of further modules the script runs without a static import (a study's
        job module, named by the rule): they and their imports count as well.

    Returns
    -------
    list of pathlib.Path
        Sorted module files, including the ``__init__.py`` of every package on the way.

    Raises
    ------
    ValueError
        When the script imports a ``package`` module that has no file under ``src_root``
        (a typo, or a module that was moved): its name and the importing file.
    """
    src_root = Path(src_root)
    files, seen = set(), set()
    pending = [(name, Path(script)) for name in imported_modules(script, package, src_root)]
    pending += [(name, Path(script)) for name in modules]
    while pending:
        name, importer = pending.pop()
        for module in _with_parents(name):
            if module in seen:
                continue
            seen.add(module)
            path = module_path(module, src_root)
            if path is None:
                raise ValueError(
                    f"{importer} imports {module!r}, which has no file under {src_root}."
                )
            files.add(path)
            pending.extend((sub, path) for sub in imported_modules(path, package, src_root))
    return sorted(files)


def code_digest(script, src_root, package="krepro", length=16, modules=()):
    """SHA-256 (hex, first ``length`` digits) of a script and the modules it imports.

    Each file enters the hash with its path relative to ``src_root`` (the script with its
    file name), so moving the repository keeps the digest; editing, adding or removing a
    dependency changes it.

    Parameters
    ----------
    script : path-like
    src_root : path-like
    package : str, default="krepro"
    length : int, default=16
    modules : iterable of str, default=()
        As :func:`script_dependencies`.

    Returns
    -------
    str
    """
    script, src_root = Path(script), Path(src_root)
    digest = hashlib.sha256()
    entries = [(script.name, script)] + [
        (path.relative_to(src_root).as_posix(), path)
        for path in script_dependencies(script, src_root, package, modules)
    ]
    for name, path in entries:
        content = path.read_bytes()
        digest.update(f"{name}\0{len(content)}\0".encode())
        digest.update(content)
    return digest.hexdigest()[:length]
