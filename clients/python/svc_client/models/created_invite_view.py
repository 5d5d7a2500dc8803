from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="CreatedInviteView")


@_attrs_define
class CreatedInviteView:
    """A new invitation with its accept link (shown this once: pass it on when
    the server sends no email).

        Attributes:
            email (str):
            expires_at (str):
            id (str):
            link (str): The accept page's address; it works once, until `expiresAt`.
            role (str):
    """

    email: str
    expires_at: str
    id: str
    link: str
    role: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        email = self.email

        expires_at = self.expires_at

        id = self.id

        link = self.link

        role = self.role

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "email": email,
                "expiresAt": expires_at,
                "id": id,
                "link": link,
                "role": role,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        email = d.pop("email")

        expires_at = d.pop("expiresAt")

        id = d.pop("id")

        link = d.pop("link")

        role = d.pop("role")

        created_invite_view = cls(
            email=email,
            expires_at=expires_at,
            id=id,
            link=link,
            role=role,
        )

        created_invite_view.additional_properties = d
        return created_invite_view

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
