from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.history_row_view import HistoryRowView
from ...models.trigger_accepted import TriggerAccepted
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    wait: int | Unset = UNSET,
    param: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["wait"] = wait

    params["param"] = param

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/scraps/worker/{id}".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | HistoryRowView | TriggerAccepted | None:
    if response.status_code == 200:
        response_200 = HistoryRowView.from_dict(response.json())

        return response_200

    if response.status_code == 202:
        response_202 = TriggerAccepted.from_dict(response.json())

        return response_202

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())

        return response_401

    if response.status_code == 402:
        response_402 = ErrorBody.from_dict(response.json())

        return response_402

    if response.status_code == 403:
        response_403 = ErrorBody.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = ErrorBody.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = ErrorBody.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorBody | HistoryRowView | TriggerAccepted]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    wait: int | Unset = UNSET,
    param: str | Unset = UNSET,
) -> Response[ErrorBody | HistoryRowView | TriggerAccepted]:
    """Trigger a run

     Queues a run of the scrap and answers 202 with the pending run, or with
    `wait=<seconds>` 200 and the finished history row if it ends in time.
    At most 60 triggers per 15 minutes per API key.

    **Auth:** An API key with scope `svc:scraps:run`, or a web session.

    Args:
        id (str):
        wait (int | Unset):
        param (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | HistoryRowView | TriggerAccepted]
    """

    kwargs = _get_kwargs(
        id=id,
        wait=wait,
        param=param,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient,
    wait: int | Unset = UNSET,
    param: str | Unset = UNSET,
) -> ErrorBody | HistoryRowView | TriggerAccepted | None:
    """Trigger a run

     Queues a run of the scrap and answers 202 with the pending run, or with
    `wait=<seconds>` 200 and the finished history row if it ends in time.
    At most 60 triggers per 15 minutes per API key.

    **Auth:** An API key with scope `svc:scraps:run`, or a web session.

    Args:
        id (str):
        wait (int | Unset):
        param (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | HistoryRowView | TriggerAccepted
    """

    return sync_detailed(
        id=id,
        client=client,
        wait=wait,
        param=param,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    wait: int | Unset = UNSET,
    param: str | Unset = UNSET,
) -> Response[ErrorBody | HistoryRowView | TriggerAccepted]:
    """Trigger a run

     Queues a run of the scrap and answers 202 with the pending run, or with
    `wait=<seconds>` 200 and the finished history row if it ends in time.
    At most 60 triggers per 15 minutes per API key.

    **Auth:** An API key with scope `svc:scraps:run`, or a web session.

    Args:
        id (str):
        wait (int | Unset):
        param (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | HistoryRowView | TriggerAccepted]
    """

    kwargs = _get_kwargs(
        id=id,
        wait=wait,
        param=param,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
    wait: int | Unset = UNSET,
    param: str | Unset = UNSET,
) -> ErrorBody | HistoryRowView | TriggerAccepted | None:
    """Trigger a run

     Queues a run of the scrap and answers 202 with the pending run, or with
    `wait=<seconds>` 200 and the finished history row if it ends in time.
    At most 60 triggers per 15 minutes per API key.

    **Auth:** An API key with scope `svc:scraps:run`, or a web session.

    Args:
        id (str):
        wait (int | Unset):
        param (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | HistoryRowView | TriggerAccepted
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            wait=wait,
            param=param,
        )
    ).parsed
