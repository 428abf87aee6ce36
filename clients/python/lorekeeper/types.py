"""The shapes the client sends, as TypedDicts (the answers are the service's JSON, as dicts)."""

from __future__ import annotations

from typing import Literal, TypedDict

Role = Literal["player", "dm", "npc", "narrator", "system", "assistant", "tool"]


class _MessageRequired(TypedDict):
    role: Role
    content: str


class MessageInput(_MessageRequired, total=False):
    """One message of record_messages: visibility 'private' with an audience is a whisper."""

    speaker: str | None
    locationId: str | None
    npcIds: list[str]
    at: str
    visibility: Literal["public", "private", "dm"]
    audience: list[str]
    toolCalls: list[dict[str, str]]
    toolCallId: str
    reasoning: str


class Objective(TypedDict):
    id: str
    name: str


class _FactRequired(TypedDict):
    value: str


class FactInput(_FactRequired, total=False):
    ttlSeconds: int
    expiresAt: str
    priority: int


class CampaignListItem(TypedDict):
    id: str
    name: str
    version: int
    processedVersion: int
    parent: dict[str, object] | None
    createdAt: str
