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
struct Pieces<'a> {
    json: &'a str,
    chars: std::str::CharIndices<'a>,
}

fn pieces(json: &str) -> Pieces<'_> {
    Pieces { json, chars: json.char_indices() }
}

impl<'a> Iterator for Pieces<'a> {
    type Item = Piece<'a>;

    fn next(&mut self) -> Option<Piece<'a>> {
        loop {
            let (start, c) = self.chars.next()?;
            if c == '"' {
                let mut end = self.json.len();
                let mut escaped = false;
                for (i, c) in self.chars.by_ref() {
                    if escaped {
                        escaped = false;
                    } else if c == '\\' {
                        escaped = true;
                    } else if c == '"' {
                        end = i + 1;
                        break;
                    }
                }
                return Some(Piece::Str(&self.json[start..end]));
            }
            if !c.is_whitespace() {
                return Some(Piece::Char(c));
            }
        }
    }
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
/// empty arrays and objects stay `[]` and `{}`. Stops once the text is
/// longer than `max` bytes (then `true`: the text was cut).
pub fn pretty(json: &str, max: usize) -> (String, bool) {
    let mut out = String::with_capacity(json.len().min(max) + json.len().min(max) / 2);
    let mut depth = 0usize;
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.extend(std::iter::repeat_n("  ", depth));
    };
    let mut pieces = pieces(json).peekable();
    while let Some(piece) = pieces.next() {
        if out.len() > max {
            return (out, true);
        }
        let c = match piece {
            Piece::Str(s) => {
                out.push_str(s);
                continue;
            }
            Piece::Char(c) => c,
        };
        match c {
            '{' | '[' => {
                let close = if c == '{' { '}' } else { ']' };
                out.push(c);
                if pieces.peek() == Some(&Piece::Char(close)) {
                    pieces.next();
                    out.push(close);
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
    (out, false)
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
        assert_eq!(pretty(json, usize::MAX), (expected.to_string(), false));
        assert_eq!(pretty("[]", 10).0, "[]");
        assert_eq!(pretty(r#"["a\"]"]"#, 100).0, "[\n  \"a\\\"]\"\n]");
        let parsed: serde_json::Value = serde_json::from_str(&pretty(json, 1000).0).unwrap();
        assert_eq!(parsed, serde_json::from_str::<serde_json::Value>(json).unwrap(), "the same JSON");
    }

    #[test]
    fn pretty_stops_past_its_bound() {
        let big = serde_json::to_string(&(0..10_000).collect::<Vec<_>>()).unwrap();
        let (text, cut) = pretty(&big, 1000);
        assert!(cut && text.len() < 1100 && text.starts_with("[\n  0,\n  1,"), "{}", text.len());
    }

    #[test]
    fn cut_respects_characters() {
        assert_eq!(cut("abc", 5), ("abc", false));
        assert_eq!(cut("ééé", 3), ("é", true));
    }
}
