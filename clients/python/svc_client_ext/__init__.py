"""A thin hand-written layer over the generated client (``svc_client``).

What a generator does badly, and only that: a client from ``SVC_BASE_URL`` and
the ``svc_`` API key in ``SVC_API_KEY``, triggering a run and waiting for
its end, iterating over every page of a list, and an exception for error
answers. Everything else is the generated ``svc_client``::

    from svc_client.api.scraps import list_scraps
    from svc_client_ext import Client

    client = Client.from_env()
    for scrap in client.pages(list_scraps):
        row = client.trigger_and_wait(scrap.id, timeout=120)
        print(scrap.title, row.status_detail, row.length)
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import httpx

from svc_client import AuthenticatedClient
from svc_client.api.history import get_history
from svc_client.api.runs import trigger_run
from svc_client.models import ErrorBody, HistoryRowView
from svc_client.types import Response, Unset

__all__ = ["DEFAULT_URL", "MAX_SERVER_WAIT", "Client", "SvcError"]

#: Where ``Client.from_env`` points without ``SVC_BASE_URL``: a local ``svc server``.
DEFAULT_URL = "http://127.0.0.1:8080"
#: The longest ``wait`` the trigger route takes, in seconds.
MAX_SERVER_WAIT = 120


class SvcError(Exception):
    """An error answer of svc: its HTTP status and, from the error body, ``code`` and ``message``."""

    def __init__(self, status: int, body: ErrorBody | None) -> None:
        self.status = status
        self.body = body
        self.code = body.code if body is not None else None
        self.message = body.message if body is not None else None
        super().__init__(f"HTTP {status} {self.code}: {self.message}")


def ok(response: Response[Any]) -> Any:
    """The parsed body of a success answer (``None`` for 204); raises ``SvcError`` for an error answer."""
    if response.status_code >= 400 or isinstance(response.parsed, ErrorBody):
        body = response.parsed if isinstance(response.parsed, ErrorBody) else None
        raise SvcError(int(response.status_code), body)
    return response.parsed


class Client(AuthenticatedClient):
    """The generated ``AuthenticatedClient``, plus ``from_env``, ``trigger_and_wait`` and ``pages``."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **kwargs: Any) -> Client:
        """A client for ``SVC_BASE_URL`` (default ``DEFAULT_URL``) with the API key in ``SVC_API_KEY``."""
        env = os.environ if environ is None else environ
        key = env.get("SVC_API_KEY", "")
        if not key:
            raise ValueError("SVC_API_KEY is not set: an svc API key (svc_ and 40 characters)")
        url = (env.get("SVC_BASE_URL") or DEFAULT_URL).rstrip("/")
        return cls(base_url=url, token=key, **kwargs)

    def trigger_and_wait(
        self,
        scrap_id: str,
        timeout: float = 120.0,
        poll_interval: float = 1.0,
        max_server_wait: int = MAX_SERVER_WAIT,
    ) -> HistoryRowView:
        """Triggers a run of the scrap and returns its history row once the run has ended.

        The trigger itself waits on the server (``wait``, at most
        ``max_server_wait`` seconds); a run still going then is polled every
        ``poll_interval`` seconds until ``timeout`` seconds have passed, after
        which ``TimeoutError`` is raised (the run goes on). Needs the scopes
        ``svc:scraps:run`` and ``svc:history:read``.
        """
        deadline = time.monotonic() + timeout
        wait = max(0, min(int(timeout), max_server_wait, MAX_SERVER_WAIT))
        # The request is held for up to `wait` seconds: httpx's own timeout must outlast it.
        holding = self.with_timeout(httpx.Timeout(wait + 30.0)) if wait else self
        answer = ok(trigger_run.sync_detailed(scrap_id, client=holding, wait=wait))
        if isinstance(answer, HistoryRowView):
            return answer
        while True:
            row = ok(get_history.sync_detailed(answer.history_id, client=self))
            if not isinstance(row.finished_at, Unset) and row.finished_at is not None:
                return row
            if time.monotonic() >= deadline:
                raise TimeoutError(f"run {answer.history_id} had not ended after {timeout} s")
            time.sleep(poll_interval)

    def pages(self, operation: Any, per_page: int = 100, **params: Any) -> Iterator[Any]:
        """Every item of a paged list, page after page.

        ``operation`` is a generated list operation (a module such as
        ``svc_client.api.scraps.list_scraps``, or its ``sync_detailed``);
        ``params`` are its other query parameters (``search=``, ``scrap=``...).
        """
        call: Callable[..., Response[Any]] = getattr(operation, "sync_detailed", operation)
        page, seen = 1, 0
        while True:
            body = ok(call(client=self, page=page, per_page=per_page, **params))
            yield from body.data
            seen += len(body.data)
            if not body.data or seen >= body.total:
                return
            page += 1
