//! A scrap's banner as the pages show it: only an image svc serves itself
//! (a path under `/banners/`, see `svc_service::scraps::banner`). A
//! `banner` stored before uploads existed (any string) is left as stored
//! and not shown.

use svc_service::scraps::banner::BANNER_PATH;

/// The `src` of the scrap's thumbnail, or `None` when it has no banner svc serves.
pub fn shown(banner: &str) -> Option<String> {
    let token = banner.strip_prefix(BANNER_PATH)?;
    let plain = !token.is_empty() && token.chars().all(|c| c.is_ascii_alphanumeric() || c == '.');
    plain.then(|| banner.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_svcs_own_banners_are_shown() {
        assert_eq!(shown("/banners/0123abcd.png").as_deref(), Some("/banners/0123abcd.png"));
        for other in
            ["", "/uploads/b.png", "https://evil.example/x.png", "/banners/", "/banners/a\"onerror=x", "/banners/../x"]
        {
            assert_eq!(shown(other), None, "{other}");
        }
    }
}
