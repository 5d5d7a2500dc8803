from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="OrganizationSettingsBody")


@_attrs_define
class OrganizationSettingsBody:
    """The body of `PUT /api/organization/settings`: `historyRetentionDays`, 1 to 3650 days a run is kept before
    housekeeping deletes it (a scrap's newest successful run and pending runs are always kept), or null to keep every
    run.

        Attributes:
            history_retention_days (int | None | Unset):
    """

    history_retention_days: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        history_retention_days: int | None | Unset
        if isinstance(self.history_retention_days, Unset):
            history_retention_days = UNSET
        else:
            history_retention_days = self.history_retention_days

        field_dict: dict[str, Any] = {}

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

        organization_settings_body = cls(
            history_retention_days=history_retention_days,
        )

        return organization_settings_body
