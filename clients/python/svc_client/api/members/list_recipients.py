from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.list_view_recipient_view import ListViewRecipientView
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    page: int | Unset = UNSET,
    per_page: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["page"] = page

    params["perPage"] = per_page

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/organization/recipients",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | ListViewRecipientView | None:
    if response.status_code == 200:
        response_200 = ListViewRecipientView.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())

        return response_401

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
) -> Response[ErrorBody | ListViewRecipientView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    page: int | Unset = UNSET,
    per_page: int | Unset = UNSET,
) -> Response[ErrorBody | ListViewRecipientView]:
    """List recipients

     The addresses outside the organization's members that its scraps name
    (`emailNotifRecipient`, `digestRecipient`, `alert`), in address order:
    `pending` ones receive nothing until they confirm through the link
    mailed to them; members' own addresses never need to. Every member may
    read them.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        page (int | Unset):
        per_page (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ListViewRecipientView]
    """

    kwargs = _get_kwargs(
        page=page,
        per_page=per_page,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    page: int | Unset = UNSET,
    per_page: int | Unset = UNSET,
) -> ErrorBody | ListViewRecipientView | None:
    """List recipients

     The addresses outside the organization's members that its scraps name
    (`emailNotifRecipient`, `digestRecipient`, `alert`), in address order:
    `pending` ones receive nothing until they confirm through the link
    mailed to them; members' own addresses never need to. Every member may
    read them.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        page (int | Unset):
        per_page (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ListViewRecipientView
    """

    return sync_detailed(
        client=client,
        page=page,
        per_page=per_page,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    page: int | Unset = UNSET,
    per_page: int | Unset = UNSET,
) -> Response[ErrorBody | ListViewRecipientView]:
    """List recipients

     The addresses outside the organization's members that its scraps name
    (`emailNotifRecipient`, `digestRecipient`, `alert`), in address order:
    `pending` ones receive nothing until they confirm through the link
    mailed to them; members' own addresses never need to. Every member may
    read them.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        page (int | Unset):
        per_page (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ListViewRecipientView]
    """

    kwargs = _get_kwargs(
        page=page,
        per_page=per_page,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    page: int | Unset = UNSET,
    per_page: int | Unset = UNSET,
) -> ErrorBody | ListViewRecipientView | None:
    """List recipients

     The addresses outside the organization's members that its scraps name
    (`emailNotifRecipient`, `digestRecipient`, `alert`), in address order:
    `pending` ones receive nothing until they confirm through the link
    mailed to them; members' own addresses never need to. Every member may
    read them.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        page (int | Unset):
        per_page (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ListViewRecipientView
    """

    return (
        await asyncio_detailed(
            client=client,
            page=page,
            per_page=per_page,
        )
    ).parsed
