from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.list_view_scrap_view_data_item_params_item import (
        ListViewScrapViewDataItemParamsItem,
    )


T = TypeVar("T", bound="ListViewScrapViewDataItem")


@_attrs_define
class ListViewScrapViewDataItem:
    """The Scrap shape: exactly these fields.

    Attributes:
        auto_fix (bool):
        banner (str):
        containers (list[str]):
        created_at (str):
        cron_timezone (str):
        description (str):
        digest_enabled (bool):
        email_notif (bool):
        email_notif_format (str):
        history (list[str]):
        id (str):
        organization_id (str):
        params (list[ListViewScrapViewDataItemParamsItem]):
        request (str):
        scrapper (str):
        title (str):
        updated_at (str):
        url (str):
        user (str):
        alert (None | str | Unset):
        cron (None | str | Unset):
        digest_prompt (None | str | Unset):
        digest_recipient (None | str | Unset):
        email_notif_recipient (None | str | Unset):
        last_tier_change_at (None | str | Unset):
        proxy_tier (None | str | Unset):
    """

    auto_fix: bool
    banner: str
    containers: list[str]
    created_at: str
    cron_timezone: str
    description: str
    digest_enabled: bool
    email_notif: bool
    email_notif_format: str
    history: list[str]
    id: str
    organization_id: str
    params: list[ListViewScrapViewDataItemParamsItem]
    request: str
    scrapper: str
    title: str
    updated_at: str
    url: str
    user: str
    alert: None | str | Unset = UNSET
    cron: None | str | Unset = UNSET
    digest_prompt: None | str | Unset = UNSET
    digest_recipient: None | str | Unset = UNSET
    email_notif_recipient: None | str | Unset = UNSET
    last_tier_change_at: None | str | Unset = UNSET
    proxy_tier: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        auto_fix = self.auto_fix

        banner = self.banner

        containers = self.containers

        created_at = self.created_at

        cron_timezone = self.cron_timezone

        description = self.description

        digest_enabled = self.digest_enabled

        email_notif = self.email_notif

        email_notif_format = self.email_notif_format

        history = self.history

        id = self.id

        organization_id = self.organization_id

        params = []
        for params_item_data in self.params:
            params_item = params_item_data.to_dict()
            params.append(params_item)

        request = self.request

        scrapper = self.scrapper

        title = self.title

        updated_at = self.updated_at

        url = self.url

        user = self.user

        alert: None | str | Unset
        if isinstance(self.alert, Unset):
            alert = UNSET
        else:
            alert = self.alert

        cron: None | str | Unset
        if isinstance(self.cron, Unset):
            cron = UNSET
        else:
            cron = self.cron

        digest_prompt: None | str | Unset
        if isinstance(self.digest_prompt, Unset):
            digest_prompt = UNSET
        else:
            digest_prompt = self.digest_prompt

        digest_recipient: None | str | Unset
        if isinstance(self.digest_recipient, Unset):
            digest_recipient = UNSET
        else:
            digest_recipient = self.digest_recipient

        email_notif_recipient: None | str | Unset
        if isinstance(self.email_notif_recipient, Unset):
            email_notif_recipient = UNSET
        else:
            email_notif_recipient = self.email_notif_recipient

        last_tier_change_at: None | str | Unset
        if isinstance(self.last_tier_change_at, Unset):
            last_tier_change_at = UNSET
        else:
            last_tier_change_at = self.last_tier_change_at

        proxy_tier: None | str | Unset
        if isinstance(self.proxy_tier, Unset):
            proxy_tier = UNSET
        else:
            proxy_tier = self.proxy_tier

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "autoFix": auto_fix,
                "banner": banner,
                "containers": containers,
                "createdAt": created_at,
                "cronTimezone": cron_timezone,
                "description": description,
                "digestEnabled": digest_enabled,
                "emailNotif": email_notif,
                "emailNotifFormat": email_notif_format,
                "history": history,
                "id": id,
                "organizationId": organization_id,
                "params": params,
                "request": request,
                "scrapper": scrapper,
                "title": title,
                "updatedAt": updated_at,
                "url": url,
                "user": user,
            }
        )
        if alert is not UNSET:
            field_dict["alert"] = alert
        if cron is not UNSET:
            field_dict["cron"] = cron
        if digest_prompt is not UNSET:
            field_dict["digestPrompt"] = digest_prompt
        if digest_recipient is not UNSET:
            field_dict["digestRecipient"] = digest_recipient
        if email_notif_recipient is not UNSET:
            field_dict["emailNotifRecipient"] = email_notif_recipient
        if last_tier_change_at is not UNSET:
            field_dict["lastTierChangeAt"] = last_tier_change_at
        if proxy_tier is not UNSET:
            field_dict["proxyTier"] = proxy_tier

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.list_view_scrap_view_data_item_params_item import (
            ListViewScrapViewDataItemParamsItem,
        )

        d = dict(src_dict)
        auto_fix = d.pop("autoFix")

        banner = d.pop("banner")

        containers = cast(list[str], d.pop("containers"))

        created_at = d.pop("createdAt")

        cron_timezone = d.pop("cronTimezone")

        description = d.pop("description")

        digest_enabled = d.pop("digestEnabled")

        email_notif = d.pop("emailNotif")

        email_notif_format = d.pop("emailNotifFormat")

        history = cast(list[str], d.pop("history"))

        id = d.pop("id")

        organization_id = d.pop("organizationId")

        params = []
        _params = d.pop("params")
        for params_item_data in _params:
            params_item = ListViewScrapViewDataItemParamsItem.from_dict(
                params_item_data
            )

            params.append(params_item)

        request = d.pop("request")

        scrapper = d.pop("scrapper")

        title = d.pop("title")

        updated_at = d.pop("updatedAt")

        url = d.pop("url")

        user = d.pop("user")

        def _parse_alert(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        alert = _parse_alert(d.pop("alert", UNSET))

        def _parse_cron(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        cron = _parse_cron(d.pop("cron", UNSET))

        def _parse_digest_prompt(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        digest_prompt = _parse_digest_prompt(d.pop("digestPrompt", UNSET))

        def _parse_digest_recipient(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        digest_recipient = _parse_digest_recipient(d.pop("digestRecipient", UNSET))

        def _parse_email_notif_recipient(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        email_notif_recipient = _parse_email_notif_recipient(
            d.pop("emailNotifRecipient", UNSET)
        )

        def _parse_last_tier_change_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        last_tier_change_at = _parse_last_tier_change_at(
            d.pop("lastTierChangeAt", UNSET)
        )

        def _parse_proxy_tier(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        proxy_tier = _parse_proxy_tier(d.pop("proxyTier", UNSET))

        list_view_scrap_view_data_item = cls(
            auto_fix=auto_fix,
            banner=banner,
            containers=containers,
            created_at=created_at,
            cron_timezone=cron_timezone,
            description=description,
            digest_enabled=digest_enabled,
            email_notif=email_notif,
            email_notif_format=email_notif_format,
            history=history,
            id=id,
            organization_id=organization_id,
            params=params,
            request=request,
            scrapper=scrapper,
            title=title,
            updated_at=updated_at,
            url=url,
            user=user,
            alert=alert,
            cron=cron,
            digest_prompt=digest_prompt,
            digest_recipient=digest_recipient,
            email_notif_recipient=email_notif_recipient,
            last_tier_change_at=last_tier_change_at,
            proxy_tier=proxy_tier,
        )

        list_view_scrap_view_data_item.additional_properties = d
        return list_view_scrap_view_data_item

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
