from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.export_history_data_format import ExportHistoryDataFormat
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    format_: ExportHistoryDataFormat | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_format_: str | Unset = UNSET
    if not isinstance(format_, Unset):
        json_format_ = format_.value

    params["format"] = json_format_

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/historys/{id}/data".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | ErrorBody | None:
    if response.status_code == 200:
        response_200 = response.json()
        return response_200

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorBody.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

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
) -> Response[Any | ErrorBody]:
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
    format_: ExportHistoryDataFormat | Unset = UNSET,
) -> Response[Any | ErrorBody]:
    """Export a run's data

     The run's data as a file to download (`Content-Disposition: attachment`):
    JSON exactly as stored, CSV (RFC 4180: a header row of the columns, one
    record per item), NDJSON (each item on its own line) or XLSX (one sheet,
    `Data`: a bold header row, then one row per item; numbers and booleans
    typed, arrays and objects as JSON text, `null` and a missing key empty).
    Objects' keys are the columns, in the order they first appear; items
    that are not objects are in a `value` column. Under the same checks as
    the row. XLSX refuses data with more than 1,048,575 items or 16,384
    columns (422 naming `format`).

    **Auth:** An API key with scope `svc:history:read`, or a web session.

    Args:
        id (str):
        format_ (ExportHistoryDataFormat | Unset): The file formats of a run's data (for the
            document: the handler takes
            the query as text and the service names a bad one).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorBody]
    """

    kwargs = _get_kwargs(
        id=id,
        format_=format_,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient,
    format_: ExportHistoryDataFormat | Unset = UNSET,
) -> Any | ErrorBody | None:
    """Export a run's data

     The run's data as a file to download (`Content-Disposition: attachment`):
    JSON exactly as stored, CSV (RFC 4180: a header row of the columns, one
    record per item), NDJSON (each item on its own line) or XLSX (one sheet,
    `Data`: a bold header row, then one row per item; numbers and booleans
    typed, arrays and objects as JSON text, `null` and a missing key empty).
    Objects' keys are the columns, in the order they first appear; items
    that are not objects are in a `value` column. Under the same checks as
    the row. XLSX refuses data with more than 1,048,575 items or 16,384
    columns (422 naming `format`).

    **Auth:** An API key with scope `svc:history:read`, or a web session.

    Args:
        id (str):
        format_ (ExportHistoryDataFormat | Unset): The file formats of a run's data (for the
            document: the handler takes
            the query as text and the service names a bad one).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorBody
    """

    return sync_detailed(
        id=id,
        client=client,
        format_=format_,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    format_: ExportHistoryDataFormat | Unset = UNSET,
) -> Response[Any | ErrorBody]:
    """Export a run's data

     The run's data as a file to download (`Content-Disposition: attachment`):
    JSON exactly as stored, CSV (RFC 4180: a header row of the columns, one
    record per item), NDJSON (each item on its own line) or XLSX (one sheet,
    `Data`: a bold header row, then one row per item; numbers and booleans
    typed, arrays and objects as JSON text, `null` and a missing key empty).
    Objects' keys are the columns, in the order they first appear; items
    that are not objects are in a `value` column. Under the same checks as
    the row. XLSX refuses data with more than 1,048,575 items or 16,384
    columns (422 naming `format`).

    **Auth:** An API key with scope `svc:history:read`, or a web session.

    Args:
        id (str):
        format_ (ExportHistoryDataFormat | Unset): The file formats of a run's data (for the
            document: the handler takes
            the query as text and the service names a bad one).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorBody]
    """

    kwargs = _get_kwargs(
        id=id,
        format_=format_,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
    format_: ExportHistoryDataFormat | Unset = UNSET,
) -> Any | ErrorBody | None:
    """Export a run's data

     The run's data as a file to download (`Content-Disposition: attachment`):
    JSON exactly as stored, CSV (RFC 4180: a header row of the columns, one
    record per item), NDJSON (each item on its own line) or XLSX (one sheet,
    `Data`: a bold header row, then one row per item; numbers and booleans
    typed, arrays and objects as JSON text, `null` and a missing key empty).
    Objects' keys are the columns, in the order they first appear; items
    that are not objects are in a `value` column. Under the same checks as
    the row. XLSX refuses data with more than 1,048,575 items or 16,384
    columns (422 naming `format`).

    **Auth:** An API key with scope `svc:history:read`, or a web session.

    Args:
        id (str):
        format_ (ExportHistoryDataFormat | Unset): The file formats of a run's data (for the
            document: the handler takes
            the query as text and the service names a bad one).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorBody
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            format_=format_,
        )
    ).parsed
