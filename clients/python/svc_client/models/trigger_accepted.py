from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="TriggerAccepted")


@_attrs_define
class TriggerAccepted:
    """The 202 answer of a trigger: the run is queued.

    Attributes:
        history_id (str):
        scrap_id (str):
        triggered_by (str):
        status (bool | None | Unset):
    """

    history_id: str
    scrap_id: str
    triggered_by: str
    status: bool | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        history_id = self.history_id

        scrap_id = self.scrap_id

        triggered_by = self.triggered_by

        status: bool | None | Unset
        if isinstance(self.status, Unset):
            status = UNSET
        else:
            status = self.status

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "historyId": history_id,
                "scrapId": scrap_id,
                "triggeredBy": triggered_by,
            }
        )
        if status is not UNSET:
            field_dict["status"] = status

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        history_id = d.pop("historyId")

        scrap_id = d.pop("scrapId")

        triggered_by = d.pop("triggeredBy")

        def _parse_status(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        status = _parse_status(d.pop("status", UNSET))

        trigger_accepted = cls(
            history_id=history_id,
            scrap_id=scrap_id,
            triggered_by=triggered_by,
            status=status,
        )

        trigger_accepted.additional_properties = d
        return trigger_accepted

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
