from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.scrap_body import ScrapBody
from ...models.scrap_view import ScrapView
from ...types import Response


def _get_kwargs(
    id: str,
    *,
    body: ScrapBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/api/scraps/{id}".format(
            id=quote(str(id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | ScrapView | None:
    if response.status_code == 200:
        response_200 = ScrapView.from_dict(response.json())

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

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

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
) -> Response[ErrorBody | ScrapView]:
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
    body: ScrapBody,
) -> Response[ErrorBody | ScrapView]:
    """Update a scrap

     A partial update: only the fields present are set (`PUT` and `PATCH` alike).

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        id (str):
        body (ScrapBody): The body of `POST /api/scraps` (create: `title`, `url` and `request`
            required) and `PUT`/`PATCH /api/scraps/{id}` (a partial update: only the fields present
            are set). A nullable field set to `null` is cleared; the others refuse `null`. Unknown
            fields are refused; the read-only fields of the Scrap shape (`id`, `history`, `user`,
            `organizationId`, `createdAt`, `updatedAt`, `lastTierChangeAt`) are accepted and ignored,
            so that a client can send back what it read. Besides what the properties say, the scrap as
            saved must have: an absolute http(s) `url` with a host; a `cron` of five fields (six with
            seconds, or an `@` alias) that fires at most once per `SVC_CRON_MIN_INTERVAL` (blank:
            none); an IANA `cronTimezone`; email addresses (one `@`, no spaces; blank: none) in
            `alert`, `emailNotifRecipient` and `digestRecipient`; unique parameter keys; a `proxyTier`
            the operator configured, and none but `tier0` with the `static` or `auto` engine; `//
            svc:load` directives of known kinds in `request`. Strings are trimmed where the Scrap
            shape shows them trimmed (title, url, containers, cron, cronTimezone, email fields).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ScrapView]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient,
    body: ScrapBody,
) -> ErrorBody | ScrapView | None:
    """Update a scrap

     A partial update: only the fields present are set (`PUT` and `PATCH` alike).

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        id (str):
        body (ScrapBody): The body of `POST /api/scraps` (create: `title`, `url` and `request`
            required) and `PUT`/`PATCH /api/scraps/{id}` (a partial update: only the fields present
            are set). A nullable field set to `null` is cleared; the others refuse `null`. Unknown
            fields are refused; the read-only fields of the Scrap shape (`id`, `history`, `user`,
            `organizationId`, `createdAt`, `updatedAt`, `lastTierChangeAt`) are accepted and ignored,
            so that a client can send back what it read. Besides what the properties say, the scrap as
            saved must have: an absolute http(s) `url` with a host; a `cron` of five fields (six with
            seconds, or an `@` alias) that fires at most once per `SVC_CRON_MIN_INTERVAL` (blank:
            none); an IANA `cronTimezone`; email addresses (one `@`, no spaces; blank: none) in
            `alert`, `emailNotifRecipient` and `digestRecipient`; unique parameter keys; a `proxyTier`
            the operator configured, and none but `tier0` with the `static` or `auto` engine; `//
            svc:load` directives of known kinds in `request`. Strings are trimmed where the Scrap
            shape shows them trimmed (title, url, containers, cron, cronTimezone, email fields).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ScrapView
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    body: ScrapBody,
) -> Response[ErrorBody | ScrapView]:
    """Update a scrap

     A partial update: only the fields present are set (`PUT` and `PATCH` alike).

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        id (str):
        body (ScrapBody): The body of `POST /api/scraps` (create: `title`, `url` and `request`
            required) and `PUT`/`PATCH /api/scraps/{id}` (a partial update: only the fields present
            are set). A nullable field set to `null` is cleared; the others refuse `null`. Unknown
            fields are refused; the read-only fields of the Scrap shape (`id`, `history`, `user`,
            `organizationId`, `createdAt`, `updatedAt`, `lastTierChangeAt`) are accepted and ignored,
            so that a client can send back what it read. Besides what the properties say, the scrap as
            saved must have: an absolute http(s) `url` with a host; a `cron` of five fields (six with
            seconds, or an `@` alias) that fires at most once per `SVC_CRON_MIN_INTERVAL` (blank:
            none); an IANA `cronTimezone`; email addresses (one `@`, no spaces; blank: none) in
            `alert`, `emailNotifRecipient` and `digestRecipient`; unique parameter keys; a `proxyTier`
            the operator configured, and none but `tier0` with the `static` or `auto` engine; `//
            svc:load` directives of known kinds in `request`. Strings are trimmed where the Scrap
            shape shows them trimmed (title, url, containers, cron, cronTimezone, email fields).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ScrapView]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
    body: ScrapBody,
) -> ErrorBody | ScrapView | None:
    """Update a scrap

     A partial update: only the fields present are set (`PUT` and `PATCH` alike).

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        id (str):
        body (ScrapBody): The body of `POST /api/scraps` (create: `title`, `url` and `request`
            required) and `PUT`/`PATCH /api/scraps/{id}` (a partial update: only the fields present
            are set). A nullable field set to `null` is cleared; the others refuse `null`. Unknown
            fields are refused; the read-only fields of the Scrap shape (`id`, `history`, `user`,
            `organizationId`, `createdAt`, `updatedAt`, `lastTierChangeAt`) are accepted and ignored,
            so that a client can send back what it read. Besides what the properties say, the scrap as
            saved must have: an absolute http(s) `url` with a host; a `cron` of five fields (six with
            seconds, or an `@` alias) that fires at most once per `SVC_CRON_MIN_INTERVAL` (blank:
            none); an IANA `cronTimezone`; email addresses (one `@`, no spaces; blank: none) in
            `alert`, `emailNotifRecipient` and `digestRecipient`; unique parameter keys; a `proxyTier`
            the operator configured, and none but `tier0` with the `static` or `auto` engine; `//
            svc:load` directives of known kinds in `request`. Strings are trimmed where the Scrap
            shape shows them trimmed (title, url, containers, cron, cronTimezone, email fields).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ScrapView
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
        )
    ).parsed
