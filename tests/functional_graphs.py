"""An approval workflow written with the functional API.

The end-to-end tests serve it: ``--graph approval=tests.functional_graphs:approval``
(a server describes a graph by its module's first paragraph).
"""

from __future__ import annotations

import itertools

from engine.func import entrypoint, task
from engine.types import interrupt

_drafts = itertools.count(1)


@task
def write_draft(topic: str) -> str:
    # Numbered per run of the task in this process: a resumed entrypoint that ran it
    # again would get the next number.
    return f"draft #{next(_drafts)} about {topic}"


@task
def ask_approval(draft: str) -> dict:
    return interrupt({"approve?": draft})


@entrypoint()
def approval(topic: str) -> dict:
    """Draft a text, ask for approval inside a task, report what was decided."""
    draft = write_draft(topic).result()
    answer = ask_approval(draft).result()
    return {"draft": draft, "approved": bool(answer.get("ok")), "note": answer.get("note", "")}
