"""What a Resume answers: the request's answers as the engine's arguments, then the engine decides.

A Resume sends one answer (``resume_json``: the first interrupt pending when
the call arrives, or, with ``null`` at a static breakpoint, "continue") or a
map of interrupt id to answer (``resumes_json``). The engine plans it against
the thread when the call arrives (:meth:`engine.pregel.Pregel.aplan_resume`:
NOT_FOUND for an unknown thread, FAILED_PRECONDITION when nothing it names is
pending) and checks it again once its run has loaded the thread, inside the
run's slot and lease (the call may have waited for the thread meanwhile, and
another run may have answered the question): an answer is never applied to a
question nobody asked it.
"""

from __future__ import annotations

from typing import Any

from graphwire_proto.v1 import graphwire_pb2 as pb
from server._json import decode_json
from server._reads import bad
from server._registry import GraphEntry
from server._starts import Start, const

__all__ = ["prepare_resume", "resume_answers"]


def resume_answers(request: pb.ResumeRequest) -> dict[str, Any]:
    """The request's answers as :meth:`~engine.pregel.Pregel.aplan_resume`'s ``answer=`` or ``answers=``."""
    has_one = bool(request.resume_json.strip())
    if has_one and request.resumes_json:
        raise bad("resumes_json", "set either resume_json or resumes_json, not both")
    if not has_one and not request.resumes_json:
        raise bad("resume_json", 'required (or resumes_json); send "null" for no answer')
    if request.resumes_json:
        return {"answers": {k: decode_json(v, f"resumes_json[{k!r}]") for k, v in request.resumes_json.items()}}
    return {"answer": decode_json(request.resume_json, "resume_json")}


async def prepare_resume(entry: GraphEntry, thread_id: str, request: pb.ResumeRequest, config: dict[str, Any]) -> Start:
    """Plan ``request`` against the thread as it is now; its run checks the plan again."""
    args = resume_answers(request)
    resume = await entry.graph.aplan_resume(config, answers_name="resumes_json", thread_name=thread_id, **args)
    return const(resume, config)
