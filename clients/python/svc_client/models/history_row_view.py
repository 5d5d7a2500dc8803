from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.costs_view import CostsView
    from ..models.meter_view import MeterView


T = TypeVar("T", bound="HistoryRowView")


@_attrs_define
class HistoryRowView:
    """The History row shape: one run of a scrap. `costs` and `meter` are
    absent (not null) unless the caller may see them (platform admins).
    `errorSnapshot` is for the web app's admin view only, so REST and MCP
    never carry it.

        Attributes:
            created_at (str):
            data (str):
            id (str):
            length (int):
            organization_id (str):
            proxy_tier (str):
            retries (int):
            triggered_by (str):
            type_ (str):
            costs (CostsView | None | Unset):
            digest (None | str | Unset):
            error (None | str | Unset):
            finished_at (None | str | Unset):
            fix_version_id (None | str | Unset):
            fixed_at (None | str | Unset):
            meter (MeterView | None | Unset):
            scrap (None | str | Unset):
            status (bool | None | Unset):
            status_detail (None | str | Unset):
            time (int | None | Unset):
    """

    created_at: str
    data: str
    id: str
    length: int
    organization_id: str
    proxy_tier: str
    retries: int
    triggered_by: str
    type_: str
    costs: CostsView | None | Unset = UNSET
    digest: None | str | Unset = UNSET
    error: None | str | Unset = UNSET
    finished_at: None | str | Unset = UNSET
    fix_version_id: None | str | Unset = UNSET
    fixed_at: None | str | Unset = UNSET
    meter: MeterView | None | Unset = UNSET
    scrap: None | str | Unset = UNSET
    status: bool | None | Unset = UNSET
    status_detail: None | str | Unset = UNSET
    time: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.costs_view import CostsView
        from ..models.meter_view import MeterView

        created_at = self.created_at

        data = self.data

        id = self.id

        length = self.length

        organization_id = self.organization_id

        proxy_tier = self.proxy_tier

        retries = self.retries

        triggered_by = self.triggered_by

        type_ = self.type_

        costs: dict[str, Any] | None | Unset
        if isinstance(self.costs, Unset):
            costs = UNSET
        elif isinstance(self.costs, CostsView):
            costs = self.costs.to_dict()
        else:
            costs = self.costs

        digest: None | str | Unset
        if isinstance(self.digest, Unset):
            digest = UNSET
        else:
            digest = self.digest

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        finished_at: None | str | Unset
        if isinstance(self.finished_at, Unset):
            finished_at = UNSET
        else:
            finished_at = self.finished_at

        fix_version_id: None | str | Unset
        if isinstance(self.fix_version_id, Unset):
            fix_version_id = UNSET
        else:
            fix_version_id = self.fix_version_id

        fixed_at: None | str | Unset
        if isinstance(self.fixed_at, Unset):
            fixed_at = UNSET
        else:
            fixed_at = self.fixed_at

        meter: dict[str, Any] | None | Unset
        if isinstance(self.meter, Unset):
            meter = UNSET
        elif isinstance(self.meter, MeterView):
            meter = self.meter.to_dict()
        else:
            meter = self.meter

        scrap: None | str | Unset
        if isinstance(self.scrap, Unset):
            scrap = UNSET
        else:
            scrap = self.scrap

        status: bool | None | Unset
        if isinstance(self.status, Unset):
            status = UNSET
        else:
            status = self.status

        status_detail: None | str | Unset
        if isinstance(self.status_detail, Unset):
            status_detail = UNSET
        else:
            status_detail = self.status_detail

        time: int | None | Unset
        if isinstance(self.time, Unset):
            time = UNSET
        else:
            time = self.time

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "createdAt": created_at,
                "data": data,
                "id": id,
                "length": length,
                "organizationId": organization_id,
                "proxyTier": proxy_tier,
                "retries": retries,
                "triggeredBy": triggered_by,
                "type": type_,
            }
        )
        if costs is not UNSET:
            field_dict["costs"] = costs
        if digest is not UNSET:
            field_dict["digest"] = digest
        if error is not UNSET:
            field_dict["error"] = error
        if finished_at is not UNSET:
            field_dict["finishedAt"] = finished_at
        if fix_version_id is not UNSET:
            field_dict["fixVersionId"] = fix_version_id
        if fixed_at is not UNSET:
            field_dict["fixedAt"] = fixed_at
        if meter is not UNSET:
            field_dict["meter"] = meter
        if scrap is not UNSET:
            field_dict["scrap"] = scrap
        if status is not UNSET:
            field_dict["status"] = status
        if status_detail is not UNSET:
            field_dict["statusDetail"] = status_detail
        if time is not UNSET:
            field_dict["time"] = time

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.costs_view import CostsView
        from ..models.meter_view import MeterView

        d = dict(src_dict)
        created_at = d.pop("createdAt")

        data = d.pop("data")

        id = d.pop("id")

        length = d.pop("length")

        organization_id = d.pop("organizationId")

        proxy_tier = d.pop("proxyTier")

        retries = d.pop("retries")

        triggered_by = d.pop("triggeredBy")

        type_ = d.pop("type")

        def _parse_costs(data: object) -> CostsView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                costs_type_0 = CostsView.from_dict(data)

                return costs_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CostsView | None | Unset, data)

        costs = _parse_costs(d.pop("costs", UNSET))

        def _parse_digest(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        digest = _parse_digest(d.pop("digest", UNSET))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_finished_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        finished_at = _parse_finished_at(d.pop("finishedAt", UNSET))

        def _parse_fix_version_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        fix_version_id = _parse_fix_version_id(d.pop("fixVersionId", UNSET))

        def _parse_fixed_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        fixed_at = _parse_fixed_at(d.pop("fixedAt", UNSET))

        def _parse_meter(data: object) -> MeterView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                meter_type_0 = MeterView.from_dict(data)

                return meter_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MeterView | None | Unset, data)

        meter = _parse_meter(d.pop("meter", UNSET))

        def _parse_scrap(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        scrap = _parse_scrap(d.pop("scrap", UNSET))

        def _parse_status(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        status = _parse_status(d.pop("status", UNSET))

        def _parse_status_detail(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        status_detail = _parse_status_detail(d.pop("statusDetail", UNSET))

        def _parse_time(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        time = _parse_time(d.pop("time", UNSET))

        history_row_view = cls(
            created_at=created_at,
            data=data,
            id=id,
            length=length,
            organization_id=organization_id,
            proxy_tier=proxy_tier,
            retries=retries,
            triggered_by=triggered_by,
            type_=type_,
            costs=costs,
            digest=digest,
            error=error,
            finished_at=finished_at,
            fix_version_id=fix_version_id,
            fixed_at=fixed_at,
            meter=meter,
            scrap=scrap,
            status=status,
            status_detail=status_detail,
            time=time,
        )

        history_row_view.additional_properties = d
        return history_row_view

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
