from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.meter_breakdown_view import MeterBreakdownView


T = TypeVar("T", bound="MeterView")


@_attrs_define
class MeterView:
    """What a row charged to the organization's balance, in units.

    Attributes:
        breakdown (MeterBreakdownView): Units by what used them; members other than `run` and `transfer` are
            present only when the row had them.
        ratio_version (int): The version of the units-per-resource ratios.
        units (int): The sum of `breakdown`.
    """

    breakdown: MeterBreakdownView
    ratio_version: int
    units: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        breakdown = self.breakdown.to_dict()

        ratio_version = self.ratio_version

        units = self.units

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "breakdown": breakdown,
                "ratioVersion": ratio_version,
                "units": units,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.meter_breakdown_view import MeterBreakdownView

        d = dict(src_dict)
        breakdown = MeterBreakdownView.from_dict(d.pop("breakdown"))

        ratio_version = d.pop("ratioVersion")

        units = d.pop("units")

        meter_view = cls(
            breakdown=breakdown,
            ratio_version=ratio_version,
            units=units,
        )

        meter_view.additional_properties = d
        return meter_view

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
