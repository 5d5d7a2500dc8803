from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="InviteBody")


@_attrs_define
class InviteBody:
    """Whom to invite and with which role (`owner` only by an owner).

    Attributes:
        email (str):
        role (str):
    """

    email: str
    role: str

    def to_dict(self) -> dict[str, Any]:
        email = self.email

        role = self.role

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "email": email,
                "role": role,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        email = d.pop("email")

        role = d.pop("role")

        invite_body = cls(
            email=email,
            role=role,
        )

        return invite_body
