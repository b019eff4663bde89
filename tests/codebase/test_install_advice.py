"""Install advice names what can be installed: graphwire-server is on no package index, so no text tells a
reader to ``pip install 'graphwire-server[...]'`` (an extra is installed from the clone, ``-e '.[extra]'``)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_no_text_installs_the_server_from_an_index() -> None:
    texts = [ROOT / "README.md", *ROOT.glob("docs/**/*.md"), *ROOT.glob("engine/**/*.py"), *ROOT.glob("server/**/*.py"),
             *ROOT.glob("clients/*/README.md")]  # fmt: skip
    found = [f"{p.relative_to(ROOT)}:{n}" for p in texts for n, line in enumerate(p.read_text().splitlines(), 1)
             if "graphwire-server[" in line]  # fmt: skip
    assert not found, f"advice naming a package on no index: {found}"
