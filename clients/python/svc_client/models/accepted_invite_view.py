from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.organization_view import OrganizationView


T = TypeVar("T", bound="AcceptedInviteView")


@_attrs_define
class AcceptedInviteView:
    """The organization joined, the role there, and a session token for it.

    Attributes:
        organization (OrganizationView):
        role (str):
        token (str): A session token (JWT) for the joined organization.
    """

    organization: OrganizationView
    role: str
    token: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        organization = self.organization.to_dict()

        role = self.role

        token = self.token

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "organization": organization,
                "role": role,
                "token": token,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.organization_view import OrganizationView

        d = dict(src_dict)
        organization = OrganizationView.from_dict(d.pop("organization"))

        role = d.pop("role")

        token = d.pop("token")

        accepted_invite_view = cls(
            organization=organization,
            role=role,
            token=token,
        )

        accepted_invite_view.additional_properties = d
        return accepted_invite_view

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
