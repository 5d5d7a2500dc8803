//! Members of the caller's organization, their roles, and invitations.
//! Web sessions only; what a member may do here is their role's to decide
//! (403 `FORBIDDEN` naming the role).

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use svc_api_types::{
    AcceptInviteBody, AcceptedInviteView, CreatedInviteView, InviteBody, InviteView, ListView, MemberView, RoleBody,
};
use svc_domain::member::Role;
use svc_domain::{InviteId, UserId};
use svc_service::members::NewInvite;
use svc_service::{ServiceError, Services};

use crate::ApiError;
use crate::client_ip::LoginClient;
use crate::extract::{ApiJson, ListQuery, Paging, PathId, WebSession};
use crate::views;

fn role(raw: &str) -> Result<Role, ApiError> {
    raw.parse().map_err(|()| ServiceError::validation("role", "must be owner, admin, editor or viewer").into())
}

/// List members
///
/// The organization's members, owners first: every member may see them.
#[utoipa::path(
    get,
    path = "/api/organization/members",
    operation_id = "listMembers",
    tag = "members",
    params(Paging),
    responses((status = 200, description = "one page of members", body = ListView<MemberView>))
)]
pub(crate) async fn list(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    query: ListQuery,
) -> Result<Json<ListView<MemberView>>, ApiError> {
    let found = services.members.list(&session, query.page).await?;
    Ok(Json(views::list(found, MemberView::from)))
}

/// Change a member's role
///
/// Admins change members other than owners; owners change anyone. The
/// organization's last owner keeps the role (409 `LAST_OWNER`).
#[utoipa::path(
    put,
    path = "/api/organization/members/{userId}",
    operation_id = "setMemberRole",
    tag = "members",
    params(("userId" = String, Path, description = "the member's user id")),
    request_body = RoleBody,
    responses((status = 200, description = "the member with the new role", body = MemberView))
)]
pub(crate) async fn set_role(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    PathId(user): PathId<UserId>,
    ApiJson(body): ApiJson<RoleBody>,
) -> Result<Json<MemberView>, ApiError> {
    let role = role(&body.role)?;
    Ok(Json(services.members.set_role(&session, user, role).await?.into()))
}

/// Remove a member
///
/// Ends the member's sessions in the organization and revokes the API keys
/// they created in it. A member may remove themselves (leave). The last
/// owner stays (409 `LAST_OWNER`).
#[utoipa::path(
    delete,
    path = "/api/organization/members/{userId}",
    operation_id = "removeMember",
    tag = "members",
    params(("userId" = String, Path, description = "the member's user id")),
    responses((status = 204, description = "removed; their sessions there ended, their keys there revoked"))
)]
pub(crate) async fn remove(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    PathId(user): PathId<UserId>,
) -> Result<StatusCode, ApiError> {
    services.members.remove(&session, user).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Invite a member
///
/// Creates a single-use invitation link valid for 7 days, emailed when the
/// server sends email, and answered here in any case so that the inviter
/// can pass it on. Admins invite; only owners invite owners. An address
/// that is already a member: 409 `ALREADY_MEMBER`.
#[utoipa::path(
    post,
    path = "/api/organization/invites",
    operation_id = "createInvite",
    tag = "members",
    request_body = InviteBody,
    responses((status = 201, description = "the invitation and its link", body = CreatedInviteView))
)]
pub(crate) async fn invite(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    ApiJson(body): ApiJson<InviteBody>,
) -> Result<(StatusCode, Json<CreatedInviteView>), ApiError> {
    let role = role(&body.role)?;
    let created = services.members.invite(&session, NewInvite { email: body.email, role }).await?;
    let i = created.invite;
    let view = CreatedInviteView {
        id: i.id.to_string(),
        email: i.email,
        role: i.role.as_str().to_string(),
        expires_at: svc_api_types::iso(i.expires_at),
        link: created.link,
    };
    Ok((StatusCode::CREATED, Json(view)))
}

/// List invitations
///
/// The organization's pending invitations (not used, withdrawn or
/// expired), newest first. Admins and owners.
#[utoipa::path(
    get,
    path = "/api/organization/invites",
    operation_id = "listInvites",
    tag = "members",
    params(Paging),
    responses((status = 200, description = "one page of pending invitations", body = ListView<InviteView>))
)]
pub(crate) async fn invites(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    query: ListQuery,
) -> Result<Json<ListView<InviteView>>, ApiError> {
    let found = services.members.invites(&session, query.page).await?;
    Ok(Json(views::list(found, InviteView::from)))
}

/// Withdraw an invitation
///
/// Its link stops working at once.
#[utoipa::path(
    delete,
    path = "/api/organization/invites/{id}",
    operation_id = "withdrawInvite",
    tag = "members",
    params(("id" = String, Path, description = "the invitation's id")),
    responses((status = 204, description = "withdrawn"))
)]
pub(crate) async fn withdraw(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    PathId(id): PathId<InviteId>,
) -> Result<StatusCode, ApiError> {
    services.members.withdraw(&session, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Accept an invitation
///
/// With the session of the invited address's account (an existing one or
/// one signed up for it): joins the organization with the invitation's
/// role and answers a session token for it. The token is used up. Another
/// address's account: 403; a used, withdrawn, expired or unknown token: 404.
#[utoipa::path(
    post,
    path = "/api/invites/accept",
    operation_id = "acceptInvite",
    tag = "members",
    request_body = AcceptInviteBody,
    responses((status = 200, description = "the organization joined, the role, a session token there", body = AcceptedInviteView))
)]
pub(crate) async fn accept(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    LoginClient(client): LoginClient,
    ApiJson(body): ApiJson<AcceptInviteBody>,
) -> Result<Json<AcceptedInviteView>, ApiError> {
    let accepted = services.members.accept(&session, &body.token, &client).await?;
    Ok(Json(AcceptedInviteView {
        organization: accepted.organization.into(),
        role: accepted.role.as_str().to_string(),
        token: accepted.token.token,
    }))
}
