//! `/settings/channels`: the organization's saved chat channels (name,
//! service, URL redacted, how a scrap refers to it), a form to save one,
//! "Send test message" and delete. The URL is shown whole only as typed,
//! in the form that saves it.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use chrono::Utc;
use serde::Deserialize;
use svc_domain::ObjectId;
use svc_service::{ServiceError, Services};

use super::{render, render_status};
use crate::chrome::Chrome;
use crate::form_errors::FieldErrors;
use crate::page_error::PageError;
use crate::path_id::PathId;
use crate::present::when::{Moment, moment};
use crate::signed_in::{SignedForm, SignedIn};

#[derive(Template)]
#[template(path = "channels.html")]
struct ChannelsPage {
    chrome: Chrome,
    channels: Vec<ChannelRow>,
    /// What happened last (saved, deleted, test sent).
    flash: Option<String>,
    /// A test message the service refused or that could not be sent.
    failure: Option<String>,
    name: String,
    url: String,
    errors: FieldErrors,
}

struct ChannelRow {
    id: String,
    name: String,
    service: &'static str,
    redacted_url: String,
    created: Moment,
}

fn service_name(s: Option<svc_domain::channel::Service>) -> &'static str {
    use svc_domain::channel::Service as S;
    match s {
        Some(S::Slack) => "Slack",
        Some(S::Discord) => "Discord",
        Some(S::Teams) => "Microsoft Teams",
        Some(S::Telegram) => "Telegram",
        Some(S::Ntfy) => "ntfy",
        Some(S::Mattermost) => "Mattermost",
        Some(S::Json) => "JSON",
        None => "Unknown",
    }
}

async fn channels_page(services: &Services, user: &SignedIn) -> Result<ChannelsPage, PageError> {
    let now = Utc::now();
    let channels = services
        .channels
        .list(&user.session)
        .await?
        .into_iter()
        .map(|c| ChannelRow {
            id: c.id.to_string(),
            service: service_name(c.service()),
            redacted_url: c.redacted_url(),
            created: moment(c.created_at, now),
            name: c.name,
        })
        .collect();
    Ok(ChannelsPage {
        chrome: user.chrome("Chat channels", "settings"),
        channels,
        flash: None,
        failure: None,
        name: String::new(),
        url: String::new(),
        errors: FieldErrors::default(),
    })
}

#[derive(Deserialize)]
pub(crate) struct Params {
    #[serde(default)]
    done: Option<String>,
    #[serde(default)]
    name: Option<String>,
}

pub(crate) async fn page(
    State(services): State<Arc<Services>>,
    user: SignedIn,
    Query(params): Query<Params>,
) -> Result<Response, PageError> {
    let name = params.name.unwrap_or_default();
    let flash = match params.done.as_deref() {
        Some("saved") => Some(format!("Channel {name} saved: use channel:{name} in a scrap's alert.")),
        Some("deleted") => Some("The channel was deleted.".to_string()),
        _ => None,
    };
    render(&ChannelsPage { flash, ..channels_page(&services, &user).await? })
}

#[derive(Deserialize)]
pub(crate) struct ChannelForm {
    #[serde(default)]
    name: String,
    #[serde(default)]
    url: String,
}

pub(crate) async fn create(
    State(services): State<Arc<Services>>,
    SignedForm { user, form }: SignedForm<ChannelForm>,
) -> Result<Response, PageError> {
    match services.channels.create(&user.session, &form.name, &form.url).await {
        Ok(saved) => Ok(Redirect::to(&format!("/settings/channels?done=saved&name={}", saved.name)).into_response()),
        Err(e) => {
            let Some(errors) = FieldErrors::from_service(&e, "name") else { return Err(e.into()) };
            let status = if matches!(e, ServiceError::Conflict { .. }) {
                StatusCode::CONFLICT
            } else {
                StatusCode::UNPROCESSABLE_ENTITY
            };
            let page =
                ChannelsPage { name: form.name, url: form.url, errors, ..channels_page(&services, &user).await? };
            render_status(status, &page)
        }
    }
}

#[derive(Deserialize)]
pub(crate) struct Nothing {}

/// Sends a test message now and shows how it went.
pub(crate) async fn test(
    State(services): State<Arc<Services>>,
    PathId(id): PathId<ObjectId>,
    SignedForm { user, .. }: SignedForm<Nothing>,
) -> Result<Response, PageError> {
    let channel = services.channels.get(&user.session, id).await?;
    let outcome = services.channels.test(&user.session, id).await?;
    let page = channels_page(&services, &user).await?;
    let page = match outcome {
        Ok(()) => ChannelsPage { flash: Some(format!("Test message sent to {}.", channel.name)), ..page },
        Err(why) => ChannelsPage {
            failure: Some(format!("The test message to {} was not delivered: {why}", channel.name)),
            ..page
        },
    };
    render(&page)
}

pub(crate) async fn delete(
    State(services): State<Arc<Services>>,
    PathId(id): PathId<ObjectId>,
    SignedForm { user, .. }: SignedForm<Nothing>,
) -> Result<Response, PageError> {
    services.channels.delete(&user.session, id).await?;
    Ok(Redirect::to("/settings/channels?done=deleted").into_response())
}
