//! Settings → Members: who is in the organization and with which role,
//! inviting (the link is shown to pass on), changing roles, removing (which
//! ends the member's sessions here and revokes their keys here), the
//! caller's organizations to switch between, and the invitation link's page.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use chrono::Utc;
use serde::Deserialize;
use svc_domain::member::{Power, Role};
use svc_domain::{InviteId, OrgId, UserId};
use svc_service::members::NewInvite;
use svc_service::paging::PageRequest;
use svc_service::{ServiceError, Services};

use super::{render, render_status};
use crate::browser_session::{self, SESSION_COOKIE};
use crate::chrome::Chrome;
use crate::client_ip::LoginClient;
use crate::form_errors::FieldErrors;
use crate::page_error::PageError;
use crate::path_id::PathId;
use crate::present::when::{Moment, moment};
use crate::signed_in::{SignedForm, SignedIn};

/// Members listed on the page.
const SHOWN: i64 = 100;

#[derive(Template)]
#[template(path = "members.html")]
struct MembersPage {
    chrome: Chrome,
    organization: String,
    my_role: &'static str,
    /// Whether the caller may invite, change and remove members.
    manages: bool,
    /// Whether the caller may make or change owners.
    manages_owners: bool,
    members: Vec<MemberRow>,
    total: i64,
    invites: Vec<InviteRow>,
    organizations: Vec<OrgRow>,
    flash: Option<String>,
    /// The link of the invitation just made, to pass on.
    new_link: Option<NewLink>,
    invite_email: String,
    invite_role: String,
    errors: FieldErrors,
    roles: &'static [&'static str],
}

struct MemberRow {
    user_id: String,
    email: String,
    name: String,
    role: &'static str,
    joined: Moment,
    me: bool,
    /// Whether the caller may change or remove this member.
    editable: bool,
}

struct InviteRow {
    id: String,
    email: String,
    role: &'static str,
    expires: Moment,
}

struct OrgRow {
    id: String,
    name: String,
    role: &'static str,
    current: bool,
}

struct NewLink {
    email: String,
    link: String,
    emailed: bool,
}

const ROLES: &[&str] = &["viewer", "editor", "admin", "owner"];

#[derive(Deserialize)]
pub(crate) struct Params {
    #[serde(default)]
    saved: Option<String>,
}

#[derive(Deserialize)]
pub(crate) struct InviteForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    role: String,
}

#[derive(Deserialize)]
pub(crate) struct RoleForm {
    #[serde(default)]
    role: String,
}

#[derive(Deserialize)]
pub(crate) struct Nothing {}

fn role_of(raw: &str) -> Result<Role, ServiceError> {
    raw.parse().map_err(|()| ServiceError::validation("role", "choose owner, admin, editor or viewer"))
}

async fn members_page(services: &Services, user: &SignedIn) -> Result<MembersPage, PageError> {
    let now = Utc::now();
    let session = &user.session;
    let manages = session.require_power(Power::ManageMembers).is_ok();
    let manages_owners = session.require_power(Power::ManageOwners).is_ok();
    let listed = services.members.list(session, PageRequest { page: 1, per_page: SHOWN }).await?;
    let members = listed
        .items
        .into_iter()
        .map(|m| MemberRow {
            user_id: m.user_id.to_string(),
            me: m.user_id == session.user(),
            editable: manages && (m.role != Role::Owner || manages_owners),
            email: m.email,
            name: m.name,
            role: m.role.as_str(),
            joined: moment(m.joined_at, now),
        })
        .collect();
    let invites = if manages {
        let found = services.members.invites(session, PageRequest { page: 1, per_page: SHOWN }).await?;
        found
            .items
            .into_iter()
            .map(|i| InviteRow {
                id: i.id.to_string(),
                email: i.email,
                role: i.role.as_str(),
                expires: moment(i.expires_at, now),
            })
            .collect()
    } else {
        vec![]
    };
    let organizations = services
        .members
        .memberships(session)
        .await?
        .into_iter()
        .map(|m| OrgRow {
            id: m.organization_id.to_string(),
            current: m.organization_id == session.org(),
            name: m.organization_name,
            role: m.role.as_str(),
        })
        .collect();
    Ok(MembersPage {
        chrome: user.chrome("Members", "settings"),
        organization: user.organization.name.clone(),
        my_role: session.role().as_str(),
        manages,
        manages_owners,
        members,
        total: listed.total,
        invites,
        organizations,
        flash: None,
        new_link: None,
        invite_email: String::new(),
        invite_role: "editor".into(),
        errors: FieldErrors::default(),
        roles: ROLES,
    })
}

