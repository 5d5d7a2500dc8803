from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="UserView")


@_attrs_define
class UserView:
    """
    Attributes:
        created_at (str):
        email (str):
        id (str):
        is_admin (bool):
        name (str):
        organization_id (str):
    """

    created_at: str
    email: str
    id: str
    is_admin: bool
    name: str
    organization_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at

        email = self.email

        id = self.id

        is_admin = self.is_admin

        name = self.name

        organization_id = self.organization_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "createdAt": created_at,
                "email": email,
                "id": id,
                "isAdmin": is_admin,
                "name": name,
                "organizationId": organization_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = d.pop("createdAt")

        email = d.pop("email")

        id = d.pop("id")

        is_admin = d.pop("isAdmin")

        name = d.pop("name")

        organization_id = d.pop("organizationId")

        user_view = cls(
            created_at=created_at,
            email=email,
            id=id,
            is_admin=is_admin,
            name=name,
            organization_id=organization_id,
        )

        user_view.additional_properties = d
        return user_view

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
