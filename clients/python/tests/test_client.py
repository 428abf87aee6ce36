"""
The Python client against a running service: LOREKEEPER_URL (test/e2e/shipping/client-packages.e2e-spec.ts starts one and runs
`python3 -m unittest discover -s tests` in clients/python). Standard library only, like the client.
"""

from __future__ import annotations

import os
import re
import unittest
import uuid
from pathlib import Path

from lorekeeper import LorekeeperClient, LorekeeperError, StreamEvent

URL = os.environ.get("LOREKEEPER_URL", "")
TS_CLIENT = Path(__file__).resolve().parents[3] / "libs/client/src/lorekeeper.client.ts"


def snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


class MirrorsTheTypeScriptClient(unittest.TestCase):
    def test_every_public_method_of_the_typescript_client_has_its_snake_case_twin(self) -> None:
        source = TS_CLIENT.read_text(encoding="utf-8")
        names = set(re.findall(r"^  (?:async \*?)?([a-z][A-Za-z]*)\(", source, re.MULTILINE))
        names -= {"constructor", "request"}
        self.assertGreater(len(names), 40)
        missing = sorted(snake(n) for n in names if not hasattr(LorekeeperClient, snake(n)))
        self.assertEqual(missing, [])


@unittest.skipUnless(URL, "LOREKEEPER_URL is not set")
class AgainstTheService(unittest.TestCase):
    def setUp(self) -> None:
        self.lk = LorekeeperClient(URL)
        self.cid = f"py-{uuid.uuid4().hex[:10]}"
        self.lk.create_campaign("The Smugglers of Saltmere", id=self.cid)
        self.lk.put_location(self.cid, "tavern", "The Rusty Anchor", danger_level="SAFE")
        self.lk.put_location(self.cid, "docks", "Saltmere Docks")
        self.lk.put_npc(self.cid, "mira", "Mira", aliases=["the barkeep"], location_id="tavern")
        for pid in ("aria", "brannoc"):
            self.lk.put_player(self.cid, pid, pid.title(), stats={"HP": "14/16"})

    def play_a_scene(self) -> int:
        self.lk.change_location(self.cid, "tavern", idempotency_key=f"{self.cid}-enter")
        self.lk.record_messages(
            self.cid,
            [
                {"role": "npc", "speaker": "Mira", "content": "Smugglers moved forty crates to the old lighthouse."},
                {"role": "dm", "content": "Mira whispers of the Tide Court.", "visibility": "private",
                 "audience": ["aria"]},
            ],
        )
        return self.lk.change_location(self.cid, "docks")["version"]

    def test_a_scene_read_back_as_json_and_as_the_text_the_model_reads(self) -> None:
        version = self.play_a_scene()
        dm = self.lk.context(self.cid, agent="dm", minVersion=version, waitMs=10_000)
        self.assertIn("Recent Messages", [s["title"] for s in dm["sections"]])
        dm_text = "\n".join(e["text"] for s in dm["sections"] for e in s["entries"])
        self.assertIn("Tide Court", dm_text)
        text = self.lk.context_text(self.cid, agent="player", viewer="brannoc")
        self.assertIsInstance(text, str)
        self.assertRegex(text, r"(?m)^## Scene$")
        self.assertIn("forty crates", text)
        self.assertNotIn("Tide Court", text)  # Aria's whisper stays hers
        ids = [c["id"] for c in self.lk.list_campaigns(limit=100)["items"]]
        self.assertIn(self.cid, ids)

    def test_problems_are_exceptions_with_status_and_code(self) -> None:
        with self.assertRaises(LorekeeperError) as missing:
            self.lk.get_campaign("no-such-campaign")
        self.assertEqual((missing.exception.status, missing.exception.code), (404, "CAMPAIGN_NOT_FOUND"))
        first = self.lk.change_location(self.cid, "tavern", idempotency_key="py-move")
        replay = self.lk.change_location(self.cid, "tavern", idempotency_key="py-move")
        self.assertEqual(replay["version"], first["version"])
        with self.assertRaises(LorekeeperError) as stale:
            self.lk.change_location(self.cid, "docks", if_match=first["version"] - 1)
        self.assertEqual((stale.exception.status, stale.exception.code), (412, "VERSION_MISMATCH"))
        self.assertEqual(stale.exception.problem["status"], 412)
        with self.assertRaises(LorekeeperError) as bad:
            self.lk.context(self.cid, budget=10)
        self.assertEqual(bad.exception.code, "INVALID_BUDGET")

    def test_the_stream_iterates_in_commit_order_and_resumes_after_an_id(self) -> None:
        self.play_a_scene()
        seen: list[StreamEvent] = []
        for event in self.lk.stream(self.cid, timeout=10):
            seen.append(event)
            if event.event == "MessageRecorded":
                break
        self.assertEqual(seen[0].event, "CampaignCreated")
        self.assertRegex(seen[0].id or "", r"^1:game:1$")
        self.assertEqual(seen[-1].data["type"], "MessageRecorded")
        resumed = next(iter(self.lk.stream(self.cid, after=seen[0].id, timeout=10)))
        self.assertEqual(resumed.id, seen[1].id)

    def test_a_deleted_campaign_is_gone(self) -> None:
        self.lk.delete_campaign(self.cid)
        with self.assertRaises(LorekeeperError) as gone:
            self.lk.get_campaign(self.cid)
        self.assertEqual(gone.exception.code, "CAMPAIGN_NOT_FOUND")


if __name__ == "__main__":
    unittest.main()
