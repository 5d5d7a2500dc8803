from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ListViewSessionViewDataItem")


@_attrs_define
class ListViewSessionViewDataItem:
    """A live web session of the caller's account.

    Attributes:
        address (str): The client's address at log-in.
        created_at (str):
        current (bool): Whether this is the session of the request.
        device (str): The client's `User-Agent` at log-in (empty when it sent none).
        expires_at (str):
        id (str):
        last_seen_at (str): When a request last used the session (kept to within 5 minutes).
    """

    address: str
    created_at: str
    current: bool
    device: str
    expires_at: str
    id: str
    last_seen_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        address = self.address

        created_at = self.created_at

        current = self.current

        device = self.device

        expires_at = self.expires_at

        id = self.id

        last_seen_at = self.last_seen_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "address": address,
                "createdAt": created_at,
                "current": current,
                "device": device,
                "expiresAt": expires_at,
                "id": id,
                "lastSeenAt": last_seen_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        address = d.pop("address")

        created_at = d.pop("createdAt")

        current = d.pop("current")

        device = d.pop("device")

        expires_at = d.pop("expiresAt")

        id = d.pop("id")

        last_seen_at = d.pop("lastSeenAt")

        list_view_session_view_data_item = cls(
            address=address,
            created_at=created_at,
            current=current,
            device=device,
            expires_at=expires_at,
            id=id,
            last_seen_at=last_seen_at,
        )

        list_view_session_view_data_item.additional_properties = d
        return list_view_session_view_data_item

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
