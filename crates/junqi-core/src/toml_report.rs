//! TOML errors as one readable line. The parser's report is a small picture
//! over several lines (the line, a caret under it); the CLI prints every
//! error on one line, where that picture would come out as `\n` escapes.

/// `e`, an error in parsing `text`, on one line: where it is (`line 3,
/// column 6, ` when `located`, then the table and the line itself) and the
/// parser's message. Leave `located` off for text that was generated (a
/// config rewritten after `--set`), whose line numbers mean nothing to the
/// person who wrote the file.
pub fn toml_error_line(text: &str, e: &toml::de::Error, located: bool) -> String {
    let message = e.message().trim().replace(['\r', '\n'], " ");
    let Some(span) = e.span() else { return message };
    let mut at = span.start.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next().unwrap_or("").trim();
    let table = text[..line_start].lines().rev().map(str::trim).find(|l| l.starts_with('['));
    let mut out = String::new();
    if located {
        let line_no = text[..line_start].matches('\n').count() + 1;
        let column = text[line_start..at].chars().count() + 1;
        out.push_str(&format!("line {line_no}, column {column}, "));
    }
    if let Some(t) = table {
        out.push_str(&format!("in {t} "));
    }
    if !line.is_empty() {
        out.push_str(&format!("at `{line}`"));
    }
    if out.is_empty() {
        message
    } else {
        format!("{}: {message}", out.trim_end())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Optim {
        lr: f64,
    }

    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Config {
        optim: Optim,
    }

    #[test]
    fn a_type_error_is_one_line_naming_the_table_and_the_line() {
        let text = "[optim]\nlr = \"fast\"\n";
        let e = toml::from_str::<Config>(text).unwrap_err();
        assert!(e.to_string().contains('\n'), "the parser's own report is a picture");
        let line = toml_error_line(text, &e, true);
        assert!(!line.contains('\n'), "{line}");
        assert!(line.starts_with("line 2, column 6, in [optim] at `lr = \"fast\"`: invalid type"), "{line}");
        assert!(line.contains("expected f64"), "{line}");
        let unlocated = toml_error_line(text, &e, false);
        assert!(unlocated.starts_with("in [optim] at `lr = \"fast\"`: "), "{unlocated}");
        // A syntax error, multi-byte text before it.
        let text = "# 军棋\nx = [1,\n";
        let e = text.parse::<toml::Table>().unwrap_err();
        let line = toml_error_line(text, &e, true);
        assert!(line.starts_with("line ") && !line.contains('\n'), "{line}");
    }
}
