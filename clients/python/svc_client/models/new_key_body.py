from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.new_key_body_scopes_type_0_item import NewKeyBodyScopesType0Item
from ..types import UNSET, Unset

T = TypeVar("T", bound="NewKeyBody")


@_attrs_define
class NewKeyBody:
    """The body of `POST /api/developers/keys`: `name` (not blank, at most 100 characters once trimmed) is required;
    `expiresAt` (RFC 3339) must be in the future and at most 2 years ahead (default 1 year); `scrapIds` must name scraps
    of the caller's organization. `null` is taken as absent.

        Attributes:
            name (str):
            expires_at (datetime.datetime | None | Unset):
            scopes (list[NewKeyBodyScopesType0Item] | None | Unset):
            scrap_ids (list[str] | None | Unset):
    """

    name: str
    expires_at: datetime.datetime | None | Unset = UNSET
    scopes: list[NewKeyBodyScopesType0Item] | None | Unset = UNSET
    scrap_ids: list[str] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        expires_at: None | str | Unset
        if isinstance(self.expires_at, Unset):
            expires_at = UNSET
        elif isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        scopes: list[str] | None | Unset
        if isinstance(self.scopes, Unset):
            scopes = UNSET
        elif isinstance(self.scopes, list):
            scopes = []
            for scopes_type_0_item_data in self.scopes:
                scopes_type_0_item = scopes_type_0_item_data.value
                scopes.append(scopes_type_0_item)

        else:
            scopes = self.scopes

        scrap_ids: list[str] | None | Unset
        if isinstance(self.scrap_ids, Unset):
            scrap_ids = UNSET
        elif isinstance(self.scrap_ids, list):
            scrap_ids = self.scrap_ids

        else:
            scrap_ids = self.scrap_ids

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
            }
        )
        if expires_at is not UNSET:
            field_dict["expiresAt"] = expires_at
        if scopes is not UNSET:
            field_dict["scopes"] = scopes
        if scrap_ids is not UNSET:
            field_dict["scrapIds"] = scrap_ids

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        name = d.pop("name")

        def _parse_expires_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)

                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        expires_at = _parse_expires_at(d.pop("expiresAt", UNSET))

        def _parse_scopes(
            data: object,
        ) -> list[NewKeyBodyScopesType0Item] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                scopes_type_0 = []
                _scopes_type_0 = data
                for scopes_type_0_item_data in _scopes_type_0:
                    scopes_type_0_item = NewKeyBodyScopesType0Item(
                        scopes_type_0_item_data
                    )

                    scopes_type_0.append(scopes_type_0_item)

                return scopes_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[NewKeyBodyScopesType0Item] | None | Unset, data)

        scopes = _parse_scopes(d.pop("scopes", UNSET))

        def _parse_scrap_ids(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                scrap_ids_type_0 = cast(list[str], data)

                return scrap_ids_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        scrap_ids = _parse_scrap_ids(d.pop("scrapIds", UNSET))

        new_key_body = cls(
            name=name,
            expires_at=expires_at,
            scopes=scopes,
            scrap_ids=scrap_ids,
        )

        return new_key_body
