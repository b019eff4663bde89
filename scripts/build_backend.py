"""The build backend of graphwire-server: setuptools, and how it names its sibling distributions.

graphwire-server needs two distributions of this repository that no package
index serves: ``graphwire-proto`` (``proto/python``, the generated stubs) and
``graphwire`` (``clients/python``, the client behind ``graphwire chat``).
``setup.py`` lists them through :func:`siblings`, which names them

- in a wheel (``pip install .``, ``pip wheel .``): by file URL into this
  checkout, so ``pip install .`` alone installs all three. Such a wheel is for
  installing from this checkout (the URLs are its paths);
- in an editable install: by name only, so that the editable copies given on
  the same command line satisfy them (``pip install -e proto/python -e
  clients/python -e .``). pip refuses one project as both an editable and a
  file-URL requirement in one resolution, so a wheel's URLs would not do.

Everything else is setuptools' own backend, unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (  # noqa: F401  (the PEP 517 hooks we do not change)
    build_sdist,
    build_wheel,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_wheel,
)

_editable = False  # set while an editable install's metadata or wheel is built


def siblings(paths: Mapping[str, str], root: Path) -> list[str]:
    """Requirements on the distributions at ``paths`` (name -> directory under ``root``)."""
    if _editable:
        return sorted(paths)
    return [f"{name} @ {(root / path).resolve().as_uri()}" for name, path in sorted(paths.items())]


def _as_editable(hook: Callable[..., str]) -> Callable[..., str]:
    def run(*args: Any, **kwargs: Any) -> str:
        global _editable
        _editable = True
        try:
            return hook(*args, **kwargs)
        finally:
            _editable = False

    run.__name__ = hook.__name__
    run.__doc__ = hook.__doc__
    return run


prepare_metadata_for_build_editable = _as_editable(_setuptools.prepare_metadata_for_build_editable)
build_editable = _as_editable(_setuptools.build_editable)
