"""The documentation site builds in strict mode, every page is in its navigation, and the README stays short.

``mkdocs build --strict`` fails on a broken link, a link to a missing anchor,
or a page left out of ``nav``: a page that moved or a heading that was
renamed breaks the tests, not the site.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def test_the_site_builds_in_strict_mode(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "site" / "coming-from-langgraph" / "index.html").is_file()


def _nav_pages(nav: list) -> list[str]:  # type: ignore[type-arg]
    pages: list[str] = []
    for entry in nav:
        for value in entry.values():
            pages += _nav_pages(value) if isinstance(value, list) else [value]
    return pages


def test_every_page_is_in_the_navigation_and_coming_from_langgraph_comes_first() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    nav = _nav_pages(config["nav"])
    on_disk = sorted(p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md"))
    assert sorted(nav) == on_disk
    assert nav[:2] == ["index.md", "coming-from-langgraph.md"]


def test_the_readme_is_under_300_lines() -> None:
    assert len((ROOT / "README.md").read_text().splitlines()) < 300
