from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.created_webhook_view import CreatedWebhookView
from ...models.error_body import ErrorBody
from ...models.new_webhook_body import NewWebhookBody
from ...types import Response


def _get_kwargs(
    *,
    body: NewWebhookBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/developers/webhooks",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> CreatedWebhookView | ErrorBody | None:
    if response.status_code == 201:
        response_201 = CreatedWebhookView.from_dict(response.json())

        return response_201

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
) -> Response[CreatedWebhookView | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: NewWebhookBody,
) -> Response[CreatedWebhookView | ErrorBody]:
    """Create a webhook

     Answers the webhook with `plainSecret`, shown this once. The URL must be
    https and resolve to public addresses.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        body (NewWebhookBody): The body of `POST /api/developers/webhooks` (`url` and `events`
            required) and `PUT`/`PATCH /api/developers/webhooks/{id}` (absent fields are left alone).
            `null` is taken as absent. `url` must be https and resolve to public addresses (unless the
            operator allows private networks); `scrapIds` must name scraps of the caller's
            organization (`[]`: every scrap).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreatedWebhookView | ErrorBody]
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
    body: NewWebhookBody,
) -> CreatedWebhookView | ErrorBody | None:
    """Create a webhook

     Answers the webhook with `plainSecret`, shown this once. The URL must be
    https and resolve to public addresses.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        body (NewWebhookBody): The body of `POST /api/developers/webhooks` (`url` and `events`
            required) and `PUT`/`PATCH /api/developers/webhooks/{id}` (absent fields are left alone).
            `null` is taken as absent. `url` must be https and resolve to public addresses (unless the
            operator allows private networks); `scrapIds` must name scraps of the caller's
            organization (`[]`: every scrap).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreatedWebhookView | ErrorBody
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: NewWebhookBody,
) -> Response[CreatedWebhookView | ErrorBody]:
    """Create a webhook

     Answers the webhook with `plainSecret`, shown this once. The URL must be
    https and resolve to public addresses.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        body (NewWebhookBody): The body of `POST /api/developers/webhooks` (`url` and `events`
            required) and `PUT`/`PATCH /api/developers/webhooks/{id}` (absent fields are left alone).
            `null` is taken as absent. `url` must be https and resolve to public addresses (unless the
            operator allows private networks); `scrapIds` must name scraps of the caller's
            organization (`[]`: every scrap).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreatedWebhookView | ErrorBody]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: NewWebhookBody,
) -> CreatedWebhookView | ErrorBody | None:
    """Create a webhook

     Answers the webhook with `plainSecret`, shown this once. The URL must be
    https and resolve to public addresses.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        body (NewWebhookBody): The body of `POST /api/developers/webhooks` (`url` and `events`
            required) and `PUT`/`PATCH /api/developers/webhooks/{id}` (absent fields are left alone).
            `null` is taken as absent. `url` must be https and resolve to public addresses (unless the
            operator allows private networks); `scrapIds` must name scraps of the caller's
            organization (`[]`: every scrap).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreatedWebhookView | ErrorBody
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
