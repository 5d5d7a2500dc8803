//! The organization's audit log (issue 37, part 2): an entry for every
//! security-relevant action, with who did it (a user and the email the user
//! had then, an API key, or the operator), what (an [`AuditAction`], which
//! names its target by a typed id), when, and from which client address.
//! Owners and admins read it (`GET /api/organization/audit`, Settings →
//! Audit log); housekeeping deletes entries past `SVC_RETAIN_AUDIT`.
//!
//! # Recording an action
//!
//! A service that does something security-relevant holds an [`AuditLog`]
//! (a clone of `Services`' own, given at construction) and, once the action
//! has succeeded, calls one of:
//!
//! - [`AuditLog::record`] with the caller's [`Session`](crate::Session):
//!   the actor is the session's user (its email looked up), the address the
//!   request's (adapters set it with `Session::from_address`);
//! - [`AuditLog::record_principal`] with a [`Principal`](crate::Principal)
//!   when an API key may do the action (the actor is then the key);
//! - [`AuditLog::record_operator`] for `svc admin` commands.
//!
//! ```ignore
//! // In a members service, after the invite is stored:
//! self.audit
//!     .record(session, AuditAction::MemberInvited { invite: invite.id }, Some(format!("{email} as {role}")))
//!     .await;
//! ```
//!
//! `detail` carries what a reader needs beyond the target (a role change's
//! roles, a webhook's URL; at most 500 characters, never a secret).
//! Recording never fails the action it follows: the action is already done,
//! so a failure to write the entry is logged at `error` level instead.
//!
//! Who may read the log is decided in one place, [`access::require_org_admin`].

pub mod access;
mod recorder;

pub use recorder::AuditLog;
pub use svc_domain::audit::{AuditAction, AuditActor, AuditEntry};
