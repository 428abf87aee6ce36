"""Lorekeeper: event-sourced narrative memory for AI game masters and game-playing agents (Python client)."""

from .client import LorekeeperClient, LorekeeperError
from .sse import StreamEvent
from .types import CampaignListItem, FactInput, MessageInput, Objective

__all__ = [
    "CampaignListItem",
    "FactInput",
    "LorekeeperClient",
    "LorekeeperError",
    "MessageInput",
    "Objective",
    "StreamEvent",
]
__version__ = "0.1.0"
