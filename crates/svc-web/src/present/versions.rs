//! Who made a version of a script, in words (the versions page).

use svc_domain::script_version::VersionSource;

/// "You", "AI Fix", or "Rollback of vN" (`restored` is the number of the
/// version made current again, when known).
pub fn made_by(source: VersionSource, restored: Option<i64>) -> String {
    match (source, restored) {
        (VersionSource::User, _) => "You".into(),
        (VersionSource::AiFix, _) => "AI Fix".into(),
        (VersionSource::Rollback, Some(n)) => format!("Rollback of v{n}"),
        (VersionSource::Rollback, None) => "Rollback".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authors_in_words() {
        assert_eq!(made_by(VersionSource::User, None), "You");
        assert_eq!(made_by(VersionSource::AiFix, None), "AI Fix");
        assert_eq!(made_by(VersionSource::Rollback, Some(3)), "Rollback of v3");
        assert_eq!(made_by(VersionSource::Rollback, None), "Rollback");
    }
}
