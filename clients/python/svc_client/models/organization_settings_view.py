from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="OrganizationSettingsView")


@_attrs_define
class OrganizationSettingsView:
    """The organization's settings.

    Attributes:
        history_retention_days (int | None | Unset): Days a run (history row) is kept; null keeps every run.
    """

    history_retention_days: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        history_retention_days: int | None | Unset
        if isinstance(self.history_retention_days, Unset):
            history_retention_days = UNSET
        else:
            history_retention_days = self.history_retention_days

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if history_retention_days is not UNSET:
            field_dict["historyRetentionDays"] = history_retention_days

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_history_retention_days(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        history_retention_days = _parse_history_retention_days(
            d.pop("historyRetentionDays", UNSET)
        )

        organization_settings_view = cls(
            history_retention_days=history_retention_days,
        )

        organization_settings_view.additional_properties = d
        return organization_settings_view

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
