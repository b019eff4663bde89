"""The README's code, as tests run it: the blocks of a section, and the
output their comments promise.

A line like ``print(result.reason)   # INTERRUPT`` promises that the
program prints ``INTERRUPT`` there; ``…`` in a promise stands for anything.
:func:`promised_in_order` checks that a program's output holds every promise
of its code, in order (whitespace runs compare equal), so the README's
comments cannot drift from what the code really prints.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["README", "blocks", "promises", "promised_in_order"]

README = Path(__file__).resolve().parent.parent / "README.md"


def blocks(heading: str, lang: str) -> list[str]:
    """The ``lang`` code blocks of the README section whose heading is ``heading`` (up to the next one)."""
    text = README.read_text("utf-8")
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    section = text[start : end if end != -1 else len(text)]
    return re.findall(rf"```{lang}\n(.*?)```", section, re.DOTALL)


def promises(code: str, marker: str) -> list[str]:
    """What the print lines of ``code`` promise: the comment after ``marker`` on each printing line."""
    out = []
    for line in code.splitlines():
        body, sep, comment = line.partition(f"{marker} ")
        if sep and re.search(r"\b(print|console\.log|process\.stdout\.write|fmt\.Print\w*)\(", body):
            out.append(comment.strip())
    return out


def promised_in_order(output: str, promised: list[str]) -> list[str]:
    """The promises ``output`` does not keep (empty: all kept, in order)."""
    broken, pos = [], 0
    for promise in promised:
        parts = [r"\s+".join(map(re.escape, p.split())) for p in promise.split("…")]
        found = re.compile(".*?".join(parts), re.DOTALL).search(output, pos)
        if found is None:
            broken.append(promise)
        else:
            pos = found.end()
    return broken
