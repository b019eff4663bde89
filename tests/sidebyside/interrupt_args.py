"""Interrupt's constructor as LangGraph 1.2's: the placeholder id, the older arguments (ns, when,
resumable, interrupt_id) taken, an id derived from ns. (An unknown argument, which LangGraph
ignores, the engine refuses: docs/porting.md.)"""

from langgraph.types import Interrupt

from observe import record

record("no id", Interrupt("x").id)
record("old arguments", [Interrupt(value="abc", resumable=True, when="during", ns=["a:b", "c:d"]).id,
                         Interrupt("v", "given", ns=["a:b"]).id, Interrupt("v", interrupt_id="old").id])
record("equal", Interrupt("v", "i") == Interrupt("v", "i"))
