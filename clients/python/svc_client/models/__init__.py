"""Contains all the data models used in inputs/outputs"""

from .accept_invite_body import AcceptInviteBody
from .accepted_invite_view import AcceptedInviteView
from .activity_view import ActivityView
from .announcement_body import AnnouncementBody
from .announcement_queued import AnnouncementQueued
from .attempt_view import AttemptView
from .audit_actor_view import AuditActorView
from .audit_entry_view import AuditEntryView
from .banner_upload import BannerUpload
from .channel_body import ChannelBody
from .channel_test_view import ChannelTestView
from .channel_view import ChannelView
from .costs_view import CostsView
from .created_invite_view import CreatedInviteView
from .created_key_view import CreatedKeyView
from .created_webhook_view import CreatedWebhookView
from .error_body import ErrorBody
from .export_history_data_format import ExportHistoryDataFormat
from .generate_body import GenerateBody
from .history_row_view import HistoryRowView
from .invite_body import InviteBody
from .invite_view import InviteView
from .key_view import KeyView
from .list_view_activity_view import ListViewActivityView
from .list_view_activity_view_data_item import ListViewActivityViewDataItem
from .list_view_attempt_view import ListViewAttemptView
from .list_view_attempt_view_data_item import ListViewAttemptViewDataItem
from .list_view_audit_entry_view import ListViewAuditEntryView
from .list_view_audit_entry_view_data_item import ListViewAuditEntryViewDataItem
from .list_view_channel_view import ListViewChannelView
from .list_view_channel_view_data_item import ListViewChannelViewDataItem
from .list_view_history_row_view import ListViewHistoryRowView
from .list_view_history_row_view_data_item import ListViewHistoryRowViewDataItem
from .list_view_invite_view import ListViewInviteView
from .list_view_invite_view_data_item import ListViewInviteViewDataItem
from .list_view_key_view import ListViewKeyView
from .list_view_key_view_data_item import ListViewKeyViewDataItem
from .list_view_member_view import ListViewMemberView
from .list_view_member_view_data_item import ListViewMemberViewDataItem
from .list_view_recipient_view import ListViewRecipientView
from .list_view_recipient_view_data_item import ListViewRecipientViewDataItem
from .list_view_run_page_view import ListViewRunPageView
from .list_view_run_page_view_data_item import ListViewRunPageViewDataItem
from .list_view_scrap_view import ListViewScrapView
from .list_view_scrap_view_data_item import ListViewScrapViewDataItem
from .list_view_scrap_view_data_item_params_item import (
    ListViewScrapViewDataItemParamsItem,
)
from .list_view_session_view import ListViewSessionView
from .list_view_session_view_data_item import ListViewSessionViewDataItem
from .list_view_version_view import ListViewVersionView
from .list_view_version_view_data_item import ListViewVersionViewDataItem
from .list_view_webhook_view import ListViewWebhookView
from .list_view_webhook_view_data_item import ListViewWebhookViewDataItem
from .login_body import LoginBody
from .login_view import LoginView
from .me_view import MeView
from .member_view import MemberView
from .meter_breakdown_view import MeterBreakdownView
from .meter_view import MeterView
from .new_key_body import NewKeyBody
from .new_key_body_scopes_type_0_item import NewKeyBodyScopesType0Item
from .new_scrap_body import NewScrapBody
from .new_scrap_body_email_notif_format import NewScrapBodyEmailNotifFormat
from .new_scrap_body_params_item import NewScrapBodyParamsItem
from .new_scrap_body_proxy_tier_type_1 import NewScrapBodyProxyTierType1
from .new_scrap_body_proxy_tier_type_2_type_1 import NewScrapBodyProxyTierType2Type1
from .new_scrap_body_proxy_tier_type_3_type_1 import NewScrapBodyProxyTierType3Type1
from .new_scrap_body_scrapper import NewScrapBodyScrapper
from .new_webhook_body import NewWebhookBody
from .new_webhook_body_events_item import NewWebhookBodyEventsItem
from .organization_settings_body import OrganizationSettingsBody
from .organization_settings_view import OrganizationSettingsView
from .organization_view import OrganizationView
from .password_body import PasswordBody
from .recipient_view import RecipientView
from .redelivery_view import RedeliveryView
from .resend_body import ResendBody
from .role_body import RoleBody
from .run_page_view import RunPageView
from .scrap_body import ScrapBody
from .scrap_body_email_notif_format import ScrapBodyEmailNotifFormat
from .scrap_body_params_item import ScrapBodyParamsItem
from .scrap_body_proxy_tier_type_1 import ScrapBodyProxyTierType1
from .scrap_body_proxy_tier_type_2_type_1 import ScrapBodyProxyTierType2Type1
from .scrap_body_proxy_tier_type_3_type_1 import ScrapBodyProxyTierType3Type1
from .scrap_body_scrapper import ScrapBodyScrapper
from .scrap_view import ScrapView
from .scrap_view_params_item import ScrapViewParamsItem
from .session_view import SessionView
from .signup_body import SignupBody
from .signup_view import SignupView
from .site_account_body import SiteAccountBody
from .site_account_view import SiteAccountView
from .task_accepted import TaskAccepted
from .task_view import TaskView
from .trigger_accepted import TriggerAccepted
from .user_view import UserView
from .version_view import VersionView
from .webhook_body import WebhookBody
from .webhook_body_events_type_0_item import WebhookBodyEventsType0Item
from .webhook_view import WebhookView
from .wizard_body import WizardBody

