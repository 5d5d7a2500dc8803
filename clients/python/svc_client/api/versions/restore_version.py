from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.version_view import VersionView
from ...types import Response


def _get_kwargs(
    id: str,
    version: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/scraps/{id}/versions/{version}/restore".format(
            id=quote(str(id), safe=""),
            version=quote(str(version), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | VersionView | None:
    if response.status_code == 201:
        response_201 = VersionView.from_dict(response.json())

        return response_201

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorBody.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())

        return response_409

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
) -> Response[ErrorBody | VersionView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    version: str,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorBody | VersionView]:
    """Restore a script version

     Makes an older version the scrap's script again, as a new version (a
    copy of the restored one, now current); nothing is lost. A scrap write:
    web sessions only, like create, update and delete (an API key gets 401).

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        id (str):
        version (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | VersionView]
    """

    kwargs = _get_kwargs(
        id=id,
        version=version,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    version: str,
    *,
    client: AuthenticatedClient,
) -> ErrorBody | VersionView | None:
    """Restore a script version

     Makes an older version the scrap's script again, as a new version (a
    copy of the restored one, now current); nothing is lost. A scrap write:
    web sessions only, like create, update and delete (an API key gets 401).

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        id (str):
        version (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | VersionView
    """

    return sync_detailed(
        id=id,
        version=version,
        client=client,
    ).parsed


async def asyncio_detailed(
    id: str,
    version: str,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorBody | VersionView]:
    """Restore a script version

     Makes an older version the scrap's script again, as a new version (a
    copy of the restored one, now current); nothing is lost. A scrap write:
    web sessions only, like create, update and delete (an API key gets 401).

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        id (str):
        version (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | VersionView]
    """

    kwargs = _get_kwargs(
        id=id,
        version=version,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    version: str,
    *,
    client: AuthenticatedClient,
) -> ErrorBody | VersionView | None:
    """Restore a script version

     Makes an older version the scrap's script again, as a new version (a
    copy of the restored one, now current); nothing is lost. A scrap write:
    web sessions only, like create, update and delete (an API key gets 401).

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        id (str):
        version (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | VersionView
    """

    return (
        await asyncio_detailed(
            id=id,
            version=version,
            client=client,
        )
    ).parsed
