"""``langgraph.json``: a LangGraph project's configuration, served as its author wrote it.

:func:`read_langgraph_json` turns the file into two things:

* graphwire settings, the keys a ``graphwire.toml`` would hold: ``graphs``
  (each a spec string; the dict form's ``description`` kept aside),
  ``store.index`` → ``store_index``, ``store.ttl`` → ``store_ttl``, and the
  ``graphwire`` section's keys as they are (graphwire's own settings, which
  LangGraph's schema has no place for);
* a :class:`Project`: what the file asks of the process before its graphs
  load (the ``env`` variables, the ``dependencies`` to make importable or to
  find installed) and the lines to say at start, one per key graphwire does
  not honour. :mod:`server._prepare` applies it.

Nothing is dropped in silence: a key graphwire does not honour (an image
build option, custom auth or HTTP routes, a checkpointer TTL) is named once at
start with what graphwire does instead. ``python_version`` is checked here,
so a project asking for a newer Python than the one running fails before
anything opens. ``$schema`` is an editor's hint, not a setting: it is read
past without a word.

The file's directory anchors every relative path in it (graph files, the
``.env`` file, local dependencies), as the LangGraph CLI's does.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Project", "read_env_file", "read_langgraph_json"]

#: Keys that shape the image the LangGraph CLI builds; graphwire serve builds none.
_IMAGE_KEYS = (
    "api_version", "base_image", "image_distro", "pip_config_file", "pip_installer", "dockerfile_lines",
    "keep_pkg_tools", "_INTERNAL_docker_tag",
)  # fmt: skip
_IMAGE = "graphwire serve builds no image (the repository's Dockerfile does: docs/docker.md)"
#: What graphwire does instead of each top-level key it does not honour.
_NOT_HONOURED = {
    **dict.fromkeys(_IMAGE_KEYS, _IMAGE),
    "node_version": "graphwire serves Python graphs only",
    "auth": "custom Auth handlers are not run; graphwire checks a bearer token (auth_token) or tenants' tokens "
    "(auth_tokens): set them in the graphwire section",
    "encryption": "custom encryption handlers are not run; graphwire's savers encrypt with EncryptedSerializer",
    "webhooks": "a run's webhook is sent (docs/http.md), with no URL policy or headers from this file",
    "ui": "graphwire serves no generative UI components",
}
_CHECKPOINTER = {
    "ttl": "give each graph's threads a TTL with [thread_ttl] in graphwire.toml (docs/threads.md), or delete old "
    "versions with `graphwire prune --older-than`",
    "path": "graphwire serves with its own saver: set checkpointer in the graphwire section (a SQLite path or a "
    "postgresql:// DSN)",
    "serde": "graphwire's serializer is an allowlist of its own (docs/porting.md, \"Where it differs\")",
}
_STORE_TTL_KEYS = ("default_ttl", "refresh_on_read", "sweep_interval_minutes")
_INDEX_KEYS = ("embed", "dims", "fields")
#: LangGraph's own distributions: with the import swap on, graphwire's engine answers their imports.
SWAPPED_PACKAGES = frozenset({
    "langgraph", "langgraph-prebuilt", "langgraph-checkpoint", "langgraph-checkpoint-sqlite",
    "langgraph-checkpoint-postgres",
})  # fmt: skip
_PACKAGE_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_PYTHON_VERSION = re.compile(r"^(\d+)\.(\d+)$")


@dataclass(frozen=True, slots=True)
class Project:
    """What a ``langgraph.json`` asks of the process, beyond graphwire's settings.

    Attributes:
        path: the file, absolute.
        env: the variables to set before the graphs load (from the mapping,
            or read from the ``.env`` file).
        env_file: that file, absolute (``--reload`` watches it), or None.
        import_paths: directories to put on the import path, one or two per
            local dependency (see :func:`_import_paths`).
        packages: the named (PyPI) dependencies, as requirement names, to
            find installed.
        descriptions: graph name → the dict form's ``description``.
        notes: one line per key graphwire does not honour, said at start.
        auth: the custom auth handler ``auth.path`` names (not run by graphwire:
            a server that would answer other hosts without tokens of its own
            does not start, :func:`server._prepare.prepare_process`), or None.
    """

    path: str
    env: dict[str, str] = field(default_factory=dict)
    env_file: str | None = None
    import_paths: tuple[str, ...] = ()
    packages: tuple[str, ...] = ()
    descriptions: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    auth: str | None = None


def read_langgraph_json(path: str) -> tuple[dict[str, Any], Project]:
    """The graphwire settings a ``langgraph.json`` holds, and its :class:`Project`.

    Raises:
        ValueError: the file is missing or not JSON, a key holds the wrong
            kind of value, a local dependency is missing, the env file cannot be read, or
            the project asks for a newer Python than this one.
    """
    name = "aegra.json" if os.path.basename(path) == "aegra.json" else "langgraph.json"  # an Aegra project's has its form
    where = f"{name} {path!r}"
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        raise ValueError(f"config file {path!r} does not exist") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"{where} is not JSON: {e}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{where} must hold a JSON object, not {type(data).__name__}")
    base = os.path.dirname(os.path.abspath(path))
    notes: list[str] = []
    settings: dict[str, Any] = {}
    section = data.get("graphwire", {})
    if not isinstance(section, dict):
        raise ValueError(f"{where}: graphwire must be an object of graphwire settings, not {section!r}")
    settings.update(section)
    graphs, descriptions = _graphs(data.get("graphs"), where, notes)
    if graphs is not None:
        settings["graphs"] = graphs
    settings.update(_store(data.get("store"), where, notes))
    settings.update(_http(data.get("http"), where, notes))
    env, env_file = _env(data.get("env"), base, where, notes)
    import_paths, packages = _dependencies(data.get("dependencies", []), base, where)
    _python_version(data.get("python_version"), where, notes)
    for key in data:
        if key in _NOT_HONOURED:
            notes.append(f"{key}: not honoured: {_NOT_HONOURED[key]}")
        elif key == "checkpointer":
            notes.extend(_checkpointer(data[key], where))
        elif key not in ("graphs", "store", "env", "dependencies", "python_version", "graphwire", "http", "$schema"):
            notes.append(f"{key}: not a key graphwire knows (nor LangGraph's langgraph.json schema, as far as "
                         "graphwire knows it); ignored")  # fmt: skip
    auth = data.get("auth")
    project = Project(
        os.path.abspath(path), env, env_file, import_paths, packages, descriptions, tuple(f"{name} {n}" for n in notes),
        str(auth.get("path") or auth) if isinstance(auth, dict) else (str(auth) if auth else None),
    )
    return settings, project


def _graphs(value: Any, where: str, notes: list[str]) -> tuple[dict[str, str] | None, dict[str, str]]:
    """``graphs``: name → spec, each a string or ``{"path": ..., "description": ...}``."""
    if value is None:
        return None, {}
    if not isinstance(value, dict):
        raise ValueError(f'{where}: graphs must be an object of name: "./file.py:graph", not {value!r}')
    specs: dict[str, str] = {}
    descriptions: dict[str, str] = {}
    for name, spec in value.items():
        if isinstance(spec, dict):
            if not isinstance(spec.get("path"), str):
                raise ValueError(f'{where}: graph {name!r} needs "path": "./file.py:graph", got {spec!r}')
            description = spec.get("description")
            if description is not None and not isinstance(description, str):
                raise ValueError(f"{where}: graph {name!r}: description must be text, not {description!r}")
            if description:
                descriptions[name] = description
            notes.extend(f"graphs.{name}.{k}: not honoured (a graph takes path and description)"
                         for k in spec if k not in ("path", "description"))  # fmt: skip
            spec = spec["path"]
        if not isinstance(spec, str):
            raise ValueError(f'{where}: graph {name!r} must be "./file.py:graph" or {{"path": ...}}, not {spec!r}')
        specs[name] = spec
    return specs, descriptions


def _store(value: Any, where: str, notes: list[str]) -> dict[str, Any]:
    """``store``: its ``index`` and ``ttl`` become ``store_index`` and ``store_ttl`` (same keys, same meaning)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"{where}: store must be an object (index, ttl), not {value!r}")
    out: dict[str, Any] = {}
    for key, target, known in (("index", "store_index", _INDEX_KEYS), ("ttl", "store_ttl", _STORE_TTL_KEYS)):
        part = value.get(key)
        if part is None:
            continue
        if not isinstance(part, dict):
            raise ValueError(f"{where}: store.{key} must be an object, not {part!r}")
        out[target] = {k: v for k, v in part.items() if k in known and v is not None}
        notes.extend(f"store.{key}.{k}: not honoured (graphwire's {target} takes {', '.join(known)})"
                     for k in part if k not in known)  # fmt: skip
    notes.extend(f"store.{k}: not honoured (graphwire's store takes index and ttl)" for k in value if k not in ("index", "ttl"))
    return out


