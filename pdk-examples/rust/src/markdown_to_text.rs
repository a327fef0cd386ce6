// markdown_to_text: turn Markdown into plain text for reading or counting: headings, emphasis,
// code spans, links, images, HTML tags, tables and block quotes lose their markup; code blocks
// keep their text. The output is raw UTF-8 text (manifest output.encoding: text).
#[path = "../toolgate_pdk.rs"]
mod toolgate_pdk;

use toolgate_pdk::json::{self, Value};

/// How far a closing `]`, `)`, `>` or backtick run is looked for: bounds the work on hostile lines
/// (a line of 1 MiB of `[` would otherwise take quadratic time).
const MAX_SPAN: usize = 1024;

fn is_rule(t: &str) -> bool {
    let c: Vec<char> = t.chars().filter(|c| !c.is_whitespace()).collect();
    c.len() >= 3 && (c.iter().all(|&x| x == '-') || c.iter().all(|&x| x == '*') || c.iter().all(|&x| x == '_'))
}

fn is_setext_underline(t: &str) -> bool {
    let t = t.trim();
    !t.is_empty() && (t.chars().all(|c| c == '=') || t.chars().all(|c| c == '-'))
}

fn is_table_separator(t: &str) -> bool {
    let t = t.trim();
    t.contains('-') && t.contains('|') && t.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// The text of `[label](url)` starting at chars[i] == '[': (label, url, index after it).
fn link_at(chars: &[char], i: usize) -> Option<(String, String, usize)> {
    let mut depth = 0;
    let mut j = i;
    let limit = chars.len().min(i + MAX_SPAN);
    while j < limit {
        match chars[j] {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
        j += 1;
    }
    if j >= limit || chars.get(j + 1) != Some(&'(') {
        return None;
    }
    let close = (j + 2..chars.len().min(j + 2 + MAX_SPAN)).find(|&k| chars[k] == ')')?;
    let label: String = chars[i + 1..j].iter().collect();
    let target: String = chars[j + 2..close].iter().collect();
    // `(url "title")`: keep only the url
    let url = target.split_whitespace().next().unwrap_or("").to_string();
    Some((label, url, close + 1))
}

fn boundary(c: Option<&char>) -> bool {
    c.map_or(true, |c| c.is_whitespace() || c.is_ascii_punctuation())
}

/// Strips inline markup from one line of text.
fn inline(line: &str, keep_links: bool) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1);
        let prev = if i > 0 { chars.get(i - 1) } else { None };
        match c {
            '\\' if next.map_or(false, |n| n.is_ascii_punctuation()) => {
                out.push(chars[i + 1]);
                i += 2;
            }
            '`' => {
                // a code span: everything up to the same run of backticks, verbatim
                let run = chars[i..].iter().take_while(|&&x| x == '`').count();
                let body_start = i + run;
                let mut k = body_start;
                let mut end = None;
                let limit = chars.len().min(body_start + MAX_SPAN);
                while k < limit {
                    if chars[k] == '`' {
                        let r = chars[k..].iter().take_while(|&&x| x == '`').count();
                        if r == run {
                            end = Some(k);
                            break;
                        }
                        k += r;
                    } else {
                        k += 1;
                    }
                }
                match end {
                    Some(e) => {
                        out.extend(chars[body_start..e].iter());
                        i = e + run;
                    }
                    None => {
                        out.extend(chars[i..body_start].iter());
                        i = body_start;
                    }
                }
            }
            '!' if next == Some(&'[') => match link_at(&chars, i + 1) {
                Some((alt, _, after)) => {
                    out.push_str(&inline(&alt, keep_links));
                    i = after;
                }
                None => {
                    out.push('!');
                    i += 1;
                }
            },
            '[' => match link_at(&chars, i) {
                Some((label, url, after)) => {
                    out.push_str(&inline(&label, keep_links));
                    if keep_links && !url.is_empty() {
                        out.push_str(" (");
                        out.push_str(&url);
                        out.push(')');
                    }
                    i = after;
                }
                None => {
                    out.push('[');
                    i += 1;
                }
            },
            '<' => {
                // <https://autolink> keeps its text; an HTML tag disappears
                let close = (i + 1..chars.len().min(i + 1 + MAX_SPAN)).find(|&k| chars[k] == '>');
                match close {
                    Some(e) if e > i + 1 && !chars[i + 1].is_whitespace() => {
                        let inner: String = chars[i + 1..e].iter().collect();
                        if inner.contains("://") || (inner.contains('@') && !inner.contains(' ')) {
                            out.push_str(&inner);
                        }
                        i = e + 1;
                    }
                    _ => {
                        out.push('<');
                        i += 1;
                    }
                }
            }
            '*' | '_' | '~' => {
                let run = chars[i..].iter().take_while(|&&x| x == c).count();
                let after = chars.get(i + run);
                let opens = !boundary(after) || after.map_or(false, |a| a.is_ascii_punctuation() && *a != c);
                let closes = prev.map_or(false, |p| !p.is_whitespace());
                // `_` inside a word (snake_case) and a lone `*` between spaces are text, not markup
                let markup = if c == '_' { (boundary(prev) && opens) || (closes && boundary(after)) } else if c == '~' { run >= 2 && (opens || closes) } else { opens || closes };
                if !markup {
                    out.extend(std::iter::repeat(c).take(run));
                }
                i += run;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

fn convert(markdown: &str, keep_links: bool) -> String {
    let lines: Vec<&str> = markdown.lines().collect();
    let mut out: Vec<String> = Vec::new();
    let mut fence: Option<String> = None;
    for (n, raw) in lines.iter().enumerate() {
        let trimmed = raw.trim_start();
        if let Some(f) = &fence {
            if trimmed.starts_with(f.as_str()) {
                fence = None;
            } else {
                out.push(raw.to_string());
            }
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = Some(trimmed[..3].to_string());
            continue;
        }
        // Block quotes: drop every leading '>'.
        let mut t = trimmed;
        while let Some(rest) = t.strip_prefix('>') {
            t = rest.trim_start();
        }
        if is_rule(t) || (n > 0 && is_setext_underline(t) && !lines[n - 1].trim().is_empty()) {
            if is_rule(t) && (n == 0 || lines[n - 1].trim().is_empty()) {
                out.push(String::new());
            }
            continue;
        }
        if is_table_separator(t) {
            continue;
        }
        let indent = &raw[..raw.len() - trimmed.len()];
        let line = if let Some(h) = t.strip_prefix('#') {
            let h = h.trim_start_matches('#');
            if h.is_empty() || h.starts_with(' ') {
                inline(h.trim().trim_end_matches('#').trim_end(), keep_links)
            } else {
                inline(t, keep_links)
            }
        } else if t.starts_with('|') && t.trim_end().ends_with('|') {
            let cells: Vec<String> = t.trim().trim_matches('|').split('|').map(|c| inline(c.trim(), keep_links)).collect();
            cells.join("\t")
        } else if let Some(item) = t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")).or_else(|| t.strip_prefix("+ ")) {
            format!("{}• {}", indent, inline(item, keep_links))
        } else {
            format!("{}{}", if t.len() < trimmed.len() { "" } else { indent }, inline(t, keep_links))
        };
        out.push(line.trim_end().to_string());
    }
    // At most one blank line in a row, none at the ends.
    let mut text = String::new();
    let mut blank = 0;
    for l in out {
        if l.trim().is_empty() {
            blank += 1;
            continue;
        }
        if !text.is_empty() {
            text.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        text.push_str(&l);
    }
    text
}

#[no_mangle]
pub extern "C" fn markdown_to_text() -> i32 {
    let bytes = toolgate_pdk::input();
    let input = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => return toolgate_pdk::error(&format!("the input is not valid UTF-8 (byte {})", e.utf8_error().valid_up_to())),
    };
    let args = match json::parse(&input) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) => return toolgate_pdk::error("the arguments must be a JSON object"),
        Err(e) => return toolgate_pdk::error(&e),
    };
    let markdown = match args.get("markdown") {
        Some(Value::String(s)) => s,
        Some(other) => return toolgate_pdk::error(&format!("argument 'markdown' must be a string, got a {}", other.type_name())),
        None => return toolgate_pdk::error("argument 'markdown' is required"),
    };
    let keep_links = match args.get("keep_links") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => return toolgate_pdk::error(&format!("argument 'keep_links' must be a boolean, got a {}", other.type_name())),
    };
    // Raw text output: the manifest declares output.encoding: text.
    toolgate_pdk::output(convert(markdown, keep_links).as_bytes());
    0
}
