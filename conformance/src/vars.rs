//! Variables shared between discovery, contract cases and the fixtures file: `${name}` in a
//! string is replaced by the variable's value. A string that is exactly one `${name}` takes
//! the variable's JSON value as it is (an array stays an array).

use std::collections::BTreeMap;

use serde_json::Value;

/// A name → value map with lookups that report what is missing. `Debug` lists the names
/// only, since values may be OAuth secrets.
#[derive(Clone, Default)]
pub struct Vars {
    values: BTreeMap<String, Value>,
}

impl std::fmt::Debug for Vars {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.values.keys()).finish()
    }
}

impl Vars {
    /// Binds a variable.
    pub fn set(&mut self, name: impl Into<String>, value: Value) {
        self.values.insert(name.into(), value);
    }

    /// Looks a variable up.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.values.get(name)
    }

    /// Replaces `${name}` throughout a value. `Err` names the first unbound variable.
    pub fn substitute(&self, v: &Value) -> Result<Value, String> {
        Ok(match v {
            Value::String(s) => self.substitute_str(s)?,
            Value::Array(a) => Value::Array(
                a.iter()
                    .map(|x| self.substitute(x))
                    .collect::<Result<_, _>>()?,
            ),
            Value::Object(m) => Value::Object(
                m.iter()
                    .map(|(k, x)| Ok((k.clone(), self.substitute(x)?)))
                    .collect::<Result<_, String>>()?,
            ),
            other => other.clone(),
        })
    }

    fn substitute_str(&self, s: &str) -> Result<Value, String> {
        if let Some(name) = whole_reference(s) {
            return self
                .values
                .get(name)
                .cloned()
                .ok_or_else(|| name.to_string());
        }
        let mut out = String::new();
        let mut rest = s;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let end = after
                .find('}')
                .ok_or_else(|| format!("unterminated ${{ in {s:?}"))?;
            let name = &after[..end];
            let value = self.values.get(name).ok_or_else(|| name.to_string())?;
            match value {
                Value::String(x) => out.push_str(x),
                other => out.push_str(&other.to_string()),
            }
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(Value::String(out))
    }
}

/// `Some(name)` when `s` is exactly `${name}`.
pub fn whole_reference(s: &str) -> Option<&str> {
    let inner = s.strip_prefix("${")?.strip_suffix('}')?;
    (!inner.contains('}') && !inner.contains("${")).then_some(inner)
}

/// Names of all variables a value refers to.
pub fn references(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => {
            let mut rest = s.as_str();
            while let Some(start) = rest.find("${") {
                let after = &rest[start + 2..];
                let Some(end) = after.find('}') else { break };
                out.push(after[..end].to_string());
                rest = &after[end + 1..];
            }
        }
        Value::Array(a) => a.iter().for_each(|x| references(x, out)),
        Value::Object(m) => m.values().for_each(|x| references(x, out)),
        _ => {}
    }
}

/// Reads a JSON Pointer with one extension: a `*` segment maps the rest of the pointer over
/// every item of an array and collects the results into an array.
pub fn pointer(v: &Value, ptr: &str) -> Option<Value> {
    if ptr.is_empty() {
        return Some(v.clone());
    }
    let rest = ptr.strip_prefix('/')?;
    let (head, tail) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    if head == "*" {
        let items = v.as_array()?;
        return Some(Value::Array(
            items.iter().filter_map(|i| pointer(i, tail)).collect(),
        ));
    }
    let key = head.replace("~1", "/").replace("~0", "~");
    let next = match v {
        Value::Object(m) => m.get(&key)?,
        Value::Array(a) => a.get(key.parse::<usize>().ok()?)?,
        _ => return None,
    };
    pointer(next, tail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn substitutes_whole_values_and_inside_strings() {
        let mut vars = Vars::default();
        vars.set("ids", json!([1, 2]));
        vars.set("name", json!("Ada"));
        assert_eq!(vars.substitute(&json!("${ids}")).unwrap(), json!([1, 2]));
        assert_eq!(
            vars.substitute(&json!({"n": "Dr ${name}!"})).unwrap(),
            json!({"n": "Dr Ada!"})
        );
        assert_eq!(vars.substitute(&json!(["${nope}"])).unwrap_err(), "nope");
    }

    #[test]
    fn pointer_star_collects() {
        let v = json!([{"id": 1}, {"id": 2}, {"x": 3}]);
        assert_eq!(pointer(&v, "/*/id"), Some(json!([1, 2])));
        assert_eq!(pointer(&v, "/1/id"), Some(json!(2)));
        assert_eq!(pointer(&v, "/5/id"), None);
        assert_eq!(pointer(&v, ""), Some(v.clone()));
    }
}
