from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="MeterBreakdownView")


@_attrs_define
class MeterBreakdownView:
    """Units by what used them; members other than `run` and `transfer` are
    present only when the row had them.

        Attributes:
            run (int): One per page load.
            transfer (int): One per started 5 MiB beyond the first, per page load.
            ai (int | None | Unset): Model calls (an AI operation's, or a digest's).
            fix_ai (int | None | Unset): AI Fix's model calls.
            fix_runs (int | None | Unset): AI Fix's page loads.
            tier (int | None | Unset): What proxy tiers' multipliers added.
    """

    run: int
    transfer: int
    ai: int | None | Unset = UNSET
    fix_ai: int | None | Unset = UNSET
    fix_runs: int | None | Unset = UNSET
    tier: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        run = self.run

        transfer = self.transfer

        ai: int | None | Unset
        if isinstance(self.ai, Unset):
            ai = UNSET
        else:
            ai = self.ai

        fix_ai: int | None | Unset
        if isinstance(self.fix_ai, Unset):
            fix_ai = UNSET
        else:
            fix_ai = self.fix_ai

        fix_runs: int | None | Unset
        if isinstance(self.fix_runs, Unset):
            fix_runs = UNSET
        else:
            fix_runs = self.fix_runs

        tier: int | None | Unset
        if isinstance(self.tier, Unset):
            tier = UNSET
        else:
            tier = self.tier

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "run": run,
                "transfer": transfer,
            }
        )
        if ai is not UNSET:
            field_dict["ai"] = ai
        if fix_ai is not UNSET:
            field_dict["fixAi"] = fix_ai
        if fix_runs is not UNSET:
            field_dict["fixRuns"] = fix_runs
        if tier is not UNSET:
            field_dict["tier"] = tier

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        run = d.pop("run")

        transfer = d.pop("transfer")

        def _parse_ai(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        ai = _parse_ai(d.pop("ai", UNSET))

        def _parse_fix_ai(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        fix_ai = _parse_fix_ai(d.pop("fixAi", UNSET))

        def _parse_fix_runs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        fix_runs = _parse_fix_runs(d.pop("fixRuns", UNSET))

        def _parse_tier(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        tier = _parse_tier(d.pop("tier", UNSET))

        meter_breakdown_view = cls(
            run=run,
            transfer=transfer,
            ai=ai,
            fix_ai=fix_ai,
            fix_runs=fix_runs,
            tier=tier,
        )

        meter_breakdown_view.additional_properties = d
        return meter_breakdown_view

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
