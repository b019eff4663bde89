"""A retried node's backoff (issue 29): under the sync face a sync node waits in ``time.sleep`` (a program
patching it sees each wait: initial_interval * backoff_factor**n, plus ``random.uniform(0, 1)`` with jitter),
alone in its step or beside a sibling; the attempt number and first-attempt time a node's runtime shows."""

from typing import TypedDict
from unittest.mock import patch

from langgraph.graph import START, StateGraph
from langgraph.types import RetryPolicy

from observe import call, record


class S(TypedDict):
    x: int


def run(policy, sibling=False):
    seen = []

    def flaky(state: S, runtime):
        info = runtime.execution_info
        seen.append((info.node_attempt, info.node_first_attempt_time))
        if len(seen) < policy.max_attempts:
            raise ValueError("not yet")
        return {"x": len(seen)}

    g = StateGraph(S).add_node("flaky", flaky, retry_policy=policy).add_edge(START, "flaky")
    if sibling:
        g.add_node("other", lambda s: {}).add_edge(START, "other")
    with patch("time.sleep") as sleep, patch("random.uniform", return_value=0.25) as uniform:
        try:
            out = g.compile().invoke({"x": 0})
        except ValueError as e:
            out = {"raised": str(e)}
    record(f"waits {policy.jitter} {policy.max_attempts} {sibling}", [c.args for c in sleep.call_args_list])
    record(f"uniform {policy.jitter} {policy.max_attempts} {sibling}", [c.args for c in uniform.call_args_list])
    record(f"attempts {policy.jitter} {policy.max_attempts} {sibling}",
           [(n, first == seen[0][1]) for n, first in seen])
    return out


for sibling in (False, True):
    call(f"plain {sibling}", run, RetryPolicy(max_attempts=3, initial_interval=0.01, jitter=False, retry_on=ValueError), sibling)
    call(f"jitter {sibling}", run, RetryPolicy(max_attempts=2, initial_interval=0.01, jitter=True, retry_on=ValueError), sibling)
    call(f"capped {sibling}", run, RetryPolicy(max_attempts=4, initial_interval=1, backoff_factor=3, max_interval=5,
                                                jitter=False, retry_on=ValueError), sibling)
