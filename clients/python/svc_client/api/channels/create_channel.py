from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.channel_body import ChannelBody
from ...models.channel_view import ChannelView
from ...models.error_body import ErrorBody
from ...types import Response


def _get_kwargs(
    *,
    body: ChannelBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/developers/channels",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ChannelView | ErrorBody | None:
    if response.status_code == 201:
        response_201 = ChannelView.from_dict(response.json())

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
) -> Response[ChannelView | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: ChannelBody,
) -> Response[ChannelView | ErrorBody]:
    """Save a chat channel

     The URL (Apprise's syntax) is checked, sealed at rest and never
    returned whole: the answer shows it redacted.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        body (ChannelBody): The body of `POST /api/developers/channels`. `name` (1-40 of a-z 0-9 -
            _) is how scraps refer to it (`alert: "channel:NAME"`); `url` is a channel URL in
            Apprise's syntax: `slack://A/B/C`, `discord://ID/TOKEN`,
            `workflows://HOST/WORKFLOW/SIGNATURE` (Microsoft Teams), `tgram://BOT_TOKEN/CHAT_ID`,
            `ntfy://TOPIC`, `ntfys://HOST/TOPIC`, `mmosts://HOST/TOKEN`, `jsons://HOST/PATH`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ChannelView | ErrorBody]
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
    body: ChannelBody,
) -> ChannelView | ErrorBody | None:
    """Save a chat channel

     The URL (Apprise's syntax) is checked, sealed at rest and never
    returned whole: the answer shows it redacted.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        body (ChannelBody): The body of `POST /api/developers/channels`. `name` (1-40 of a-z 0-9 -
            _) is how scraps refer to it (`alert: "channel:NAME"`); `url` is a channel URL in
            Apprise's syntax: `slack://A/B/C`, `discord://ID/TOKEN`,
            `workflows://HOST/WORKFLOW/SIGNATURE` (Microsoft Teams), `tgram://BOT_TOKEN/CHAT_ID`,
            `ntfy://TOPIC`, `ntfys://HOST/TOPIC`, `mmosts://HOST/TOKEN`, `jsons://HOST/PATH`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ChannelView | ErrorBody
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: ChannelBody,
) -> Response[ChannelView | ErrorBody]:
    """Save a chat channel

     The URL (Apprise's syntax) is checked, sealed at rest and never
    returned whole: the answer shows it redacted.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        body (ChannelBody): The body of `POST /api/developers/channels`. `name` (1-40 of a-z 0-9 -
            _) is how scraps refer to it (`alert: "channel:NAME"`); `url` is a channel URL in
            Apprise's syntax: `slack://A/B/C`, `discord://ID/TOKEN`,
            `workflows://HOST/WORKFLOW/SIGNATURE` (Microsoft Teams), `tgram://BOT_TOKEN/CHAT_ID`,
            `ntfy://TOPIC`, `ntfys://HOST/TOPIC`, `mmosts://HOST/TOKEN`, `jsons://HOST/PATH`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ChannelView | ErrorBody]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: ChannelBody,
) -> ChannelView | ErrorBody | None:
    """Save a chat channel

     The URL (Apprise's syntax) is checked, sealed at rest and never
    returned whole: the answer shows it redacted.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        body (ChannelBody): The body of `POST /api/developers/channels`. `name` (1-40 of a-z 0-9 -
            _) is how scraps refer to it (`alert: "channel:NAME"`); `url` is a channel URL in
            Apprise's syntax: `slack://A/B/C`, `discord://ID/TOKEN`,
            `workflows://HOST/WORKFLOW/SIGNATURE` (Microsoft Teams), `tgram://BOT_TOKEN/CHAT_ID`,
            `ntfy://TOPIC`, `ntfys://HOST/TOPIC`, `mmosts://HOST/TOKEN`, `jsons://HOST/PATH`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ChannelView | ErrorBody
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
