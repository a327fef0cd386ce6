// convert_units: convert a number between units of length, mass, temperature, time, data size,
// volume, speed and area. Factors are exact definitions (e.g. 1 in = 0.0254 m, 1 lb = 0.45359237 kg).
#[path = "../toolgate_pdk.rs"]
mod toolgate_pdk;

use toolgate_pdk::json::Value;

/// (category, unit names accepted (first is canonical), factor to the category's base unit)
const UNITS: &[(&str, &[&str], f64)] = &[
    ("length", &["m", "meter", "meters", "metre"], 1.0),
    ("length", &["km", "kilometer", "kilometers"], 1000.0),
    ("length", &["cm", "centimeter", "centimeters"], 0.01),
    ("length", &["mm", "millimeter", "millimeters"], 0.001),
    ("length", &["mi", "mile", "miles"], 1609.344),
    ("length", &["yd", "yard", "yards"], 0.9144),
    ("length", &["ft", "foot", "feet"], 0.3048),
    ("length", &["in", "inch", "inches"], 0.0254),
    ("length", &["nmi", "nautical_mile"], 1852.0),
    ("mass", &["kg", "kilogram", "kilograms"], 1.0),
    ("mass", &["g", "gram", "grams"], 0.001),
    ("mass", &["mg", "milligram", "milligrams"], 1e-6),
    ("mass", &["t", "tonne", "tonnes"], 1000.0),
    ("mass", &["lb", "pound", "pounds"], 0.45359237),
    ("mass", &["oz", "ounce", "ounces"], 0.028349523125),
    ("time", &["s", "second", "seconds"], 1.0),
    ("time", &["ms", "millisecond", "milliseconds"], 0.001),
    ("time", &["min", "minute", "minutes"], 60.0),
    ("time", &["h", "hour", "hours"], 3600.0),
    ("time", &["d", "day", "days"], 86400.0),
    ("time", &["wk", "week", "weeks"], 604800.0),
    ("data", &["B", "byte", "bytes"], 1.0),
    ("data", &["bit", "bits"], 0.125),
    ("data", &["kB", "KB", "kilobyte"], 1e3),
    ("data", &["MB", "megabyte"], 1e6),
    ("data", &["GB", "gigabyte"], 1e9),
    ("data", &["TB", "terabyte"], 1e12),
    ("data", &["KiB", "kibibyte"], 1024.0),
    ("data", &["MiB", "mebibyte"], 1048576.0),
    ("data", &["GiB", "gibibyte"], 1073741824.0),
    ("data", &["TiB", "tebibyte"], 1099511627776.0),
    ("volume", &["l", "L", "liter", "liters", "litre"], 1.0),
    ("volume", &["ml", "mL", "milliliter", "milliliters"], 0.001),
    ("volume", &["m3", "cubic_meter"], 1000.0),
    ("volume", &["gal", "gallon", "gallons"], 3.785411784),
    ("volume", &["qt", "quart", "quarts"], 0.946352946),
    ("volume", &["pt", "pint", "pints"], 0.473176473),
    ("volume", &["cup", "cups"], 0.2365882365),
    ("volume", &["floz", "fluid_ounce"], 0.0295735295625),
    ("speed", &["m/s", "mps"], 1.0),
    ("speed", &["km/h", "kph", "kmh"], 1.0 / 3.6),
    ("speed", &["mph"], 0.44704),
    ("speed", &["kn", "knot", "knots"], 1852.0 / 3600.0),
    ("area", &["m2", "square_meter"], 1.0),
    ("area", &["km2", "square_kilometer"], 1e6),
    ("area", &["ha", "hectare", "hectares"], 1e4),
    ("area", &["acre", "acres"], 4046.8564224),
    ("area", &["ft2", "square_foot"], 0.09290304),
];

const TEMPERATURES: &[(&str, &[&str])] = &[
    ("C", &["C", "celsius", "°C"]),
    ("F", &["F", "fahrenheit", "°F"]),
    ("K", &["K", "kelvin"]),
];

