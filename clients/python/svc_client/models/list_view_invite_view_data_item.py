from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ListViewInviteViewDataItem")


@_attrs_define
class ListViewInviteViewDataItem:
    """A pending invitation.

    Attributes:
        created_at (str):
        email (str):
        expires_at (str):
        id (str):
        role (str):
    """

    created_at: str
    email: str
    expires_at: str
    id: str
    role: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at

        email = self.email

        expires_at = self.expires_at

        id = self.id

        role = self.role

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "createdAt": created_at,
                "email": email,
                "expiresAt": expires_at,
                "id": id,
                "role": role,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = d.pop("createdAt")

        email = d.pop("email")

        expires_at = d.pop("expiresAt")

        id = d.pop("id")

        role = d.pop("role")

        list_view_invite_view_data_item = cls(
            created_at=created_at,
            email=email,
            expires_at=expires_at,
            id=id,
            role=role,
        )

        list_view_invite_view_data_item.additional_properties = d
        return list_view_invite_view_data_item

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
