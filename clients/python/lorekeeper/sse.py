"""Incremental text/event-stream parsing (the WHATWG rules for the fields Lorekeeper sends)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable, Iterator


@dataclass(frozen=True)
class StreamEvent:
    """One Server-Sent Event of GET …/stream (docs/stream.md)."""

    event: str
    """The event type (MessageRecorded, MemoryRecorded, …) or a notice name (cutoff, deleted, rewound)."""
    data: Any
    """Parsed JSON: {stream, version, type, data, triggerVersion?, recordedAt} for stored events."""
    id: str | None = None
    """`<timeline>:<stream>:<version>`: resume after it with `after=`; None on notices."""


def parse_events(lines: Iterable[str]) -> Iterator[StreamEvent]:
    """Events from decoded lines (without their line breaks); comments (heartbeats) are dropped."""
    block: list[str] = []
    for line in lines:
        if line == "":
            event = _parse_block(block)
            block = []
            if event is not None:
                yield event
        else:
            block.append(line)


def _parse_block(lines: list[str]) -> StreamEvent | None:
    event_id: str | None = None
    event = "message"
    data: list[str] = []
    for line in lines:
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "id":
            event_id = value
        elif field == "event":
            event = value
        elif field == "data":
            data.append(value)
    if not data:
        return None
    text = "\n".join(data)
    try:
        parsed: Any = json.loads(text)
    except ValueError:
        parsed = text
    return StreamEvent(event=event, data=parsed, id=event_id)
