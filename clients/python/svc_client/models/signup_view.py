from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.organization_view import OrganizationView
    from ..models.user_view import UserView


T = TypeVar("T", bound="SignupView")


@_attrs_define
class SignupView:
    """
    Attributes:
        expires_at (str):
        organization (OrganizationView):
        token (str):
        user (UserView):
    """

    expires_at: str
    organization: OrganizationView
    token: str
    user: UserView
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        expires_at = self.expires_at

        organization = self.organization.to_dict()

        token = self.token

        user = self.user.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "expiresAt": expires_at,
                "organization": organization,
                "token": token,
                "user": user,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.organization_view import OrganizationView
        from ..models.user_view import UserView

        d = dict(src_dict)
        expires_at = d.pop("expiresAt")

        organization = OrganizationView.from_dict(d.pop("organization"))

        token = d.pop("token")

        user = UserView.from_dict(d.pop("user"))

        signup_view = cls(
            expires_at=expires_at,
            organization=organization,
            token=token,
            user=user,
        )

        signup_view.additional_properties = d
        return signup_view

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
