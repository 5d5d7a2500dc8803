from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="InviteBody")


@_attrs_define
class InviteBody:
    """Whom to invite and with which role (`owner` only by an owner).

    Attributes:
        email (str): An email address; white space around it is ignored. (Every email
            pattern spells out the server's white space, Unicode's: `\\s` differs
            by engine, e.g. ECMAScript's holds U+FEFF and not U+0085, Python's
            holds U+001C to U+001F.)
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
