//! Directives a script gives the engine in its leading comment lines.
//!
//! A run does not load images, fonts or media: extraction rarely needs them
//! and they are most of a page's bytes. A scrap opts back in from its script,
//! so that no field outside interface.md's Scrap shape is needed:
//!
//! ```js
//! // svc:load images, fonts
//! returnData([...document.images].map((img) => img.naturalWidth));
//! ```
//!
//! Only the comment lines (and blank lines) before the first line of code
//! are read; the same words further down are ordinary comments.

/// The kinds of subresource a run may load besides what it always loads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Loads {
    pub images: bool,
    pub fonts: bool,
    pub media: bool,
}

const DIRECTIVE: &str = "svc:load";
pub const KINDS: &[&str] = &["images", "fonts", "media"];

/// The script's `// svc:load` directives; an unknown kind is an error naming it.
pub fn parse(script: &str) -> Result<Loads, String> {
    match scan(script) {
        (loads, None) => Ok(loads),
        (_, Some(unknown)) => Err(format!("`// {DIRECTIVE}` names `{unknown}`; known kinds: {}", KINDS.join(", "))),
    }
}

/// What a stored script asks for, for a run: unknown kinds are skipped (a
/// script stored before they were checked still runs).
pub fn loads_for_run(script: &str) -> Loads {
    scan(script).0
}

/// The kinds named, and the first unknown one.
fn scan(script: &str) -> (Loads, Option<String>) {
    let mut loads = Loads::default();
    let mut unknown = None;
    for line in script.lines().map(str::trim) {
        if line.is_empty() {
            continue;
        }
        let Some(comment) = line.strip_prefix("//") else { break };
        let Some(kinds) = comment.trim_start().strip_prefix(DIRECTIVE) else { continue };
        // `// svc:loader ...` is an ordinary comment.
        if kinds.starts_with(|c: char| !c.is_whitespace()) {
            continue;
        }
        for kind in kinds.split(|c: char| c == ',' || c.is_whitespace()).filter(|k| !k.is_empty()) {
            match kind {
                "images" => loads.images = true,
                "fonts" => loads.fonts = true,
                "media" => loads.media = true,
                other => {
                    unknown.get_or_insert_with(|| other.to_string());
                }
            }
        }
    }
    (loads, unknown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_extra_by_default() {
        assert_eq!(parse("returnData([1]);"), Ok(Loads::default()));
        assert_eq!(parse(""), Ok(Loads::default()));
    }

    #[test]
    fn leading_comment_lines_are_read() {
        let script = "\n// extracts prices\n//svc:load images,fonts\n  // svc:load media\nreturnData([]);";
        assert_eq!(parse(script), Ok(Loads { images: true, fonts: true, media: true }));
        assert_eq!(parse("// svc:load images"), Ok(Loads { images: true, ..Loads::default() }));
        assert_eq!(parse("// svc:load   fonts  "), Ok(Loads { fonts: true, ..Loads::default() }));
    }

    #[test]
    fn comments_after_code_are_not_directives() {
        let script = "const a = 1;\n// svc:load images\nreturnData([a]);";
        assert_eq!(parse(script), Ok(Loads::default()));
        assert_eq!(parse("/* svc:load images */ returnData([]);"), Ok(Loads::default()));
        assert_eq!(parse("// svc:loader of images\n// svc:loadimages\nreturnData([]);"), Ok(Loads::default()));
        assert_eq!(parse("// svc:load\nreturnData([]);"), Ok(Loads::default()));
    }

    #[test]
    fn unknown_kinds_are_named() {
        let error = parse("// svc:load images, videos\nreturnData([]);").unwrap_err();
        assert!(error.contains("`videos`") && error.contains("images, fonts, media"), "{error}");
        let lenient = loads_for_run("// svc:load images, videos\nreturnData([]);");
        assert_eq!(lenient, Loads { images: true, ..Loads::default() });
    }
}
