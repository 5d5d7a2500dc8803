from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.recipient_view import RecipientView
from ...models.resend_body import ResendBody
from ...types import Response


def _get_kwargs(
    *,
    body: ResendBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/organization/recipients/resend",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | RecipientView | None:
    if response.status_code == 200:
        response_200 = RecipientView.from_dict(response.json())

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

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())

        return response_409

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
) -> Response[ErrorBody | RecipientView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: ResendBody,
) -> Response[ErrorBody | RecipientView]:
    """Send a confirmation again

     Mails a pending address a new confirmation link (the previous one stops
    working). At most one mail per address an hour (409
    `CONFIRMATION_RECENTLY_SENT`); an address that receives already: 409
    `ALREADY_CONFIRMED`; a server without email: 409 `EMAIL_OFF`. Editors,
    admins and owners.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        body (ResendBody): The pending address to mail a new confirmation link.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | RecipientView]
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
    body: ResendBody,
) -> ErrorBody | RecipientView | None:
    """Send a confirmation again

     Mails a pending address a new confirmation link (the previous one stops
    working). At most one mail per address an hour (409
    `CONFIRMATION_RECENTLY_SENT`); an address that receives already: 409
    `ALREADY_CONFIRMED`; a server without email: 409 `EMAIL_OFF`. Editors,
    admins and owners.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        body (ResendBody): The pending address to mail a new confirmation link.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | RecipientView
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: ResendBody,
) -> Response[ErrorBody | RecipientView]:
    """Send a confirmation again

     Mails a pending address a new confirmation link (the previous one stops
    working). At most one mail per address an hour (409
    `CONFIRMATION_RECENTLY_SENT`); an address that receives already: 409
    `ALREADY_CONFIRMED`; a server without email: 409 `EMAIL_OFF`. Editors,
    admins and owners.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        body (ResendBody): The pending address to mail a new confirmation link.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | RecipientView]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: ResendBody,
) -> ErrorBody | RecipientView | None:
    """Send a confirmation again

     Mails a pending address a new confirmation link (the previous one stops
    working). At most one mail per address an hour (409
    `CONFIRMATION_RECENTLY_SENT`); an address that receives already: 409
    `ALREADY_CONFIRMED`; a server without email: 409 `EMAIL_OFF`. Editors,
    admins and owners.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        body (ResendBody): The pending address to mail a new confirmation link.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | RecipientView
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
