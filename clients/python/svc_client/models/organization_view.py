from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="OrganizationView")


@_attrs_define
class OrganizationView:
    """
    Attributes:
        balance (int):
        created_at (str):
        default_containers (list[str]):
        id (str):
        name (str):
        plan (str):
    """

    balance: int
    created_at: str
    default_containers: list[str]
    id: str
    name: str
    plan: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        balance = self.balance

        created_at = self.created_at

        default_containers = self.default_containers

        id = self.id

        name = self.name

        plan = self.plan

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "balance": balance,
                "createdAt": created_at,
                "defaultContainers": default_containers,
                "id": id,
                "name": name,
                "plan": plan,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        balance = d.pop("balance")

        created_at = d.pop("createdAt")

        default_containers = cast(list[str], d.pop("defaultContainers"))

        id = d.pop("id")

        name = d.pop("name")

        plan = d.pop("plan")

        organization_view = cls(
            balance=balance,
            created_at=created_at,
            default_containers=default_containers,
            id=id,
            name=name,
            plan=plan,
        )

        organization_view.additional_properties = d
        return organization_view

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
