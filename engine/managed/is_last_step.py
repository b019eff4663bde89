"""``IsLastStep`` and ``RemainingSteps`` at LangGraph's import path (``langgraph.managed.is_last_step``)."""

from __future__ import annotations

from engine.managed import IsLastStep, IsLastStepManager, RemainingSteps, RemainingStepsManager

__all__ = ["IsLastStep", "IsLastStepManager", "RemainingSteps", "RemainingStepsManager"]
