"""The Lorekeeper client: the TypeScript client's methods in snake_case, standard library only."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Iterator, Mapping, Sequence

from .sse import StreamEvent, parse_events
from .types import CampaignListItem, FactInput, MessageInput, Objective

Query = Mapping[str, "str | int | float | bool | None"]


class LorekeeperError(Exception):
    """A problem+json answer: `status`, `code` (e.g. CAMPAIGN_NOT_FOUND) and the whole `problem`."""

    def __init__(self, status: int, code: str, problem: dict[str, Any]) -> None:
        super().__init__(f"{status} {code}: {problem.get('detail', '')}")
        self.status = status
        self.code = code
        self.problem = problem


def _q(value: str) -> str:
    return urllib.parse.quote(value, safe="")


class LorekeeperClient:
    """Typed client for the Lorekeeper REST API (v1). Writes take `idempotency_key` and `if_match`."""

    def __init__(self, base_url: str, api_key: str | None = None, timeout: float = 60.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout

    # -- transport ---------------------------------------------------------------------------------
    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        query: Query | None = None,
        *,
        idempotency_key: str | None = None,
        if_match: int | str | None = None,
        accept: str = "application/json",
    ) -> Any:
        """One request: JSON in, JSON (or text) out; problem+json becomes a LorekeeperError."""
        headers = {"accept": accept}
        data = None
        if body is not None:
            headers["content-type"] = "application/json"
            data = json.dumps(body).encode()
        if self.api_key:
            headers["authorization"] = f"Bearer {self.api_key}"
        if idempotency_key:
            headers["idempotency-key"] = idempotency_key
        if if_match is not None:
            headers["if-match"] = str(if_match)
        req = urllib.request.Request(self._url(path, query), data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as res:
                return _decode(res.headers.get("content-type", ""), res.read())
        except urllib.error.HTTPError as err:
            raise _error(err.code, err.headers.get("content-type", ""), err.read()) from None

    def _url(self, path: str, query: Query | None = None) -> str:
        pairs = [(k, _str(v)) for k, v in (query or {}).items() if v is not None]
        return f"{self.base_url}{path}" + (f"?{urllib.parse.urlencode(pairs)}" if pairs else "")

    @staticmethod
    def _c(campaign_id: str, rest: str = "") -> str:
        return f"/v1/campaigns/{_q(campaign_id)}{rest}"

    # -- campaigns and timelines (DESIGN §2, §10) ----------------------------------------------------
    def create_campaign(self, name: str, id: str | None = None, per_role_memory: bool | None = None, **w: Any) -> Any:
        body: dict[str, Any] = {"name": name}
        if id is not None:
            body["id"] = id
        if per_role_memory is not None:
            body["perRoleMemory"] = per_role_memory
        return self.request("POST", "/v1/campaigns", body, **w)

    def get_campaign(self, campaign_id: str, as_of: int | None = None) -> Any:
        return self.request("GET", self._c(campaign_id), query={"asOf": as_of})

    def list_campaigns(self, limit: int | None = None, after: str | None = None) -> dict[str, list[CampaignListItem]]:
        """The campaigns this key may see, by id, `limit` after the id `after`."""
        return self.request("GET", "/v1/campaigns", query={"limit": limit, "after": after})

    def delete_campaign(self, campaign_id: str, **w: Any) -> None:
        """Deletes a campaign and everything of it (its forks stay); a second delete is 404."""
        self.request("DELETE", self._c(campaign_id), **w)

    def fork(self, campaign_id: str, id: str | None = None, name: str | None = None,
             at_version: int | None = None, **w: Any) -> Any:
        body = _without_none({"id": id, "name": name, "atVersion": at_version})
        return self.request("POST", self._c(campaign_id, "/fork"), body, **w)

    def rewind(self, campaign_id: str, to_version: int, keep_as: str | None = None, **w: Any) -> Any:
        body = _without_none({"toVersion": to_version, "keepAs": keep_as})
        return self.request("POST", self._c(campaign_id, "/rewind"), body, **w)

    def retract_messages(self, campaign_id: str, indexes: Sequence[int], reason: str | None = None, **w: Any) -> Any:
        body = _without_none({"indexes": list(indexes), "reason": reason})
        return self.request("POST", self._c(campaign_id, "/messages/retract"), body, **w)

    def correct_memory(self, campaign_id: str, memory_id: str, summary: str, **w: Any) -> Any:
        return self.request("PUT", self._c(campaign_id, f"/memories/{_q(memory_id)}"), {"summary": summary}, **w)

    def delete_memory(self, campaign_id: str, memory_id: str, **w: Any) -> None:
        self.request("DELETE", self._c(campaign_id, f"/memories/{_q(memory_id)}"), **w)

    def memory_history(self, campaign_id: str, memory_id: str, as_of: int | None = None) -> Any:
        path = self._c(campaign_id, f"/memories/{_q(memory_id)}/history")
        return self.request("GET", path, query={"asOf": as_of})

    # -- world: locations, NPCs, quests, players, bible, glossary, facts ------------------------------
    def put_location(self, campaign_id: str, location_id: str, name: str,
                     danger_level: str | None = None, **w: Any) -> Any:
        body = _without_none({"name": name, "dangerLevel": danger_level})
        return self.request("PUT", self._c(campaign_id, f"/locations/{_q(location_id)}"), body, **w)

    def put_npc(self, campaign_id: str, npc_id: str, name: str, aliases: Sequence[str] | None = None,
                location_id: str | None = None, **w: Any) -> Any:
        body = _without_none({"name": name, "aliases": _list(aliases), "locationId": location_id})
        return self.request("PUT", self._c(campaign_id, f"/npcs/{_q(npc_id)}"), body, **w)

    def put_quest(self, campaign_id: str, quest_id: str, name: str, objectives: Sequence[Objective], **w: Any) -> Any:
        body = {"name": name, "objectives": list(objectives)}
        return self.request("PUT", self._c(campaign_id, f"/quests/{_q(quest_id)}"), body, **w)

    def put_player(self, campaign_id: str, player_id: str, name: str, aliases: Sequence[str] | None = None,
                   stats: Mapping[str, str | int] | None = None, **w: Any) -> Any:
        body = _without_none({"name": name, "aliases": _list(aliases), "stats": dict(stats) if stats else None})
        return self.request("PUT", self._c(campaign_id, f"/players/{_q(player_id)}"), body, **w)

    def players(self, campaign_id: str) -> Any:
        return self.request("GET", self._c(campaign_id, "/players"))

    def change_settings(self, campaign_id: str, per_role_memory: bool, **w: Any) -> Any:
        return self.request("PUT", self._c(campaign_id, "/settings"), {"perRoleMemory": per_role_memory}, **w)

    def get_bible(self, campaign_id: str, as_of: int | None = None) -> Any:
        return self.request("GET", self._c(campaign_id, "/bible"), query={"asOf": as_of})

    def put_bible(self, campaign_id: str, text: str, dm_only: str | None = None, **w: Any) -> Any:
        return self.request("PUT", self._c(campaign_id, "/bible"), _without_none({"text": text, "dmOnly": dm_only}), **w)

    def glossary(self, campaign_id: str, as_of: int | None = None) -> Any:
        return self.request("GET", self._c(campaign_id, "/glossary"), query={"asOf": as_of})

    def set_glossary_term(self, campaign_id: str, term: str, definition: str, **w: Any) -> Any:
        return self.request("PUT", self._c(campaign_id, f"/glossary/{_q(term)}"), {"definition": definition}, **w)

    def hide_glossary_term(self, campaign_id: str, term: str, **w: Any) -> Any:
        return self.request("DELETE", self._c(campaign_id, f"/glossary/{_q(term)}"), **w)

    def assert_fact(self, campaign_id: str, type: str, key: str, fact: FactInput, **w: Any) -> Any:
        return self.request("PUT", self._c(campaign_id, f"/facts/{_q(type)}/{_q(key)}"), dict(fact), **w)

    def resolve_fact(self, campaign_id: str, type: str, key: str, **w: Any) -> Any:
        return self.request("POST", self._c(campaign_id, f"/facts/{_q(type)}/{_q(key)}/resolve"), {}, **w)

    def facts(self, campaign_id: str, status: str | None = None, as_of: int | None = None) -> Any:
        return self.request("GET", self._c(campaign_id, "/facts"), query={"status": status, "asOf": as_of})

    def digest(self, campaign_id: str, as_of: int | None = None) -> Any:
        return self.request("GET", self._c(campaign_id, "/digest"), query={"asOf": as_of})

    # -- messages and commands (DESIGN §2, §7) --------------------------------------------------------
    def record_messages(self, campaign_id: str, messages: Sequence[MessageInput], **w: Any) -> Any:
        """Appends messages; answers {indexes, version}."""
        return self.request("POST", self._c(campaign_id, "/messages"), {"messages": list(messages)}, **w)

    def list_messages(self, campaign_id: str, **query: Any) -> Any:
        """Query: after, limit, locationId, includeRetracted, asOf."""
        return self.request("GET", self._c(campaign_id, "/messages"), query=query)

    def command(self, campaign_id: str, name: str, body: Mapping[str, Any] | None = None, **w: Any) -> Any:
        """POST …/commands/<name> → {version}."""
        return self.request("POST", self._c(campaign_id, f"/commands/{name}"), dict(body or {}), **w)

    def change_location(self, campaign_id: str, to_location_id: str, **w: Any) -> Any:
        return self.command(campaign_id, "change-location", {"toLocationId": to_location_id}, **w)

    def complete_objective(self, campaign_id: str, quest_id: str, objective_id: str, **w: Any) -> Any:
        return self.command(campaign_id, "complete-objective", {"questId": quest_id, "objectiveId": objective_id}, **w)

    def complete_quest(self, campaign_id: str, quest_id: str, **w: Any) -> Any:
        return self.command(campaign_id, "complete-quest", {"questId": quest_id}, **w)

    def progress_act(self, campaign_id: str, act_id: str, **w: Any) -> Any:
        return self.command(campaign_id, "progress-act", {"actId": act_id}, **w)

    def update_location_state(self, campaign_id: str, location_id: str, danger_level: str | None = None,
                              complete_encounter: str | None = None, **w: Any) -> Any:
        body = _without_none(
            {"locationId": location_id, "dangerLevel": danger_level, "completeEncounter": complete_encounter}
        )
        return self.command(campaign_id, "update-location-state", body, **w)

    def end_round(self, campaign_id: str, **w: Any) -> Any:
        return self.command(campaign_id, "end-round", {}, **w)

    # -- reading: memories, events, search, context (DESIGN §7, §8) -----------------------------------
    def memories(self, campaign_id: str, **query: Any) -> Any:
        """Query: scope, subjectId, limit, before, asOf."""
        return self.request("GET", self._c(campaign_id, "/memories"), query=query)

    def events(self, campaign_id: str, **query: Any) -> Any:
        """Query: stream ('game' | 'memory'), after, limit, asOf."""
        return self.request("GET", self._c(campaign_id, "/events"), query=query)

    def search(self, campaign_id: str, q: str, **query: Any) -> Any:
        """Ranked full-text search; query: in ('messages' | 'reasoning' | 'memories'), limit, role, locationId."""
        return self.request("GET", self._c(campaign_id, "/search"), query={"q": q, **query})

    def post_broadcast(self, content: str, from_: str, **w: Any) -> Any:
        return self.request("POST", "/v1/broadcasts", {"content": content, "from": from_}, **w)

    def broadcasts(self, q: str | None = None, limit: int | None = None) -> Any:
        return self.request("GET", "/v1/broadcasts", query={"q": q, "limit": limit})

    def context(self, campaign_id: str, **query: Any) -> Any:
        """The context as JSON; query: agent, viewer, budget, query, include, minVersion, waitMs, asOf, …"""
        return self.request("GET", self._c(campaign_id, "/context"), query=query)

    def context_text(self, campaign_id: str, **query: Any) -> str:
        """The context as the model reads it (Accept: text/plain); the same query as context()."""
        return self.request("GET", self._c(campaign_id, "/context"), query=query, accept="text/plain")

    # -- game state (DESIGN §5) -----------------------------------------------------------------------
    def put_snapshot(self, campaign_id: str, account: str, tool: str, content: Any, **fields: Any) -> Any:
        """fields: tick, capturedAt, merge."""
        path = self._c(campaign_id, f"/accounts/{_q(account)}/snapshots/{_q(tool)}")
        return self.request("PUT", path, {"content": content, **fields})

    def snapshots(self, campaign_id: str, account: str, tick: int | None = None) -> Any:
        return self.request("GET", self._c(campaign_id, f"/accounts/{_q(account)}/snapshots"), query={"tick": tick})

    def snapshot(self, campaign_id: str, account: str, tool: str) -> Any:
        return self.request("GET", self._c(campaign_id, f"/accounts/{_q(account)}/snapshots/{_q(tool)}"))

    def report_action(self, campaign_id: str, account: str, action: str, tick: int | None = None) -> Any:
        body = _without_none({"action": action, "tick": tick})
        return self.request("POST", self._c(campaign_id, f"/accounts/{_q(account)}/actions"), body)

    def login(self, campaign_id: str, account: str, agent_id: str, **w: Any) -> Any:
        return self.request("POST", self._c(campaign_id, f"/accounts/{_q(account)}/login"), {"agentId": agent_id}, **w)

    def logout(self, campaign_id: str, account: str, **w: Any) -> Any:
        return self.request("POST", self._c(campaign_id, f"/accounts/{_q(account)}/logout"), {}, **w)

    def accounts(self, campaign_id: str) -> Any:
        return self.request("GET", self._c(campaign_id, "/accounts"))

    def put_snapshot_tool(self, campaign_id: str, tool: str, **fields: Any) -> Any:
        """fields: title, fields, invalidatedBy, maxAgeTicks."""
        return self.request("PUT", self._c(campaign_id, f"/snapshot-tools/{_q(tool)}"), fields)

    # -- the event stream (DESIGN §11) ----------------------------------------------------------------
    def stream(self, campaign_id: str, after: str | None = None, timeout: float | None = None) -> Iterator[StreamEvent]:
        """
        GET …/stream as an iterator of events in commit order, after the event id `after` (None: from the
        start). It ends when the server ends the stream; resume with after = the last id seen. Stop early
        with `break` (the connection closes). `timeout`: seconds without a byte (heartbeats come every 15 s).
        """
        headers = {"accept": "text/event-stream"}
        if self.api_key:
            headers["authorization"] = f"Bearer {self.api_key}"
        if after is not None:
            headers["last-event-id"] = after
        req = urllib.request.Request(self._url(self._c(campaign_id, "/stream")), headers=headers)
        try:
            res = urllib.request.urlopen(req, timeout=timeout or self.timeout)
        except urllib.error.HTTPError as err:
            raise _error(err.code, err.headers.get("content-type", ""), err.read()) from None
        with res:
            lines = (raw.decode("utf-8").rstrip("\r\n") for raw in iter(res.readline, b""))
            yield from parse_events(lines)


def _decode(content_type: str, raw: bytes) -> Any:
    text = raw.decode("utf-8")
    return json.loads(text) if "json" in content_type and text else (text or None)


def _error(status: int, content_type: str, raw: bytes) -> LorekeeperError:
    body = _decode(content_type, raw)
    problem = body if isinstance(body, dict) else {"detail": body or ""}
    return LorekeeperError(status, str(problem.get("code", f"HTTP_{status}")), problem)


def _without_none(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if v is not None}


def _list(values: Sequence[str] | None) -> list[str] | None:
    return None if values is None else list(values)


def _str(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)
