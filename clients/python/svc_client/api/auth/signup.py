from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.signup_body import SignupBody
from ...models.signup_view import SignupView
from ...types import Response


def _get_kwargs(
    *,
    body: SignupBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/auth/signup",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | SignupView | None:
    if response.status_code == 201:
        response_201 = SignupView.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

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
) -> Response[ErrorBody | SignupView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: SignupBody,
) -> Response[ErrorBody | SignupView]:
    """Sign up

     Creates a user and its own organization on the Free plan with the
    signup grant, and answers a session token (JWT).

    **Auth:** No credential needed.

    Args:
        body (SignupBody): The body of `POST /api/auth/signup`: an email address (one `@` with
            text on both sides, no spaces), a password of 8 to 1,024 characters, and an optional name
            (at most 200 characters once trimmed; blank or absent: the email's local part).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | SignupView]
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
    client: AuthenticatedClient | Client,
    body: SignupBody,
) -> ErrorBody | SignupView | None:
    """Sign up

     Creates a user and its own organization on the Free plan with the
    signup grant, and answers a session token (JWT).

    **Auth:** No credential needed.

    Args:
        body (SignupBody): The body of `POST /api/auth/signup`: an email address (one `@` with
            text on both sides, no spaces), a password of 8 to 1,024 characters, and an optional name
            (at most 200 characters once trimmed; blank or absent: the email's local part).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | SignupView
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: SignupBody,
) -> Response[ErrorBody | SignupView]:
    """Sign up

     Creates a user and its own organization on the Free plan with the
    signup grant, and answers a session token (JWT).

    **Auth:** No credential needed.

    Args:
        body (SignupBody): The body of `POST /api/auth/signup`: an email address (one `@` with
            text on both sides, no spaces), a password of 8 to 1,024 characters, and an optional name
            (at most 200 characters once trimmed; blank or absent: the email's local part).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | SignupView]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: SignupBody,
) -> ErrorBody | SignupView | None:
    """Sign up

     Creates a user and its own organization on the Free plan with the
    signup grant, and answers a session token (JWT).

    **Auth:** No credential needed.

    Args:
        body (SignupBody): The body of `POST /api/auth/signup`: an email address (one `@` with
            text on both sides, no spaces), a password of 8 to 1,024 characters, and an optional name
            (at most 200 characters once trimmed; blank or absent: the email's local part).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | SignupView
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