def _http(value: Any, where: str, notes: list[str]) -> dict[str, Any]:
    """``http``: its ``app`` (the project's own routes, served before the API's: server.http._custom_app) as
    ``http_app``; its other keys are noted as not honoured, but one that would leave routes open is refused."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f'{where}: http must be an object, e.g. {{"app": "./src/agent/webapp.py:app"}}, not {value!r}')
    if value.get("enable_custom_route_auth"):
        raise ValueError(
            f"{where}: http.enable_custom_route_auth is not honoured by graphwire (it runs no custom auth), and the "
            "routes of http.app would be served open: leave it out, and guard those routes in the app itself"
        )
    app = value.get("app")
    if app is not None and not isinstance(app, str):
        raise ValueError(f'{where}: http.app must be a text "./path/to/webapp.py:app", not {app!r}')
    notes.extend(
        f"http.{k}: not honoured: graphwire serves LangGraph's routes as they are (no CORS, route switches, mount "
        "prefix or header settings from this file); the app's own middleware does what it does"
        for k, v in value.items() if k != "app" and v not in (None, False)
    )  # fmt: skip
    return {} if app is None else {"http_app": app}


def _checkpointer(value: Any, where: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, dict):
        raise ValueError(f"{where}: checkpointer must be an object, not {value!r}")
    return [f"checkpointer.{k}: not honoured: {_CHECKPOINTER.get(k, 'not a checkpointer option graphwire knows')}"
            for k, v in value.items() if v is not None]  # fmt: skip


def _env(value: Any, base: str, where: str, notes: list[str]) -> tuple[dict[str, str], str | None]:
    """``env``: a mapping of variables, or the path of a ``.env`` file (relative to the file's directory).

    A file that does not exist gives no variables and a note, as ``langgraph dev`` starts without it
    (a new project from LangGraph's templates names ``.env`` and ships ``.env.example``); one that
    exists and cannot be read is refused.
    """
    if value is None:
        return {}, None
    if isinstance(value, dict):
        bad = [k for k, v in value.items() if not isinstance(v, (str, int, float, bool))]
        if bad:
            raise ValueError(f"{where}: env {bad[0]!r} must be text, not {value[bad[0]]!r}")
        return {k: v if isinstance(v, str) else json.dumps(v) for k, v in value.items()}, None
    if not isinstance(value, str):
        raise ValueError(f'{where}: env must be an object of variables or the path of a .env file, not {value!r}')
    env_file = os.path.join(base, value)
    try:
        return read_env_file(env_file), env_file
    except FileNotFoundError:
        notes.append(f"env: the file {value!r} does not exist ({env_file}): no variables are taken from it")
        return {}, env_file
    except OSError as e:
        raise ValueError(f"{where}: env file {value!r} cannot be read ({e.strerror}: {env_file})") from None


def read_env_file(path: str) -> dict[str, str]:
    """``KEY=VALUE`` lines, as ``.env`` files hold them.

    Blank lines and ``#`` comments are skipped, a leading ``export`` is
    allowed, a value in single or double quotes is taken between them (a
    double-quoted one with ``\\n`` escapes), an unquoted one up to a `` #``
    comment. No ``${VAR}`` expansion: a value is taken as written.
    """
    env: dict[str, str] = {}
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            key, sep, value = line.removeprefix("export ").partition("=")
            key, value = key.strip(), value.strip()
            if not sep or not key.isidentifier():
                continue  # not an assignment: dotenv skips it too
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                quote, value = value[0], value[1:-1]
                if quote == '"':
                    value = value.replace("\\n", "\n").replace('\\"', '"')
            else:
                value = value.split(" #", 1)[0].rstrip()
            env[key] = value
    return env


def _dependencies(value: Any, base: str, where: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``dependencies``: local paths (``.``, ``./pkg``) made importable, the rest named as packages."""
    if not isinstance(value, list) or not all(isinstance(d, str) for d in value):
        raise ValueError(f'{where}: dependencies must be a list of texts, e.g. [".", "langchain-openai"], not {value!r}')
    paths: list[str] = []
    packages: list[str] = []
    for dep in value:
        if dep.startswith("."):
            directory = os.path.normpath(os.path.join(base, dep))
            if not os.path.isdir(directory):
                raise ValueError(f"{where}: the local dependency {dep!r} is not a directory ({directory})")
            paths.extend(_import_paths(Path(directory)))
            packages.extend(_requirements(Path(directory)))
        else:
            found = _PACKAGE_NAME.match(dep)
            if found is None or dep.startswith(("git+", "http:", "https:", "file:")) or "://" in dep:
                continue  # a URL: nothing here says what it installs; an import of it fails by its name
            packages.append(found[1])
    return tuple(dict.fromkeys(paths)), tuple(dict.fromkeys(packages))


def _import_paths(directory: Path) -> list[str]:
    """Where a local dependency's code imports from, as the LangGraph CLI's image would install it.

    A directory with ``__init__.py`` is a package (its parent goes on the
    path, so ``import dirname`` works); any other (a project with
    ``pyproject.toml`` or ``setup.py``, or a folder of modules) imports from
    itself, and from its ``src/`` when it has one (the src layout).
    """
    if (directory / "__init__.py").is_file():
        return [str(directory.parent)]
    paths = [str(directory)]
    if (directory / "src").is_dir():
        paths.append(str(directory / "src"))
    return paths


def _requirements(directory: Path) -> list[str]:
    """The names a local dependency's ``requirements.txt`` lists (the LangGraph CLI installs them too)."""
    try:
        lines = (directory / "requirements.txt").read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    names = []
    for line in lines:
        line = line.split("#", 1)[0].strip()
        found = _PACKAGE_NAME.match(line)
        if found and not line.startswith("-") and "://" not in line:
            names.append(found[1])
    return names


def _python_version(value: Any, where: str, notes: list[str]) -> None:
    """``python_version``: this Python must be at least that one (a project may use what came in it)."""
    if value is None:
        return
    found = _PYTHON_VERSION.match(value) if isinstance(value, str) else None
    if found is None:
        raise ValueError(f'{where}: python_version must be "major.minor", e.g. "3.11", not {value!r}')
    asked, running = (int(found[1]), int(found[2])), sys.version_info[:2]
    here = f"{running[0]}.{running[1]}"
    if running < asked:
        raise ValueError(
            f"{where} asks for Python {value}, and graphwire runs on Python {here} here: "
            f"run graphwire with Python {value} or newer (a virtual environment made with python{value} -m venv)"
        )
    if running != asked:
        notes.append(f"python_version: {value} asked, serving on Python {here}")
