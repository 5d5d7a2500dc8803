from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.banner_upload import BannerUpload
from ...models.error_body import ErrorBody
from ...models.scrap_view import ScrapView
from ...types import Response


def _get_kwargs(
    id: str,
    *,
    body: BannerUpload,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/scraps/{id}/banner".format(
            id=quote(str(id), safe=""),
        ),
    }

    _kwargs["files"] = body.to_multipart()

    headers["Content-Type"] = "multipart/form-data; boundary=+++"

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
    body: BannerUpload,
) -> Response[ErrorBody | ScrapView]:
    """Upload a scrap's banner

     A `multipart/form-data` body with one part, `file`: a PNG, JPEG or WebP
    image (the whole body at most 2 MiB). The image is decoded and encoded
    again, without its metadata (EXIF and the like); anything else is
    refused with 422. The scrap's `banner` becomes the path that serves the
    image (`/banners/TOKEN.EXT`, readable without a credential: the token is
    random and new with each image).

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        id (str):
        body (BannerUpload): The upload form: one part, `file`.

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
    body: BannerUpload,
) -> ErrorBody | ScrapView | None:
    """Upload a scrap's banner

     A `multipart/form-data` body with one part, `file`: a PNG, JPEG or WebP
    image (the whole body at most 2 MiB). The image is decoded and encoded
    again, without its metadata (EXIF and the like); anything else is
    refused with 422. The scrap's `banner` becomes the path that serves the
    image (`/banners/TOKEN.EXT`, readable without a credential: the token is
    random and new with each image).

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        id (str):
        body (BannerUpload): The upload form: one part, `file`.

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
    body: BannerUpload,
) -> Response[ErrorBody | ScrapView]:
    """Upload a scrap's banner

     A `multipart/form-data` body with one part, `file`: a PNG, JPEG or WebP
    image (the whole body at most 2 MiB). The image is decoded and encoded
    again, without its metadata (EXIF and the like); anything else is
    refused with 422. The scrap's `banner` becomes the path that serves the
    image (`/banners/TOKEN.EXT`, readable without a credential: the token is
    random and new with each image).

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        id (str):
        body (BannerUpload): The upload form: one part, `file`.

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
    body: BannerUpload,
) -> ErrorBody | ScrapView | None:
    """Upload a scrap's banner

     A `multipart/form-data` body with one part, `file`: a PNG, JPEG or WebP
    image (the whole body at most 2 MiB). The image is decoded and encoded
    again, without its metadata (EXIF and the like); anything else is
    refused with 422. The scrap's `banner` becomes the path that serves the
    image (`/banners/TOKEN.EXT`, readable without a credential: the token is
    random and new with each image).

    **Auth:** A web session only (JWT or the web app's cookie): an API key gets 401.

    Args:
        id (str):
        body (BannerUpload): The upload form: one part, `file`.

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
