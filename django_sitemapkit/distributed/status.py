"""What an engine reports of one attempt at a shard, and the interface every engine
adapter offers (``celery_engine.py``, ``tasks_engine.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

State = Literal["queued", "running", "done", "failed", "lost"]


@dataclass(frozen=True)
class Status:
    """How one attempt at a shard is going.

    ``lost``: its worker died or ran out of time, and the shard may be sent
    again; ``failed``: rendering it raised, and would raise again.
    """

    state: State
    result: Any = None
    error: str | None = None


class Attempt(Protocol):
    def status(self) -> Status: ...

    def cancel(self) -> None: ...


class Engine(Protocol):
    #: How messages name the engine: "Celery (queue 'sitemaps')", say.
    label: str

    def check(self) -> None:
        """Raise ``BuildError`` if no shard could be sent (no broker, say)."""

    def submit(self, payload: dict[str, Any]) -> Attempt: ...