pub(crate) async fn page(
    State(services): State<Arc<Services>>,
    user: SignedIn,
    Query(params): Query<Params>,
) -> Result<Response, PageError> {
    let flash = match params.saved.as_deref() {
        Some("role") => Some("The role was changed.".to_string()),
        Some("removed") => {
            Some("The member was removed: their sessions here ended and their API keys here were revoked.".into())
        }
        Some("withdrawn") => Some("The invitation was withdrawn: its link no longer works.".into()),
        Some("joined") => Some(format!("Welcome to {}.", user.organization.name)),
        _ => None,
    };
    render(&MembersPage { flash, ..members_page(&services, &user).await? })
}

/// The status of a form shown again with its errors.
fn status_of(e: &ServiceError) -> StatusCode {
    match e {
        ServiceError::Conflict { .. } => StatusCode::CONFLICT,
        ServiceError::Forbidden(_) => StatusCode::FORBIDDEN,
        _ => StatusCode::UNPROCESSABLE_ENTITY,
    }
}

pub(crate) async fn invite(
    State(services): State<Arc<Services>>,
    SignedForm { user, form }: SignedForm<InviteForm>,
) -> Result<Response, PageError> {
    let made = match role_of(&form.role) {
        Ok(role) => services.members.invite(&user.session, NewInvite { email: form.email.clone(), role }).await,
        Err(e) => Err(e),
    };
    match made {
        Ok(created) => {
            let page = MembersPage {
                new_link: Some(NewLink { email: created.invite.email, link: created.link, emailed: created.emailed }),
                ..members_page(&services, &user).await?
            };
            render_status(StatusCode::CREATED, &page)
        }
        Err(e) => {
            let Some(errors) = FieldErrors::from_service(&e, "email") else { return Err(e.into()) };
            let page = MembersPage {
                invite_email: form.email,
                invite_role: form.role,
                errors,
                ..members_page(&services, &user).await?
            };
            render_status(status_of(&e), &page)
        }
    }
}

pub(crate) async fn set_role(
    State(services): State<Arc<Services>>,
    PathId(member): PathId<UserId>,
    SignedForm { user, form }: SignedForm<RoleForm>,
) -> Result<Response, PageError> {
    let changed = match role_of(&form.role) {
        Ok(role) => services.members.set_role(&user.session, member, role).await.map(|_| ()),
        Err(e) => Err(e),
    };
    match changed {
        Ok(()) => Ok(Redirect::to("/settings/members?saved=role").into_response()),
        Err(e @ (ServiceError::Conflict { .. } | ServiceError::Validation { .. })) => {
            let mut errors = FieldErrors::default();
            errors.general = Some(e.to_string());
            render_status(status_of(&e), &MembersPage { errors, ..members_page(&services, &user).await? })
        }
        Err(e) => Err(e.into()),
    }
}

pub(crate) async fn remove(
    State(services): State<Arc<Services>>,
    PathId(member): PathId<UserId>,
    SignedForm { user, .. }: SignedForm<Nothing>,
) -> Result<Response, PageError> {
    match services.members.remove(&user.session, member).await {
        // Leaving: this browser's session here ended with the membership.
        Ok(()) if member == user.session.user() => Ok(super::auth::signed_out(&services)),
        Ok(()) => Ok(Redirect::to("/settings/members?saved=removed").into_response()),
        Err(e @ ServiceError::Conflict { .. }) => {
            let mut errors = FieldErrors::default();
            errors.general = Some(e.to_string());
            render_status(status_of(&e), &MembersPage { errors, ..members_page(&services, &user).await? })
        }
        Err(e) => Err(e.into()),
    }
}

