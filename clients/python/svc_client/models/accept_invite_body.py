from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="AcceptInviteBody")


@_attrs_define
class AcceptInviteBody:
    """The body of `POST /api/invites/accept`.

    Attributes:
        token (str): The `token` of the invitation link.
    """

    token: str

    def to_dict(self) -> dict[str, Any]:
        token = self.token

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "token": token,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        token = d.pop("token")

        accept_invite_body = cls(
            token=token,
        )

        return accept_invite_body