__all__ = (
    "AcceptInviteBody",
    "AcceptedInviteView",
    "ActivityView",
    "AnnouncementBody",
    "AnnouncementQueued",
    "AttemptView",
    "AuditActorView",
    "AuditEntryView",
    "BannerUpload",
    "ChannelBody",
    "ChannelTestView",
    "ChannelView",
    "CostsView",
    "CreatedInviteView",
    "CreatedKeyView",
    "CreatedWebhookView",
    "ErrorBody",
    "ExportHistoryDataFormat",
    "GenerateBody",
    "HistoryRowView",
    "InviteBody",
    "InviteView",
    "KeyView",
    "ListViewActivityView",
    "ListViewActivityViewDataItem",
    "ListViewAttemptView",
    "ListViewAttemptViewDataItem",
    "ListViewAuditEntryView",
    "ListViewAuditEntryViewDataItem",
    "ListViewChannelView",
    "ListViewChannelViewDataItem",
    "ListViewHistoryRowView",
    "ListViewHistoryRowViewDataItem",
    "ListViewInviteView",
    "ListViewInviteViewDataItem",
    "ListViewKeyView",
    "ListViewKeyViewDataItem",
    "ListViewMemberView",
    "ListViewMemberViewDataItem",
    "ListViewRecipientView",
    "ListViewRecipientViewDataItem",
    "ListViewRunPageView",
    "ListViewRunPageViewDataItem",
    "ListViewScrapView",
    "ListViewScrapViewDataItem",
    "ListViewScrapViewDataItemParamsItem",
    "ListViewSessionView",
    "ListViewSessionViewDataItem",
    "ListViewVersionView",
    "ListViewVersionViewDataItem",
    "ListViewWebhookView",
    "ListViewWebhookViewDataItem",
    "LoginBody",
    "LoginView",
    "MeView",
    "MemberView",
    "MeterBreakdownView",
    "MeterView",
    "NewKeyBody",
    "NewKeyBodyScopesType0Item",
    "NewScrapBody",
    "NewScrapBodyEmailNotifFormat",
    "NewScrapBodyParamsItem",
    "NewScrapBodyProxyTierType1",
    "NewScrapBodyProxyTierType2Type1",
    "NewScrapBodyProxyTierType3Type1",
    "NewScrapBodyScrapper",
    "NewWebhookBody",
    "NewWebhookBodyEventsItem",
    "OrganizationSettingsBody",
    "OrganizationSettingsView",
    "OrganizationView",
    "PasswordBody",
    "RecipientView",
    "RedeliveryView",
    "ResendBody",
    "RoleBody",
    "RunPageView",
    "ScrapBody",
    "ScrapBodyEmailNotifFormat",
    "ScrapBodyParamsItem",
    "ScrapBodyProxyTierType1",
    "ScrapBodyProxyTierType2Type1",
    "ScrapBodyProxyTierType3Type1",
    "ScrapBodyScrapper",
    "ScrapView",
    "ScrapViewParamsItem",
    "SessionView",
    "SignupBody",
    "SignupView",
    "SiteAccountBody",
    "SiteAccountView",
    "TaskAccepted",
    "TaskView",
    "TriggerAccepted",
    "UserView",
    "VersionView",
    "WebhookBody",
    "WebhookBodyEventsType0Item",
    "WebhookView",
    "WizardBody",
)