pub(crate) async fn withdraw(
    State(services): State<Arc<Services>>,
    PathId(invite): PathId<InviteId>,
    SignedForm { user, .. }: SignedForm<Nothing>,
) -> Result<Response, PageError> {
    services.members.withdraw(&user.session, invite).await?;
    Ok(Redirect::to("/settings/members?saved=withdrawn").into_response())
}

/// The browser moves into the session `token` opened, on to `to`.
fn entered(services: &Services, token: &str, expires_at: chrono::DateTime<Utc>, to: &str) -> Response {
    let secure = browser_session::is_secure(services.public_url());
    let max_age = (expires_at - Utc::now()).num_seconds().max(0);
    let mut response = Redirect::to(to).into_response();
    response.headers_mut().append(header::SET_COOKIE, browser_session::session_cookie(token, max_age, secure));
    response
}

/// The organization switcher: a session in another of the user's
/// organizations (this one's stays open for another tab).
pub(crate) async fn switch(
    State(services): State<Arc<Services>>,
    PathId(org): PathId<OrgId>,
    LoginClient(client): LoginClient,
    SignedForm { user, .. }: SignedForm<Nothing>,
) -> Result<Response, PageError> {
    let issued = services.members.switch(&user.session, org, &client).await?;
    Ok(entered(&services, &issued.token, issued.expires_at, "/"))
}

#[derive(Template)]
#[template(path = "invite.html")]
struct InvitePage {
    chrome: Chrome,
    /// Whom the invitation is for, where to, as what; `None`: it no longer works.
    invite: Option<InviteFacts>,
    token: String,
    /// The signed-in user's email (`None`: nobody is signed in).
    signed_in_as: Option<String>,
    /// Where log-in and sign-up come back to (URL-encoded).
    back: String,
}

struct InviteFacts {
    email: String,
    organization: String,
    role: &'static str,
    expires: Moment,
}

#[derive(Deserialize)]
pub(crate) struct TokenQuery {
    #[serde(default)]
    token: String,
}

/// The invitation link's page: who invites whom, as what; signed in with
/// the invited address, a button accepts; else log in or sign up with it
/// (sign-up admits an invited address even when `SVC_SIGNUP=invite`).
pub(crate) async fn accept_page(
    State(services): State<Arc<Services>>,
    headers: HeaderMap,
    Query(q): Query<TokenQuery>,
) -> Result<Response, PageError> {
    let found = match services.members.invite_of_token(&q.token).await {
        Ok(found) => Some(found),
        Err(ServiceError::NotFound(_)) => None,
        Err(e) => return Err(e.into()),
    };
    let session = match browser_session::cookie(&headers, SESSION_COOKIE) {
        Some(token) => match services.auth.session(token).await {
            Ok(session) => Some((token.to_string(), session)),
            Err(_) => None,
        },
        None => None,
    };
    let (chrome, signed_in_as) = match &session {
        Some((token, session)) => {
            let (me, _) = services.accounts.me(session).await?;
            let chrome =
                Chrome { csrf: services.auth.csrf_token(token), ..Chrome::public("Invitation", services.public_url()) };
            (Chrome { sign_in_links: false, ..chrome }, Some(me.email))
        }
        None => (Chrome::public("Invitation", services.public_url()), None),
    };
    let back = format!("/invites/accept?token={}", q.token);
    let status = if found.is_some() { StatusCode::OK } else { StatusCode::NOT_FOUND };
    let page = InvitePage {
        chrome,
        invite: found.map(|(invite, org)| InviteFacts {
            email: invite.email,
            organization: org.name,
            role: invite.role.as_str(),
            expires: moment(invite.expires_at, Utc::now()),
        }),
        token: q.token,
        signed_in_as,
        back: url::form_urlencoded::byte_serialize(back.as_bytes()).collect(),
    };
    render_status(status, &page)
}

#[derive(Deserialize)]
pub(crate) struct AcceptForm {
    #[serde(default)]
    token: String,
}

pub(crate) async fn accept(
    State(services): State<Arc<Services>>,
    LoginClient(client): LoginClient,
    SignedForm { user, form }: SignedForm<AcceptForm>,
) -> Result<Response, PageError> {
    let accepted = services.members.accept(&user.session, &form.token, &client).await?;
    Ok(entered(&services, &accepted.token.token, accepted.token.expires_at, "/settings/members?saved=joined"))
}
