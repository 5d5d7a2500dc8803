from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.scrap_view import ScrapView
from ...types import Response


def _get_kwargs(
    id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/scraps/{id}/banner/screenshot".format(
            id=quote(str(id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | ScrapView | None:
    if response.status_code == 200:
        response_200 = ScrapView.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())

        return response_401

    if response.status_code == 402:
        response_402 = ErrorBody.from_dict(response.json())

        return response_402

    if response.status_code == 403:
        response_403 = ErrorBody.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

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
) -> Response[ErrorBody | ScrapView]:
    """Use a screenshot of the scrap's page as its banner

     The scrap's URL is loaded by the browser engine of the server that
    answers, under the same isolation as a run (no site login, a context of
    its own), and a PNG of the viewport becomes the banner. Charged like a
    test run; nothing is added to the run history. A page that cannot be
    loaded is refused with 422 on `url`, saying why.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ScrapView]
    """

    kwargs = _get_kwargs(
        id=id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient,
) -> ErrorBody | ScrapView | None:
    """Use a screenshot of the scrap's page as its banner

     The scrap's URL is loaded by the browser engine of the server that
    answers, under the same isolation as a run (no site login, a context of
    its own), and a PNG of the viewport becomes the banner. Charged like a
    test run; nothing is added to the run history. A page that cannot be
    loaded is refused with 422 on `url`, saying why.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ScrapView
    """

    return sync_detailed(
        id=id,
        client=client,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorBody | ScrapView]:
    """Use a screenshot of the scrap's page as its banner

     The scrap's URL is loaded by the browser engine of the server that
    answers, under the same isolation as a run (no site login, a context of
    its own), and a PNG of the viewport becomes the banner. Charged like a
    test run; nothing is added to the run history. A page that cannot be
    loaded is refused with 422 on `url`, saying why.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ScrapView]
    """

    kwargs = _get_kwargs(
        id=id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
) -> ErrorBody | ScrapView | None:
    """Use a screenshot of the scrap's page as its banner

     The scrap's URL is loaded by the browser engine of the server that
    answers, under the same isolation as a run (no site login, a context of
    its own), and a PNG of the viewport becomes the banner. Charged like a
    test run; nothing is added to the run history. A page that cannot be
    loaded is refused with 422 on `url`, saying why.

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        id (str):

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
        )
    ).parsed
