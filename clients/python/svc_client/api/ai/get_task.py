from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.task_view import TaskView
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    wait: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["wait"] = wait

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/tasks/{id}".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | TaskView | None:
    if response.status_code == 200:
        response_200 = TaskView.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())

        return response_422

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
) -> Response[ErrorBody | TaskView]:
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
) -> Response[ErrorBody | TaskView]:
    """Get an AI task

     The task as it is, or with `wait=<seconds>` once it finished (or as it
    is when the wait runs out).

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        id (str):
        wait (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | TaskView]
    """

    kwargs = _get_kwargs(
        id=id,
        wait=wait,
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
) -> ErrorBody | TaskView | None:
    """Get an AI task

     The task as it is, or with `wait=<seconds>` once it finished (or as it
    is when the wait runs out).

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        id (str):
        wait (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | TaskView
    """

    return sync_detailed(
        id=id,
        client=client,
        wait=wait,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    wait: int | Unset = UNSET,
) -> Response[ErrorBody | TaskView]:
    """Get an AI task

     The task as it is, or with `wait=<seconds>` once it finished (or as it
    is when the wait runs out).

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        id (str):
        wait (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | TaskView]
    """

    kwargs = _get_kwargs(
        id=id,
        wait=wait,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
    wait: int | Unset = UNSET,
) -> ErrorBody | TaskView | None:
    """Get an AI task

     The task as it is, or with `wait=<seconds>` once it finished (or as it
    is when the wait runs out).

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        id (str):
        wait (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | TaskView
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            wait=wait,
        )
    ).parsed
