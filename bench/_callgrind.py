"""What the bench scripts that count instructions under callgrind share (tracing_instructions.py,
lg_saver_instructions.py): their command line, and the count of one section's dump.

Each runs its sections with ``os.getpriority`` between them, which callgrind's
``--dump-before=getpriority`` turns into one dump per section (``PREFIX.1`` the
start-up, ``PREFIX.2`` the first section, ...); ``--read PREFIX`` prints them.
"""

from __future__ import annotations

import argparse
from typing import Callable

import engine_overhead as eo


def langgraph_and_ours() -> tuple[eo.ModuleSet, eo.ModuleSet]:
    """LangGraph's module set and ours, or exit saying which cannot be loaded."""
    lg, note = eo.load_langgraph()
    ours, note_ours = eo.load_ours()
    if lg is None or ours is None:
        raise SystemExit(note if lg is None else note_ours)
    return lg, ours


def section_instructions(prefix: str, i: int) -> int:
    """The instructions callgrind counted in dump ``prefix.i``."""
    with open(f"{prefix}.{i}") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(("totals:", "summary:")))


def main(doc: str, run_sections: Callable[[str, int], None], read: Callable[[str, str, int], None], n_help: str) -> None:
    """Run the sections of a row (``ROW N``), or with ``--read PREFIX`` print a finished callgrind run's counts."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("row", choices=sorted(eo.ROWS))
    p.add_argument("n", type=int, help=n_help)
    p.add_argument("--read", metavar="PREFIX", help="print the counts of a finished callgrind run (its output file, no suffix)")
    args = p.parse_args()
    if args.read:
        read(args.read, args.row, args.n)
    else:
        run_sections(args.row, args.n)
