from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="SiteAccountBody")


@_attrs_define
class SiteAccountBody:
    """The body of `PUT /api/scraps/{id}/account`: both fields are required.

    Attributes:
        password (str):
        username (str):
    """

    password: str
    username: str

    def to_dict(self) -> dict[str, Any]:
        password = self.password

        username = self.username

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "password": password,
                "username": username,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        password = d.pop("password")

        username = d.pop("username")

        site_account_body = cls(
            password=password,
            username=username,
        )

        return site_account_body
