from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ListViewActivityViewDataItem")


@_attrs_define
class ListViewActivityViewDataItem:
    """
    Attributes:
        actor (str):
        created_at (str):
        id (str):
        message (str):
        scrap_id (str):
        type_ (str):
        history_id (None | str | Unset):
    """

    actor: str
    created_at: str
    id: str
    message: str
    scrap_id: str
    type_: str
    history_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        actor = self.actor

        created_at = self.created_at

        id = self.id

        message = self.message

        scrap_id = self.scrap_id

        type_ = self.type_

        history_id: None | str | Unset
        if isinstance(self.history_id, Unset):
            history_id = UNSET
        else:
            history_id = self.history_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "actor": actor,
                "createdAt": created_at,
                "id": id,
                "message": message,
                "scrapId": scrap_id,
                "type": type_,
            }
        )
        if history_id is not UNSET:
            field_dict["historyId"] = history_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        actor = d.pop("actor")

        created_at = d.pop("createdAt")

        id = d.pop("id")

        message = d.pop("message")

        scrap_id = d.pop("scrapId")

        type_ = d.pop("type")

        def _parse_history_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        history_id = _parse_history_id(d.pop("historyId", UNSET))

        list_view_activity_view_data_item = cls(
            actor=actor,
            created_at=created_at,
            id=id,
            message=message,
            scrap_id=scrap_id,
            type_=type_,
            history_id=history_id,
        )

        list_view_activity_view_data_item.additional_properties = d
        return list_view_activity_view_data_item

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
