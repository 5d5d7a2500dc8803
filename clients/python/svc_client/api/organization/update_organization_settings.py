from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.organization_settings_body import OrganizationSettingsBody
from ...models.organization_settings_view import OrganizationSettingsView
from ...types import Response


def _get_kwargs(
    *,
    body: OrganizationSettingsBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/api/organization/settings",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | OrganizationSettingsView | None:
    if response.status_code == 200:
        response_200 = OrganizationSettingsView.from_dict(response.json())

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
) -> Response[ErrorBody | OrganizationSettingsView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: OrganizationSettingsBody,
) -> Response[ErrorBody | OrganizationSettingsView]:
    """Change the organization's settings

     `historyRetentionDays`: runs older than this many days are deleted by
    the hourly housekeeping (pending runs and each scrap's newest successful
    run stay); null keeps every run. Owners and admins only; recorded in
    the audit log.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        body (OrganizationSettingsBody): The body of `PUT /api/organization/settings`:
            `historyRetentionDays`, 1 to 3650 days a run is kept before housekeeping deletes it (a
            scrap's newest successful run and pending runs are always kept), or null to keep every
            run.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | OrganizationSettingsView]
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
    body: OrganizationSettingsBody,
) -> ErrorBody | OrganizationSettingsView | None:
    """Change the organization's settings

     `historyRetentionDays`: runs older than this many days are deleted by
    the hourly housekeeping (pending runs and each scrap's newest successful
    run stay); null keeps every run. Owners and admins only; recorded in
    the audit log.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        body (OrganizationSettingsBody): The body of `PUT /api/organization/settings`:
            `historyRetentionDays`, 1 to 3650 days a run is kept before housekeeping deletes it (a
            scrap's newest successful run and pending runs are always kept), or null to keep every
            run.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | OrganizationSettingsView
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: OrganizationSettingsBody,
) -> Response[ErrorBody | OrganizationSettingsView]:
    """Change the organization's settings

     `historyRetentionDays`: runs older than this many days are deleted by
    the hourly housekeeping (pending runs and each scrap's newest successful
    run stay); null keeps every run. Owners and admins only; recorded in
    the audit log.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        body (OrganizationSettingsBody): The body of `PUT /api/organization/settings`:
            `historyRetentionDays`, 1 to 3650 days a run is kept before housekeeping deletes it (a
            scrap's newest successful run and pending runs are always kept), or null to keep every
            run.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | OrganizationSettingsView]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: OrganizationSettingsBody,
) -> ErrorBody | OrganizationSettingsView | None:
    """Change the organization's settings

     `historyRetentionDays`: runs older than this many days are deleted by
    the hourly housekeeping (pending runs and each scrap's newest successful
    run stay); null keeps every run. Owners and admins only; recorded in
    the audit log.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        body (OrganizationSettingsBody): The body of `PUT /api/organization/settings`:
            `historyRetentionDays`, 1 to 3650 days a run is kept before housekeeping deletes it (a
            scrap's newest successful run and pending runs are always kept), or null to keep every
            run.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | OrganizationSettingsView
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
