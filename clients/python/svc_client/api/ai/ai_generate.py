from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.generate_body import GenerateBody
from ...models.task_accepted import TaskAccepted
from ...models.task_view import TaskView
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: GenerateBody,
    wait: int | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    params: dict[str, Any] = {}

    params["wait"] = wait

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/ai/generate",
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | TaskAccepted | TaskView | None:
    if response.status_code == 200:
        response_200 = TaskView.from_dict(response.json())

        return response_200

    if response.status_code == 202:
        response_202 = TaskAccepted.from_dict(response.json())

        return response_202

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())

        return response_401

    if response.status_code == 402:
        response_402 = ErrorBody.from_dict(response.json())

        return response_402

    if response.status_code == 403:
        response_403 = ErrorBody.from_dict(response.json())

        return response_403

    if response.status_code == 408:
        response_408 = ErrorBody.from_dict(response.json())

        return response_408

    if response.status_code == 413:
        response_413 = ErrorBody.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = ErrorBody.from_dict(response.json())

        return response_415

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
) -> Response[ErrorBody | TaskAccepted | TaskView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: GenerateBody,
    wait: int | Unset = UNSET,
) -> Response[ErrorBody | TaskAccepted | TaskView]:
    """Generate a script

     Queues a task that writes an extraction script for the page.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        wait (int | Unset):
        body (GenerateBody): The body of `POST /api/ai/generate`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | TaskAccepted | TaskView]
    """

    kwargs = _get_kwargs(
        body=body,
        wait=wait,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: GenerateBody,
    wait: int | Unset = UNSET,
) -> ErrorBody | TaskAccepted | TaskView | None:
    """Generate a script

     Queues a task that writes an extraction script for the page.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        wait (int | Unset):
        body (GenerateBody): The body of `POST /api/ai/generate`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | TaskAccepted | TaskView
    """

    return sync_detailed(
        client=client,
        body=body,
        wait=wait,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: GenerateBody,
    wait: int | Unset = UNSET,
) -> Response[ErrorBody | TaskAccepted | TaskView]:
    """Generate a script

     Queues a task that writes an extraction script for the page.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        wait (int | Unset):
        body (GenerateBody): The body of `POST /api/ai/generate`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | TaskAccepted | TaskView]
    """

    kwargs = _get_kwargs(
        body=body,
        wait=wait,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: GenerateBody,
    wait: int | Unset = UNSET,
) -> ErrorBody | TaskAccepted | TaskView | None:
    """Generate a script

     Queues a task that writes an extraction script for the page.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        wait (int | Unset):
        body (GenerateBody): The body of `POST /api/ai/generate`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | TaskAccepted | TaskView
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            wait=wait,
        )
    ).parsed
