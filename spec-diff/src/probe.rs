//! Values that show what a change does, where reading the two schemas cannot say it:
//! whether a rewritten `pattern` refuses strings the old one took. Inclusion of one
//! regular language in another is not worked out; instead strings are generated from the
//! old pattern (within the old length limits, by the harness's own value generator) and
//! each is tried against the new pattern. A string the new one refuses is a proof, and the
//! report names it; none refused is evidence, not proof, and is reported as such.

use schema_values::Generator;
use serde_json::{Value, json};

/// How many strings the old pattern is sampled for.
const SAMPLES: usize = 64;

/// The string constraints of a schema node, as a schema of their own.
fn strings(node: &Value, pattern: &str) -> Value {
    let mut s = json!({"type": "string", "pattern": pattern});
    for keyword in ["minLength", "maxLength"] {
        if let Some(v) = node.get(keyword) {
            s[keyword] = v.clone();
        }
    }
    s
}

/// A string the old node's pattern (and lengths) takes and the new pattern refuses, when
/// one of the generated ones is; `Err` when no string could be generated from the old
/// pattern (a regex the generator does not read).
pub fn refused_by_new_pattern(
    old: &Value,
    new: &Value,
    old_pattern: &str,
    new_pattern: &str,
) -> Result<Option<String>, String> {
    let doc = json!({"openapi": "3.1.0", "info": {"title": "probe", "version": "1"}, "paths": {}});
    let generator = Generator::new(&doc);
    let before = strings(old, old_pattern);
    let after = strings(new, new_pattern);
    // Seeded: the same two documents give the same report.
    let taken = generator
        .variants(&before, 0x5eed, SAMPLES)
        .map_err(|e| e.to_string())?;
    Ok(taken
        .into_iter()
        .filter(|v| generator.validate(&after, v).is_err())
        .filter_map(|v| v.as_str().map(str::to_owned))
        .next())
}
