//! Who may administer an organization: read its audit log and change its
//! settings (the history age limit). The one check both use, so that roles
//! (issue 37, part 1: owners and admins) replace it in one place.

use crate::{ServiceError, Session};

/// Allows a session that may administer its organization. Today an
/// organization has one user, its owner, and any session of the
/// organization is that user's: every session is allowed. With members and
/// roles, this becomes "the session's role is `owner` or `admin`", refused
/// with `ServiceError::Forbidden` naming the role.
pub fn require_org_admin(session: &Session) -> Result<(), ServiceError> {
    let _ = session.org();
    Ok(())
}
