from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="RedeliveryView")


@_attrs_define
class RedeliveryView:
    """The answer to a redelivery: the new delivery, queued.

    Attributes:
        delivery_id (str):
        event (str):
        history_id (str):
        state (str):
    """

    delivery_id: str
    event: str
    history_id: str
    state: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        delivery_id = self.delivery_id

        event = self.event

        history_id = self.history_id

        state = self.state

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "deliveryId": delivery_id,
                "event": event,
                "historyId": history_id,
                "state": state,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        delivery_id = d.pop("deliveryId")

        event = d.pop("event")

        history_id = d.pop("historyId")

        state = d.pop("state")

        redelivery_view = cls(
            delivery_id=delivery_id,
            event=event,
            history_id=history_id,
            state=state,
        )

        redelivery_view.additional_properties = d
        return redelivery_view

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