enum Unit {
    Linear(&'static str, &'static str, f64),
    Temperature(&'static str),
}

fn lookup(name: &str) -> Option<Unit> {
    // Exact match first (MB vs mb matter for data), then case-insensitive for the long names.
    for exact in [true, false] {
        let eq = |a: &str| if exact { a == name } else { a.eq_ignore_ascii_case(name) };
        for (cat, names, f) in UNITS {
            if names.iter().any(|n| eq(n)) {
                return Some(Unit::Linear(cat, names[0], *f));
            }
        }
        for (canon, names) in TEMPERATURES {
            if names.iter().any(|n| eq(n)) {
                return Some(Unit::Temperature(canon));
            }
        }
    }
    None
}

fn to_kelvin(v: f64, u: &str) -> f64 {
    match u {
        "C" => v + 273.15,
        "F" => (v - 32.0) * 5.0 / 9.0 + 273.15,
        _ => v,
    }
}

fn from_kelvin(k: f64, u: &str) -> f64 {
    match u {
        "C" => k - 273.15,
        "F" => (k - 273.15) * 9.0 / 5.0 + 32.0,
        _ => k,
    }
}

/// Rounds away binary noise (0.30000000000000004 -> 0.3) by keeping 12 significant digits.
fn tidy(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    format!("{:.11e}", x).parse().unwrap_or(x)
}

fn unit_arg<'a>(args: &'a Value, key: &str) -> Result<&'a str, String> {
    match args.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(format!("argument '{}' must be a string, got a {}", key, other.type_name())),
        None => Err(format!("argument '{}' is required", key)),
    }
}

fn known_units() -> String {
    let mut cats: Vec<String> = Vec::new();
    for (cat, names, _) in UNITS {
        match cats.iter_mut().find(|c| c.starts_with(&format!("{}:", cat))) {
            Some(c) => {
                c.push_str(", ");
                c.push_str(names[0]);
            }
            None => cats.push(format!("{}: {}", cat, names[0])),
        }
    }
    cats.push("temperature: C, F, K".to_string());
    cats.join("; ")
}

fn convert(args: &Value) -> Result<Value, String> {
    let value = match args.get("value") {
        Some(Value::Number(n)) => *n,
        Some(other) => return Err(format!("argument 'value' must be a number, got a {}", other.type_name())),
        None => return Err("argument 'value' is required".to_string()),
    };
    let from_name = unit_arg(args, "from")?;
    let to_name = unit_arg(args, "to")?;
    let unknown = |n: &str, k: &str| format!("argument '{}': unknown unit '{}'. Known units: {}", k, n, known_units());
    let from = lookup(from_name).ok_or_else(|| unknown(from_name, "from"))?;
    let to = lookup(to_name).ok_or_else(|| unknown(to_name, "to"))?;
    let (category, from_c, to_c, result) = match (&from, &to) {
        (Unit::Linear(c1, n1, f1), Unit::Linear(c2, n2, f2)) if c1 == c2 => (*c1, *n1, *n2, value * f1 / f2),
        (Unit::Temperature(a), Unit::Temperature(b)) => {
            let k = to_kelvin(value, a);
            if k < 0.0 {
                return Err(format!("{} {} is below absolute zero", value, a));
            }
            ("temperature", *a, *b, from_kelvin(k, b))
        }
        _ => {
            let cat = |u: &Unit| match u {
                Unit::Linear(c, _, _) => *c,
                Unit::Temperature(_) => "temperature",
            };
            return Err(format!(
                "cannot convert {} ({}) to {} ({}): the units measure different things",
                from_name,
                cat(&from),
                to_name,
                cat(&to)
            ));
        }
    };
    if !result.is_finite() {
        return Err("the result is too large to represent".to_string());
    }
    Ok(Value::Object(vec![
        ("value".to_string(), Value::Number(value)),
        ("from".to_string(), Value::String(from_c.to_string())),
        ("to".to_string(), Value::String(to_c.to_string())),
        ("result".to_string(), Value::Number(tidy(result))),
        ("category".to_string(), Value::String(category.to_string())),
    ]))
}

#[no_mangle]
pub extern "C" fn convert_units() -> i32 {
    toolgate_pdk::run(convert)
}
