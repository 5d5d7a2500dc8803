from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.new_scrap_body_email_notif_format import NewScrapBodyEmailNotifFormat
from ..models.new_scrap_body_proxy_tier_type_1 import NewScrapBodyProxyTierType1
from ..models.new_scrap_body_proxy_tier_type_2_type_1 import (
    NewScrapBodyProxyTierType2Type1,
)
from ..models.new_scrap_body_proxy_tier_type_3_type_1 import (
    NewScrapBodyProxyTierType3Type1,
)
from ..models.new_scrap_body_scrapper import NewScrapBodyScrapper
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.new_scrap_body_params_item import NewScrapBodyParamsItem


T = TypeVar("T", bound="NewScrapBody")


@_attrs_define
class NewScrapBody:
    """The body of `POST /api/scraps` (create: `title`, `url` and `request` required) and `PUT`/`PATCH /api/scraps/{id}` (a
    partial update: only the fields present are set). A nullable field set to `null` is cleared; the others refuse
    `null`. Unknown fields are refused; the read-only fields of the Scrap shape (`id`, `history`, `user`,
    `organizationId`, `createdAt`, `updatedAt`, `lastTierChangeAt`) are accepted and ignored, so that a client can send
    back what it read. Besides what the properties say, the scrap as saved must have: an absolute http(s) `url` with a
    host; a `cron` of five fields (six with seconds, or an `@` alias) that fires at most once per
    `SVC_CRON_MIN_INTERVAL` (blank: none); an IANA `cronTimezone`; email addresses (one `@`, no spaces; blank: none) in
    `alert`, `emailNotifRecipient` and `digestRecipient`; unique parameter keys; a `proxyTier` the operator configured,
    and none but `tier0` with the `static` or `auto` engine; `// svc:load` directives of known kinds in `request`.
    Strings are trimmed where the Scrap shape shows them trimmed (title, url, containers, cron, cronTimezone, email
    fields).

        Attributes:
            request (str):
            title (str):
            url (str):
            alert (None | str | Unset):
            auto_fix (bool | Unset):
            banner (str | Unset):
            containers (list[str] | Unset):
            created_at (Any | Unset): Read-only: accepted and ignored.
            cron (None | str | Unset):
            cron_timezone (str | Unset):
            description (str | Unset):
            digest_enabled (bool | Unset):
            digest_prompt (None | str | Unset):
            digest_recipient (None | str | Unset):
            email_notif (bool | Unset):
            email_notif_format (NewScrapBodyEmailNotifFormat | Unset):
            email_notif_recipient (None | str | Unset):
            history (Any | Unset): Read-only: accepted and ignored.
            id (Any | Unset): Read-only: accepted and ignored.
            last_tier_change_at (Any | Unset): Read-only: accepted and ignored.
            organization_id (Any | Unset): Read-only: accepted and ignored.
            params (list[NewScrapBodyParamsItem] | Unset):
            proxy_tier (NewScrapBodyProxyTierType1 | NewScrapBodyProxyTierType2Type1 | NewScrapBodyProxyTierType3Type1 |
                None | Unset): The proxy tier; the static and auto engines run direct only (`tier0` or `null`).
            scrapper (NewScrapBodyScrapper | Unset): The engine; default `puppeteer`.
            updated_at (Any | Unset): Read-only: accepted and ignored.
            user (Any | Unset): Read-only: accepted and ignored.
    """

    request: str
    title: str
    url: str
    alert: None | str | Unset = UNSET
    auto_fix: bool | Unset = UNSET
    banner: str | Unset = UNSET
    containers: list[str] | Unset = UNSET
    created_at: Any | Unset = UNSET
    cron: None | str | Unset = UNSET
    cron_timezone: str | Unset = UNSET
    description: str | Unset = UNSET
    digest_enabled: bool | Unset = UNSET
    digest_prompt: None | str | Unset = UNSET
    digest_recipient: None | str | Unset = UNSET
    email_notif: bool | Unset = UNSET
    email_notif_format: NewScrapBodyEmailNotifFormat | Unset = UNSET
    email_notif_recipient: None | str | Unset = UNSET
    history: Any | Unset = UNSET
    id: Any | Unset = UNSET
    last_tier_change_at: Any | Unset = UNSET
    organization_id: Any | Unset = UNSET
    params: list[NewScrapBodyParamsItem] | Unset = UNSET
    proxy_tier: (
        NewScrapBodyProxyTierType1
        | NewScrapBodyProxyTierType2Type1
        | NewScrapBodyProxyTierType3Type1
        | None
        | Unset
    ) = UNSET
    scrapper: NewScrapBodyScrapper | Unset = UNSET
    updated_at: Any | Unset = UNSET
    user: Any | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        request = self.request

        title = self.title

        url = self.url

        alert: None | str | Unset
        if isinstance(self.alert, Unset):
            alert = UNSET
        else:
            alert = self.alert

        auto_fix = self.auto_fix

        banner = self.banner

        containers: list[str] | Unset = UNSET
        if not isinstance(self.containers, Unset):
            containers = self.containers

        created_at = self.created_at

        cron: None | str | Unset
        if isinstance(self.cron, Unset):
            cron = UNSET
        else:
            cron = self.cron

        cron_timezone = self.cron_timezone

        description = self.description

        digest_enabled = self.digest_enabled

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

        email_notif = self.email_notif

        email_notif_format: str | Unset = UNSET
        if not isinstance(self.email_notif_format, Unset):
            email_notif_format = self.email_notif_format.value

        email_notif_recipient: None | str | Unset
        if isinstance(self.email_notif_recipient, Unset):
            email_notif_recipient = UNSET
        else:
            email_notif_recipient = self.email_notif_recipient

        history = self.history

        id = self.id

        last_tier_change_at = self.last_tier_change_at

        organization_id = self.organization_id

        params: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.params, Unset):
            params = []
            for params_item_data in self.params:
                params_item = params_item_data.to_dict()
                params.append(params_item)

        proxy_tier: None | str | Unset
        if isinstance(self.proxy_tier, Unset):
            proxy_tier = UNSET
        elif (
            isinstance(self.proxy_tier, NewScrapBodyProxyTierType1)
            or isinstance(self.proxy_tier, NewScrapBodyProxyTierType2Type1)
            or isinstance(self.proxy_tier, NewScrapBodyProxyTierType3Type1)
        ):
            proxy_tier = self.proxy_tier.value
        else:
            proxy_tier = self.proxy_tier

        scrapper: str | Unset = UNSET
        if not isinstance(self.scrapper, Unset):
            scrapper = self.scrapper.value

        updated_at = self.updated_at

        user = self.user

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "request": request,
                "title": title,
                "url": url,
            }
        )
        if alert is not UNSET:
            field_dict["alert"] = alert
        if auto_fix is not UNSET:
            field_dict["autoFix"] = auto_fix
        if banner is not UNSET:
            field_dict["banner"] = banner
        if containers is not UNSET:
            field_dict["containers"] = containers
        if created_at is not UNSET:
            field_dict["createdAt"] = created_at
        if cron is not UNSET:
            field_dict["cron"] = cron
        if cron_timezone is not UNSET:
            field_dict["cronTimezone"] = cron_timezone
        if description is not UNSET:
            field_dict["description"] = description
        if digest_enabled is not UNSET:
            field_dict["digestEnabled"] = digest_enabled
        if digest_prompt is not UNSET:
            field_dict["digestPrompt"] = digest_prompt
        if digest_recipient is not UNSET:
            field_dict["digestRecipient"] = digest_recipient
        if email_notif is not UNSET:
            field_dict["emailNotif"] = email_notif
        if email_notif_format is not UNSET:
            field_dict["emailNotifFormat"] = email_notif_format
        if email_notif_recipient is not UNSET:
            field_dict["emailNotifRecipient"] = email_notif_recipient
        if history is not UNSET:
            field_dict["history"] = history
        if id is not UNSET:
            field_dict["id"] = id
        if last_tier_change_at is not UNSET:
            field_dict["lastTierChangeAt"] = last_tier_change_at
        if organization_id is not UNSET:
            field_dict["organizationId"] = organization_id
        if params is not UNSET:
            field_dict["params"] = params
        if proxy_tier is not UNSET:
            field_dict["proxyTier"] = proxy_tier
        if scrapper is not UNSET:
            field_dict["scrapper"] = scrapper
        if updated_at is not UNSET:
            field_dict["updatedAt"] = updated_at
        if user is not UNSET:
            field_dict["user"] = user

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.new_scrap_body_params_item import NewScrapBodyParamsItem

        d = dict(src_dict)
        request = d.pop("request")

        title = d.pop("title")

        url = d.pop("url")

        def _parse_alert(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        alert = _parse_alert(d.pop("alert", UNSET))

        auto_fix = d.pop("autoFix", UNSET)

        banner = d.pop("banner", UNSET)

        containers = cast(list[str], d.pop("containers", UNSET))

        created_at = d.pop("createdAt", UNSET)

        def _parse_cron(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        cron = _parse_cron(d.pop("cron", UNSET))

        cron_timezone = d.pop("cronTimezone", UNSET)

        description = d.pop("description", UNSET)

        digest_enabled = d.pop("digestEnabled", UNSET)

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

        email_notif = d.pop("emailNotif", UNSET)

        _email_notif_format = d.pop("emailNotifFormat", UNSET)
        email_notif_format: NewScrapBodyEmailNotifFormat | Unset
        if isinstance(_email_notif_format, Unset):
            email_notif_format = UNSET
        else:
            email_notif_format = NewScrapBodyEmailNotifFormat(_email_notif_format)

        def _parse_email_notif_recipient(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        email_notif_recipient = _parse_email_notif_recipient(
            d.pop("emailNotifRecipient", UNSET)
        )

        history = d.pop("history", UNSET)

        id = d.pop("id", UNSET)

        last_tier_change_at = d.pop("lastTierChangeAt", UNSET)

        organization_id = d.pop("organizationId", UNSET)

        _params = d.pop("params", UNSET)
        params: list[NewScrapBodyParamsItem] | Unset = UNSET
        if _params is not UNSET:
            params = []
            for params_item_data in _params:
                params_item = NewScrapBodyParamsItem.from_dict(params_item_data)

                params.append(params_item)

        def _parse_proxy_tier(
            data: object,
        ) -> (
            NewScrapBodyProxyTierType1
            | NewScrapBodyProxyTierType2Type1
            | NewScrapBodyProxyTierType3Type1
            | None
            | Unset
        ):
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                proxy_tier_type_1 = NewScrapBodyProxyTierType1(data)

                return proxy_tier_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                proxy_tier_type_2_type_1 = NewScrapBodyProxyTierType2Type1(data)

                return proxy_tier_type_2_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                proxy_tier_type_3_type_1 = NewScrapBodyProxyTierType3Type1(data)

                return proxy_tier_type_3_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                NewScrapBodyProxyTierType1
                | NewScrapBodyProxyTierType2Type1
                | NewScrapBodyProxyTierType3Type1
                | None
                | Unset,
                data,
            )

        proxy_tier = _parse_proxy_tier(d.pop("proxyTier", UNSET))

        _scrapper = d.pop("scrapper", UNSET)
        scrapper: NewScrapBodyScrapper | Unset
        if isinstance(_scrapper, Unset):
            scrapper = UNSET
        else:
            scrapper = NewScrapBodyScrapper(_scrapper)

        updated_at = d.pop("updatedAt", UNSET)

        user = d.pop("user", UNSET)

        new_scrap_body = cls(
            request=request,
            title=title,
            url=url,
            alert=alert,
            auto_fix=auto_fix,
            banner=banner,
            containers=containers,
            created_at=created_at,
            cron=cron,
            cron_timezone=cron_timezone,
            description=description,
            digest_enabled=digest_enabled,
            digest_prompt=digest_prompt,
            digest_recipient=digest_recipient,
            email_notif=email_notif,
            email_notif_format=email_notif_format,
            email_notif_recipient=email_notif_recipient,
            history=history,
            id=id,
            last_tier_change_at=last_tier_change_at,
            organization_id=organization_id,
            params=params,
            proxy_tier=proxy_tier,
            scrapper=scrapper,
            updated_at=updated_at,
            user=user,
        )

        return new_scrap_body
