from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.announcement_body import AnnouncementBody
from ...models.announcement_queued import AnnouncementQueued
from ...models.error_body import ErrorBody
from ...types import Response


def _get_kwargs(
    *,
    body: AnnouncementBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/developers/announcements",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AnnouncementQueued | ErrorBody | None:
    if response.status_code == 202:
        response_202 = AnnouncementQueued.from_dict(response.json())

        return response_202

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
) -> Response[AnnouncementQueued | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: AnnouncementBody,
) -> Response[AnnouncementQueued | ErrorBody]:
    """Send a release announcement

     Queues an email to every user who receives announcements. A platform
    admin only: with an API key, its owner must be one.

    **Auth:** An API key with scope `svc:mail:announce`, or a web session.

    Args:
        body (AnnouncementBody): The body of `POST /api/developers/announcements`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AnnouncementQueued | ErrorBody]
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
    body: AnnouncementBody,
) -> AnnouncementQueued | ErrorBody | None:
    """Send a release announcement

     Queues an email to every user who receives announcements. A platform
    admin only: with an API key, its owner must be one.

    **Auth:** An API key with scope `svc:mail:announce`, or a web session.

    Args:
        body (AnnouncementBody): The body of `POST /api/developers/announcements`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AnnouncementQueued | ErrorBody
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: AnnouncementBody,
) -> Response[AnnouncementQueued | ErrorBody]:
    """Send a release announcement

     Queues an email to every user who receives announcements. A platform
    admin only: with an API key, its owner must be one.

    **Auth:** An API key with scope `svc:mail:announce`, or a web session.

    Args:
        body (AnnouncementBody): The body of `POST /api/developers/announcements`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AnnouncementQueued | ErrorBody]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: AnnouncementBody,
) -> AnnouncementQueued | ErrorBody | None:
    """Send a release announcement

     Queues an email to every user who receives announcements. A platform
    admin only: with an API key, its owner must be one.

    **Auth:** An API key with scope `svc:mail:announce`, or a web session.

    Args:
        body (AnnouncementBody): The body of `POST /api/developers/announcements`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AnnouncementQueued | ErrorBody
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
