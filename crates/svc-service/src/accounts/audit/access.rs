//! Who may administer an organization: read its audit log and change its
//! settings (the history age limit). The one check both use.

use svc_domain::member::Power;

use crate::{ServiceError, Session};

/// Allows a session whose role administers its organization (`owner` or
/// `admin`); else 403 `FORBIDDEN` naming the role.
pub fn require_org_admin(session: &Session) -> Result<(), ServiceError> {
    session.require_power(Power::Administer)
}
