//! JSON text re-spaced without being re-parsed: the keys keep the order the
//! script gave them and the numbers their spelling (a `serde_json::Value`
//! would sort the keys).

/// A token of JSON text: a structural character or scalar's character, or a
/// whole string literal (quotes included).
#[derive(Clone, Copy, PartialEq)]
enum Piece<'a> {
    Char(char),
    Str(&'a str),
}

/// The pieces of `json`, whitespace between tokens left out.
fn pieces(json: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut chars = json.char_indices();
    while let Some((start, c)) = chars.next() {
        if c == '"' {
            let mut end = json.len();
            let mut escaped = false;
            for (i, c) in chars.by_ref() {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == '"' {
                    end = i + 1;
                    break;
                }
            }
            out.push(Piece::Str(&json[start..end]));
        } else if !c.is_whitespace() {
            out.push(Piece::Char(c));
        }
    }
    out
}

/// `json` without the whitespace between its tokens.
pub fn compact(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for piece in pieces(json) {
        match piece {
            Piece::Char(c) => out.push(c),
            Piece::Str(s) => out.push_str(s),
        }
    }
    out
}

/// `json` indented by two spaces per level, `"key": value` on each line;
/// empty arrays and objects stay `[]` and `{}`.
pub fn pretty(json: &str) -> String {
    let mut out = String::with_capacity(json.len() * 2);
    let mut depth = 0usize;
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.extend(std::iter::repeat_n("  ", depth));
    };
    let mut pieces = pieces(json).into_iter().peekable();
    while let Some(piece) = pieces.next() {
        let c = match piece {
            Piece::Str(s) => {
                out.push_str(s);
                continue;
            }
            Piece::Char(c) => c,
        };
        match c {
            '{' | '[' => {
                let close = Piece::Char(if c == '{' { '}' } else { ']' });
                out.push(c);
                if pieces.peek() == Some(&close) {
                    pieces.next();
                    out.push(if c == '{' { '}' } else { ']' });
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(',');
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c => out.push(c),
        }
    }
    out
}

/// `text` cut to at most `max` bytes at a character boundary, and whether it was cut.
pub fn cut(text: &str, max: usize) -> (&str, bool) {
    if text.len() <= max {
        return (text, false);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_keeps_strings_whole_and_keys_in_order() {
        assert_eq!(compact(" { \"b\" : 1 , \"a\" : [ 1 , 2 ] } "), r#"{"b":1,"a":[1,2]}"#);
        assert_eq!(compact(r#"{"s": "a , b : \"c\" \\"}"#), r#"{"s":"a , b : \"c\" \\"}"#);
        assert_eq!(compact("1.50e3"), "1.50e3", "numbers keep their spelling");
        assert_eq!(compact(r#""é \u00e9""#), r#""é \u00e9""#);
    }

    #[test]
    fn pretty_indents_by_level() {
        let json = r#"[{"z":1,"a":{"x":[1,2],"e":[],"o":{}},"s":"a,b:{c}"},"t"]"#;
        let expected = r#"[
  {
    "z": 1,
    "a": {
      "x": [
        1,
        2
      ],
      "e": [],
      "o": {}
    },
    "s": "a,b:{c}"
  },
  "t"
]"#;
        assert_eq!(pretty(json), expected);
        assert_eq!(pretty("[]"), "[]");
        assert_eq!(pretty(r#"["a\"]"]"#), "[\n  \"a\\\"]\"\n]");
        let parsed: serde_json::Value = serde_json::from_str(&pretty(json)).unwrap();
        assert_eq!(parsed, serde_json::from_str::<serde_json::Value>(json).unwrap(), "the same JSON");
    }

    #[test]
    fn cut_respects_characters() {
        assert_eq!(cut("abc", 5), ("abc", false));
        assert_eq!(cut("ééé", 3), ("é", true));
    }
}
