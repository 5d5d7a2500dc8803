from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.created_key_view import CreatedKeyView
from ...models.error_body import ErrorBody
from ...models.new_key_body import NewKeyBody
from ...types import Response


def _get_kwargs(
    *,
    body: NewKeyBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/developers/keys",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> CreatedKeyView | ErrorBody | None:
    if response.status_code == 200:
        response_200 = CreatedKeyView.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())

        return response_401

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
) -> Response[CreatedKeyView | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: NewKeyBody,
) -> Response[CreatedKeyView | ErrorBody]:
    """Create an API key

     Answers the key with `plainKey`, shown this once (only a hash is kept).
    `scopes` and `scrapIds` are set here for good: keys have no update.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        body (NewKeyBody): The body of `POST /api/developers/keys`: `name` (not blank, at most 100
            characters once trimmed) is required; `expiresAt` (RFC 3339) must be in the future and at
            most 2 years ahead (default 1 year); `scrapIds` must name scraps of the caller's
            organization. `null` is taken as absent.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreatedKeyView | ErrorBody]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: NewKeyBody,
) -> CreatedKeyView | ErrorBody | None:
    """Create an API key

     Answers the key with `plainKey`, shown this once (only a hash is kept).
    `scopes` and `scrapIds` are set here for good: keys have no update.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        body (NewKeyBody): The body of `POST /api/developers/keys`: `name` (not blank, at most 100
            characters once trimmed) is required; `expiresAt` (RFC 3339) must be in the future and at
            most 2 years ahead (default 1 year); `scrapIds` must name scraps of the caller's
            organization. `null` is taken as absent.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreatedKeyView | ErrorBody
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: NewKeyBody,
) -> Response[CreatedKeyView | ErrorBody]:
    """Create an API key

     Answers the key with `plainKey`, shown this once (only a hash is kept).
    `scopes` and `scrapIds` are set here for good: keys have no update.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        body (NewKeyBody): The body of `POST /api/developers/keys`: `name` (not blank, at most 100
            characters once trimmed) is required; `expiresAt` (RFC 3339) must be in the future and at
            most 2 years ahead (default 1 year); `scrapIds` must name scraps of the caller's
            organization. `null` is taken as absent.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreatedKeyView | ErrorBody]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: NewKeyBody,
) -> CreatedKeyView | ErrorBody | None:
    """Create an API key

     Answers the key with `plainKey`, shown this once (only a hash is kept).
    `scopes` and `scrapIds` are set here for good: keys have no update.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        body (NewKeyBody): The body of `POST /api/developers/keys`: `name` (not blank, at most 100
            characters once trimmed) is required; `expiresAt` (RFC 3339) must be in the future and at
            most 2 years ahead (default 1 year); `scrapIds` must name scraps of the caller's
            organization. `null` is taken as absent.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreatedKeyView | ErrorBody
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
