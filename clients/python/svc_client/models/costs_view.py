from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="CostsView")


@_attrs_define
class CostsView:
    """What a row cost in USD, and how its bytes were counted.

    Attributes:
        ai (float): Model calls of an AI operation, or of a run's digest.
        bytes_ (int): Bytes the browser received.
        bytes_source (str): Who counted `bytes`: `cdp` (the browser, through DevTools).
        captcha (float): Captcha solving (always 0: svc has no solver).
        fix_ai (float): AI Fix's model calls on a run it repaired.
        priced (bool): False when a tier the row used has no price.
        proxy (float): Upstream proxy traffic, by each tier's price per GB.
        total (float): The sum of the figures above.
        model (None | str | Unset):
        provider (None | str | Unset):
    """

    ai: float
    bytes_: int
    bytes_source: str
    captcha: float
    fix_ai: float
    priced: bool
    proxy: float
    total: float
    model: None | str | Unset = UNSET
    provider: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        ai = self.ai

        bytes_ = self.bytes_

        bytes_source = self.bytes_source

        captcha = self.captcha

        fix_ai = self.fix_ai

        priced = self.priced

        proxy = self.proxy

        total = self.total

        model: None | str | Unset
        if isinstance(self.model, Unset):
            model = UNSET
        else:
            model = self.model

        provider: None | str | Unset
        if isinstance(self.provider, Unset):
            provider = UNSET
        else:
            provider = self.provider

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "ai": ai,
                "bytes": bytes_,
                "bytesSource": bytes_source,
                "captcha": captcha,
                "fixAi": fix_ai,
                "priced": priced,
                "proxy": proxy,
                "total": total,
            }
        )
        if model is not UNSET:
            field_dict["model"] = model
        if provider is not UNSET:
            field_dict["provider"] = provider

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        ai = d.pop("ai")

        bytes_ = d.pop("bytes")

        bytes_source = d.pop("bytesSource")

        captcha = d.pop("captcha")

        fix_ai = d.pop("fixAi")

        priced = d.pop("priced")

        proxy = d.pop("proxy")

        total = d.pop("total")

        def _parse_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        model = _parse_model(d.pop("model", UNSET))

        def _parse_provider(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        provider = _parse_provider(d.pop("provider", UNSET))

        costs_view = cls(
            ai=ai,
            bytes_=bytes_,
            bytes_source=bytes_source,
            captcha=captcha,
            fix_ai=fix_ai,
            priced=priced,
            proxy=proxy,
            total=total,
            model=model,
            provider=provider,
        )

        costs_view.additional_properties = d
        return costs_view

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
