from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.audit_actor_view import AuditActorView


T = TypeVar("T", bound="ListViewAuditEntryViewDataItem")


@_attrs_define
class ListViewAuditEntryViewDataItem:
    """One entry of the organization's audit log.

    Attributes:
        action (str): What was done: `member.invited`, `member.joined`, `member.removed`,
            `member.role_changed`, `key.created`, `key.revoked`,
            `webhook.created`, `webhook.changed`, `webhook.deleted`,
            `login.new_address`, `user.password_changed`, `user.email_changed`,
            `organization.plan_changed`, `scrap.deleted`, `version.restored`,
            `fix.approved`, `organization.settings_changed`.
        actor (AuditActorView): Who did it: a user (with the email the user had then), an API key, or
            the operator (`svc admin`).
        created_at (str):
        id (str):
        target_id (str):
        target_type (str): The kind of the target: `invite`, `user`, `key`, `webhook`,
            `session`, `organization`, `scrap` or `version`.
        address (None | str | Unset): The client address of the request (null for the operator's commands).
        detail (None | str | Unset): What the action changed, in words (never a secret).
    """

    action: str
    actor: AuditActorView
    created_at: str
    id: str
    target_id: str
    target_type: str
    address: None | str | Unset = UNSET
    detail: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        action = self.action

        actor = self.actor.to_dict()

        created_at = self.created_at

        id = self.id

        target_id = self.target_id

        target_type = self.target_type

        address: None | str | Unset
        if isinstance(self.address, Unset):
            address = UNSET
        else:
            address = self.address

        detail: None | str | Unset
        if isinstance(self.detail, Unset):
            detail = UNSET
        else:
            detail = self.detail

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "action": action,
                "actor": actor,
                "createdAt": created_at,
                "id": id,
                "targetId": target_id,
                "targetType": target_type,
            }
        )
        if address is not UNSET:
            field_dict["address"] = address
        if detail is not UNSET:
            field_dict["detail"] = detail

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.audit_actor_view import AuditActorView

        d = dict(src_dict)
        action = d.pop("action")

        actor = AuditActorView.from_dict(d.pop("actor"))

        created_at = d.pop("createdAt")

        id = d.pop("id")

        target_id = d.pop("targetId")

        target_type = d.pop("targetType")

        def _parse_address(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        address = _parse_address(d.pop("address", UNSET))

        def _parse_detail(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        detail = _parse_detail(d.pop("detail", UNSET))

        list_view_audit_entry_view_data_item = cls(
            action=action,
            actor=actor,
            created_at=created_at,
            id=id,
            target_id=target_id,
            target_type=target_type,
            address=address,
            detail=detail,
        )

        list_view_audit_entry_view_data_item.additional_properties = d
        return list_view_audit_entry_view_data_item

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
