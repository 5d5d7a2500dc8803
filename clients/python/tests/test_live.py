"""The Python client against a running svc server.

Run by the api suite's `clients::the_python_client_lists_triggers_reads_and_is_refused`,
which starts the server and sets, besides SVC_BASE_URL and SVC_API_KEY (a key
with every scope): SVC_TEST_SCRAPS (the ids of the organization's scraps,
comma-separated), SVC_TEST_RUN_SCRAP (a scrap whose run returns three
items), SVC_TEST_READ_ONLY_KEY (a key holding only svc:scraps:read) and
SVC_TEST_REPORT (a file for what the tests saw, which the Rust test checks
against the server).
"""

import json
import os
import unittest

from svc_client.api.history import get_history, list_history
from svc_client.api.runs import trigger_run
from svc_client.api.scraps import list_scraps
from svc_client_ext import DEFAULT_URL, Client, SvcError

ENV = os.environ
REPORT: dict = {}


def tearDownModule() -> None:
    with open(ENV["SVC_TEST_REPORT"], "w") as out:
        json.dump(REPORT, out)


class Live(unittest.TestCase):
    client: Client
    waited = None

    @classmethod
    def setUpClass(cls) -> None:
        cls.client = Client.from_env()

    def test_1_from_env_reads_the_url_and_key(self) -> None:
        self.assertEqual(self.client._base_url, ENV["SVC_BASE_URL"])
        self.assertEqual(self.client.token, ENV["SVC_API_KEY"])
        self.assertEqual(Client.from_env({"SVC_API_KEY": "svc_x"})._base_url, DEFAULT_URL)
        with self.assertRaisesRegex(ValueError, "SVC_API_KEY"):
            Client.from_env({"SVC_BASE_URL": ENV["SVC_BASE_URL"]})

    def test_2_pages_lists_every_scrap(self) -> None:
        first = list_scraps.sync(client=self.client, page=1, per_page=2)
        self.assertEqual((first.total, len(first.data)), (3, 2))
        ids = [scrap.id for scrap in self.client.pages(list_scraps, per_page=2)]
        self.assertEqual(sorted(ids), sorted(ENV["SVC_TEST_SCRAPS"].split(",")))
        REPORT["scraps"] = ids

    def test_3_trigger_and_wait_returns_the_ended_run(self) -> None:
        row = self.client.trigger_and_wait(ENV["SVC_TEST_RUN_SCRAP"], timeout=60)
        self.assertEqual((row.status_detail, row.length), ("success", 3))
        self.assertIsInstance(row.finished_at, str)
        REPORT["run"] = row.id
        REPORT["data"] = json.loads(row.data)
        Live.waited = row
        # Without the server's wait: polled until it ends.
        polled = self.client.trigger_and_wait(ENV["SVC_TEST_RUN_SCRAP"], timeout=60, poll_interval=0.2, max_server_wait=0)
        self.assertEqual((polled.status_detail, polled.length), ("success", 3))
        self.assertNotEqual(polled.id, row.id)
        REPORT["polledRun"] = polled.id

    def test_4_history_reads_the_runs(self) -> None:
        self.assertIsNotNone(Live.waited, "the trigger test ran first")
        row = get_history.sync(Live.waited.id, client=self.client)
        self.assertEqual(row.to_dict(), Live.waited.to_dict())
        ids = [r.id for r in self.client.pages(list_history, per_page=1, scrap=ENV["SVC_TEST_RUN_SCRAP"])]
        self.assertEqual(ids, [REPORT["polledRun"], row.id], "newest first, one a page")

    def test_5_a_missing_scope_is_403(self) -> None:
        read_only = Client.from_env({"SVC_BASE_URL": ENV["SVC_BASE_URL"], "SVC_API_KEY": ENV["SVC_TEST_READ_ONLY_KEY"]})
        self.assertEqual(len(list(read_only.pages(list_scraps))), 3, "it may list scraps")
        with self.assertRaises(SvcError) as refused:
            read_only.trigger_and_wait(ENV["SVC_TEST_RUN_SCRAP"], timeout=5)
        # The generated call gives the same answer as a value.
        answer = trigger_run.sync_detailed(ENV["SVC_TEST_RUN_SCRAP"], client=read_only)
        self.assertEqual((answer.status_code, answer.parsed.code), (403, "INSUFFICIENT_SCOPE"))
        REPORT["forbidden"] = {"status": refused.exception.status, "code": refused.exception.code}


if __name__ == "__main__":
    unittest.main(verbosity=2)
