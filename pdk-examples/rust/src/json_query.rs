// json_query: select values from a JSON document by a path such as `$.items[0].name`,
// `items[*].price`, `meta["content-type"]` or `list[-1]` (negative indexes count from the end).
#[path = "../toolgate_pdk.rs"]
mod toolgate_pdk;

use toolgate_pdk::json::{self, Value};

#[derive(Debug)]
enum Step {
    Key(String),
    Index(i64),
    All,
}

const MAX_MATCHES: usize = 1000;

fn parse_path(path: &str) -> Result<Vec<Step>, String> {
    let chars: Vec<char> = path.chars().collect();
    let bad = |i: usize, why: &str| format!("argument 'path' is not a valid path at character {}: {}", i, why);
    let mut i = 0;
    let mut steps = Vec::new();
    if chars.first() == Some(&'$') {
        i = 1;
    }
    let mut first = true;
    while i < chars.len() {
        match chars[i] {
            '.' => {
                i += 1;
                let start = i;
                while i < chars.len() && chars[i] != '.' && chars[i] != '[' {
                    i += 1;
                }
                if start == i {
                    return Err(bad(i, "expected a key after '.'"));
                }
                let key: String = chars[start..i].iter().collect();
                steps.push(if key == "*" { Step::All } else { Step::Key(key) });
            }
            '[' => {
                i += 1;
                if i < chars.len() && (chars[i] == '"' || chars[i] == '\'') {
                    let q = chars[i];
                    i += 1;
                    let mut key = String::new();
                    while i < chars.len() && chars[i] != q {
                        if chars[i] == '\\' && i + 1 < chars.len() {
                            i += 1;
                        }
                        key.push(chars[i]);
                        i += 1;
                    }
                    if i >= chars.len() {
                        return Err(bad(i, "unterminated quoted key"));
                    }
                    i += 1;
                    steps.push(Step::Key(key));
                } else if i < chars.len() && chars[i] == '*' {
                    i += 1;
                    steps.push(Step::All);
                } else {
                    let start = i;
                    if i < chars.len() && chars[i] == '-' {
                        i += 1;
                    }
                    while i < chars.len() && chars[i].is_ascii_digit() {
                        i += 1;
                    }
                    let num: String = chars[start..i].iter().collect();
                    let n = num.parse::<i64>().map_err(|_| bad(start, "expected an index, \"key\" or * inside [ ]"))?;
                    steps.push(Step::Index(n));
                }
                if i >= chars.len() || chars[i] != ']' {
                    return Err(bad(i, "expected ']'"));
                }
                i += 1;
            }
            _ if first => {
                // A bare first key: `items[0]` means `$.items[0]`.
                let start = i;
                while i < chars.len() && chars[i] != '.' && chars[i] != '[' {
                    i += 1;
                }
                let key: String = chars[start..i].iter().collect();
                steps.push(if key == "*" { Step::All } else { Step::Key(key) });
            }
            c => return Err(bad(i, &format!("unexpected '{}'", c))),
        }
        first = false;
    }
    Ok(steps)
}

fn select<'a>(v: &'a Value, steps: &[Step], out: &mut Vec<&'a Value>) {
    if out.len() >= MAX_MATCHES + 1 {
        return;
    }
    let (step, rest) = match steps.split_first() {
        None => {
            out.push(v);
            return;
        }
        Some(x) => x,
    };
    match (step, v) {
        (Step::Key(k), Value::Object(_)) => {
            if let Some(child) = v.get(k) {
                select(child, rest, out)
            }
        }
        (Step::Index(n), Value::Array(items)) => {
            let idx = if *n < 0 { items.len() as i64 + n } else { *n };
            if idx >= 0 && (idx as usize) < items.len() {
                select(&items[idx as usize], rest, out)
            }
        }
        (Step::All, Value::Array(items)) => items.iter().for_each(|c| select(c, rest, out)),
        (Step::All, Value::Object(m)) => m.iter().for_each(|(_, c)| select(c, rest, out)),
        _ => {}
    }
}

fn query(args: &Value) -> Result<Value, String> {
    let doc_text = match args.get("json") {
        Some(Value::String(s)) => s,
        Some(other) => return Err(format!("argument 'json' must be a string holding a JSON document, got a {}", other.type_name())),
        None => return Err("argument 'json' is required".to_string()),
    };
    let path = match args.get("path") {
        Some(Value::String(s)) => s.as_str(),
        Some(other) => return Err(format!("argument 'path' must be a string, got a {}", other.type_name())),
        None => "$",
    };
    let steps = parse_path(path)?;
    let doc = json::parse(doc_text).map_err(|e| format!("argument 'json' is not valid JSON: {}", e))?;
    let mut found = Vec::new();
    select(&doc, &steps, &mut found);
    let truncated = found.len() > MAX_MATCHES;
    found.truncate(MAX_MATCHES);
    Ok(Value::Object(vec![
        ("path".to_string(), Value::String(path.to_string())),
        ("count".to_string(), Value::Number(found.len() as f64)),
        ("matches".to_string(), Value::Array(found.into_iter().cloned().collect())),
        ("truncated".to_string(), Value::Bool(truncated)),
    ]))
}

#[no_mangle]
pub extern "C" fn json_query() -> i32 {
    toolgate_pdk::run(query)
}
